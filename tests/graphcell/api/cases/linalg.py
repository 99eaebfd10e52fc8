"""Matrix products and linear algebra (``linalg_func``): products, inverses, determinants,
factorizations and solves, in their functional, Primitive and Tensor-method faces.

Matrices that are inverted or factorized are given values (well conditioned, so float32 results
and float64 finite differences are stable); error cases come last, because a MindSpore call that
raised can leave a cached Primitive in a state that fails the next call of the same kind.
"""
import numpy as np

from golden_cases import D, T, case

SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]], np.float32)
SPD_F64 = SPD.astype(np.float64)
SPD2 = np.stack([SPD, SPD[::-1, ::-1] + np.eye(3, dtype=np.float32)])
GEN = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0], [1.0, 0.0, 1.0]], np.float32)   # det = -2
TALL = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]], np.float32)
LOWER = np.linalg.cholesky(SPD).astype(np.float32)


def _lu(a):
    """LAPACK's getrf: LU packed in one matrix and 1-based int32 pivots (partial pivoting)."""
    a = a.astype(np.float64).copy()
    n = a.shape[0]
    piv = np.zeros(n, np.int32)
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        piv[k] = p + 1
        a[[k, p]] = a[[p, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a.astype(np.float32), piv


def _geqrf(a):
    h, tau = np.linalg.qr(a.astype(np.float64), mode="raw")
    return h.T.astype(np.float32), tau.astype(np.float32)


LU, PIVOTS = _lu(GEN)
WINDOW = ("a window length given as a Tensor (which MindSpore requires here) is a value of the "
          "graph; graph mode needs it while compiling (give an int)")
QR_Y, QR_TAU = _geqrf(TALL)

CASES = [
    # --- matmul and its Primitive faces ---
    case("ops.matmul", T((2, 3)), T((3, 4))),
    case("ops.matmul", T((3,)), T((3,))),
    case("ops.matmul", T((3,)), T((3, 4))),
    case("ops.matmul", T((2, 3)), T((3,))),
    case("ops.matmul", T((2, 1, 2, 3)), T((3, 3, 4))),
    case("ops.matmul", T((2, 3), "int32", -3, 4), T((3, 2), "int32", -3, 4)),
    case("ops.matmul", T((2, 3), "float64"), T((3, 2), "float64")),
    case("ops.matmul", T((0, 3)), T((3, 2))),
    case("Tensor.matmul", T((2, 3)), T((3, 4))),
    case("Tensor.matmul", T((3,)), T((2, 3, 2))),
    case("ops.MatMul", T((2, 3)), T((3, 4)), init=()),
    case("ops.MatMul", T((2, 3)), T((4, 3)), init=dict(transpose_b=True)),
    case("ops.MatMul", T((3, 2)), T((4, 3)), init=(True, True)),
    case("ops.MatMul", T((2, 3), "int32", -3, 4), T((3, 2), "int32", -3, 4), init=()),
    case("ops.BatchMatMul", T((2, 2, 3)), T((2, 3, 4)), init=()),
    case("ops.BatchMatMul", T((2, 3, 2)), T((2, 4, 3)), init=dict(transpose_a=True,
                                                                   transpose_b=True)),
    case("ops.BatchMatMul", T((2, 3)), T((3, 2)), init=()),
    case("ops.bmm", T((2, 2, 3)), T((2, 3, 4))),
    case("ops.bmm", T((2, 1, 2, 3), "int32", -2, 3), T((2, 1, 3, 2), "int32", -2, 3)),
    case("Tensor.bmm", T((3, 2, 2)), T((3, 2, 1))),
    case("ops.mm", T((2, 3)), T((3, 4))),
    case("ops.mm", T((2, 3), "int32", -2, 3), T((3, 2), "int32", -2, 3)),
    case("Tensor.mm", T((3, 2)), T((2, 2))),
    # dot takes float16/float32 only, so no float64 finite differences
    case("ops.dot", T((2, 3)), T((3, 4)), fd=False),
    case("ops.dot", T((2, 2, 3)), T((4, 3, 2)), fd=False),
    case("Tensor.dot", T((2, 3)), T((3, 1)), fd=False),
    # --- vector products ---
    case("ops.ger", T((3,)), T((2,))),
    case("ops.ger", T((2,), "float64"), T((3,), "float64")),
    case("ops.Ger", T((3,)), T((2,)), init=()),
    case("Tensor.ger", T((2,)), T((4,))),
    case("ops.outer", T((3,)), T((2,))),
    case("ops.outer", T((2,), "int32", -3, 4), T((3,), "int32", -3, 4)),
    case("Tensor.outer", T((2,)), T((2,))),
    case("ops.inner", T((2, 3)), T((4, 3))),
    case("ops.inner", T((3,)), T((3,))),
    case("ops.inner", T(()), T((2, 3))),
    case("ops.inner", T((2, 3), "int32", -3, 4), T((2, 3), "int32", -3, 4)),
    case("Tensor.inner", T((2, 2, 3)), T((3,))),
    case("ops.mv", T((2, 3)), T((3,))),
    case("ops.vecdot", T((2, 3)), T((2, 3))),
    case("ops.vecdot", T((2, 3)), T((3,)), axis=-1),
    # --- sums with products ---
    case("ops.addmv", T((3,)), T((3, 2)), T((2,))),
    case("ops.addmv", T((3,)), T((3, 2)), T((2,)), beta=2, alpha=0.5),
    case("ops.addmv", T((1,)), T((3, 2)), T((2,))),
    case("ops.addmv", T((3,), "int32", -3, 4), T((3, 2), "int32", -3, 4),
         T((2,), "int32", -3, 4)),
    case("Tensor.addmv", T((2,)), T((2, 3)), T((3,)), alpha=2),
    case("ops.addmm", T((2, 4)), T((2, 3)), T((3, 4)), beta=0.5, alpha=2),
    case("ops.addmm", T((4,)), T((2, 3)), T((3, 4))),
    case("Tensor.addmm", T((2, 2)), T((2, 3)), T((3, 2))),
    case("ops.baddbmm", T((2, 3, 2)), T((2, 3, 4)), T((2, 4, 2)), beta=0.5, alpha=2),
    case("ops.baddbmm", T((3, 2)), T((2, 3, 4)), T((2, 4, 2))),
    case("Tensor.baddbmm", T((2, 2, 2)), T((2, 2, 3)), T((2, 3, 2))),
    case("ops.addbmm", T((3, 2)), T((2, 3, 4)), T((2, 4, 2)), beta=0.5, alpha=2),
    case("ops.addbmm", T((2,)), T((2, 3, 4)), T((2, 4, 2))),
    case("Tensor.addbmm", T((2, 2)), T((3, 2, 4)), T((3, 4, 2))),
    case("ops.addr", T((3, 2)), T((3,)), T((2,))),
    case("ops.addr", T((3, 2)), T((3,)), T((2,)), beta=0.5, alpha=2),
    case("ops.addr", T((3, 2), "int32", -3, 4), T((3,), "int32", -3, 4), T((2,), "int32", -3, 4)),
    case("Tensor.addr", T((2,)), T((3,)), T((2,)), beta=2),
    # --- inverses and determinants ---
    case("ops.inverse", T(SPD)),
    case("ops.inverse", T(SPD2)),
    case("ops.inverse", T(SPD_F64)),
    case("Tensor.inverse", T(GEN)),
    case("ops.MatrixInverse", T(GEN), init=()),
    # MindSpore 2.10's gradient of MatrixInverse(adjoint=True) ignores adjoint (it is the
    # transpose of the right one): finite differences only
    case("ops.MatrixInverse", T(GEN), init=dict(adjoint=True), ms_grad=False),
    case("ops.det", T(GEN)),
    case("ops.det", T(SPD2)),
    case("Tensor.det", T(SPD)),
    case("ops.matrix_determinant", T(GEN)),
    case("Tensor.matrix_determinant", T(SPD2)),
    case("ops.MatrixDeterminant", T(GEN), init=()),
    case("ops.slogdet", T(GEN)),
    case("ops.slogdet", T(SPD2)),
    case("Tensor.slogdet", T(SPD)),
    case("ops.log_matrix_determinant", T(GEN)),
    case("Tensor.log_matrix_determinant", T(SPD)),
    case("ops.LogMatrixDeterminant", T(SPD2), init=()),
    case("ops.logdet", T(SPD)),
    case("ops.logdet", T(SPD2)),
    case("Tensor.logdet", T(SPD_F64)),
    # --- Cholesky ---
    case("ops.cholesky", T(SPD), grad=False),
    case("ops.cholesky", T(SPD2), upper=True, grad=False),
    case("ops.cholesky", T(SPD_F64), grad=False),
    case("Tensor.cholesky", T(SPD), upper=True, grad=False),
    case("ops.Cholesky", T(SPD), init=dict(upper=True), grad=False),
    # MindSpore 2.10's gradient of cholesky_inverse assumes a symmetric cotangent (-2 M X
    # instead of -(M + M^T) X, M = A^-1 G A^-1): finite differences only
    case("ops.cholesky_inverse", T(LOWER), ms_grad=False),
    case("ops.cholesky_inverse", T(np.ascontiguousarray(LOWER.T)), upper=True, ms_grad=False),
    case("Tensor.cholesky_inverse", T(LOWER), ms_grad=False),
    case("ops.CholeskyInverse", T(np.ascontiguousarray(LOWER.T)), init=dict(upper=True)),
    # MindSpore 2.10 solves with the factor's triangle only but differentiates as if the whole
    # matrix were used (its gradient disagrees with finite differences of its own forward):
    # finite differences only
    case("ops.cholesky_solve", T((3, 2)), T(LOWER), ms_grad=False),
    case("ops.cholesky_solve", T((3, 2)), T(np.ascontiguousarray(LOWER.T)), upper=True,
         ms_grad=False),
    case("Tensor.cholesky_solve", T((3, 1)), T(LOWER), ms_grad=False),
    case("ops.CholeskySolve", T((3, 2)), T(LOWER), init=(), ms_grad=False),
    # --- QR, SVD, Householder ---
    case("ops.qr", T(TALL)),
    case("ops.qr", T(TALL), mode="complete"),
    case("ops.qr", T(np.ascontiguousarray(TALL.T))),
    case("ops.qr", T(SPD2)),
    case("Tensor.qr", T(TALL)),
    case("Tensor.qr", T(TALL), some=False),
    case("ops.Qr", T(TALL), init=dict(full_matrices=True)),
    case("ops.svd", T(TALL), compute_uv=False),
    case("ops.svd", T(SPD2), compute_uv=False),
    case("ops.svd", T(np.ascontiguousarray(TALL.T), "float64"), compute_uv=False),
    case("ops.svd", T(TALL), values=False, grad=False),
    case("ops.svd", T(TALL), full_matrices=True, values=False, grad=False),
    case("Tensor.svd", T(SPD), compute_uv=False),
    case("ops.Svd", T(TALL), init=(), values=False, grad=False),
    case("ops.geqrf", T(TALL)),
    case("ops.geqrf", T(np.ascontiguousarray(TALL.T))),
    case("ops.geqrf", T(SPD2)),
    case("Tensor.geqrf", T(SPD_F64)),
    case("ops.orgqr", T(QR_Y), T(QR_TAU)),
    case("Tensor.orgqr", T(QR_Y), T(QR_TAU)),
    case("ops.Orgqr", T(QR_Y), T(QR_TAU), init=()),
    # --- solves ---
    case("ops.lstsq", T(TALL), T((3, 2)), rtol=1e-3, atol=1e-5),
    case("ops.lstsq", T(GEN), T((3, 2))),
    case("Tensor.lstsq", T(TALL), T((3, 3))),
    case("ops.lu_solve", T((3, 2)), T(LU), T(PIVOTS)),
    case("Tensor.lu_solve", T((3, 1)), T(LU), T(PIVOTS)),
    case("ops.matrix_solve", T(GEN), T((3, 2))),
    case("ops.matrix_solve", T(GEN), T((3, 2)), adjoint=True),
    case("ops.MatrixSolve", T(GEN), T((3, 1)), init=()),
    # --- powers, cross products, traces, other products ---
    case("ops.matrix_power", T(GEN / 3), 3),
    case("ops.matrix_power", T(SPD2), 0),
    case("ops.matrix_power", T(SPD), -2),
    case("ops.matrix_power", T((2, 2), "int32", -3, 4), 3),
    case("Tensor.matrix_power", T(GEN / 3), 2),
    case("ops.MatrixPower", T(SPD), init=dict(n=2)),
    case("ops.cross", T((2, 3)), T((2, 3))),
    case("ops.cross", T((3, 2)), T((3, 2))),
    case("ops.cross", T((2, 3, 3)), T((2, 3, 3)), dim=-1),
    case("ops.cross", T((2, 3), "int32", -3, 4), T((2, 3), "int32", -3, 4)),
    case("Tensor.cross", T((4, 3)), T((4, 3)), dim=1),
    case("ops.Cross", T((2, 3)), T((2, 3)), init=dict(dim=1)),
    case("ops.mvlgamma", T((2, 3), lo=1.5, hi=4.0), 2),
    case("ops.mvlgamma", T((3,), "float64", lo=0.5, hi=3.0), 1),
    case("Tensor.mvlgamma", T((4,), lo=2.0, hi=5.0), 4),
    case("ops.adjoint", T((2, 3))),
    case("ops.adjoint", T((2, 3, 4), "int32", 0, 5)),
    case("Tensor.adjoint", T((3, 2))),
    case("ops.trace", T((3, 4))),
    case("ops.trace", T((3, 3), "int32", -3, 4)),
    case("ops.Trace", T((2, 2)), init=()),
    case("ops.kron", T((2, 2)), T((1, 3))),
    case("ops.kron", T((2,)), T((2, 3))),
    case("ops.tensor_dot", T((2, 3, 4)), T((4, 3, 2)), ((1, 2), (1, 0))),
    case("ops.tensor_dot", T((2, 3)), T((3, 2)), 1),
    case("ops.batch_dot", T((2, 3, 4)), T((2, 4, 5)), (2, 1)),
    case("ops.batch_dot", T((2, 3)), T((2, 3))),
]

# --- tier 2: pseudo-inverses, condition numbers, structured matrices, windows ---
CASES += [
    case("ops.pinv", T(TALL), rtol=1e-4),
    case("ops.pinv", T(SPD2), rtol=1e-4),
    case("ops.cond", T(GEN), rtol=1e-4),
    case("ops.cond", T(GEN), "fro", rtol=1e-4),
    case("ops.cond", T(SPD), 1, rtol=1e-4),
    case("ops.vander", T((3,))),
    case("ops.vander", T((3,), "int32", -3, 4), N=2),
    case("ops.trapz", T((2, 3))),
    case("ops.trapz", T((3,)), T(np.array([0.0, 1.0, 3.0], np.float32))),
    case("ops.trapz", T((2, 3)), dx=0.5, dim=0),
    case("ops.block_diag", T((1, 2)), T((2, 1)), T(())),
    case("ops.block_diag", T((2,)), T((1,))),
    case("ops.cartesian_prod", T((2,), "int32", 0, 9), T((3,), "int32", 0, 9)),
    case("ops.cartesian_prod", T((2,)), T((2,)), T((2,))),
    case("ops.combinations", T((4,)), 3),
    case("ops.combinations", T((3,)), 2, True),
    case("ops.matrix_diag", T((3,))),
    case("ops.matrix_diag", T((2, 2)), k=1),
    case("ops.matrix_set_diag", T((2, 3)), T((2,))),
    case("ops.matrix_set_diag", T((2, 3, 3)), T((2, 3))),
    case("ops.matrix_diag_part", T((2, 3)), T(np.array(0, np.int32)), T(np.array(0.0, np.float32)),
         modes=("pynative",), why="k is a Tensor there: a value of the graph, and the diagonal "
                                  "must be known while compiling"),
    case("ops.lu_unpack", T(LU), T(PIVOTS)),
    case("ops.LuUnpack", T(LU), T(PIVOTS), init=()),
    case("ops.blackman_window", T(np.array(5, np.int32)), modes=("pynative",), why=WINDOW),
    case("ops.blackman_window", T(np.array(4, np.int32)), periodic=False, dtype=D("float64"),
         modes=("pynative",), why=WINDOW),
    case("ops.bartlett_window", T(np.array(5, np.int32)), modes=("pynative",), why=WINDOW),
    case("ops.hamming_window", 5),
    case("ops.hamming_window", 6, False, 0.5, 0.5),
    case("ops.hann_window", 5),
    case("ops.hann_window", 6, False, dtype=D("float32")),
    case("ops.kaiser_window", 5),
    case("ops.kaiser_window", 4, False, 6.0),
    case("ops.BlackmanWindow", T(np.array(5, np.int32)), init=(), modes=("pynative",),
         why=WINDOW),
    case("ops.BartlettWindow", T(np.array(4, np.int32)), init=dict(periodic=False),
         modes=("pynative",), why=WINDOW),
    case("ops.HammingWindow", T(np.array([5], np.int32)), init=(), modes=("pynative",),
         why=WINDOW),
]

CASES += [
    case("ops.Geqrf", T(TALL), init=()),
    case("ops.Lstsq", T(TALL), T((3, 2)), init=(), rtol=1e-3, atol=1e-5),
    case("ops.LuSolve", T((3, 2)), T(LU), T(PIVOTS), init=()),
    case("ops.MatrixTriangularSolve", T(LOWER), T((3, 2)), init=()),
    case("ops.MatrixTriangularSolve", T(np.stack([LOWER.T, LOWER.T + np.eye(3, dtype=np.float32)])
                                          .astype(np.float32)),
         T((2, 3, 2)), init=dict(lower=False, adjoint=True)),
]

# --- refusals (last: see the module docstring) ---
CASES += [
    case("ops.matmul", T((2, 3)), T((3, 2), "float64"), id="dtypes_differ"),
    case("ops.matmul", T((2, 3)), T((2, 3)), id="sizes_differ"),
    case("ops.matmul", T(()), T((2, 3)), id="scalar"),
    case("ops.MatMul", T((2, 2, 3)), T((3, 4)), init=(), id="rank3"),
    case("ops.bmm", T((2, 2, 3)), T((3, 3, 4)), id="batch_differs"),
    case("ops.mm", T((2, 2, 3)), T((3, 4)), id="rank3"),
    case("ops.dot", T((3,)), T((3,)), id="vectors"),
    case("ops.dot", T((2, 3), "int32", 0, 3), T((3, 2), "int32", 0, 3), id="int"),
    case("ops.ger", T((2, 3)), T((2,)), id="matrix"),
    case("ops.ger", T((2,), "int32", 0, 3), T((2,), "int32", 0, 3), id="int"),
    case("ops.inner", T((3,)), T((2,)), id="sizes_differ"),
    case("ops.inverse", T((2, 3)), id="not_square"),
    case("ops.inverse", T((3, 3), "int32", 0, 3), id="int"),
    case("ops.det", T((3,)), id="vector"),
    case("ops.cholesky", T(-SPD), id="not_positive_definite"),
    case("ops.qr", T(TALL), mode="r", id="bad_mode"),
    case("ops.svd", T((2, 3), "int32", 0, 3), id="int"),
    case("ops.matrix_power", T(SPD), 2.0, id="float_n"),
    case("ops.matrix_power", T((2, 3)), 2, id="not_square"),
    case("ops.matrix_power", T((2, 2), "int32", 0, 3), -1, id="int_negative"),
    case("ops.cross", T((2, 4)), T((2, 4)), id="no_axis_of_3"),
    case("ops.mvlgamma", T((2,), lo=2.0, hi=3.0), 0, id="p0"),
    case("ops.mvlgamma", T(np.array([0.2, 3.0], np.float32)), 2, id="domain",
         modes=("pynative",), why="graph mode cannot read values while compiling: an element "
                                  "out of the domain gives NaN there"),
    case("ops.lstsq", T(TALL), T((2, 2)), id="rows_differ"),
]
