"""Write ``graphcell/_compat/mindspore_mint_api.txt``: the public names of MindSpore 2.10's
``mindspore.mint`` and its sub-namespaces (run once, in the MindSpore venv)::

    /opt/msvenv/bin/python tools/list_mint_api.py

A name is public when ``dir()`` of the module shows it without a leading underscore, it is not a
module, and it is not one of the helpers MindSpore's mint modules import for their own use
(``INTERNAL``: decorators, primitive instances, ``_ext`` implementation functions); names that
the module's ``__all__`` lists are always kept. The file has one ``namespace<TAB>name`` line per
name, grouped by namespace.
"""
from __future__ import annotations

import types
from pathlib import Path

import mindspore.mint as mint
import mindspore.mint.linalg as linalg
import mindspore.mint.nn as nn
import mindspore.mint.nn.functional as functional
import mindspore.mint.optim as optim
import mindspore.mint.special as special

OUT = Path(__file__).resolve().parent.parent / "graphcell" / "_compat" / "mindspore_mint_api.txt"
MODULES = (mint, nn, functional, optim, linalg, special)
INTERNAL = {"absolute_import", "constexpr", "jit_forbidden_register", "jit_view_unsupported",
            "Tensor", "Cell", "cdist_", "equal_ext_op", "flatten_ext", "softmax_ext",
            "squeeze_impl", "kl_div_ext", "mse_loss_ext", "nllloss", "upsample_bilinear2d_op",
            "upsample_nearest2d_op", "adaptive_avg_pool3d_ext", "elu_ext", "hardtanh_op",
            "norm_ext", "silu_func", "threshold_op", "inplace_elu", "inplace_silu", "round_op",
            "cross_entropy", "broadcast_to", "clamp"}
"""Helpers mint's modules import for themselves (documented nowhere as ``mint`` API)."""


def public_names(module) -> list[str]:
    listed = set(getattr(module, "__all__", ()))
    names = []
    for name in dir(module):
        value = getattr(module, name)
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        if name in INTERNAL and name not in listed:
            continue
        names.append(name)
    return names


def main() -> None:
    lines = ["# MindSpore 2.10's mindspore.mint names (written by tools/list_mint_api.py; read by",
             "# graphcell/_compat/__init__.py and tools/api_coverage.py). namespace<TAB>name."]
    for module in MODULES:
        lines += [f"{module.__name__}\t{name}" for name in public_names(module)]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT} ({len(lines) - 2} names)")


if __name__ == "__main__":
    main()
