"""Gradient APIs: ``grad``, ``value_and_grad`` and ``ops.GradOperation``.

Each returns a :class:`GradFunction` holding a :class:`GradRequest` (what is differentiated, and
how the call's result is packed: DESIGN §10.6). Calling it:

- in PyNative mode, reduces to one call, ``_differentiate``: mark the chosen inputs and weights as
  gradient leaves, run the function while the tape records, walk the tape back from its output,
  and return one gradient per leaf — zeros for a leaf the output does not depend on;
- in ``GRAPH_MODE`` (unless a PyNative gradient is being recorded), compiles the gradient through
  IR autodiff (``graphcell/graph/grad.py``); inside compiled code (``construct``, ``@jit``) the
  frontend compiles the call in place (``graphcell_ir/frontend/grads.py``). Both modes pack the
  result with the same ``GradRequest.pack``.

Example::

    >>> import graphcell as ms
    >>> f = lambda x, y: (x * y).sum()
    >>> ms.grad(f, grad_position=(0, 1))(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0]))
    (Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  4.00000000e+00]), Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00]))
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Callable

from graphcell.context import GRAPH_MODE
from graphcell.context import _values as _context_values
from graphcell.runtime import dispatch, hooks, tape
from graphcell.runtime.tape import Node
from graphcell.tensor import Tensor
from graphcell_ir.ops import REGISTRY


def _name_of(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def _normalize_positions(grad_position, fn_name: str):
    if grad_position is None:
        return None, False
    if isinstance(grad_position, int) and not isinstance(grad_position, bool):
        return (grad_position,), True
    if isinstance(grad_position, (tuple, list)) and grad_position and all(
            isinstance(p, int) and not isinstance(p, bool) for p in grad_position):
        return tuple(grad_position), len(grad_position) == 1
    raise TypeError(f"grad of {fn_name}: grad_position must be an int, a non-empty tuple of ints or "
                    f"None, got {grad_position!r}")


def _normalize_weights(weights, fn_name: str):
    if weights is None:
        return None, False
    from graphcell.parameter import Parameter
    if isinstance(weights, Parameter):
        return (weights,), True
    ws = tuple(weights)
    bad = [w for w in ws if not isinstance(w, Parameter)]
    if bad:
        raise TypeError(f"grad of {fn_name}: weights must be Parameters, got "
                        f"{type(bad[0]).__name__}")
    return ws, False


@dataclass
class _Result:
    outputs: object          # what fn returned (untracked at top level)
    position_grads: tuple
    weight_grads: tuple


def _leaf_for_weight(p):
    """Make Parameter ``p`` a leaf in place (the function reads it through ``self``)."""
    saved = p._node
    if saved is not None and tape.is_recording():  # nested: an identity of its outer value
        outer = Tensor._wrap(p._data)
        outer._node = saved
        p._node = Node((outer,), (p,), lambda douts: (douts[0],), "weight:identity")
    else:
        p._node = Node((), (p,), None, "weight")
    return saved


def _split_outputs(out, has_aux: bool, fn_name: str) -> tuple:
    """The tensors to differentiate: every Tensor ``fn`` returned, in tuples, lists and dicts too
    (their sum is differentiated, as MindSpore does; numbers and strings give nothing)."""
    if has_aux:
        if not isinstance(out, tuple) or not out:
            raise TypeError(f"grad of {fn_name} with has_aux=True: the function must return a tuple "
                            f"(output, aux...), got {type(out).__name__}")
        out = out[0]
    return tuple(_tensors_in(out))


def _tensors_in(value):
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_in(v)


def _check_sens(sens, outs, fn_name: str):
    sens = _flat_tuple(sens)   # nested like the outputs: nn.LSTM's (output, (h, c))
    if len(sens) != len(outs):
        raise ValueError(f"grad of {fn_name}: sens has {len(sens)} value(s) but the function returned "
                         f"{len(outs)} output(s)")
    for s, o in zip(sens, outs):
        if not isinstance(s, Tensor) or s.shape != o.shape:
            raise ValueError(f"grad of {fn_name}: sens must match the output: expected a Tensor of "
                             f"shape {list(o.shape)}, got "
                             f"{list(s.shape) if isinstance(s, Tensor) else type(s).__name__}")
    return sens


def _flat_tuple(value) -> tuple:
    if not isinstance(value, tuple):
        return (value,)
    return tuple(x for item in value for x in _flat_tuple(item))


def _fill_like(t: Tensor, value) -> Tensor:
    from graphcell.runtime.dispatch import apply
    return apply(REGISTRY["fill"], (), {"dtype": t.dtype, "shape": t.shape, "value": value})


def _differentiate(fn, args: tuple, positions, weights, sens, has_aux: bool,
                   kwargs: dict | None = None) -> _Result:
    fn_name = _name_of(fn)
    nested = tape.is_recording()
    args = list(args)
    leaves, leaf_nodes = [], []
    for p in positions or ():
        if not -len(args) <= p < len(args):
            raise IndexError(f"grad of {fn_name}: grad_position {p} is out of range for "
                             f"{len(args)} argument(s)")
        if not isinstance(args[p], Tensor):
            raise TypeError(f"grad of {fn_name}: argument {p} must be a Tensor to be "
                            f"differentiated, got {type(args[p]).__name__}")
        original = args[p]
        args[p], node = tape.make_leaf(original, f"input{p}")
        leaves.append(args[p])
        leaf_nodes.append(node)
    saved_nodes = [(w, _leaf_for_weight(w)) for w in weights or ()]
    weight_nodes = [w._node for w, _ in saved_nodes]
    out, pos_grads, w_grads = None, (), ()
    try:
        with tape.recording():
            out = fn(*args, **(kwargs or {}))
        outs = _split_outputs(out, has_aux, fn_name)
        sens = (tuple(_fill_like(o, 1) for o in outs) if sens is None
                else _check_sens(sens, outs, fn_name))
        stop = {id(n) for n in leaf_nodes + weight_nodes}
        with nullcontext() if nested else tape.paused():
            grads = tape.backward(outs, sens, stop)
            hooks.flush_backward_hooks()
        pos_grads = tuple(_or_zeros(grads.get(id(n)), t) for n, t in zip(leaf_nodes, leaves))
        w_grads = tuple(_or_zeros(grads.get(id(n)), w) for n, (w, _) in zip(weight_nodes, saved_nodes))
    finally:
        if not nested:  # free the tape, even when fn or a bprop raised
            _release_all(out, leaves + [w for w, _ in saved_nodes] + list(pos_grads + w_grads))
        for w, saved in saved_nodes:
            w._node = saved
    return _Result(out, pos_grads, w_grads)


def _or_zeros(g, like: Tensor) -> Tensor:
    return _fill_like(like, 0) if g is None else g


def _release_all(out, extra: list) -> None:
    """Top level: free the tape so nothing is kept alive (and results are plain Tensors)."""
    flat = list(extra)
    stack = [out]
    while stack:
        v = stack.pop()
        if isinstance(v, (tuple, list)):
            stack.extend(v)
        elif isinstance(v, Tensor):
            flat.append(v)
    tape.release(tuple(flat))


@dataclass(frozen=True)
class _GradSpec:
    """What ``grad``/``value_and_grad`` differentiate, and the shape of what they return."""

    positions: tuple | None
    single_pos: bool
    weights: tuple | None
    single_w: bool

    @classmethod
    def of(cls, fn, grad_position, weights, api: str) -> "_GradSpec":
        fn_name = _name_of(fn)
        positions, single_pos = _normalize_positions(grad_position, fn_name)
        ws, single_w = _normalize_weights(weights, fn_name)
        if positions is None and ws is None:
            raise ValueError(f"{api} of {fn_name}: grad_position and weights cannot both be None")
        return cls(positions, single_pos, ws, single_w)

    def pack(self, position_grads: tuple, weight_grads: tuple):
        """DESIGN §10.6: a single position gives a bare Tensor; both kinds give (pos, weights)."""
        pos = position_grads[0] if self.single_pos else position_grads
        ws = weight_grads[0] if self.single_w else weight_grads
        if self.positions is not None and self.weights is not None:
            return pos, ws
        return pos if self.positions is not None else ws


@dataclass(frozen=True, eq=False)
class GradRequest:
    """What a gradient function differentiates, and how its call returns — read by PyNative
    (:meth:`GradFunction.__call__`) and by graph mode (the resolver's ``GradCall``) alike.

    ``positions``: the differentiated argument positions; None for every Tensor argument
    (``GradOperation(get_all=True)``). ``weights``: Parameters. ``sens_param``: the last call
    argument is the output's cotangent. ``has_aux``: only the first returned value is
    differentiated. ``pack(value, position_grads, weight_grads)`` builds what the call returns.
    ``api`` and ``options`` name the API and its settings (with the rest, the cache key).
    """

    fn: Any
    positions: tuple | None
    weights: tuple
    sens_param: bool
    has_aux: bool
    pack: Callable
    api: str
    options: tuple = ()

    @property
    def key(self) -> tuple:
        """What is differentiated and how (graph mode's compile cache key, with ``fn``)."""
        return (self.api, self.options, self.positions, tuple(id(w) for w in self.weights),
                self.sens_param, self.has_aux)

    @property
    def name(self) -> str:
        return f"{self.api} of {_name_of(self.fn)}"


class GradFunction:
    """What ``grad``, ``value_and_grad`` and ``GradOperation()(fn)`` return: call it with
    ``fn``'s arguments (keyword arguments are passed on and not differentiated).

    In PyNative mode the call runs ``fn`` on the tape. In ``GRAPH_MODE``, and wherever compiled
    code calls it (``construct``, a ``@jit`` function), the gradient is compiled — forward,
    backward and all — as one IR function (``graphcell/graph/grad.py``); ``lower(*args)`` shows
    that IR and ``cache_log`` what was compiled.
    """

    def __init__(self, request: GradRequest, name: str):
        self.request = request
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        if _context_values["mode"] == GRAPH_MODE and dispatch.recorder is None and \
                NO_WEIGHTS not in self.request.options:
            return _graph_grad().call(self, args, kwargs)
        return self._pynative(args, kwargs)

    def _pynative(self, args: tuple, kwargs: dict):
        r = self.request
        fn_name = _name_of(r.fn)
        sens = None
        if r.sens_param:
            if not args:
                raise TypeError(f"GradOperation(sens_param=True) of {fn_name}: the last argument "
                                "must be the sens (the output's gradient), got no arguments")
            *args, sens = args
        args = tuple(args)
        positions = r.positions
        if positions is None:
            positions = tuple(p for p, a in enumerate(args) if isinstance(a, Tensor))
        elif r.api == "GradOperation" and positions and not args:
            raise TypeError(f"GradOperation of {fn_name}: no input to differentiate")
        result = _differentiate(r.fn, args, positions, r.weights, sens, r.has_aux, kwargs)
        return r.pack(result.outputs, result.position_grads, result.weight_grads)

    def lower(self, *args):
        """The compiled gradient's IR for these arguments (``.as_text()`` prints it)."""
        return _graph_grad().lower(self, args)

    @property
    def cache_log(self):
        """What graph mode compiled for this gradient, and why."""
        return _graph_grad().staged(self).log

    def __repr__(self) -> str:
        return f"<{self.request.name}>"


def _graph_grad():
    from graphcell.graph import grad as graph_grad  # imports graphcell.graph: on first use
    return graph_grad


def _with_ids(spec: "_GradSpec", return_ids: bool):
    """The packing of gradients, with MindSpore's ``return_ids``: each gradient paired with its
    input position or its Parameter's name. As MindSpore 2.10 returns them: position pairs are a
    tuple of pairs, except one position next to weights, which is a bare pair; weight pairs are
    always a tuple."""
    if not return_ids:
        return spec.pack

    def pack(position_grads: tuple, weight_grads: tuple):
        pos = tuple(zip(spec.positions or (), position_grads))
        ws = tuple((w.name, g) for w, g in zip(spec.weights or (), weight_grads))
        if spec.positions is not None and spec.weights is not None:
            return (pos[0] if spec.single_pos else pos), ws
        return pos if spec.positions is not None else ws
    return pack


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """The function computing gradients of ``fn`` w.r.t. the inputs at ``grad_position`` and/or
    ``weights`` (MindSpore 2.x ``mindspore.grad`` / ``ops.grad``).

    ``grad_position`` is an int (a bare gradient), a tuple of ints, or None (weights only). With
    ``has_aux=True``, ``fn`` returns ``(output, aux...)``; only ``output`` is differentiated and the
    call returns ``(grads, (aux...))``. ``sens_param=True``: the call's last argument is the
    output's cotangent (the sens). ``return_ids=True`` pairs each gradient with its position or
    its Parameter's name. Returns a :class:`GradFunction`.
    """
    spec = _GradSpec.of(fn, grad_position, weights, "grad")
    pack_grads = _with_ids(spec, bool(return_ids))

    def pack(value, position_grads, weight_grads):
        grads = pack_grads(position_grads, weight_grads)
        return (grads, tuple(value[1:])) if has_aux else grads
    request = GradRequest(fn, spec.positions or (), spec.weights or (), bool(sens_param),
                          bool(has_aux), pack, "grad",
                          (spec.single_pos, spec.single_w, bool(return_ids)))
    return GradFunction(request, f"grad_{getattr(fn, '__name__', 'fn')}")


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False,
                   sens_param=False):
    """Like :func:`grad`, returning ``(value, grads)``; with ``has_aux`` the value is the whole
    ``(output, aux...)`` tuple."""
    spec = _GradSpec.of(fn, grad_position, weights, "value_and_grad")
    pack_grads = _with_ids(spec, bool(return_ids))

    def pack(value, position_grads, weight_grads):
        return value, pack_grads(position_grads, weight_grads)
    request = GradRequest(fn, spec.positions or (), spec.weights or (), bool(sens_param),
                          bool(has_aux), pack, "value_and_grad",
                          (spec.single_pos, spec.single_w, bool(return_ids)))
    return GradFunction(request, "value_and_grad_fn")


NO_WEIGHTS = "weights not given"
"""In ``GradRequest.options``: ``GradOperation(get_by_list=True)(fn)`` without weights."""


class GradOperation:
    """MindSpore's ``ops.GradOperation(get_all=False, get_by_list=False, sens_param=False)``.

    ``GradOperation()(fn)(*args)`` is the gradient w.r.t. the first input; ``get_all`` gives all
    inputs' gradients as a tuple; ``get_by_list`` gives the gradients of the weights passed as
    ``GradOperation(get_by_list=True)(fn, weights)``; with both, ``(inputs_grads, weights_grads)``.
    ``sens_param=True`` takes the output's cotangent as the last call argument.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all = bool(get_all)
        self.get_by_list = bool(get_by_list)
        self.sens_param = bool(sens_param)

    def __call__(self, fn, weights=None) -> GradFunction:
        fn_name = _name_of(fn)
        ws, options = (), (self.get_all, self.get_by_list)
        if self.get_by_list:
            if weights is None:   # MindSpore 2.10 gives () when called, refuses it compiled
                options += (NO_WEIGHTS,)
            else:
                ws = tuple(weights) if not hasattr(weights, "requires_grad") else (weights,)
                ws, _ = _normalize_weights(ws, fn_name)
        positions = None if self.get_all else () if self.get_by_list else (0,)
        request = GradRequest(fn, positions, ws, self.sens_param, False, self._pack,
                              "GradOperation", options)
        return GradFunction(request, f"grad_{getattr(fn, '__name__', 'fn')}")

    def _pack(self, value, position_grads, weight_grads):
        if self.get_all and self.get_by_list:
            return position_grads, weight_grads
        if self.get_by_list:
            return weight_grads
        return position_grads if self.get_all else position_grads[0]
