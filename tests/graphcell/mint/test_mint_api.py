"""``graphcell.mint``'s namespaces: MindSpore's import paths, and the errors for missing names."""
import importlib

import pytest

import graphcell as ms
from graphcell._compat import mint_names


def test_import_paths_are_mindspores():
    from graphcell.mint import nn  # noqa: F401
    from graphcell.mint.nn import functional as F
    assert ms.mint.nn.functional is F
    assert importlib.import_module("graphcell.mint.optim") is ms.mint.optim
    assert ms.mint.special.exp2 is ms.mint.exp2 and ms.mint.linalg.vector_norm


@pytest.mark.parametrize("namespace", sorted(mint_names()))
def test_a_missing_mint_name_points_to_the_coverage_page(namespace):
    module = importlib.import_module("graphcell" + namespace[len("mindspore"):])
    missing = sorted(n for n in mint_names()[namespace] if not hasattr(module, n))
    if not missing:
        pytest.skip(f"every name of {namespace} is provided")
    with pytest.raises(AttributeError, match=r"MindSpore API that graphcell does not implement.*"
                                             r"docs/api_coverage.md"):
        getattr(module, missing[0])


def test_a_name_mint_lacks_too_is_a_plain_attribute_error():
    with pytest.raises(AttributeError, match="module 'graphcell.mint.nn' has no attribute "
                                             "'NoSuchLayer'$"):
        ms.mint.nn.NoSuchLayer  # noqa: B018


def test_every_public_name_is_mindspores():
    """graphcell.mint adds no names of its own (its __all__ is a subset of MindSpore's)."""
    for namespace, names in mint_names().items():
        module = importlib.import_module("graphcell" + namespace[len("mindspore"):])
        assert set(module.__all__) <= set(names), (namespace, set(module.__all__) - set(names))


def test_bad_arguments_name_the_function():
    x = ms.ops.ones((2, 3))
    with pytest.raises(ValueError, match="mint.dot: both inputs must be 1-D"):
        ms.mint.dot(x, x)
    with pytest.raises(ValueError, match="mint.nn.functional.relu: inplace=True"):
        ms.mint.nn.functional.relu(x, inplace=True)
    with pytest.raises(ValueError, match="mint.randn: .*generator must be None"):
        ms.mint.randn(2, generator=ms.Generator())
    assert ms.mint.randn(2, generator=ms.default_generator).shape == (2,)
    with pytest.raises(ValueError, match="padding must be 'same', 'valid'"):
        ms.mint.nn.functional.conv2d(ms.ops.ones((1, 1, 3, 3)), ms.ops.ones((1, 1, 2, 2)),
                                     padding="full")
    with pytest.raises(ValueError, match="Conv2d: in_channels .* divisible by groups"):
        ms.mint.nn.Conv2d(3, 4, 3, groups=2)
