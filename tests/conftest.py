"""Test-suite configuration: deterministic, bounded hypothesis runs everywhere (``ci``, the
default), more examples while developing (``dev``), long random runs for release checks
(``release``; the fuzz tests scale with it too: ``tests/fuzzing.py``). Choose with
``GRAPHCELL_HYPOTHESIS_PROFILE``."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=50, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", deadline=None, max_examples=200)
settings.register_profile(
    "release", derandomize=False, deadline=None, max_examples=1000, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("GRAPHCELL_HYPOTHESIS_PROFILE", "ci"))
