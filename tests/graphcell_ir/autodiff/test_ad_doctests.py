"""The examples in the autodiff modules' docstrings run (and stay true)."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import graphcell_ir.autodiff as package

MODULES = sorted(m.name for m in pkgutil.iter_modules(package.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"graphcell_ir.autodiff.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
