"""Reverse-mode autodiff on the IR (DESIGN.md §6): :func:`grad_function` builds a Function that
returns a Function's outputs and its gradients, from the registry's bprop rules.

See ``vjp.py`` for the API and the conventions it shares with the frontend and the bridge, and
``replay.py`` for what is saved and what is recomputed through ``if`` and ``while``.
"""
from graphcell_ir.autodiff.vjp import DEFAULT_LOOP_CAPACITY, SENS_MODES, grad_function

__all__ = ["grad_function", "DEFAULT_LOOP_CAPACITY", "SENS_MODES"]
