"""Fixtures of the dataset tests: a clean pipeline seed around every test."""
import pytest

from graphcell.dataset.core import config


@pytest.fixture(autouse=True)
def unseeded_pipeline():
    """Each test starts as a fresh process does: no dataset seed set (shuffles vary)."""
    saved = dict(config._settings)
    config._settings["seed"] = None
    yield
    config._settings.update(saved)
