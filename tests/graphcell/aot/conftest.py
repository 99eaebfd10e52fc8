"""Artifacts built once per test session (export takes tens of milliseconds, but many tests read
the same file), and the graph-mode context reset after each test."""
import pytest

import graphcell as ms
from graphcell import context

import aot_nets as nets


@pytest.fixture(autouse=True)
def _pynative_after_each_test():
    context._reset_for_tests()
    yield
    context._reset_for_tests()


@pytest.fixture(scope="session")
def artifact_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("artifacts")


@pytest.fixture(scope="session")
def mlp_artifact(artifact_dir):
    """(path, net, x): an exported MLP and what it was exported with."""
    ms.set_seed(1)
    net = nets.MLP()
    x, _ = nets.inputs()
    return ms.export(net, x, file_name=str(artifact_dir / "mlp")), net, x
