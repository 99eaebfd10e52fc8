"""``python -m graphcell``: the ``graphcell`` command line (``graphcell --help``)."""
import sys

from graphcell.cli import main

sys.exit(main())
