"""The three faces of an operation, assembled from the family modules of ``graphcell.ops.function``.

MindSpore offers most operations three ways: a function (``ops.stack``), a Primitive class
(``ops.Stack(axis)``) and a Tensor method (``x.argmax()``). graphcell declares each operation once
— a registry primitive or a composite function in a family module — and the other faces are
aliases declared next to it:

- a family module's ``__all__`` lists its functional names and its Primitive classes
  (``Stack = primitive("Stack", stack, init=("axis",))``; any class listed there counts as one);
- its ``TENSOR_METHODS`` dict maps Tensor method names to functions whose first parameter is the
  tensor (the functional function itself when the signatures agree, a small adapter otherwise,
  or an :func:`overload` of several, as MindSpore 2.10's methods accept several signatures).

:func:`assemble` reads those declarations; ``graphcell.ops`` installs the result. A name declared
twice is an error, so two implementations of one face cannot coexist.

Example::

    >>> def argmax_axis(self, axis=None, keepdims=False): return ("axis", axis)
    >>> def argmax_dim(self, dim=None, keepdim=False): return ("dim", dim)
    >>> argmax = overload(argmax_axis, argmax_dim, name="argmax")
    >>> argmax(None, dim=1), argmax(None, 1)
    (('dim', 1), ('axis', 1))
"""
from __future__ import annotations

import inspect
import numbers
import types
from dataclasses import dataclass
from typing import Callable

import numpy as np



# --- overloaded signatures ---------------------------------------------------------------------

def _matches(value, annotation) -> bool:
    """Whether ``value`` fits a parameter annotation (unannotated parameters take anything)."""
    if annotation is inspect.Parameter.empty or annotation is object:
        return True
    if isinstance(annotation, types.UnionType):
        return any(_matches(value, a) for a in annotation.__args__)
    if annotation is None or annotation is type(None):
        return value is None
    if annotation is bool:
        return isinstance(value, (bool, np.bool_))
    if annotation is int:
        return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if annotation is float:
        return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if isinstance(annotation, type):
        return isinstance(value, annotation)
    return True  # typing constructs we do not check


@dataclass(frozen=True)
class _Candidate:
    fn: Callable
    signature: inspect.Signature

    def accepts(self, args: tuple, kwargs: dict) -> bool:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return False
        params = self.signature.parameters
        for name, value in bound.arguments.items():
            p = params[name]
            if p.kind is p.VAR_POSITIONAL:
                if not all(_matches(v, p.annotation) for v in value):
                    return False
            elif p.kind is not p.VAR_KEYWORD and not _matches(value, p.annotation):
                return False
        return True


def overload(*impls: Callable, name: str | None = None) -> Callable:
    """A function that runs the first of ``impls`` whose signature accepts the call.

    A parameter's annotation (``Tensor``, ``int``, ``tuple``, ``int | None``...) must match its
    argument; unannotated parameters take anything. No match is a TypeError listing the
    signatures, as MindSpore's overloaded Tensor methods report.
    """
    candidates = tuple(_Candidate(f, inspect.signature(f, eval_str=True)) for f in impls)
    label = name or impls[0].__name__
    # Which candidate accepts a call depends only on the arguments' types and the keywords'
    # names (the annotations are checked with isinstance), so the choice is remembered per such
    # key: binding a signature costs microseconds, a dict lookup a fraction of one.
    chosen: dict = {}

    def dispatch(*args, **kwargs):
        key = (tuple(map(type, args)), tuple((k, type(v)) for k, v in kwargs.items()))
        fn = chosen.get(key)
        if fn is not None:
            return fn(*args, **kwargs)
        for c in candidates:
            if c.accepts(args, kwargs):
                if len(chosen) < 256:
                    chosen[key] = c.fn
                return c.fn(*args, **kwargs)
        got = ", ".join([type(a).__name__ for a in args[1:]] +
                        [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        valid = "\n  ".join(f"{label}{_public(c.signature)}" for c in candidates)
        raise TypeError(f"Tensor.{label}() got ({got}); the valid calls are:\n  {valid}")

    dispatch.__name__ = dispatch.__qualname__ = label
    dispatch.__doc__ = impls[0].__doc__
    dispatch.__module__ = impls[0].__module__
    dispatch.overloads = tuple(c.fn for c in candidates)
    return dispatch


def _public(signature: inspect.Signature) -> str:
    """The signature as users write it: without ``self`` and without annotations."""
    params = [p.replace(annotation=inspect.Parameter.empty)
              for p in list(signature.parameters.values())[1:]]
    return str(signature.replace(parameters=params, return_annotation=inspect.Signature.empty))


# --- assembling the faces ----------------------------------------------------------------------

@dataclass
class Faces:
    """What the family modules declare: functional names, Primitive classes, Tensor methods."""

    functions: dict[str, Callable]
    primitives: dict[str, type]
    methods: dict[str, Callable]


def assemble(modules) -> Faces:
    """Read the declarations of ``modules``; a face declared twice raises ValueError."""
    faces = Faces({}, {}, {})
    origin: dict[str, str] = {}
    for module in modules:
        for name in module.__all__:
            obj = getattr(module, name)
            # classes are MindSpore's operator classes (Primitives, and the few that are not:
            # InsertGradientOf, ReduceOp): they belong to ``ops.operations`` too
            table = faces.primitives if isinstance(obj, type) else faces.functions
            _declare(table, name, obj, module.__name__, origin, "ops")
        for name, fn in getattr(module, "TENSOR_METHODS", {}).items():
            _declare(faces.methods, name, fn, module.__name__, origin, "Tensor")
    return faces


def _declare(table: dict, name: str, obj, module: str, origin: dict, space: str) -> None:
    key = f"{space}.{name}"
    if key in origin:
        raise ValueError(f"{key} is declared twice: in {origin[key]} and in {module}")
    origin[key] = module
    table[name] = obj
