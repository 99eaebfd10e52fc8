"""How long the fuzz tests run: bounded and repeatable in CI, longer for release checks.

The fuzz tests feed malformed or random input to the parts that read untrusted or arbitrary
input — the IR parser (``graphcell_ir/text/test_text_fuzz.py``), the artifact loader
(``graphcell/aot/test_artifact_errors.py``, ``test_native_load.py``) and the frontend
(``graphcell_ir/frontend/test_frontend_fuzz.py``) — and check that each answers with its own
error or a right result, never a crash. Each takes its settings from ``@fuzz(n)``, which follows
the hypothesis profile ``tests/conftest.py`` loads (``GRAPHCELL_HYPOTHESIS_PROFILE``):

- ``ci`` (the default; what CI and a plain ``pytest`` run): ``n`` examples per test,
  derandomized (the same inputs every run, so a failure reproduces and a pass means what it
  meant last time), no example database: seconds per test;
- ``release`` (before a release, and after changing the parser, the loader or the frontend):
  ``RELEASE_FACTOR * n`` examples, a fresh random seed every run, failures kept in
  ``.hypothesis/`` and replayed first by the next run::

      GRAPHCELL_HYPOTHESIS_PROFILE=release python -m pytest -q \\
          tests/graphcell_ir/text/test_text_fuzz.py tests/graphcell_ir/frontend/test_frontend_fuzz.py \\
          tests/graphcell/aot/test_artifact_errors.py tests/graphcell/aot/test_native_load.py

  (about 20x the CI time: several minutes.)
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("GRAPHCELL_HYPOTHESIS_PROFILE", "ci")
RELEASE_FACTOR = 20


def fuzz(examples: int) -> settings:
    """The settings of a fuzz test that runs ``examples`` examples in CI (see the module doc)."""
    if PROFILE == "release":
        return settings(max_examples=examples * RELEASE_FACTOR, derandomize=False,
                        deadline=None, suppress_health_check=list(HealthCheck))
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))
