"""``check_grads``: graphcell's analytic gradients against central finite differences.

The check follows JAX's ``check_grads`` (``jax/_src/public_test_util.py``): draw a cotangent
``u`` for the output and a direction ``v`` for each differentiated value, then compare

    numeric  = <u, f(x + eps*v) - f(x - eps*v)> / (2*eps)      (central differences, float64)
    analytic = <grad_x <u, f(x)>, v>                             (graphcell's reverse mode)

One such inner product per argument costs two evaluations whatever the tensor's size. For small
arguments it also compares the gradient of ``<u, f>`` element by element (central differences
per input element). When that fails and the outputs are small too (at most ``JACOBIAN_LIMIT``
values), the failure is reported on the whole *Jacobian*, entry by entry — ``d out[i] / d x[j]``,
the analytic entries by one backward pass per output value (paid only on failure) — so the
message names the true derivative at the worst entry, not a random mixture of the outputs. An
argument whose inner product fails but that is
too big for the elementwise run by default is still searched elementwise (up to
``LOCATE_LIMIT`` elements), so the failure message can point at an element. A failure message
gives the input's value at the worst element and the failing input itself, so it says what
failed without a debugger.

``mode="graph"`` checks the compiled gradient instead: the analytic side is ``ms.grad`` run in
``GRAPH_MODE`` (the IR autodiff, passes and backend); the finite differences still evaluate the
function in PyNative, the reference.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell.testing import check_grads
    >>> report = check_grads(lambda x, y: ms.ops.tanh(x * y), (ms.Tensor(np.ones((2, 3))),
    ...                                                        ms.Tensor([0.5, 1.0, 2.0])))
    >>> report.passed, [c.name for c in report.checks]
    (True, ['argument 0', 'argument 1'])
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphcell.autodiff import GradOperation, _name_of
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import DType, float16, float32, float64

# Step sizes by the precision the function is evaluated in: central differences lose about
# eps**2 to truncation and (machine epsilon / eps) to rounding, so the step grows as precision falls.
_EPS = {float64: 1e-5, float32: 1e-3, float16: 1e-2}
# Tolerances by the least precise dtype the analytic gradient goes through: JAX's
# default_gradient_tolerance for float32/float64, looser for float16 (its gradients round at 1e-3).
_TOL = {float64: 1e-5, float32: 2e-3, float16: 2e-2}

ELEMENTWISE_LIMIT = 100
"""Arguments with at most this many elements are also checked element by element by default."""

JACOBIAN_LIMIT = 100
"""With at most this many float output values, a failed element-by-element check is reported on
the whole Jacobian (one backward pass per output value, only when it fails)."""

MODES = ("pynative", "graph")
"""Where the analytic gradient comes from: PyNative's tape, or graph mode's compiled IR."""

LOCATE_LIMIT = 4096
"""After a failed inner product, arguments up to this size are searched for the worst element."""


# --- the report ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ArgumentCheck:
    """How one differentiated value fared.

    ``mode`` says what was compared: ``"elementwise"`` (the gradient of ``<u, f(x)>`` for the
    seeded cotangent ``u``, element by element: comparable numbers, not Jacobian entries),
    ``"jacobian"`` (a failure reported on every ``d out / d x`` entry; ``analytic``/``numeric``
    are the derivative at the worst entry, ``worst_output`` names the output value: ``(output
    number, index)``) or ``"inner product"`` (``worst_index`` is None, the values are the inner
    products). ``input_value`` is the input at ``worst_index``.
    """

    name: str
    shape: tuple[int, ...]
    dtype: DType
    mode: str                          # "jacobian", "elementwise" or "inner product"
    passed: bool
    max_abs_error: float
    max_rel_error: float
    worst_index: tuple[int, ...] | None
    analytic: float
    numeric: float
    inner_product: tuple[float, float]  # (analytic, numeric) along the random direction v
    problem: str = ""                  # a gradient of the wrong shape or dtype
    input_value: float = float("nan")  # the input at worst_index
    worst_output: tuple | None = None  # jacobian mode: (output number, index) of the worst entry

    def describe(self) -> str:
        """A line for a passing value; for a failing one, the errors and the worst element."""
        head = f"  {self.name} {self.dtype.short}[{','.join(map(str, self.shape))}]"
        if self.problem:
            return f"{head}: FAILED: {self.problem}"
        errors = f"max abs error {self.max_abs_error:.3g}, max rel error {self.max_rel_error:.3g}"
        if self.passed:
            return f"{head}: ok ({self.mode}: {errors})"
        ip_a, ip_n = self.inner_product
        if self.worst_index is None:
            where = (f"worst element not located ({int(np.prod(self.shape))} elements, more than "
                     f"LOCATE_LIMIT={LOCATE_LIMIT}; pass elementwise=True to search them all)")
        elif self.worst_output is not None:
            k, idx = self.worst_output
            where = (f"worst entry d out{k}[{', '.join(map(str, idx))}] / d x"
                     f"[{', '.join(map(str, self.worst_index))}] at x = {self.input_value:.9g}: "
                     f"analytic {self.analytic:.9g}, numeric {self.numeric:.9g}")
        else:
            where = (f"worst element [{', '.join(map(str, self.worst_index))}] at x = "
                     f"{self.input_value:.9g}: analytic {self.analytic:.9g}, numeric "
                     f"{self.numeric:.9g} (gradients of <u, f>)")
        return (f"{head}: FAILED ({self.mode})\n      {errors}\n      {where}\n"
                f"      along a random direction v: analytic {ip_a:.9g}, numeric {ip_n:.9g}")


@dataclass(frozen=True)
class GradCheckReport:
    """What ``check_grads`` compared: one :class:`ArgumentCheck` per differentiated value.

    ``report[0]`` or ``report["weight 'w'"]`` picks a check; ``str(report)`` is a table.
    ``skipped`` says which arguments were not checked and why (integer tensors, for example).
    """

    function: str
    checks: tuple[ArgumentCheck, ...]
    skipped: tuple[str, ...]
    notes: tuple[str, ...]
    eps: float
    rtol: float
    atol: float
    fd_dtype: DType
    seed: int
    mode: str = "pynative"
    inputs: tuple[tuple[str, np.ndarray], ...] = ()   # (name, value) of every checked value

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def __getitem__(self, key: int | str) -> ArgumentCheck:
        if isinstance(key, int):
            return self.checks[key]
        for c in self.checks:
            if c.name == key:
                return c
        raise KeyError(f"no check named {key!r}; the checks are "
                       f"{', '.join(c.name for c in self.checks)}")

    def __str__(self) -> str:
        return f"check_grads({self.function}):\n{self.details()}"

    def details(self) -> str:
        """The settings, one entry per value, what was skipped, and notes."""
        lines = [f"  eps={self.eps:g} (differences in {self.fd_dtype}), rtol={self.rtol:g}, "
                 f"atol={self.atol:g}, u and v drawn with seed {self.seed}, analytic gradients "
                 f"{'compiled (graph mode)' if self.mode == 'graph' else 'from PyNative'}"]
        lines += [c.describe() for c in self.checks]
        lines += [f"  skipped {s}" for s in self.skipped]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


# --- what is differentiated ----------------------------------------------------------------------

@dataclass
class _Target:
    """One differentiated value: a positional argument or a weight (Parameter)."""

    name: str
    data: np.ndarray                # the value as given (native dtype)
    position: int | None = None
    param: Parameter | None = None


def _as_args(args) -> tuple:
    if isinstance(args, Tensor):
        return (args,)
    if isinstance(args, (tuple, list)):
        return tuple(args)
    raise TypeError(f"check_grads: args must be a tuple of the function's arguments, got "
                    f"{type(args).__name__}")


def _positions(grad_position, args: tuple) -> tuple[int, ...]:
    """Normalised positions; None means every Tensor argument."""
    if grad_position is None:
        return tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
    wanted = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    out = []
    for p in wanted:
        if not isinstance(p, int) or isinstance(p, bool) or not -len(args) <= p < len(args):
            raise ValueError(f"check_grads: grad_position {p!r} is not a position of the "
                             f"{len(args)} argument(s)")
        if not isinstance(args[p], Tensor):
            raise TypeError(f"check_grads: argument {p % len(args)} is a "
                            f"{type(args[p]).__name__}, not a Tensor, so it has no gradient")
        out.append(p % len(args))
    return tuple(dict.fromkeys(out))


def _targets(args: tuple, positions, weights) -> tuple[list[_Target], list[str]]:
    """The float values to check, and a note for each integer/bool one that is skipped."""
    targets, skipped = [], []
    candidates = [(f"argument {p}", args[p], p, None) for p in positions]
    if weights is not None:
        ws = (weights,) if isinstance(weights, Parameter) else tuple(weights)
        for w in ws:
            if not isinstance(w, Parameter):
                raise TypeError(f"check_grads: weights must be Parameters, got {type(w).__name__}")
            candidates.append((f"weight {w.name!r}", w, None, w))
    for name, value, position, param in candidates:
        if not value.dtype.is_float:
            skipped.append(f"{name} ({value.dtype} tensor): only float values have gradients "
                           "to compare with finite differences")
            continue
        targets.append(_Target(name, value._data, position, param))
    return targets, skipped


# --- evaluating the function ---------------------------------------------------------------------

def _outputs(out, fn_name: str) -> tuple[Tensor, ...]:
    items = out if isinstance(out, tuple) else (out,)
    for item in items:
        if not isinstance(item, Tensor):
            raise TypeError(f"check_grads: {fn_name} must return a Tensor or a tuple of Tensors, "
                            f"got {type(item).__name__}")
    return items


def _cell_parameters(fn) -> tuple[Parameter, ...]:
    """Every Parameter of a Cell (nn.Cell.get_parameters), so they all go to float64 together."""
    get = getattr(fn, "get_parameters", None)
    return tuple(get()) if callable(get) else ()


class _BasePoint:
    """What an evaluation reads besides its arguments, put back before every evaluation: the
    random generators' states (so dropout draws the same mask each time) and the Parameters'
    values (so a function that assigns to one does not move the point). On exit the Parameters
    get their own arrays back and the generators their states, even when the function raised:
    a check changes nothing."""

    def __init__(self, params):
        from graphcell.common import seed as initializer_seed
        from graphcell_ir.ops import random as op_random
        self._generators = (op_random.generator, initializer_seed.generator)
        self._states = [g().bit_generator.state for g in self._generators]
        self._originals = [(p, p._data) for p in dict.fromkeys(params) if p.dtype.is_float]
        self._current = list(self._originals)

    def use_dtype(self, dtype: DType | None) -> None:
        """Parameters hold copies of their values in ``dtype`` (None: their own arrays)."""
        self._current = [(p, data if dtype is None else data.astype(dtype.np_dtype))
                         for p, data in self._originals]
        self.reset()

    def reset(self) -> None:
        for g, state in zip(self._generators, self._states):
            g().bit_generator.state = state
        for p, data in self._current:
            p._data = data

    def __enter__(self) -> "_BasePoint":
        return self

    def __exit__(self, *exc) -> None:
        self.use_dtype(None)


class _Numeric:
    """Evaluates ``fn`` at the base point, or with one target moved by ``delta``.

    ``fd_dtype`` float64 casts every float argument to float64 (the Parameters are cast by
    :meth:`_BasePoint.use_dtype`); None evaluates in the values' own dtypes.
    """

    def __init__(self, fn, args: tuple, keep: tuple[int, ...], fd_dtype: DType | None,
                 base: _BasePoint):
        self.fn, self.keep, self.base = fn, keep, base
        self.fd_dtype = fd_dtype
        self.args = tuple(self._cast(a) for a in args)
        self.fn_name = _name_of(fn)
        self.out_dtypes: list[DType] = []   # of the last evaluation, before the float64 cast

    def _cast(self, a):
        if isinstance(a, Tensor) and a.dtype.is_float:
            return a._data if self.fd_dtype is None else a._data.astype(self.fd_dtype.np_dtype)
        return a

    def __call__(self, target: _Target | None = None, delta: np.ndarray | None = None):
        # fresh copies: a function that writes into its inputs must not move the base point
        args = [Tensor._wrap(a.copy()) if isinstance(a, np.ndarray) else a for a in self.args]
        if target is not None and target.position is not None:
            moved = self.args[target.position]
            args[target.position] = Tensor._wrap((moved + delta).astype(moved.dtype))
        self.base.reset()
        param = target.param if target is not None else None
        if param is not None:
            param._data = (param._data + delta).astype(param._data.dtype)
        outs = _outputs(self.fn(*args), self.fn_name)
        self.out_dtypes = [outs[i].dtype for i in self.keep]
        return [outs[i]._data.astype(np.float64) for i in self.keep]


# --- the comparisons -----------------------------------------------------------------------------

@dataclass
class _Setup:
    eps: float
    rtol: float
    atol: float
    u: list[np.ndarray]             # cotangents in float64 (rounded through the outputs' dtypes)
    numeric: _Numeric
    fd_dtype: DType                 # the least precise dtype the differences went through
    notes: list[str] = field(default_factory=list)
    jacobian: "_Jacobian | None" = None   # analytic Jacobian rows, when the outputs are small


def _directional(s: _Setup, target: _Target, direction: np.ndarray) -> tuple[float, float]:
    """<u, f(x + eps d) - f(x - eps d)> / 2eps, and the sum of the magnitudes of its terms."""
    plus = s.numeric(target, s.eps * direction)
    minus = s.numeric(target, -s.eps * direction)
    terms = [u * (p - m) for u, p, m in zip(s.u, plus, minus)]
    value = sum(float(t.sum()) for t in terms) / (2 * s.eps)
    scale = sum(float(np.abs(t).sum()) for t in terms) / (2 * s.eps)
    return value, scale


def _tolerance(s: _Setup, numeric, scale):
    """An error is acceptable below atol + rtol * (the size of what was summed), so cancellation
    inside <u, .> cannot make a correct gradient fail."""
    return s.atol + s.rtol * np.maximum(np.abs(numeric), scale)


def _rel(err, numeric):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(err == 0, 0.0, err / np.abs(numeric))


def _inner_product(s: _Setup, target: _Target, grad: np.ndarray, v: np.ndarray):
    numeric, scale = _directional(s, target, v)
    analytic = float((grad * v).sum())
    scale = max(scale, float(np.abs(grad * v).sum()))
    err = abs(analytic - numeric)
    return analytic, numeric, err, bool(err <= _tolerance(s, numeric, scale))


def _columns(s: _Setup, target: _Target, shape) -> np.ndarray:
    """The numeric Jacobian of the kept outputs (flattened, concatenated) with respect to the
    target, one central difference per input element: shape (output values, input elements)."""
    size = int(np.prod(shape, dtype=np.int64))
    cols = []
    unit = np.zeros(size)
    for j in range(size):
        unit[j] = s.eps
        plus = s.numeric(target, unit.reshape(shape))
        minus = s.numeric(target, -unit.reshape(shape))
        unit[j] = 0.0
        cols.append(np.concatenate([((p - m) / (2 * s.eps)).ravel() for p, m in zip(plus, minus)]))
    return np.stack(cols, axis=1) if cols else np.zeros((sum(u.size for u in s.u), 0))


class _Jacobian:
    """The analytic Jacobian rows, one backward pass per output value, computed on first use
    for every target at once: ``rows(t)`` is target ``t``'s (output values, input elements)."""

    def __init__(self, analytic, u: list[np.ndarray], sizes: list[int]):
        self.analytic, self.u, self.sizes = analytic, u, sizes
        self._rows: list[np.ndarray] | None = None

    def rows(self, t: int) -> np.ndarray:
        if self._rows is None:
            per_target: list[list[np.ndarray]] = [[] for _ in self.sizes]
            for k, u in enumerate(self.u):
                for i in range(u.size):
                    sens = [np.zeros_like(x) for x in self.u]
                    sens[k].flat[i] = 1
                    grads = self.analytic(tuple(Tensor(x) for x in sens))
                    for row, g in zip(per_target, grads):
                        row.append(np.asarray(g._data, np.float64).ravel())
            self._rows = [np.stack(r) if r else np.zeros((0, n))   # no output values
                          for r, n in zip(per_target, self.sizes)]
        return self._rows[t]

    def output_of(self, flat: int) -> tuple[int, tuple[int, ...]]:
        """(output number among the kept ones, index) of a row."""
        for k, u in enumerate(self.u):
            if flat < u.size:
                return k, tuple(int(i) for i in np.unravel_index(flat, u.shape))
            flat -= u.size
        raise IndexError(flat)


def _check_target(s: _Setup, target: _Target, grad: Tensor, v: np.ndarray, elementwise,
                  index: int) -> ArgumentCheck:
    data = target.data
    dtype = Tensor._wrap(data).dtype
    problem = _gradient_problem(grad, data, dtype)
    if problem:
        nan = float("nan")
        return ArgumentCheck(target.name, data.shape, dtype, "none", False, nan, nan, None, nan, nan,
                             (nan, nan), problem)
    g = grad._data.astype(np.float64)
    ip_a, ip_n, ip_err, ip_ok = _inner_product(s, target, g, v)
    small = data.size <= ELEMENTWISE_LIMIT if elementwise is None else elementwise
    if small or (not ip_ok and data.size <= LOCATE_LIMIT):
        columns = _columns(s, target, g.shape)
        check = _elementwise_check(s, target, dtype, g, columns, (ip_a, ip_n), ip_ok)
        if not check.passed and s.jacobian is not None:   # say which true derivative is wrong
            entries = _jacobian_check(s, target, dtype, s.jacobian, index, columns, (ip_a, ip_n),
                                      ip_ok)
            if not entries.passed:
                return entries
        return check
    rel = float(_rel(np.float64(ip_err), ip_n))
    return ArgumentCheck(target.name, data.shape, dtype, "inner product", ip_ok, ip_err, rel, None,
                         ip_a, ip_n, (ip_a, ip_n))


def _gradient_problem(grad, data: np.ndarray, dtype: DType) -> str:
    """Gradients have their input's shape and dtype (DESIGN §10.7); anything else is a failure."""
    if not isinstance(grad, Tensor):
        return f"the analytic gradient is a {type(grad).__name__}, not a Tensor"
    if grad.shape != data.shape:
        return f"the analytic gradient has shape {list(grad.shape)}, the value {list(data.shape)}"
    if grad.dtype != dtype:
        return f"the analytic gradient has dtype {grad.dtype}, the value {dtype}"
    return ""


def _jacobian_check(s: _Setup, target: _Target, dtype: DType, jac: _Jacobian, index: int,
                    numeric: np.ndarray, ip, ip_ok: bool) -> ArgumentCheck:
    """Every entry d out[i] / d x[j], analytic against central differences."""
    analytic = jac.rows(index)
    err = np.abs(analytic - numeric)
    err = np.where(np.isfinite(err), err, np.inf)  # nan on either side is a failure, not a pass
    excess = _excess(err, _tolerance(s, numeric, np.abs(numeric)))
    shape = target.data.shape
    if not err.size:
        return ArgumentCheck(target.name, shape, dtype, "jacobian", ip_ok, 0.0, 0.0, None, 0.0,
                             0.0, ip)
    row, col = np.unravel_index(int(np.argmax(excess)), err.shape)
    worst = tuple(int(i) for i in np.unravel_index(int(col), shape))
    return ArgumentCheck(target.name, shape, dtype, "jacobian",
                         ip_ok and bool(np.all(excess <= 1.0)), float(err.max()),
                         float(_rel(err, numeric).max()), worst, float(analytic[row, col]),
                         float(numeric[row, col]), ip, input_value=float(target.data[worst]),
                         worst_output=jac.output_of(int(row)))


def _elementwise_check(s: _Setup, target: _Target, dtype: DType, g: np.ndarray,
                       columns: np.ndarray, ip, ip_ok: bool):
    """The gradient of <u, f> element by element (the outputs are too big for the Jacobian)."""
    u = np.concatenate([x.ravel() for x in s.u])
    numeric = (u @ columns).reshape(g.shape)
    scale = (np.abs(u) @ np.abs(columns)).reshape(g.shape)
    err = np.abs(g - numeric)
    err = np.where(np.isfinite(err), err, np.inf)  # nan on either side is a failure, not a pass
    excess = _excess(err, _tolerance(s, numeric, scale))
    if not g.size:
        return ArgumentCheck(target.name, g.shape, dtype, "elementwise", ip_ok, 0.0, 0.0, (), 0.0,
                             0.0, ip)
    worst = tuple(int(i) for i in np.unravel_index(int(np.argmax(excess)), g.shape))
    return ArgumentCheck(target.name, g.shape, dtype, "elementwise",
                         ip_ok and bool(np.all(excess <= 1.0)), float(err.max()),
                         float(_rel(err, numeric).max()), worst,
                         float(g[worst]), float(numeric[worst]), ip,
                         input_value=float(target.data[worst]))


def _excess(err: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """err / tol, the most violating element first; 0/0 (atol=0 and an exact match) is 0."""
    out = np.where(err > 0, np.inf, 0.0)
    return np.divide(err, tol, out=out, where=tol > 0)


# --- the analytic side ---------------------------------------------------------------------------

def _analytic(fn, args: tuple, keep: tuple[int, ...], targets: list[_Target], sens: tuple):
    """Gradients of <sens, f> for every target, through PyNative ``GradOperation``."""
    positions = [t.position for t in targets if t.position is not None]
    weights = tuple(t.param for t in targets if t.param is not None)
    fn_name = _name_of(fn)

    def kept_outputs(*moved):
        full = list(args)
        for p, value in zip(positions, moved):
            full[p] = value
        outs = _outputs(fn(*full), fn_name)
        kept = tuple(outs[i] for i in keep)
        return kept if len(kept) > 1 else kept[0]
    kept_outputs.__qualname__ = fn_name

    grad_op = GradOperation(get_all=bool(positions), get_by_list=bool(weights), sens_param=True)
    grad_fn = grad_op(kept_outputs, weights) if weights else grad_op(kept_outputs)
    result = grad_fn(*(args[p] for p in positions), sens if len(sens) > 1 else sens[0])
    if positions and weights:
        pos_grads, w_grads = result
    else:
        pos_grads, w_grads = (result, ()) if positions else ((), result)
    return list(pos_grads) + list(w_grads)


def _analytic_graph(fn, args: tuple, outs: tuple, keep: tuple[int, ...], targets: list[_Target],
                    sens: tuple):
    """The same gradients compiled: ``ms.grad(fn, ..., sens_param=True)`` called in GRAPH_MODE
    (non-float outputs get a zero cotangent)."""
    from graphcell import context
    from graphcell.autodiff import grad
    positions = tuple(t.position for t in targets if t.position is not None)
    weights = tuple(t.param for t in targets if t.param is not None)
    full = [Tensor(np.zeros(o.shape, o._data.dtype)) for o in outs]
    for i, s in zip(keep, sens):
        full[i] = Tensor(s._data.astype(outs[i]._data.dtype))
    grad_fn = grad(fn, grad_position=positions or None, weights=weights or None, sens_param=True)
    old = context.get_context("mode")
    context.set_context(mode=context.GRAPH_MODE)
    try:
        result = grad_fn(*args, tuple(full) if len(full) > 1 else full[0])
    finally:
        context.set_context(mode=old)
    if positions and weights:
        pos, ws = result
    else:
        pos, ws = (result, ()) if positions else ((), result)
    pos = (pos,) if isinstance(pos, Tensor) else tuple(pos)
    ws = (ws,) if isinstance(ws, Tensor) else tuple(ws)
    return list(pos) + list(ws)


# --- setting up ----------------------------------------------------------------------------------

def _float_outputs(outs: tuple[Tensor, ...], fn_name: str) -> tuple[int, ...]:
    keep = tuple(i for i, o in enumerate(outs) if o.dtype.is_float)
    if not keep:
        raise ValueError(f"check_grads: {fn_name} returns no float output "
                         f"({', '.join(str(o.dtype) for o in outs)}), so there is nothing to "
                         "differentiate")
    return keep


def _cotangents(outs, keep, sens, rng, fn_name: str) -> list[np.ndarray]:
    """u per kept output, in the output's dtype (so both sides use the very same numbers)."""
    if sens is None:
        return [rng.standard_normal(outs[i].shape).astype(outs[i]._data.dtype) for i in keep]
    given = sens if isinstance(sens, (tuple, list)) else (sens,)
    if len(given) != len(keep) or any(not isinstance(g, Tensor) or g.shape != outs[i].shape
                                      for g, i in zip(given, keep)):
        want = ", ".join(f"{list(outs[i].shape)}" for i in keep)
        raise ValueError(f"check_grads: sens must hold one Tensor per float output of {fn_name}, "
                         f"of shapes {want}")
    return [g._data.astype(outs[i]._data.dtype) for g, i in zip(given, keep)]


def _least_precise(dtypes) -> DType:
    order = (float16, float32, float64)
    return min((d for d in dtypes if d in order), key=order.index, default=float64)


def _check_finite(outputs: list[np.ndarray], fn_name: str) -> None:
    bad = [i for i, b in enumerate(outputs) if not np.all(np.isfinite(b))]
    if bad:
        raise ValueError(f"check_grads: {fn_name} has a non-finite output at the given point "
                         f"(output {bad[0]}); gradients can only be checked where it is finite")


def _numeric_side(fn, args, keep, base: _BasePoint, fn_name) -> tuple[_Numeric, list[str]]:
    """A float64 evaluator, or one in the values' own dtypes when ``fn`` cannot run in float64
    (it mixes its inputs with a float32 constant in an op that wants equal dtypes, say)."""
    base.use_dtype(float64)
    numeric, notes = _Numeric(fn, args, keep, float64, base), []
    try:
        outputs = numeric()
    except Exception as e:  # noqa: BLE001 - fn ran in its own dtypes: float64 is what failed
        base.use_dtype(None)
        numeric = _Numeric(fn, args, keep, None, base)
        outputs = numeric()
        notes.append(f"{fn_name} failed in float64 ({type(e).__name__}: {e}); finite differences "
                     "were taken in the arguments' own dtypes instead, which is less precise")
    _check_finite(outputs, fn_name)
    return numeric, notes


def check_grads(fn, args, *, grad_position=None, weights=None, eps=None, rtol=None, atol=None,
                sens=None, seed=0, elementwise=None, mode="pynative") -> GradCheckReport:
    """Check ``fn``'s gradients (PyNative's, or with ``mode="graph"`` the compiled ones) against
    central finite differences.

    ``fn(*args)`` returns a Tensor or a tuple of Tensors; a Cell is a function too. The
    gradients of ``<u, fn(*args)>`` for a cotangent ``u`` (drawn with ``seed``, or ``sens``:
    one Tensor per float output) with respect to the Tensors at ``grad_position`` (default:
    every Tensor argument) and the Parameters in ``weights`` are computed by
    ``ops.GradOperation`` and compared with central differences taken in float64 (float
    arguments and Parameters are cast for that; the Parameters' data is restored afterwards,
    even if ``fn`` raises).

    Each value is compared along a random direction ``v`` (JAX's inner-product form) and, when
    it holds at most ``ELEMENTWISE_LIMIT`` elements or ``elementwise=True``, element by
    element (the gradient of ``<u, f>``); a failure there, with at most ``JACOBIAN_LIMIT``
    float output values, is reported on every Jacobian entry ``d out[i] / d x[j]`` (the
    analytic ones by a backward pass per output value), so it names a true derivative
    (``elementwise=False``: inner products only; a failed one is still searched element by
    element, up to ``LOCATE_LIMIT`` elements, to name the worst). An error passes when ``|analytic - numeric| <= atol + rtol * scale``, where
    ``scale`` is the larger of ``|numeric|`` and the summed magnitude of the terms it adds up.

    ``mode="pynative"`` (default) takes the analytic gradients from PyNative's tape;
    ``mode="graph"`` compiles them as graph mode does (``ms.grad`` in ``GRAPH_MODE``: the
    frontend, IR autodiff, the pass pipeline and the backend), so a bug in any of those shows
    up; ``fn`` must then be something graph mode compiles (a Cell, or a function whose source
    it can parse). The finite differences are PyNative evaluations either way.
    ``eps``, ``rtol`` and ``atol`` default from the dtypes (eps 1e-5 in float64; tolerances
    1e-5 for float64 gradients, 2e-3 for float32). Integer and bool Tensors are skipped, with
    a note in the report. Every evaluation starts from the same point: random ops draw the same
    numbers and Parameters the function writes to are reset, and both are left as they were.

    Returns a :class:`GradCheckReport`; raises ``AssertionError`` naming, for every value, the
    largest absolute and relative errors and the worst element with its input value and its
    analytic and numeric derivatives, then the failing inputs themselves (so the message alone,
    inside pytest or not, says how to reproduce the failure).

    Example::

        >>> import numpy as np
        >>> from graphcell import Tensor, ops
        >>> from graphcell.testing import check_grads
        >>> x = Tensor(np.array([[0.5, -1.0], [2.0, 0.25]]))
        >>> check_grads(lambda a, b: ops.matmul(ops.tanh(a), b), (x, x)).passed
        True
        >>> wrong = ops.HookBackward(lambda g: (g[0] * 2,))   # doubles the gradient
        >>> check_grads(lambda a: wrong(a * a), (x,))
        Traceback (most recent call last):
        ...
        AssertionError: check_grads(<lambda>): the analytic gradient disagrees ...
    """
    fn_name = _name_of(fn)
    if mode not in MODES:
        raise ValueError(f"check_grads: mode must be one of {', '.join(map(repr, MODES))}, got "
                         f"{mode!r}")
    args = _as_args(args)
    targets, skipped = _targets(args, _positions(grad_position, args), weights)
    if not targets:
        raise ValueError(f"check_grads: nothing to check for {fn_name}: no float Tensor among "
                         f"the differentiated arguments or weights" + "".join(f"; {s}" for s in skipped))
    rng = np.random.default_rng(seed)
    params = tuple(t.param for t in targets if t.param is not None) + _cell_parameters(fn)
    with _BasePoint(params) as base:
        outs = _outputs(fn(*args), fn_name)
        keep = _float_outputs(outs, fn_name)
        u = _cotangents(outs, keep, sens, rng, fn_name)
        base.reset()

        def analytic(sens: tuple) -> list:
            base.use_dtype(None)   # the analytic side runs at the given point, in its dtypes
            if mode == "graph":
                return _analytic_graph(fn, args, outs, keep, targets, sens)
            return _analytic(fn, args, keep, targets, sens)
        grads = analytic(tuple(Tensor(x) for x in u))
        vs = [rng.standard_normal(t.data.shape) for t in targets]
        numeric, notes = _numeric_side(fn, args, keep, base, fn_name)
        setup = _make_setup(numeric, u, targets, outs, keep, eps, rtol, atol, notes)
        if sum(x.size for x in u) <= JACOBIAN_LIMIT:
            setup.jacobian = _Jacobian(_numeric_restoring(analytic, base), u,
                                       [t.data.size for t in targets])
        checks = tuple(_check_target(setup, t, g, v, elementwise, i)
                       for i, (t, g, v) in enumerate(zip(targets, grads, vs)))
    if len(outs) > len(keep):
        left_out = ", ".join(str(i) for i in range(len(outs)) if i not in keep)
        setup.notes.append(f"output(s) {left_out} of {fn_name} are not float and were left out")
    report = GradCheckReport(fn_name, checks, tuple(skipped), tuple(setup.notes), setup.eps,
                             setup.rtol, setup.atol, setup.fd_dtype, seed, mode,
                             tuple((t.name, t.data) for t in targets))
    if not report.passed:
        raise AssertionError(_failure_message(report))
    return report


def _make_setup(numeric: _Numeric, u, targets, outs, keep, eps, rtol, atol, notes) -> _Setup:
    """eps from the precision the differences were taken in (inputs and outputs: a function may
    cast to float32 inside), tolerances from the precision of the analytic gradient."""
    values = [Tensor._wrap(t.data).dtype for t in targets]
    fd_dtype = _least_precise(numeric.out_dtypes + ([numeric.fd_dtype] if numeric.fd_dtype
                                                     else values))
    tol = _TOL[_least_precise(values + [outs[i].dtype for i in keep])]
    return _Setup(eps=_EPS[fd_dtype] if eps is None else float(eps),
                  rtol=tol if rtol is None else float(rtol), atol=tol if atol is None else float(atol),
                  u=[x.astype(np.float64) for x in u], numeric=numeric, fd_dtype=fd_dtype,
                  notes=list(notes))


def _numeric_restoring(analytic, base: _BasePoint):
    """``analytic`` run between finite differences: it needs the Parameters' own values, and the
    differences need the float64 copies back afterwards."""
    def run(sens: tuple) -> list:
        saved = list(base._current)
        try:
            return analytic(sens)
        finally:
            base._current = saved
            base.reset()
    return run


def _failure_message(report: GradCheckReport) -> str:
    failed = [c for c in report.checks if not c.passed]
    names = ", ".join(c.name for c in failed)
    inputs = dict(report.inputs)
    shown = [f"  {c.name} = {_array_text(inputs[c.name])}" for c in failed if c.name in inputs]
    modes = {c.mode for c in failed}
    meaning = ("analytic and numeric are entries of the Jacobian d out / d x" if modes == {"jacobian"}
               else "analytic and numeric are gradients of <u, f> for the seeded random cotangent "
                    "u, or Jacobian entries where the mode says jacobian")
    return (f"check_grads({report.function}): the analytic gradient disagrees with central finite "
            f"differences for {names}.\n{report.details()}\n"
            + ("  the failing input(s):\n" + "\n".join(shown) + "\n" if shown else "")
            + f"  ({meaning}; an error passes when |analytic - numeric| <= atol + rtol * scale)")


def _array_text(a: np.ndarray) -> str:
    text = np.array2string(np.asarray(a), precision=6, threshold=64, separator=", ")
    return text.replace("\n", "\n      ")
