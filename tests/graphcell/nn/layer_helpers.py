"""Helpers of the layer tests: run a cell in PyNative and compiled (graph mode)."""
from __future__ import annotations

import graphcell as ms


def both_modes(cell, *args):
    """``[PyNative output, graph-mode output]`` of ``cell(*args)``."""
    def call(*xs):
        return cell(*xs)
    return [cell(*args), ms.jit(call)(*args)]
