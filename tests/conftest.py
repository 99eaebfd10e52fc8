"""Test-suite configuration: deterministic, bounded hypothesis runs everywhere (``ci``, the
default), more examples while developing (``dev``), long random runs for release checks
(``release``; the fuzz tests scale with it too: ``tests/fuzzing.py``). Choose with
``GRAPHCELL_HYPOTHESIS_PROFILE``."""
import os

from hypothesis import HealthCheck, Phase, settings

# ci does not shrink: in a green run the only failing examples are the strict xfails (known
# failures, data in the sample rows), and shrinking them cost minutes; a real failure is reported
# with its reproduction blob (print_blob), and the dev profile shrinks it.
settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=50, print_blob=True,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", deadline=None, max_examples=200)
settings.register_profile(
    "release", derandomize=False, deadline=None, max_examples=1000, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("GRAPHCELL_HYPOTHESIS_PROFILE", "ci"))


# --- both_modes: a PyNative test run again in GRAPH_MODE (issue 19) ------------------------------
# A test marked ``@pytest.mark.both_modes`` (or a module with ``pytestmark``) states what PyNative
# mode does — printed text, hook calls and their values, results. It is collected twice: as
# written, and with GRAPH_MODE as the default mode, so that its cells and gradients are compiled
# (hooks then run in compiled graphs). Passing both is "graph mode equals PyNative".

import pytest  # noqa: E402


def pytest_generate_tests(metafunc):
    if metafunc.definition.get_closest_marker("both_modes") is not None:
        metafunc.fixturenames.append("_run_mode")
        metafunc.parametrize("_run_mode", ["pynative", "graph"])


@pytest.fixture(autouse=True)
def _both_modes(request):
    """Sets the default mode of a ``both_modes`` test's run (nothing for other tests)."""
    callspec = getattr(request.node, "callspec", None)
    mode = callspec.params.get("_run_mode") if callspec is not None else None
    if mode is None:
        yield
        return
    import graphcell as ms
    from graphcell import context
    context._reset_for_tests()
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    yield
    context._reset_for_tests()
