"""What the command line compiles: ``FILE.py:NAME`` targets, ``f32[2,3]`` input specs, and the IR
of a network after each pass.

Example::

    >>> parse_input_spec("f32[32,1,32,32]")
    (Float32, (32, 1, 32, 32))
    >>> parse_input_spec("int32[]")
    (Int32, ())
"""
from __future__ import annotations

import importlib.util
import os
import re
import sys
from contextlib import contextmanager

import numpy as np

from graphcell_ir.ir.types import DType, to_dtype

__all__ = ["parse_input_spec", "example_inputs", "load_target", "ir_stages", "TargetError"]

_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[\s*([0-9,\s]*)\]\s*$")
_SHORT = {d.short: d for d in DType}


class TargetError(ValueError):
    """A ``FILE.py:NAME`` or an input spec the command line cannot use."""


def parse_input_spec(text: str) -> tuple[DType, tuple[int, ...]]:
    """``"f32[2,3]"`` (or ``float32[2,3]``, ``i32[]``, ``bool[4]``) -> ``(dtype, shape)``."""
    m = _SPEC.match(text)
    if m is None:
        raise TargetError(f"input spec {text!r} is not DTYPE[DIMS], e.g. f32[32,1,32,32] or i32[]")
    name, dims = m.groups()
    try:
        dtype = _SHORT[name] if name in _SHORT else to_dtype(name)
    except (TypeError, ValueError, KeyError):
        raise TargetError(f"input spec {text!r}: unknown dtype {name!r} (use f32, f64, i32, "
                          "i64, bool, ...)") from None
    shape = tuple(int(d) for d in dims.replace(" ", "").split(",") if d)
    return dtype, shape


def example_inputs(specs) -> tuple:
    """Zero Tensors of the given specs (strings or ``(dtype, shape)``)."""
    from graphcell.tensor import Tensor
    out = []
    for s in specs:
        dtype, shape = parse_input_spec(s) if isinstance(s, str) else s
        out.append(Tensor._wrap(np.zeros(shape, dtype.np_dtype)))
    return tuple(out)


def load_target(target: str):
    """The object ``FILE.py:NAME`` names: a Cell class (instantiated with no arguments), a Cell,
    or a function. The file is imported by path (its directory first on ``sys.path``)."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise TargetError(f"expected FILE.py:NAME, got {target!r}")
    if not os.path.isfile(path):
        raise TargetError(f"{path}: no such file")
    module = _import_path(path)
    if not hasattr(module, name):
        have = ", ".join(n for n in vars(module) if not n.startswith("_"))
        raise TargetError(f"{path} has no {name!r} (it defines {have})")
    return _instantiate(getattr(module, name), f"{path}:{name}")


def _import_path(path: str):
    path = os.path.abspath(path)
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    mod_name = f"_graphcell_target_{stem}_{abs(hash(path)) % 10**8}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"{path}: cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(mod_name, None)
        raise
    return module


def _instantiate(obj, where: str):
    from graphcell.nn.cell import Cell
    if isinstance(obj, type):
        if not issubclass(obj, Cell):
            raise TargetError(f"{where} is a class but not a Cell")
        try:
            return obj()
        except TypeError as e:
            raise TargetError(f"{where}: the Cell class must be constructible with no "
                              f"arguments ({e}); name an instance instead") from None
    if isinstance(obj, Cell) or callable(obj):
        return obj
    raise TargetError(f"{where} is a {type(obj).__name__}, not a Cell or a function")


# --- the IR after each pass ----------------------------------------------------------------------

@contextmanager
def _jit_level(level: str):
    from graphcell import context
    old = context.get_context("jit_level")
    context.set_context(jit_level=level)
    try:
        yield
    finally:
        context.set_context(jit_level=old)


def _unoptimized(net, inputs: tuple, grad: bool):
    """The frontend's IR of ``net`` (or of its gradient) for ``inputs``: (module, function)."""
    from graphcell.aot.exporter import staged_of
    with _jit_level("O0"):
        if grad:
            import graphcell as ms
            from graphcell.graph import grad as graph_grad
            from graphcell.nn.cell import Cell
            weights = net.trainable_params() if isinstance(net, Cell) else None
            grad_fn = ms.grad(net, grad_position=0, weights=weights or None)
            program = graph_grad.lower(grad_fn, inputs).program
        else:
            program = staged_of(net, "O0").lower(inputs, {}).program
    return program.module, program.function


def ir_stages(net, inputs: tuple, grad: bool = False, locs: str = "user",
              width: int | None = 100) -> list[tuple[str, str, dict]]:
    """``[(stage, text, consts), ...]``: the IR from the frontend, then after each pass of the
    default pipeline (the last stage, ``final``, is what graph mode runs); ``locs`` and
    ``width`` as ``print_module`` takes them."""
    from graphcell_ir.frontend.grads import prune
    from graphcell_ir.passes.manager import PassManager
    from graphcell_ir.passes.pipelines import DEFAULT, resolve
    from graphcell_ir.text.printer import print_module
    module, fn = _unoptimized(net, inputs, grad)
    stages = [("frontend", print_module(module, locs=locs, width=width), dict(module.consts))]

    def observe(report, m):
        stages.append((report.name, print_module(m, locs=locs, width=width), dict(m.consts)))

    PassManager(resolve(DEFAULT)).run(module, observe=observe)
    prune(module, fn)
    stages.append(("final", print_module(module, locs=locs, width=width), dict(module.consts)))
    return stages
