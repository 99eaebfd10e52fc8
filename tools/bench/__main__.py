"""``python -m tools.bench``: issue 21's benchmarks (see ``run.py``)."""
import sys

from tools.bench.run import main

sys.exit(main())
