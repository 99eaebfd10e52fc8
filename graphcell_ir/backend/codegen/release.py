"""An llvmlite module taken apart once its text is printed, so that no collector pass is needed
to free it.

llvmlite's IR is a graph of reference cycles: a function and its module, a block and its
function, a block's terminator and the blocks it branches to, a loop's phi and its increment.
Such garbage waits for Python's cyclic collector, which graph mode pauses while it compiles
(``graphcell/graph/gc_pause.py``): the collection when the compile re-enables it then walked
and freed ResNet-18's whole compile's IR — 37 modules, ~120K objects, of which ~100K were
llvmlite's — between the native step's build and its first call. :func:`release` clears the
attributes of a module's globals, blocks, instructions and arguments (whatever llvmlite names
them: each object's ``__dict__``), so reference counting frees them at once.

Example::

    >>> import llvmlite.ir as ir
    >>> m = ir.Module("m")
    >>> f = ir.Function(m, ir.FunctionType(ir.VoidType(), []), "f")
    >>> ir.IRBuilder(f.append_basic_block()).ret_void()
    <ir.Ret ...>
    >>> text = str(m)
    >>> release(m)   # m and f must not be used after this
"""
from __future__ import annotations

__all__ = ["release"]


def release(module) -> None:
    """Take llvmlite ``module`` apart (see the module docstring): it and every value it holds
    are unusable after, and freed as soon as nothing else refers to them."""
    for value in list(module.globals.values()):
        for block in getattr(value, "blocks", ()):
            for instruction in block.instructions:
                vars(instruction).clear()
            vars(block).clear()
        for argument in getattr(value, "args", ()):
            vars(argument).clear()
        vars(value).clear()
    vars(module).clear()
