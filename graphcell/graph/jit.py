"""``graphcell.jit`` / ``graphcell.ms_function``: compile a function or a method, in either mode.

In PyNative mode a ``@jit`` function is *staged*: the rest of the program runs op by op, the
decorated function runs as one compiled graph (the seed's ``@ms_function def construct`` and
``add_fn``). In graph mode it compiles the same way. A call looks its inputs up in the compile
cache (``cache.py``) and compiles only when something it depends on changed; ``lower(*args)``
shows the IR without running, ``cache_log`` says what was compiled and why.

``jit`` on a method (``construct`` of a Cell, or any method) compiles it per object: each
instance has its own cache, kept with the instance.

While a PyNative gradient is being recorded (inside ``grad``/``GradOperation`` in PyNative mode),
a ``@jit`` function runs as Python so that the tape sees its ops. A gradient taken *inside* a
``@jit`` function (``ms.value_and_grad(net, None, weights)(x, y)``) is compiled with it, by IR
autodiff: the whole training step is one compiled function.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> add = ops.Add()
    >>> @ms.ms_function
    ... def add_fn(x, y):
    ...     return add(x, y)
    >>> x = ms.Tensor(np.ones([2, 2]).astype(np.float32))
    >>> add_fn(x, x).asnumpy()
    array([[2., 2.],
           [2., 2.]], dtype=float32)
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable

from graphcell import context
from graphcell.autodiff import GradFunction
from graphcell.graph.cache import GraphCache, Staged
from graphcell.graph.entry import entry_of
from graphcell.graph.errors import user_facing
from graphcell.graph.log import CacheLog
from graphcell.graph.lowered import Lowered
from graphcell.runtime import dispatch

__all__ = ["jit", "ms_function", "JitFunction", "staged_for"]

_JIT_OPTIONS = ("capture_mode", "jit_level", "dynamic", "fullgraph", "backend", "mode",
                "input_signature", "hash_args", "jit_config", "compile_once", "obj")


def jit(function: Callable | None = None, **options):
    """Compile ``function`` (a function or a method) into a graph; usable as ``@jit`` or
    ``@jit(...)``.

    MindSpore's keyword options are accepted (``capture_mode``, ``jit_level``, ``dynamic``,
    ``fullgraph``, ``backend``, ``input_signature``...); graphcell compiles from the source
    (``capture_mode='ast'``) and specialises on the inputs' shapes whatever they say.
    ``jit_level='O0'`` skips the pass pipeline for this function (default: the context's
    ``jit_level``). Returns a :class:`JitFunction`.
    """
    unknown = sorted(set(options) - set(_JIT_OPTIONS))
    if unknown:
        raise TypeError(f"jit: unexpected keyword argument(s) {', '.join(unknown)}")
    if options.get("capture_mode", "ast") != "ast":
        raise ValueError(f"jit: capture_mode={options['capture_mode']!r} is not supported; "
                         "graphcell compiles from the source (capture_mode='ast')")
    if function is None:
        return lambda fn: jit(fn, **options)
    if isinstance(function, JitFunction):
        return function
    if not callable(function):
        raise TypeError(f"jit: expected a function or a method, got {type(function).__name__}")
    level = options.get("jit_level")
    if level is not None:
        context.check_jit_level(level)
    return JitFunction(function, level)


def ms_function(fn: Callable | None = None, obj: Any = None, input_signature=None):
    """MindSpore 1.x's name for :func:`jit` (DESIGN §10.8); ``obj`` and ``input_signature`` are
    accepted and ignored."""
    return jit(fn) if fn is not None else jit


class JitFunction:
    """A function compiled on call. Used as a method, it compiles per instance."""

    def __init__(self, fn: Callable, jit_level: str | None = None):
        functools.update_wrapper(self, fn)
        self.__graphcell_jit__ = fn
        self.jit_level = jit_level
        self._staged: Staged | None = None

    def __call__(self, *args, **kwargs):
        if dispatch.recorder is not None:  # a PyNative gradient is being taken: run as Python
            return self.__graphcell_jit__(*args, **kwargs)
        return _run_staged(self._function_staged(), args, kwargs)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return BoundJit(self, obj)

    def _function_staged(self) -> Staged:
        if self._staged is None:
            fn = self.__graphcell_jit__
            if isinstance(fn, GradFunction):   # ms.jit(ms.grad(f)): the gradient's own cache
                from graphcell.graph import grad
                return grad.staged(fn)
            name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or \
                type(fn).__name__
            if not isinstance(fn, (types.FunctionType, types.MethodType)):
                fn = entry_of(fn)   # a cell or another callable object: compile its call
            self._staged = Staged(fn, None, name.split("<locals>.")[-1], jit_level=self.jit_level)
        return self._staged

    def lower(self, *args, **kwargs) -> Lowered:
        """The IR for these inputs, without running (``.as_text()`` prints it)."""
        return self._function_staged().lower(args, kwargs).lowered()

    @property
    def cache_log(self) -> CacheLog:
        """What was compiled, why, and how many calls hit the cache."""
        return self._function_staged().log

    def __repr__(self) -> str:
        fn = self.__graphcell_jit__
        return f"<jit {getattr(fn, '__qualname__', None) or type(fn).__name__}>"


class BoundJit:
    """A ``@jit`` method bound to an instance: compiles with the instance as ``self``."""

    __slots__ = ("_jit", "__self__")

    def __init__(self, jit_fn: JitFunction, obj: Any):
        self._jit = jit_fn
        self.__self__ = obj

    @property
    def __graphcell_jit__(self) -> Callable:
        return self._jit.__graphcell_jit__

    @property
    def __func__(self) -> JitFunction:
        return self._jit

    def __call__(self, *args, **kwargs):
        if dispatch.recorder is not None:
            return self._jit.__graphcell_jit__(self.__self__, *args, **kwargs)
        return _run_staged(self._staged(), args, kwargs)

    def _staged(self) -> Staged:
        return staged_for(self.__self__, self._jit.__graphcell_jit__, jit_level=self._jit.jit_level)

    def lower(self, *args, **kwargs) -> Lowered:
        return self._staged().lower(args, kwargs).lowered()

    @property
    def cache_log(self) -> CacheLog:
        return self._staged().log

    def __repr__(self) -> str:
        return f"<bound jit {self._jit.__graphcell_jit__.__qualname__} of {self.__self__!r}>"


def staged_for(obj: Any, fn: Callable, call_cell: bool = False,
               jit_level: str | None = None) -> Staged:
    """The :class:`Staged` of ``fn`` bound to ``obj``, kept in ``obj.__dict__``."""
    d = obj.__dict__
    cache = d.get("_graph_cache")
    if cache is None:
        cache = GraphCache()
        d["_graph_cache"] = cache
    key = (fn, call_cell)
    staged = cache.get(key)
    if staged is None:
        name = f"{type(obj).__name__}.{fn.__name__}"
        staged = cache[key] = Staged(fn, obj, name, call_cell=call_cell, jit_level=jit_level)
    return staged


@user_facing
def _run_staged(staged: Staged, args: tuple, kwargs: dict):
    return staged(args, kwargs)
