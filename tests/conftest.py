"""Test-suite configuration: deterministic, bounded hypothesis runs everywhere."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=50, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", deadline=None, max_examples=200)
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
