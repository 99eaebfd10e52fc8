"""``mindspore.numpy.array_creations``: making tensors with numpy's signatures.

Thin spellings of ``graphcell.ops``: ``ones``/``zeros``/``full`` are ``ops.fill``, ``eye``/``tri``
are ``ops.tril``/``ops.triu`` of ones, ``tril``/``triu``/``diag``/``trace`` the matrix family's,
the windows the window family's (symmetric), ``rand``/``randn``/``randint`` the random family's.
The dtype defaults are mindspore.numpy's: Float32 unless a Python int (Int32) or bool gives
another, so ``arange(5)`` is Int32 and ``full((2,), 1)`` Int32. Sizes and counts are Python ints
(known while compiling); ``linspace``'s bounds may be tensors, so it works on values computed in
graph mode.

Example::

    >>> import graphcell.numpy as mnp
    >>> mnp.arange(5).dtype, mnp.ones((2, 3)).dtype, mnp.linspace(0, 1, 5).asnumpy().tolist()
    (Int32, Float32, [0.0, 0.25, 0.5, 0.75, 1.0])
"""
from __future__ import annotations

import math

import numpy as np

from graphcell import ops
from graphcell.numpy._pad import pad
from graphcell.numpy.utils import (axis_arg, cast, check_tensor, dtype_arg, is_scalar, to_tensor,
                                   to_tensors)
from graphcell.ops.function._array_utils import const
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, float16, float32, float64, int8, int16, int32, int64

__all__ = ["array", "asarray", "asfarray", "copy", "ones", "zeros", "full", "empty", "empty_like",
           "ones_like", "zeros_like", "full_like", "arange", "linspace", "logspace", "geomspace",
           "eye", "identity", "tri", "tril", "triu", "diagonal", "trace", "diag", "diagflat",
           "diag_indices", "meshgrid", "ix_", "indices", "vander", "hamming", "hanning",
           "bartlett", "blackman", "triu_indices", "tril_indices", "triu_indices_from",
           "tril_indices_from", "histogram_bin_edges", "pad", "rand", "randn", "randint",
           "mgrid", "ogrid"]


def _scalar_dtype(*values):
    """mindspore.numpy's dtype for Python numbers: Bool if all are bools, Int32 if all are ints,
    else Float32 (None values are ignored)."""
    values = [v for v in values if v is not None]
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return bool_
    if all(isinstance(v, (int, np.integer)) for v in values):
        return int32
    return float32


def _shape(shape, fn: str) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in shape):
        raise TypeError(f"mindspore.numpy.{fn}: shape must be an int or a tuple/list of ints, "
                        f"but got {shape!r}")
    if any(s < 0 for s in shape):
        raise ValueError(f"mindspore.numpy.{fn}: negative dimensions are not allowed: {shape!r}")
    return tuple(int(s) for s in shape)


def _int(v, fn: str, name: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"mindspore.numpy.{fn}: {name} must be an int, but got {v!r}")
    return int(v)


# --- from data ---------------------------------------------------------------------------------

def asarray(a, dtype=None):
    """``asarray(a, dtype=None)``: ``a`` as a Tensor (a Tensor is returned as it is when
    ``dtype`` agrees). Python ints become Int32, floats Float32, unless ``dtype`` is given."""
    dtype = dtype_arg(dtype, "asarray")
    if isinstance(a, Tensor):
        return cast(a, dtype)
    if dtype is None or _holds_tensor(a):
        return cast(to_tensor(a, "mindspore.numpy.asarray"), dtype)
    return _exact(a, dtype, "asarray")


def _holds_tensor(v) -> bool:
    return isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and any(map(_holds_tensor, v)))


def _exact(a, dtype, fn: str):
    """Python data converted straight to ``dtype`` (not through the 32-bit defaults)."""
    if not is_scalar(a) and not isinstance(a, (list, tuple)):
        raise TypeError(f"mindspore.numpy.{fn}: input data must be int, float, bool, Tensor, list "
                        f"or tuple, but got {type(a).__name__}")
    arr = np.asarray(a)
    if arr.dtype == object:
        raise ValueError(f"mindspore.numpy.{fn}: input array must have the same size across all "
                         f"dimensions, but got {a!r}")
    return const(arr.astype(dtype.np_dtype))


def array(obj, dtype=None, copy=True, ndmin=0):  # noqa: A002 - numpy's parameter name
    """``array(obj, dtype=None, copy=True, ndmin=0)``: like :func:`asarray`, with at least
    ``ndmin`` dimensions (leading ones added)."""
    res = asarray(obj, dtype)
    if ndmin > res.ndim:
        if res.size == 0:
            raise ValueError("mindspore.numpy.array: an empty tensor cannot be expanded beyond "
                             "its current dimension")
        res = ops.reshape(res, (1,) * (ndmin - res.ndim) + tuple(res.shape))
    elif copy and isinstance(obj, Tensor) and res is obj:
        res = obj.copy()
    return res


def asfarray(a, dtype=float32):
    """``asfarray(a, dtype=mstype.float32)``: ``a`` as a float tensor (a non-float ``dtype``
    means Float32)."""
    if dtype is None:
        return asarray(a)
    dtype = dtype_arg(dtype, "asfarray")
    if dtype not in (float16, float32, float64):
        dtype = float32
    if isinstance(a, Tensor):
        return cast(a, dtype)
    return _exact(a, dtype, "asfarray") if not _holds_tensor(a) else cast(to_tensor(a), dtype)


def copy(a):
    """``copy(a)``: a new tensor with ``a``'s values."""
    a = asarray(a)
    return a.copy()


# --- filled ------------------------------------------------------------------------------------

def ones(shape, dtype=float32):
    """``ones(shape, dtype=mstype.float32)``."""
    return ops.ones(_shape(shape, "ones"), dtype_arg(dtype, "ones"))


def zeros(shape, dtype=float32):
    """``zeros(shape, dtype=mstype.float32)``."""
    return ops.zeros(_shape(shape, "zeros"), dtype_arg(dtype, "zeros"))


def empty(shape, dtype=float32):
    """``empty(shape, dtype=mstype.float32)``: uninitialised in numpy; zeros here, as in
    mindspore.numpy."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    """``full(shape, fill_value, dtype=None)``: ``fill_value`` (a number, a list or a tensor)
    broadcast to ``shape``. The dtype is ``dtype``, else the tensor's, else Int32 for an int,
    Float32 for a float, Bool for a bool."""
    shape = _shape(shape, "full")
    dtype = dtype_arg(dtype, "full")
    if is_scalar(fill_value):
        return ops.full(shape, fill_value, dtype=dtype or _scalar_dtype(fill_value))
    if not isinstance(fill_value, (Tensor, list, tuple)):
        raise TypeError(f"mindspore.numpy.full: fill value must be int, float, bool, list, tuple "
                        f"or Tensor, but got {type(fill_value).__name__}")
    value = to_tensor(fill_value, "mindspore.numpy.full")
    return cast(ops.broadcast_to(value, shape), dtype)


def _like(prototype, dtype, shape, fn: str):
    if not isinstance(prototype, (Tensor, list, tuple)) and not is_scalar(prototype):
        raise TypeError(f"mindspore.numpy.{fn}: prototype must be int, float, bool, list, tuple "
                        f"or Tensor, but got {type(prototype).__name__}")
    proto = asarray(prototype)
    dtype = dtype_arg(dtype, fn) or proto.dtype
    if shape is None or (isinstance(shape, (list, tuple)) and not shape):
        shape = tuple(proto.shape)
    return _shape(shape, fn), dtype


def empty_like(prototype, dtype=None, shape=None):
    """``empty_like(prototype, dtype=None, shape=None)``: zeros of ``prototype``'s shape and
    dtype (or the given ones)."""
    return ops.zeros(*_like(prototype, dtype, shape, "empty_like"))


def ones_like(a, dtype=None, shape=None):
    """``ones_like(a, dtype=None, shape=None)``."""
    return ops.ones(*_like(a, dtype, shape, "ones_like"))


def zeros_like(a, dtype=None, shape=None):
    """``zeros_like(a, dtype=None, shape=None)``."""
    return ops.zeros(*_like(a, dtype, shape, "zeros_like"))


def full_like(a, fill_value, dtype=None, shape=None):
    """``full_like(a, fill_value, dtype=None, shape=None)``: in ``a``'s dtype unless ``dtype``
    (so ``full_like(int_tensor, 2.5)`` holds 2)."""
    shape, dtype = _like(a, dtype, shape, "full_like")
    return full(shape, fill_value, dtype)


# --- ranges ------------------------------------------------------------------------------------

def arange(start, stop=None, step=None, dtype=None):
    """``arange(start, stop=None, step=None, dtype=None)``: Int32 when every bound is an int,
    Float32 otherwise, unless ``dtype``."""
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if v is not None and (isinstance(v, (bool, np.bool_)) or not is_scalar(v)):
            raise TypeError(f"mindspore.numpy.arange: {name} must be a number, but got {v!r}")
    dtype = dtype_arg(dtype, "arange") or _scalar_dtype(start, stop, step)
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if step == 0:
        raise ValueError("mindspore.numpy.arange: step must not be 0")
    n = max(0, math.ceil((stop - start) / step))
    if n == 0:
        return ops.zeros((0,), dtype)
    return ops.arange(start, start + n * step, step, dtype=dtype) if dtype.is_int and all(
        isinstance(v, (int, np.integer)) for v in (start, stop, step)) else \
        cast(ops.add(ops.mul(ops.arange(0, n, 1, dtype=float32), float(step)), float(start)),
             dtype)


def _bounds(start, stop, num, endpoint, dtype, fn: str):
    """mindspore.numpy's checks of a ``*space`` call: float32 tensor bounds broadcast together."""
    for name, v in (("start", start), ("stop", stop)):
        if not isinstance(v, (Tensor, list, tuple)) and not is_scalar(v):
            raise TypeError(f"mindspore.numpy.{fn}: {name} must be int, float, bool, list, tuple "
                            f"or Tensor, but got {type(v).__name__}")
    start, stop = (v if isinstance(v, Tensor) else cast(to_tensor(v), float32)
                   for v in (start, stop))
    if isinstance(num, (bool, np.bool_)) or not isinstance(num, (int, np.integer)):
        raise TypeError(f"mindspore.numpy.{fn}: num must be an int, but got {num!r}")
    if not isinstance(endpoint, (bool, np.bool_)):
        raise TypeError(f"mindspore.numpy.{fn}: endpoint must be a bool, but got {endpoint!r}")
    shape = tuple(np.broadcast_shapes(tuple(start.shape), tuple(stop.shape)))
    start, stop = ops.broadcast_to(start, shape), ops.broadcast_to(stop, shape)
    return start, stop, int(num), bool(endpoint), dtype_arg(dtype, fn) or float32


def _along(v, axis: int, ndim: int):
    """A bound of shape ``s`` viewed with a unit axis at ``axis`` (of the result's ``ndim``)."""
    shape = list(v.shape)
    shape.insert(axis, 1)
    return ops.reshape(v, tuple(shape))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)``:
    ``num`` evenly spaced values; tensor bounds give one sequence per element, laid along
    ``axis``. Float32 unless ``dtype``."""
    start, stop, num, endpoint, dtype = _bounds(start, stop, num, endpoint, dtype, "linspace")
    if not isinstance(retstep, (bool, np.bool_)):
        raise TypeError(f"mindspore.numpy.linspace: retstep must be a bool, but got {retstep!r}")
    ndim = start.ndim + 1
    axis = axis_arg(axis, ndim, "mindspore.numpy.linspace")
    if num <= 0:
        raise ValueError("mindspore.numpy.linspace: num must be positive")
    first, last = _along(start, axis, ndim), _along(stop, axis, ndim)
    if num == 1:
        out, step = first, (float("nan") if endpoint else ops.sub(stop, start))
    else:
        step = ops.div(ops.sub(stop, start), float(num - 1 if endpoint else num))
        iota = [1] * ndim
        iota[axis] = num
        ramp = ops.reshape(const(np.arange(num, dtype=np.float32)), tuple(iota))
        out = ops.add(first, ops.mul(ramp, _along(step, axis, ndim)))
        if endpoint:  # the last value is exactly ``stop``
            key = (slice(None),) * axis + (slice(0, num - 1),)
            out = ops.concat((out[key], ops.cast(last, out.dtype)), axis)
    out = cast(out, dtype)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0)``:
    ``base ** linspace(start, stop, ...)``."""
    start, stop, num, endpoint, dtype = _bounds(start, stop, num, endpoint, dtype, "logspace")
    if not is_scalar(base):
        raise TypeError(f"mindspore.numpy.logspace: base must be a number, but got {base!r}")
    exponents = linspace(start, stop, num, endpoint, axis=axis)
    return cast(ops.pow(to_tensor(base), exponents), dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0)``: a geometric
    sequence from ``start`` to ``stop``."""
    start, stop, num, endpoint, dtype = _bounds(start, stop, num, endpoint, None, "geomspace")
    ndim = start.ndim + 1
    axis = axis_arg(axis, ndim, "mindspore.numpy.geomspace")
    root = num - 1 if endpoint else num
    ratio = ops.pow(ops.div(stop, start), 1.0 / root)
    exponents = linspace(ops.zeros_like(ratio), ops.full_like(ratio, root), num, endpoint,
                         axis=axis)
    out = ops.mul(ops.pow(_along(ratio, axis, ndim), exponents), _along(start, axis, ndim))
    return cast(out, dtype_arg(dtype, "geomspace"))


# --- matrices ----------------------------------------------------------------------------------

def eye(N, M=None, k=0, dtype=float32):  # noqa: N803 - numpy's parameter names
    """``eye(N, M=None, k=0, dtype=mstype.float32)``: ones on diagonal ``k`` of an N x M matrix."""
    n = _int(N, "eye", "N")
    m = n if M is None else _int(M, "eye", "M")
    k = _int(k, "eye", "k")
    dtype = dtype_arg(dtype, "eye")
    return ops.cast(ops.triu(ops.tril(ops.ones((n, m), float32), k), k), dtype)


def identity(n, dtype=float32):
    """``identity(n, dtype=mstype.float32)``: the n x n identity."""
    return eye(_int(n, "identity", "n"), dtype=dtype)


def tri(N, M=None, k=0, dtype=float32):  # noqa: N803
    """``tri(N, M=None, k=0, dtype=mstype.float32)``: ones at and below diagonal ``k``."""
    n = _int(N, "tri", "N")
    m = n if M is None else _int(M, "tri", "M")
    return ops.cast(ops.tril(ops.ones((n, m), float32), _int(k, "tri", "k")),
                    dtype_arg(dtype, "tri"))


def _as_matrix(m, fn: str):
    """A 1-D ``m`` repeated into rows, as numpy's ``tril``/``triu`` read it."""
    m = to_tensor(m, f"mindspore.numpy.{fn}")
    if m.ndim < 1:
        raise ValueError(f"mindspore.numpy.{fn}: input m's rank must be at least 1, but got 0")
    if m.ndim == 1:
        m = ops.broadcast_to(m, (m.shape[0], m.shape[0]))
    return m


def tril(m, k=0):
    """``tril(m, k=0)``: ``m`` with the elements above diagonal ``k`` zeroed (a 1-D ``m`` is
    repeated into a square matrix first, as in numpy)."""
    return ops.tril(_as_matrix(m, "tril"), _int(k, "tril", "k"))


def triu(m, k=0):
    """``triu(m, k=0)``: ``m`` with the elements below diagonal ``k`` zeroed."""
    return ops.triu(_as_matrix(m, "triu"), _int(k, "triu", "k"))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``diagonal(a, offset=0, axis1=0, axis2=1)``."""
    check_tensor(a, fn="mindspore.numpy.diagonal")
    return ops.diagonal(a, offset, axis1, axis2)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """``trace(a, offset=0, axis1=0, axis2=1, dtype=None)``: the sum of a diagonal (integers sum
    in Int64, as ``Tensor.trace``)."""
    check_tensor(a, fn="mindspore.numpy.trace")
    return a.trace(offset, axis1, axis2, dtype_arg(dtype, "trace"))


def diag(v, k=0):
    """``diag(v, k=0)``: a 1-D ``v`` laid on diagonal ``k`` of a square matrix, or diagonal
    ``k`` of a 2-D ``v``."""
    v = to_tensor(v, "mindspore.numpy.diag")
    k = _int(k, "diag", "k")
    if v.ndim == 1:
        return ops.diagflat(v, k)
    if v.ndim == 2:
        return ops.diagonal(v, k, 0, 1)
    raise ValueError(f"mindspore.numpy.diag: input must be 1- or 2-d, but got shape "
                     f"{list(v.shape)}")


def diagflat(v, k=0):
    """``diagflat(v, k=0)``: the flattened ``v`` on diagonal ``k``."""
    check_tensor(v, fn="mindspore.numpy.diagflat")
    return ops.diagflat(v, _int(k, "diagflat", "k"))


def diag_indices(n, ndim=2):
    """``diag_indices(n, ndim=2)``: ``ndim`` copies of ``arange(n)``, to index a main diagonal."""
    n, ndim = _int(n, "diag_indices", "n"), _int(ndim, "diag_indices", "ndim")
    return tuple(arange(n) for _ in range(ndim))


def _tri_indices(n, k, m, upper: bool, fn: str):
    n = _int(n, fn, "n")
    k = _int(k, fn, "k")
    m = n if m is None else _int(m, fn, "m")
    both = (ops.triu_indices if upper else ops.tril_indices)(n, m, k, dtype=int32)
    return both[0], both[1]


def triu_indices(n, k=0, m=None):
    """``triu_indices(n, k=0, m=None)``: ``(rows, cols)`` of the elements at and above diagonal
    ``k`` of an n x m matrix (Int32)."""
    return _tri_indices(n, k, m, True, "triu_indices")


def tril_indices(n, k=0, m=None):
    """``tril_indices(n, k=0, m=None)``: ``(rows, cols)`` at and below diagonal ``k``."""
    return _tri_indices(n, k, m, False, "tril_indices")


def _matrix_shape(arr, fn: str):
    arr = asarray(arr)
    if arr.ndim != 2:
        raise ValueError(f"mindspore.numpy.{fn}: input array must be 2-d, but got shape "
                         f"{list(arr.shape)}")
    return arr.shape


def triu_indices_from(arr, k=0):
    """``triu_indices_from(arr, k=0)``: :func:`triu_indices` for ``arr``'s shape."""
    rows, cols = _matrix_shape(arr, "triu_indices_from")
    return triu_indices(rows, k, cols)


def tril_indices_from(arr, k=0):
    """``tril_indices_from(arr, k=0)``: :func:`tril_indices` for ``arr``'s shape."""
    rows, cols = _matrix_shape(arr, "tril_indices_from")
    return tril_indices(rows, k, cols)


def vander(x, N=None, increasing=False):  # noqa: N803
    """``vander(x, N=None, increasing=False)``: the Vandermonde matrix of the 1-D ``x`` (powers
    ``N-1 .. 0``, or ``0 .. N-1`` when ``increasing``), in ``x``'s dtype."""
    if isinstance(x, (list, tuple)):
        x = to_tensor(x)
    check_tensor(x, fn="mindspore.numpy.vander")
    if x.ndim != 1:
        raise ValueError(f"mindspore.numpy.vander: x must be 1-D, but got shape {list(x.shape)}")
    n = x.shape[0] if N is None else _int(N, "vander", "N")
    if n <= 0:
        raise ValueError(f"mindspore.numpy.vander: N must be positive, but got {n}")
    if not isinstance(increasing, (bool, np.bool_)):
        raise TypeError(f"mindspore.numpy.vander: increasing must be a bool, but got "
                        f"{increasing!r}")
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    return ops.pow(ops.expand_dims(x, 1), const(powers.astype(x.dtype.np_dtype)[None, :]))


# --- grids -------------------------------------------------------------------------------------

def meshgrid(*xi, sparse=False, indexing="xy"):
    """``meshgrid(*xi, sparse=False, indexing='xy')``: a list of coordinate grids (each input is
    flattened; ``'xy'`` swaps the first two axes; ``sparse`` keeps unit axes)."""
    check_tensor(*xi, fn="mindspore.numpy.meshgrid")
    if not isinstance(sparse, (bool, np.bool_)):
        raise TypeError(f"mindspore.numpy.meshgrid: sparse must be a bool, but got {sparse!r}")
    if indexing not in ("xy", "ij"):
        raise TypeError(f"mindspore.numpy.meshgrid: indexing must be 'xy' or 'ij', but got "
                        f"{indexing!r}")
    grids = [x if x.ndim == 1 else ops.reshape(x, (-1,)) for x in xi]
    order = list(range(len(grids)))
    if indexing == "xy" and len(grids) > 1:
        order[0], order[1] = 1, 0
    shape = tuple(grids[i].shape[0] for i in order)
    out = []
    for i, g in enumerate(grids):
        view = [1] * len(grids)
        view[order.index(i)] = g.shape[0]
        g = ops.reshape(g, tuple(view))
        out.append(g if sparse else ops.broadcast_to(g, shape))
    return out


def ix_(*args):
    """``ix_(*args)``: the 1-D ``args`` reshaped to broadcast against each other (an open mesh)."""
    check_tensor(*args, fn="mindspore.numpy.ix_")
    out = []
    for i, a in enumerate(args):
        if a.ndim != 1:
            raise ValueError("mindspore.numpy.ix_: cross index must be 1 dimensional")
        view = [1] * len(args)
        view[i] = a.shape[0]
        out.append(ops.reshape(a, tuple(view)))
    return tuple(out)


def indices(dimensions, dtype=int32, sparse=False):
    """``indices(dimensions, dtype=mstype.int32, sparse=False)``: the index grids of a shape, as a
    list (mindspore.numpy's form; numpy stacks them)."""
    if not isinstance(dimensions, (tuple, list)):
        raise TypeError(f"mindspore.numpy.indices: the shape of the grid must be a tuple or list, "
                        f"but got {dimensions!r}")
    dtype = dtype_arg(dtype, "indices")
    return meshgrid(*(arange(_int(d, "indices", "dimensions"), dtype=dtype) for d in dimensions),
                    sparse=sparse, indexing="ij")


class _NdGrid:
    """numpy's ``mgrid``/``ogrid``: ``grid[0:3, 1:5:2]`` (a complex step counts points)."""

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, keys):
        keys = keys if isinstance(keys, tuple) else (keys,)
        axes = []
        for k in keys:
            if not isinstance(k, slice) or not isinstance(k.start, int) or \
                    not isinstance(k.stop, int):
                raise TypeError("mindspore.numpy.mgrid/ogrid: slice indices must be integers")
            step = 1 if k.step is None else k.step
            axes.append(linspace(k.start, k.stop, int(abs(step))) if isinstance(step, complex)
                        else arange(k.start, k.stop, step))
        grids = meshgrid(*axes, sparse=self.sparse, indexing="ij")
        if len(grids) == 1:
            return grids[0]
        return grids if self.sparse else ops.stack(grids, 0)


mgrid = _NdGrid(sparse=False)
"""``mgrid[0:2, 0:3]``: a dense grid, stacked (numpy's ``mgrid``)."""
ogrid = _NdGrid(sparse=True)
"""``ogrid[0:2, 0:3]``: an open grid, a list of broadcastable tensors."""


# --- windows -----------------------------------------------------------------------------------
# numpy's windows are the symmetric ones (``periodic=False``) of the ops family, in Float32.

def _window(op, m, fn: str):
    return op(to_tensor(_int(m, fn, "M")), False, dtype=float32)


def hamming(M):  # noqa: N803
    """``hamming(M)``: the Hamming window, ``0.54 - 0.46 cos(2 pi n / (M - 1))`` (Float32)."""
    return _window(ops.hamming_window, M, "hamming")


def hanning(M):  # noqa: N803
    """``hanning(M)``: the Hann window, ``0.5 - 0.5 cos(2 pi n / (M - 1))``."""
    return _window(ops.hann_window, M, "hanning")


def blackman(M):  # noqa: N803
    """``blackman(M)``: ``0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))``."""
    return _window(ops.blackman_window, M, "blackman")


def bartlett(M):  # noqa: N803
    """``bartlett(M)``: the triangular window, ``1 - |2n - (M - 1)| / (M - 1)``."""
    return _window(ops.bartlett_window, M, "bartlett")


# --- random ------------------------------------------------------------------------------------
# The random family's samplers (graphcell's seeded generator, ``ms.set_seed``).

_FLOATS = (float16, float32, float64)
_INTS = ("int", "int8", "int16", "int32", "int64")


def _rand_shape(shape, fn: str) -> tuple[int, ...]:
    """numpy's ``rand(2, 3)`` or ``rand((2, 3))``; no arguments give one value, ``(1,)``."""
    if not shape:
        return (1,)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _shape(tuple(shape), fn)


def _float_dtype(dtype, fn: str):
    dtype = dtype_arg(dtype, fn)
    if dtype not in _FLOATS:
        raise ValueError(f"mindspore.numpy.{fn}: dtype must be float16, float32 or float64, but "
                         f"got {dtype}")
    return dtype


def randn(*shape, dtype=float32):
    """``randn(*shape, dtype=mstype.float32)``: samples of the standard normal distribution."""
    return ops.randn(*_rand_shape(shape, "randn"), dtype=_float_dtype(dtype, "randn"))


def rand(*shape, dtype=float32):
    """``rand(*shape, dtype=mstype.float32)``: samples uniform in [0, 1)."""
    return ops.rand(*_rand_shape(shape, "rand"), dtype=_float_dtype(dtype, "rand"))


def randint(minval, maxval=None, shape=None, dtype=int32):
    """``randint(minval, maxval=None, shape=None, dtype=mstype.int32)``: integers uniform in
    ``[minval, maxval)`` (``[0, minval)`` when ``maxval`` is None); ``shape`` defaults to
    ``(1,)``."""
    fn = "randint"
    low = _int(minval, fn, "minval")
    if maxval is None:
        if low <= 0:
            raise ValueError(f"mindspore.numpy.{fn}: minval must be > 0 when maxval is None, but "
                             f"got {low}")
        low, high = 0, low
    else:
        high = _int(maxval, fn, "maxval")
        if low >= high:
            raise ValueError(f"mindspore.numpy.{fn}: minval {low} must be less than maxval "
                             f"{high}")
    if isinstance(dtype, str) and dtype not in _INTS:
        raise ValueError(f"mindspore.numpy.{fn}: dtype must be one of {list(_INTS)}, but got "
                         f"{dtype!r}")
    dtype = dtype_arg(dtype, fn)
    if dtype not in (int8, int16, int32, int64):
        raise ValueError(f"mindspore.numpy.{fn}: dtype must be int8, int16, int32 or int64, but "
                         f"got {dtype}")
    size = (1,) if shape is None else _shape(shape, fn)
    return ops.randint(low, high, size, dtype=dtype)


# --- histograms --------------------------------------------------------------------------------

def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002 - numpy's name
    """``histogram_bin_edges(a, bins=10, range=None, weights=None)``: the ``bins + 1`` edges
    spanning ``range`` (default: ``a``'s min and max, widened by 0.5 each way when they are
    equal); a sequence of edges is returned as a tensor."""
    a = to_tensor(a, "mindspore.numpy.histogram_bin_edges")
    if weights is not None:
        weights = to_tensor(weights)
        if tuple(weights.shape) != tuple(a.shape):
            raise ValueError("mindspore.numpy.histogram_bin_edges: weights must have the same "
                             "shape as a")
    if isinstance(bins, (tuple, list, Tensor)):
        bins = to_tensor(bins)
        if bins.ndim != 1:
            raise ValueError("mindspore.numpy.histogram_bin_edges: bins must be 1-D when it is "
                             "an array")
        return bins
    if isinstance(bins, str):
        raise NotImplementedError("mindspore.numpy.histogram_bin_edges: string values of bins "
                                  "are not supported")
    bins = _int(bins, "histogram_bin_edges", "bins")
    if range is None:
        flat = ops.cast(ops.reshape(a, (-1,)), float32)
        start, end = ops.amin(flat), ops.amax(flat)
    else:
        if not isinstance(range, (list, tuple)) or len(range) != 2:
            raise ValueError("mindspore.numpy.histogram_bin_edges: range must be (start, end)")
        if range[0] > range[1]:
            raise ValueError("mindspore.numpy.histogram_bin_edges: max must be larger than min "
                             "in range")
        start, end = to_tensors(*range)
        start, end = ops.cast(start, float32), ops.cast(end, float32)
    same = ops.equal(start, end)
    start = ops.select(same, ops.sub(start, 0.5), start)
    end = ops.select(same, ops.add(end, 0.5), end)
    return linspace(start, end, bins + 1)
