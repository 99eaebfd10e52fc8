"""``Staged``: the compile cache of one function for one ``self``, and the hot path of a call.

What a compiled version is keyed by (DESIGN §4, §10.9), cheapest test first:

1. the function and its ``self`` object (one ``Staged`` each; a cell keeps its own in its
   ``__dict__``, so a hit never walks the cell tree);
2. the input signature: dtype and shape of every Tensor argument, type and value of every Python
   argument, the structure of tuple/list arguments — and the ``training`` flag of ``self``;
3. the guards (``guards.py``): every attribute of every cell the compile read (``self.value``,
   sub-cells, Parameters, flags such as a sub-cell's ``training``) is still the same object, and
   no hook was registered or removed on a cell it met;
4. the shapes and dtypes of the Parameters the function takes (``set_data`` may change a shape).

Kept cheap because a compiled step runs in tens of microseconds: a call by position is not bound
through ``inspect`` (``construct(self, *inputs)`` takes its arguments as they are), the hook
tables of all cells are one counter (``guards.py``), and a Parameter array already checked, or
written back by the last call (which keeps the compiled shape and dtype), is recognised by
identity rather than its shape and dtype compared again.

A call that matches all four runs the compiled function; any other call compiles, and the log
says why (``CacheLog``). Several versions are kept per signature (``set_train()`` /
``set_train(False)`` alternating does not recompile each time). A compile or a first run that
fails leaves the cache as it was. Calls may come from several threads: a version's table is
changed under a lock (two threads that miss at once both compile; both versions are kept).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> @ms.jit
    ... def double(x):
    ...     return ops.mul(x, 2.0)
    >>> _ = double(ms.Tensor(np.ones(2, np.float32))); _ = double(ms.Tensor(np.ones(2, np.float32)))
    >>> _ = double(ms.Tensor(np.ones(3, np.float32)))
    >>> print(double.cache_log)
    double: 1 hit, 2 compiles
      compile 1: first call (x f32[2])
      compile 2: new input signature: x f32[2] -> f32[3] (x f32[3])
"""
from __future__ import annotations

import inspect
import threading
from operator import attrgetter, is_
from typing import Any, Callable

from graphcell.graph.compile import Compiled, compile_call
from graphcell.graph.entry import Entry, hooked_call
from graphcell.graph.log import CacheLog, LiveSet
from graphcell.graph.signature import InputError, arg_specs, describe_spec, flatten
from graphcell.nn.cell import Cell
from graphcell.runtime.hooks import compiled_run, has_grad_callbacks

__all__ = ["Staged", "MAX_VERSIONS", "MAX_ENTRIES"]

MAX_VERSIONS = 8
"""Compiled versions kept per input signature (differing in guards: flags, attributes...)."""
MAX_ENTRIES = 64
"""Compiled versions kept per staged function; the oldest is dropped first."""

_SHAPE_DTYPE = attrgetter("shape", "dtype")
_DATA = attrgetter("_data")
ALL = LiveSet()
"""Every live Staged (``graphcell.graph.clear_cache()`` clears them all)."""


class Staged:
    """The compiled versions of ``fn`` bound to ``self_obj`` (None for a plain function).

    ``call_cell=True`` makes it the graph-mode call of a cell: when the cell has forward hooks,
    they are compiled in with ``construct`` (MindSpore 2.x runs them in graph mode too).
    ``jit_level`` overrides the context's for this function (``jit(f, jit_level="O0")``).
    """

    def __init__(self, fn: Callable, self_obj: Any, name: str, call_cell: bool = False,
                 jit_level: str | None = None):
        self.fn = fn
        self.jit_level = jit_level
        self.self_obj = self_obj
        self.name = name
        self.call_cell = call_cell
        self.log = CacheLog(name)
        ALL.add(self)
        self._is_cell = isinstance(self_obj, Cell)
        self._entries: dict[tuple, list[Compiled]] = {}
        self._order: list[tuple[tuple, Compiled]] = []   # oldest first, for eviction
        self._last: tuple[tuple, Compiled, tuple] | None = None   # key, version, args specs
        self._lock = threading.Lock()   # held while the tables above change
        self._signature, self._arg_names, self._n_fixed, self._open = _signature_of(
            fn, self_obj is not None)
        # (a cell's set_inputs tuple, the argument signatures that fit it): bridge.py's
        self.declared_fits: tuple | None = None

    # --- calling -------------------------------------------------------------------------------

    def __call__(self, args: tuple, kwargs: dict | None = None):
        """Run the compiled version for ``args`` (compiling first when there is none)."""
        kw = _NO_KWARGS
        n = len(args)   # _needs_bind, inline: this is the hot path of every call
        if kwargs or n < self._n_fixed or (n > self._n_fixed and not self._open):
            args, kw = self._bind(args, kwargs or {})
        training = self.self_obj.__dict__.get("training") if self._is_cell else None
        try:
            key, leaves = flatten(args + tuple(kw.values()) if kw else args, training)
        except InputError as e:
            raise InputError(f"{self.name}: {e}") from None
        if kw:
            key += (tuple(kw),)
        versions = self._entries.get(key)
        if versions is not None:
            for c in versions:
                if c.guards.hold():
                    seen = c.seen   # a list nobody changes: the executable may take it as it is
                    if all(map(is_, map(_DATA, c.params), seen)):
                        return self._run(c, leaves, seen)
                    arrays = list(map(_DATA, c.params))
                    if _params_fit(c, arrays):
                        return self._run(c, leaves, arrays)
        return self._miss(key, leaves, args, kw)

    def _run(self, c: Compiled, leaves: list, arrays: list):
        self.log.hits += 1
        out = c.executable(leaves, arrays)
        # not when the run failed; a run that writes no Parameter leaves the arrays it was given
        c.seen = list(map(_DATA, c.params)) if c.program.mutated else arrays
        return out

    def _miss(self, key: tuple, leaves: list, args: tuple, kw: dict):
        for c in self._entries.get(key, ()):
            if not c.guards.hold() and c.guards.explain() is None:
                c.guards.refresh()  # an attribute set again to an equal value: nothing changed
            if c.guards.hold():
                arrays = list(map(_DATA, c.params))
                if _params_fit(c, arrays):
                    return self._run(c, leaves, arrays)
        reason = self._reason(key, args)
        compiled = self._compile(args, kw)
        out = compiled.executable(leaves, list(map(_DATA, compiled.params)))
        self._store(key, compiled, args, reason)  # only once the first run succeeded
        compiled.seen = list(map(_DATA, compiled.params))
        return out

    def _needs_bind(self, n: int) -> bool:
        """Whether ``n`` positional arguments (no keywords) need binding: defaults to fill in,
        or too many (the signature's error)."""
        return n < self._n_fixed or (n > self._n_fixed and not self._open)

    def _bind(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """``(positional arguments, keyword arguments)`` of a call, defaults filled in: the
        keyword ones are the keyword-only parameters and ``**kwargs`` (in the signature's
        order, then the call's)."""
        if self._signature is None:
            if kwargs:
                raise TypeError(f"{self.name}: its arguments can only be passed by position "
                                f"(got {', '.join(kwargs)} by keyword)")
            return tuple(args), _NO_KWARGS
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}: {e}") from None
        bound.apply_defaults()
        return tuple(bound.args), dict(bound.kwargs)

    # --- compiling -----------------------------------------------------------------------------

    def _compile(self, args: tuple, kw: dict) -> Compiled:
        fn, name = self.fn, self.name
        if self.call_cell:
            d = self.self_obj.__dict__
            if d.get("_forward_pre_hook") or d.get("_forward_hook") or \
                    d.get("_mixed_precision") is not None:
                # compiled as a call of the cell: the frontend inlines the hooks (and the casts
                # of to_float); the function is Cell.__call__. (Backward hooks alone change
                # nothing here: no gradient is taken by this call; ms.grad(cell) compiles the
                # cell's call with them.)
                fn, name = hooked_call(self.self_obj), f"{type(self.self_obj).__name__}.__call__"
        compiled = compile_call(fn, self.self_obj, args, kw, name=name,
                                arg_names=self._arg_names, jit_level=self.jit_level)
        if has_grad_callbacks(compiled.program.module):
            compiled.executable = _WithHooks(compiled.executable)
        return compiled

    def lower(self, args: tuple, kwargs: dict | None = None) -> Compiled:
        """Compile for ``args`` without running or caching (``jit(f).lower``)."""
        kw = _NO_KWARGS
        if kwargs or self._needs_bind(len(args)):
            args, kw = self._bind(args, kwargs or {})
        return self._compile(args, kw)

    def compile(self, args: tuple, kwargs: dict | None = None) -> Compiled:
        """Compile for ``args`` and cache the result without running it (``Cell.compile``)."""
        kw = _NO_KWARGS
        if kwargs or self._needs_bind(len(args)):
            args, kw = self._bind(args, kwargs or {})
        training = self.self_obj.__dict__.get("training") if self._is_cell else None
        key, _ = flatten(args + tuple(kw.values()) if kw else args, training)
        if kw:
            key += (tuple(kw),)
        for c in self._entries.get(key, ()):
            if c.guards.hold() and _param_change(c) is None:
                return c
        reason = self._reason(key, args)
        compiled = self._compile(args, kw)
        self._store(key, compiled, args, reason)
        return compiled

    def _store(self, key: tuple, compiled: Compiled, args: tuple, reason: str) -> None:
        with self._lock:
            versions = self._entries.setdefault(key, [])
            versions.insert(0, compiled)
            self._order.append((key, compiled))
            if len(versions) > MAX_VERSIONS:
                self._forget(key, versions[-1])
            if len(self._order) > MAX_ENTRIES:
                self._forget(*self._order[0])
            self._last = (key, compiled, tuple(arg_specs(args)))
            self.log.compiled(reason, compiled.signature)

    def _forget(self, key: tuple, compiled: Compiled) -> None:
        """Drop one version (the caller holds the lock)."""
        versions = self._entries.get(key, [])
        if compiled in versions:
            versions.remove(compiled)
        if not versions:
            self._entries.pop(key, None)
        self._order = [(k, c) for k, c in self._order if c is not compiled]

    def clear(self) -> None:
        """Forget every compiled version (the log is kept)."""
        with self._lock:
            self._entries.clear()
            self._order.clear()
            self._last = None

    # --- explaining ----------------------------------------------------------------------------

    def _reason(self, key: tuple, args: tuple) -> str:
        """Why this call compiles: compared with a version of the same signature when there is
        one (guards, parameter shapes), else with the last version compiled."""
        for c in self._entries.get(key, ()):
            why = c.guards.explain() or _param_change(c)
            if why:
                return why
        if self._last is None:
            return "first call"
        last_key, _, last_specs = self._last
        reasons = []
        if last_key[0] != key[0]:
            owner = type(self.self_obj).__name__
            reasons.append(f"training flag changed: {owner}.training {last_key[0]} -> {key[0]}")
        changed = [(n, describe_spec(a), describe_spec(b)) for n, a, b in
                   zip(self._names(len(args)), last_specs, arg_specs(args))
                   if not _same_spec(a, b)]
        if len(last_specs) != len(args):
            changed.append(("arguments", f"{len(last_specs)}", f"{len(args)}"))
        if changed:
            reasons.append("new input signature: " + ", ".join(f"{n} {a} -> {b}"
                                                                 for n, a, b in changed))
        return "; ".join(reasons) or "new input signature"

    def _names(self, n: int) -> list[str]:
        names = list(self._arg_names)[:n]
        return names + [f"arg{i}" for i in range(len(names), n)]


class _WithHooks:
    """The executable of a version that calls backward hooks: a hook's exception stops the run
    and is raised as PyNative raises it (``runtime/hooks.compiled_run``). Versions without hooks
    keep their executable as it is (no cost on the hot path)."""

    def __init__(self, executable):
        self.executable = executable

    def __call__(self, tensors: list, params: list):
        with compiled_run():
            return self.executable(tensors, params)

    def __getattr__(self, name: str):
        return getattr(self.executable, name)


def _same_spec(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same_spec(x, y) for x, y in zip(a, b))
    return a == b


def _params_fit(c: Compiled, arrays: list) -> bool:
    """Whether the Parameters' ``arrays`` have the shapes and dtypes ``c`` was compiled for."""
    return tuple(map(_SHAPE_DTYPE, arrays)) == c.param_sig


def _param_change(c: Compiled) -> str | None:
    for p, (shape, dtype) in zip(c.params, c.param_sig):
        d = p._data
        if d.shape != shape or d.dtype != dtype:
            old = describe_spec(_tensor_type(shape, dtype))
            return f"parameter shape changed: {p.name} {old} -> {describe_spec(_tensor_type(d.shape, d.dtype))}"
    return None


def _tensor_type(shape, dtype):
    from graphcell_ir.ir.types import TensorType, dtype_from_numpy
    return TensorType(dtype_from_numpy(dtype), tuple(shape))


_NO_KWARGS: dict = {}


def _signature_of(fn: Callable, bound: bool):
    """The call signature of ``fn`` without ``self``, the names of its positional parameters,
    how many a call that needs no binding passes, and whether more do too (``construct(self,
    *inputs)``: a call by position binds to its own arguments)."""
    if isinstance(fn, Entry):
        sig, bound = fn.signature, False
    else:
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
    if sig is None:
        return None, (), -1, False
    params = list(sig.parameters.values())
    if bound and params:
        params = params[1:]
    sig = sig.replace(parameters=params)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    has_var = any(p.kind is p.VAR_POSITIONAL for p in params)
    names = tuple(p.name for p in positional)
    plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                for p in params)
    n_fixed = len(positional) if plain else -1
    return sig, names, n_fixed, plain and has_var


class GraphCache(dict):
    """The compiled functions an object keeps (``obj.__dict__['_graph_cache']``).

    Copies of the object start with an empty cache: a compiled version refers to the original's
    Parameters and cells.
    """

    def __deepcopy__(self, memo):
        return GraphCache()

    def __copy__(self):
        return GraphCache()

    def __reduce__(self):
        return (GraphCache, ())
