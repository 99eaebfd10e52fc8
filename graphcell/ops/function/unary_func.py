"""Elementwise unary math (trigonometry, exponentials and logarithms, special functions, rounding,
predicates) with MindSpore's signatures, written against the functional API ``F``.
"""
from __future__ import annotations

from graphcell_ir.ops import functional as F

__all__: list[str] = []

# --- Tensor methods that are one registry op -------------------------------------------------------

TENSOR_METHODS = {name: getattr(F, name) for name in (
    "abs", "exp", "log", "sqrt", "square", "tanh", "sigmoid", "relu", "neg", "sign", "floor",
    "isnan")}
