"""Elementwise binary and n-ary arithmetic, comparison, logic and bitwise functions with
MindSpore's signatures, written against the functional API ``F``.
"""
from __future__ import annotations

__all__: list[str] = []

TENSOR_METHODS: dict = {}
