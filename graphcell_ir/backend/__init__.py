"""Execution: the reference interpreter (the oracle) and, later, the numba backend."""
