"""Test-suite configuration: deterministic, bounded hypothesis runs everywhere."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=50, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", deadline=None, max_examples=200)
settings.load_profile(os.environ.get("GRAPHCELL_HYPOTHESIS_PROFILE", "ci"))
