"""The API coverage page is current, and a missing MindSpore name says so."""
import pytest

import graphcell as ms
from graphcell import nn, ops
from tools import api_coverage


def test_coverage_page_is_current():
    assert api_coverage.main(["--check"]) == 0, \
        "docs/api_coverage.md is stale: run python tools/api_coverage.py"


@pytest.mark.parametrize("owner, namespace", [(ops, "ops"), (ops.operations, "ops"),
                                              (ops.functional, "ops")])
def test_a_missing_mindspore_name_points_to_the_coverage_page(owner, namespace):
    from graphcell._compat import mindspore_names
    missing = sorted(n for n in mindspore_names(f"mindspore.{namespace}") if not hasattr(owner, n))
    if not missing:
        pytest.skip("every MindSpore name of this namespace is provided")
    with pytest.raises(AttributeError, match="MindSpore API that graphcell does not implement.*"
                                             "docs/api_coverage.md"):
        getattr(owner, missing[0])


def test_a_name_mindspore_lacks_too_is_a_plain_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'$"):
        ops.no_such_name  # noqa: B018
