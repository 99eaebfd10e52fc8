"""Which routine numpy's ``matmul`` runs for one float32/float64 matrix product, with which
arguments: the one place that decides, so the native step calls what the Python runner's
``np.matmul`` calls and gets its bits (BLAS's GEMV, dot and GEMM kernels sum in different
orders; numpy's own loop rounds after every multiply-add).

numpy 2.x's inner loop (``FLOAT_matmul``/``DOUBLE_matmul`` in ``_core/src/umath/matmul.c.src``;
``FLOAT_dot`` in ``_core/src/multiarray/arraytypes.c.src``), for ``C (m, n) = A (m, k) @ B
(k, n)`` with element strides ``A: (am, ak)``, ``B: (bk, bn)``, ``C: (cm, cn)``, tests in order:

1. a zero dimension (or one too big for BLAS's integers): numpy's loop.
2. ``m == n == 1``: ``?dot(k, A, ak, B, bk)``, added to a ``0.0`` double and stored (a
   non-positive stride: numpy's loop, which sums the same way).
3. ``k == 1`` and ``m == 1`` or ``n == 1``: numpy's loop.
4. ``m == 1``, ``B`` "blasable" (one stride 1, the other at least the other dimension) and
   ``ak == 1``: ``?gemv`` on ``B`` seen as ``(n, k)`` with strides ``(bn, bk)`` and ``x = A``.
5. ``n == 1``, ``A`` blasable and ``bk == 1``: ``?gemv`` on ``A`` and ``x = B``.
6. any other ``k == 1`` or ``m == 1`` or ``n == 1`` product (an outer product, a vector that is
   not contiguous): numpy's loop.
7. else ``?gemm`` (row-major, a transpose flag per operand from its strides), or ``?syrk`` and
   a copy of the upper triangle when ``A`` and ``B`` are one buffer read as a matrix and its
   transpose.

numpy's GEMV: a matrix ``M (rows, cols)`` with strides ``(r, c)`` times ``x`` (stride ``incx``)
into ``y`` (stride ``incy``) is ``gemv(ColMajor, Trans, cols, rows, 1, M, r, x, incx, 0, y,
incy)`` when ``c == 1`` and ``r >= cols``, else ``gemv(RowMajor, Trans, cols, rows, 1, M, c, ...)``
(OpenBLAS runs the first as its transposed kernel, the second as its plain one: different
sums). numpy's loop: for each ``(i, j)``, ``c = 0.0`` then ``c += a * b`` over ``k`` in order,
rounding each product and each sum (no fused multiply-add).

Example::

    >>> choose(1, 64, 10, (64, 1), (1, 64), (10, 1))     # x (1, 64) @ w.T, w (10, 64)
    Gemv(order=102, m=64, n=10, lda=64, matrix='b', incx=1, incy=1)
    >>> choose(64, 1, 10, (1, 1), (10, 1), (10, 1)).kind  # an outer product
    'loop'
"""
from __future__ import annotations

from dataclasses import dataclass

ROW_MAJOR, COL_MAJOR, NO_TRANS, TRANS, UPPER = 101, 102, 111, 112, 121   # CBLAS's enums
BLAS_MAX = (1 << 63) - 2
"""numpy's ``BLAS_MAXSIZE`` for its ILP64 OpenBLAS: larger dimensions take its loop."""


@dataclass(frozen=True)
class Gemm:
    """``gemm(RowMajor, transa, transb, m, n, k, 1, A, lda, B, ldb, 0, C, ldc)``."""
    transa: int
    transb: int
    lda: int
    ldb: int
    ldc: int
    kind = "gemm"


@dataclass(frozen=True)
class Syrk:
    """``syrk(RowMajor, Upper, trans, n, k, 1, A, lda, 0, C, ldc)``, then ``C``'s upper
    triangle copied to its lower one."""
    trans: int
    lda: int
    ldc: int
    kind = "syrk"


@dataclass(frozen=True)
class Gemv:
    """``gemv(order, Trans, m, n, 1, M, lda, x, incx, 0, C, incy)``: ``matrix`` says which
    operand is ``M`` (``'a'``: ``x`` is ``B``; ``'b'``: ``x`` is ``A``)."""
    order: int
    m: int
    n: int
    lda: int
    matrix: str
    incx: int
    incy: int
    kind = "gemv"


@dataclass(frozen=True)
class Dot:
    """``C[0, 0] = 0.0 + dot(k, A, inca, B, incb)`` (the sum in float64)."""
    inca: int
    incb: int
    kind = "dot"


@dataclass(frozen=True)
class Loop:
    """numpy's loop over the strides given to :func:`choose`."""
    kind = "loop"


def _blasable(s1: int, s2: int, d2: int) -> bool:
    """numpy's ``is_blasable2d``: the faster axis contiguous, the slower one's stride at least
    the faster axis' length."""
    return s2 == 1 and d2 <= s1 <= BLAS_MAX


def _gemv(r: int, c: int, rows: int, cols: int, which: str, incx: int, incy: int) -> Gemv:
    if _blasable(r, c, cols):
        return Gemv(COL_MAJOR, cols, rows, r, which, incx, incy)
    return Gemv(ROW_MAJOR, cols, rows, c, which, incx, incy)


def choose(m: int, k: int, n: int, a: tuple[int, int], b: tuple[int, int],
           c: tuple[int, int], same: bool = False):
    """numpy's routine for ``C (m, n) = A (m, k) @ B (k, n)``: element strides ``a``, ``b``,
    ``c`` (as numpy sees them, size-1 dimensions included); ``same``: ``A`` and ``B`` start at
    one address. Returns a :class:`Gemm`, :class:`Syrk`, :class:`Gemv`, :class:`Dot` or
    :class:`Loop`."""
    (am, ak), (bk, bn), (cm, cn) = a, b, c
    if 0 in (m, k, n) or max(m, k, n) > BLAS_MAX:
        return Loop()
    if min(m, k, n) == 1:
        if m == n == 1:
            return Dot(ak, bk) if ak > 0 and bk > 0 else Loop()
        if k == 1:
            return Loop()
        a_ok = _blasable(am, ak, k) or _blasable(ak, am, m)
        b_ok = _blasable(bk, bn, n) or _blasable(bn, bk, k)
        if m == 1 and b_ok and _blasable(ak, 1, 1):
            return _gemv(bn, bk, n, k, "b", ak, cn)
        if n == 1 and a_ok and _blasable(bk, 1, 1):
            return _gemv(am, ak, m, k, "a", bk, cm)
        return Loop()
    if not (_blasable(cm, cn, n) and (_blasable(am, ak, k) or _blasable(ak, am, m))
            and (_blasable(bk, bn, n) or _blasable(bn, bk, k))):
        raise ValueError(f"a product numpy copies first: strides {a}, {b} -> {c}")
    if abs(cm) < abs(cn):
        raise ValueError(f"a product numpy computes transposed: output strides {c}")
    transa, lda = (NO_TRANS, am) if _blasable(am, ak, k) else (TRANS, ak)
    transb, ldb = (NO_TRANS, bk) if _blasable(bk, bn, n) else (TRANS, bn)
    if same and m == n and am == bn and ak == bk and transa != transb:
        return Syrk(transa, lda if transa == NO_TRANS else ldb, cm)
    return Gemm(transa, transb, lda, ldb, cm)


def strides(ld: int, transposed: bool) -> tuple[int, int]:
    """Element strides, as numpy sees them, of an operand read from a row-major buffer with
    rows of ``ld`` elements: ``(ld, 1)``, or ``(1, ld)`` read transposed (the runner's
    ``swapaxes`` view)."""
    return (1, ld) if transposed else (ld, 1)
