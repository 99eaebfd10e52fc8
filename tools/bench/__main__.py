"""``python -m tools.bench``: the backend benchmarks (see ``run.py``)."""
from tools.bench.run import main

main()
