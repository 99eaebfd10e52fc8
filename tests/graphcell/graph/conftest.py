"""Graph-mode tests: every test starts and ends in PyNative mode with default context keys."""
import pytest

import graphcell as ms
from graphcell import context


@pytest.fixture(autouse=True)
def _pynative_after_each_test():
    context._reset_for_tests()
    yield
    context._reset_for_tests()


@pytest.fixture
def graph_mode():
    """Run the test in GRAPH_MODE."""
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
