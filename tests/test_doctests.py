"""Every docstring example in graphcell and graphcell_ir runs, so the docs cannot rot.

(An explicit test rather than pytest's --doctest-modules, which also imports every conftest.py
under tests/ as a module named "conftest" and trips over two of them.)
"""
import doctest
import importlib
import pkgutil

import pytest

import graphcell
import graphcell_ir

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules():
    for pkg in (graphcell, graphcell_ir):
        yield pkg.__name__
        for info in pkgutil.walk_packages(pkg.__path__, prefix=pkg.__name__ + "."):
            if not info.name.endswith("__main__"):
                yield info.name


MODULES = sorted(_modules())


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS, verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed (see above)"


def test_the_docs_have_examples():
    finder = doctest.DocTestFinder()
    examples = sum(len(t.examples) for name in MODULES
                   for t in finder.find(importlib.import_module(name)))
    assert examples > 100  # a guard against the examples silently not being collected
