"""The index family: gathers, scatters (functional and in-place), segment reductions, masks and
positions. Error cases come last: MindSpore 2.10's PyNative runtime sometimes repeats a previous
error for the next call, so no valid case is recorded after one."""
import numpy as np

from golden_cases import D, T, case

PYNATIVE = dict(modes=("pynative",),
                why="the output's shape depends on the values (graph mode refuses it: tested in "
                    "test_index_ops.py)")


# MindSpore 2.10's gradients of these are not the derivative of what they compute: ScatterUpdate,
# ScatterMax/Min and ScatterNdUpdate pass the whole cotangent to input_x (rows that were
# overwritten included), InplaceUpdate/Add/Sub give input x none, Gather drops the gradient of a
# negative index. graphcell differentiates what the op computes (docs/decisions.md; checked
# against finite differences by the registry's sample rows), so these cases compare no gradients.
MS_GRAD_WRONG = dict(grad=False)


def _grad_of(reduction):
    return MS_GRAD_WRONG if reduction.lower() in ("update", "max", "min") else {}


def ix(values, dtype="int32"):
    """An index tensor of given values."""
    return T(np.array(values, dtype))


def mask(values):
    return T(np.array(values, np.bool_))


X23 = (2, 3)

CASES = [
    # --- gather (Gather, Tensor.gather in both spellings) ---------------------------------------
    case("ops.gather", T(X23), ix([2, 0, 2]), 1),
    case("ops.gather", T((3, 2)), ix([[1, 0], [0, 2]], "int64"), axis=0),
    case("ops.gather", T((3, 2)), ix([-1, 2], "int64"), axis=0, **MS_GRAD_WRONG),
    case("ops.gather", T((2, 3, 2)), ix([1, 0]), -2),
    case("ops.gather", T((3, 2)), ix(1), 0),
    case("ops.gather", T((2, 3), "int32", 0, 9), ix([2, 1]), 1),
    case("ops.gather", T(X23), ix([[2, 0], [1, 1]]), 1, batch_dims=1),
    case("ops.Gather", T(X23), ix([1, 0]), 1, init=()),
    case("ops.Gather", T(X23), ix([[2, 0], [1, 1]]), 1, init=(1,)),
    case("Tensor.gather", T(X23), 1, ix([[2, 0], [1, 1]], "int64")),
    case("Tensor.gather", T(X23), dim=0, index=ix([[1, 0, 1]])),
    case("Tensor.gather", T(X23), ix([1, 0]), 1),
    case("Tensor.gather", T(X23), input_indices=ix([1, 1, 0]), axis=0),
    # --- gather_d / gather_elements --------------------------------------------------------------
    case("ops.gather_d", T(X23), 1, ix([[2, 0], [1, 1]])),
    case("ops.gather_d", T(X23), 0, ix([[1]], "int64")),
    case("ops.gather_d", T(X23), -1, ix([[-1, 0, 2, 2], [1, 1, 0, -3]])),
    case("ops.gather_d", T((2, 2), "int64", 0, 9), 0, ix([[1, 0], [1, 1]])),
    case("ops.GatherD", T(X23), 1, ix([[2, 0], [1, 1]]), init=()),
    case("ops.gather_elements", T((2, 2, 2)), 2, ix([[[1, 0]], [[0, 0]]])),
    case("Tensor.gather_elements", T(X23), 1, ix([[2, 0], [1, 1]])),
    # --- gather_nd ---------------------------------------------------------------------------------
    case("ops.gather_nd", T(X23), ix([[1, 2], [0, 0]])),
    case("ops.gather_nd", T(X23), ix([[1], [0], [1]], "int64")),
    case("ops.gather_nd", T(X23), ix([1, 2])),
    case("ops.gather_nd", T((2, 2), "int32", 0, 9), ix([[[0, 1]], [[1, 0]]])),
    case("ops.GatherNd", T(X23), ix([[1, 2], [0, 0]]), init=()),
    case("Tensor.gather_nd", T(X23), ix([[0], [1]])),
    # --- index_select, take --------------------------------------------------------------------
    case("ops.index_select", T(X23), 1, ix([2, 0, 2])),
    case("ops.index_select", T(X23), -2, ix([1], "int64")),
    case("Tensor.index_select", T(X23), axis=1, index=ix([2])),
    case("Tensor.index_select", T(X23), dim=0, index=ix([1, 1])),
    case("Tensor.take", T(X23), ix([[5, 0]])),
    case("Tensor.take", T(X23), ix([2, 0]), axis=1),
    case("Tensor.take", T(X23), ix([7, -1]), mode="clip"),
    case("Tensor.take", T(X23), ix([7, -1]), axis=-1, mode="wrap"),
    case("Tensor.take", T(X23), index=ix([5, 1, -1], "int64")),
    # --- functional scatters -------------------------------------------------------------------
    *[case(f"ops.tensor_scatter_{r}", T((3, 3), lo=0.5), ix([[0, 1], [2, 2]]), T((2,), lo=0.5))
      for r in ("update", "add", "sub", "mul", "div", "max", "min")],
    case("ops.tensor_scatter_add", T((3, 2)), ix([[1], [1]]), T((2, 2))),
    case("ops.tensor_scatter_sub", T((2, 3), "int32", 0, 9), ix([[0, 1]]), T((1,), "int32", 0, 9)),
    case("ops.tensor_scatter_update", mask([True, False]), ix([[1]]), mask([True])),
    case("ops.tensor_scatter_div", T((2, 3), "int32", -9, 9), ix([[0, 0], [1, 2]]),
         T(np.array([2, -4], np.int32))),
    case("ops.tensor_scatter_max", T((3,)), ix(np.zeros((0, 1))), T((0,))),
    *[case(f"ops.TensorScatter{r}", T((3, 3), lo=0.5), ix([[0, 1], [2, 2]]), T((2,), lo=0.5),
           init=()) for r in ("Update", "Add", "Sub", "Mul", "Div", "Max", "Min")],
    case("Tensor.scatter_div", T(X23, lo=0.5), ix([[1]]), T((1, 3), lo=0.5)),
    case("Tensor.scatter_mul", T(X23), ix([[0, 1], [1, 2]]), T((2,))),
    case("Tensor.scatter_sub", T(X23), ix([[1]]), T((1, 3))),
    case("Tensor.scatter_max", T(X23), ix([[1, 0]]), T((1,))),
    case("Tensor.scatter_min", T(X23), ix([[1, 0]]), T((1,))),
    case("Tensor.scatter_add", T(X23), ix([[1], [0]]), T((2, 3))),
    # --- tensor_scatter_elements / scatter ---------------------------------------------------
    case("ops.tensor_scatter_elements", T(X23), ix([[1, 0, 1]]), T((1, 3))),
    case("ops.tensor_scatter_elements", T(X23), ix([[0, 2], [2, -1]]), T((2, 2)), axis=1,
         reduction="add"),
    case("ops.TensorScatterElements", T(X23), ix([[2, 0]]), T((1, 2)), init=(1, "add")),
    case("ops.TensorScatterElements", T(X23), ix([[1]], "int64"), T((1, 1)), init=dict(axis=0)),
    case("ops.ScatterAddWithAxis", T(X23), ix([[0, 0]]), T((1, 2)), init=(1,)),
    case("ops.scatter", T(X23), 1, ix([[2, 0]], "int64"), T((1, 2))),
    case("ops.scatter", T(X23), 0, ix([[1, 0, 1]], "int64"), 7.0),
    case("Tensor.scatter", T(X23), dim=0, index=ix([[1, 0]], "int64"), src=T((1, 2))),
    case("Tensor.scatter", T(X23), axis=1, index=ix([[2], [0]], "int64"), src=T((2, 1))),
    case("Tensor.scatter", T(X23), 1, ix([[0, 1]], "int64"), T((1, 2))),
    case("ops.scatter_nd", ix([[0], [2], [0]]), T((3,)), (4,)),
    case("ops.scatter_nd", ix([[1, 1], [0, 2]], "int64"), T((2, 2)), (2, 3, 2)),
    case("ops.ScatterNd", ix([[0], [2]]), T((2, 2)), (4, 2), init=()),
    # --- in-place scatters (the first operand takes the result) ------------------------------
    *[case(f"ops.scatter_{r}", T((3, 2), lo=0.5), ix([0, 2]), T((2, 2), lo=0.5), **_grad_of(r))
      for r in ("update", "add", "mul", "div", "max", "min")],
    case("ops.scatter_add", T((3, 2)), ix([[0, 1], [1, 1]]), T((2, 2, 2))),
    case("ops.scatter_update", T((3, 2)), ix(1, "int64"), T((2,)), **MS_GRAD_WRONG),
    case("ops.ScatterSub", T((1, 2), "uint8", 0, 9), ix([0]), T((1, 2), "uint8", 0, 9), init=()),
    case("ops.scatter_div", T((3, 2), "int32", -9, 9), ix([0, 0]), T(np.array([[2, -2], [3, 2]],
                                                                             np.int32))),
    case("ops.ScatterAdd", T((3, 2)), ix([0, 0]), T((2, 2), "float16"), init=()),
    *[case(f"ops.Scatter{r}", T((3, 2), lo=0.5), ix([2, 0]), T((2, 2), lo=0.5), init=(),
           **_grad_of(r)) for r in ("Update", "Add", "Sub", "Mul", "Div", "Max", "Min")],
    case("ops.ScatterUpdate", T((3, 2)), ix([1]), T((1, 2)), init=dict(use_locking=False),
         **MS_GRAD_WRONG),
    *[case(f"ops.scatter_nd_{r}", T((2, 3), lo=0.5), ix([[0, 1], [1, 2]]), T((2,), lo=0.5),
           **_grad_of(r)) for r in ("update", "add", "sub", "mul", "div", "max", "min")],
    case("ops.scatter_nd_add", T((3, 2)), ix([[1], [1]], "int64"), T((2, 2)), use_locking=True),
    *[case(f"ops.ScatterNd{r}", T((2, 3), lo=0.5), ix([[0, 1], [1, 2]]), T((2,), lo=0.5), init=(),
           **_grad_of(r)) for r in ("Update", "Add", "Sub", "Div", "Min", "Max", "Mul")],
    case("ops.index_add", T(X23), ix([0, 2]), T((2, 2)), 1),
    case("ops.index_add", T(X23), ix([1, 1]), T((2, 3)), axis=0),
    case("ops.index_add", T((2, 3), "int32", 0, 9), ix([2]), T((2, 1), "int32", 0, 9), -1),
    case("ops.IndexAdd", T(X23), ix([0, 2]), T((2, 2)), init=dict(axis=1)),
    case("ops.inplace_index_add", T(X23), ix([1]), T((1, 3)), 0),
    case("ops.InplaceIndexAdd", T(X23), ix([2, 2]), T((2, 2)), init=(1,)),
    case("Tensor.index_add", T(X23), ix([0, 2]), T((2, 2)), 1),
    case("Tensor.index_add", T(X23), 1, ix([0, 2]), T((2, 2)), alpha=2),
    case("Tensor.index_add", T(X23), 0, ix([1, 1]), T((2, 3))),
    # --- functional row updates, index_fill ----------------------------------------------------
    case("ops.inplace_update", T(X23), T((1, 3)), (1,), **MS_GRAD_WRONG),
    case("ops.inplace_update", T((3, 2)), T((2, 2)), ix([2, 0]), **MS_GRAD_WRONG),
    case("ops.inplace_update", T((3, 2), "int32", 0, 9), T((2, 2), "int32", 0, 9), (-1, 0)),
    case("ops.inplace_add", T((3, 2)), T((2, 2)), (0, 0), **MS_GRAD_WRONG),
    case("ops.inplace_sub", T((3, 2)), T((1, 2)), (1,), **MS_GRAD_WRONG),
    case("ops.InplaceUpdate", T(X23), T((2, 3)), init=((1, 0),), **MS_GRAD_WRONG),
    case("ops.InplaceAdd", T(X23), T((1, 3)), init=(1,), **MS_GRAD_WRONG),
    case("ops.InplaceSub", T(X23), T((2, 3)), init=dict(indices=(0, 1)), **MS_GRAD_WRONG),
    case("Tensor.inplace_update", T(X23), T((1, 3)), (0,), **MS_GRAD_WRONG),
    case("ops.index_fill", T(X23), 1, ix([0, 2]), 9.0),
    # MindSpore 2.10 gives a tensor value no gradient (masked_fill does): graphcell gives it the
    # sum of the filled positions' gradients (docs/decisions.md), so these compare no gradients
    case("ops.index_fill", T(X23), -1, ix([-1]), T(np.array(2.5, np.float64)), grad=False),
    case("ops.index_fill", T((3,), "int32", 0, 9), 0, ix([1]), 9.5),
    case("ops.index_fill", T(X23), 0, ix([1]), T(np.array(4.0, np.float32)), grad=False),
    case("ops.IndexFill", T(X23), 1, ix([0, 2]), T(np.array(9.0, np.float32)), init=(),
         grad=False),
    case("Tensor.index_fill", T(X23), 1, ix([1]), 7.0),
    # --- unsorted segments ---------------------------------------------------------------------
    case("ops.unsorted_segment_sum", T((4,)), ix([0, -1, 2, 1]), 3),
    case("ops.unsorted_segment_sum", T(X23), ix([1, 0]), 3),
    case("ops.unsorted_segment_sum", T(X23), ix([[1, 0, 1], [0, 0, 2]], "int64"), 4),
    case("ops.unsorted_segment_sum", T((3,), "int32", 0, 9), ix([0, 0, 1]), 2),
    case("ops.unsorted_segment_max", T((4,)), ix([0, 0, 2, 1]), 3),
    # an empty segment holds -FLT_MAX: float64 finite differences of it are meaningless
    case("ops.unsorted_segment_max", T((3,)), ix([0, 0, 2]), 4, fd=False),
    case("ops.unsorted_segment_max", T(X23), ix([1, 0], "int64"), 2),
    case("ops.unsorted_segment_max", T((4,), "int32", 0, 9), ix([0, 0, 2, 1]), 4),
    case("ops.unsorted_segment_min", T((4,)), ix([1, -1, 1, 0]), 2),
    case("ops.unsorted_segment_min", T(X23), ix([[1, 0, 1], [0, 0, 2]]), 3),
    case("ops.unsorted_segment_prod", T((4,), lo=0.5), ix([0, 0, 2, 1]), 4),
    case("ops.unsorted_segment_prod", T(X23, lo=0.5), ix([0, 0]), 2),
    case("ops.UnsortedSegmentSum", T((3,)), ix([0, 0, 1]), 2, init=()),
    case("ops.UnsortedSegmentMax", T((3, 2)), ix([1, 0, 1]), 2, init=()),
    case("ops.UnsortedSegmentMin", T(X23), ix([0, 1]), 2, init=()),
    case("ops.UnsortedSegmentProd", T((3,), lo=0.5), ix([1, 0, 1]), 2, init=()),
    case("Tensor.unsorted_segment_max", T((4,)), ix([0, 0, 2, 1]), 3),
    case("Tensor.unsorted_segment_min", T(X23), ix([1, 0]), 2),
    case("Tensor.unsorted_segment_min", T(X23), ix([1, 1]), 3, fd=False),
    case("Tensor.unsorted_segment_prod", T(X23, lo=0.5), ix([1, 0]), 2),
    # --- masks -----------------------------------------------------------------------------------
    case("ops.masked_fill", T(X23), mask([True, False, True]), 0.5),
    case("ops.masked_fill", T(X23), mask([[True], [False]]), T(np.array(9.0, np.float32))),
    case("ops.masked_fill", T((3,)), mask([[True, False, True], [False, False, False]]), -1.5),
    case("ops.masked_fill", T(X23), mask([True, False, True]), T(np.array(2.5, np.float64))),
    case("ops.masked_fill", T((2,), "int32", 0, 9), mask([True, False]), 3),
    case("ops.masked_fill", mask([True, False]), mask([True, True]), False),
    case("ops.MaskedFill", T(X23), mask([True, False, True]), T(np.array(0.5, np.float32)),
         init=()),
    case("ops.MaskedFill", T(X23), mask([False, False, True]), 0.5, init=()),
    case("Tensor.masked_fill", T(X23), mask([True, False, True]), 0.5),
    case("ops.Select", mask([True, False]), T((2,)), T((2,)), init=()),
    case("ops.Select", mask([[True, False, True], [False, True, True]]), T(X23), T(X23), init=()),
    # --- positions and masked selection (PyNative: data-dependent shapes) ---------------------
    case("ops.masked_select", T(X23), mask([True, False, True]), **PYNATIVE),
    case("ops.masked_select", T((3,), "int32", 0, 9), mask([[True, False, True]]), **PYNATIVE),
    case("ops.MaskedSelect", T(X23), mask([[False], [True]]), init=(), **PYNATIVE),
    case("Tensor.masked_select", T(X23), mask([False, True, True]), **PYNATIVE),
    case("ops.argwhere", T(np.array([[0, 1], [2, 0]], np.float32)), **PYNATIVE),
    case("ops.argwhere", mask([True, False, True]), **PYNATIVE),
    case("Tensor.argwhere", T(np.array([[0, 1, 0], [2, 0, 3]], np.int32)), **PYNATIVE),
    case("ops.nonzero", T(np.array([[0, 1], [2, 0]], np.float32)), **PYNATIVE),
    case("Tensor.nonzero", T(np.array([0, 3, 0, 4], np.int64)), **PYNATIVE),
    case("ops.NonZero", T(np.array([[0, 1], [2, 0]], np.float32)), init=(), **PYNATIVE),
    # --- reverse_sequence ------------------------------------------------------------------------
    case("Tensor.reverse_sequence", T((2, 4)), ix([2, 3]), seq_dim=1, batch_dim=0),
    case("Tensor.reverse_sequence", T((3, 2, 2)), ix([3, 1], "int64"), 0, 1),
]

# --- slices, diagonals, bounds, triangles, runs, sorted segments (selection_func) ------------
SORTED = T(np.array([[1, 3, 5, 7], [0, 2, 2, 9]], np.float32))
CASES += [
    case("ops.slice_scatter", T((2, 4)), T((2, 2)), axis=1, start=1, end=4, step=2),
    case("ops.slice_scatter", T((3, 2)), T((3, 2))),
    case("Tensor.slice_scatter", T((3, 2)), T((2, 2)), 0, 1),
    case("ops.select_scatter", T(X23), T((2,)), 1, 0),
    case("ops.select_scatter", T((2, 3, 2)), T((2, 3)), -1, -1),
    case("Tensor.select_scatter", T(X23), T((3,)), 0, 1),
    case("ops.diagonal_scatter", T(X23), T((2,)), 1),
    case("ops.diagonal_scatter", T((3, 3)), T((2,)), -1),
    case("ops.diagonal_scatter", T((2, 3, 3)), T((2, 2)), 1, 1, 2),
    case("Tensor.diagonal_scatter", T((3, 2)), T((2,)), dim1=1, dim2=0),
    case("ops.tril_indices", 3, 2),
    case("ops.tril_indices", 4, 3, -1),
    case("ops.triu_indices", 3, 4, 1),
    case("ops.TrilIndices", init=(3, 2, 0)),
    case("ops.TriuIndices", init=dict(row=2, col=3, offset=-1)),
    case("ops.bucketize", T(np.array([1, 5, 3, 4], np.float32)), [2.0, 4.0]),
    case("ops.bucketize", T(np.array([[1, 5], [3, 4]], np.int32)), [2.0, 4.0], right=True),
    case("ops.Bucketize", T((5,)), init=dict(boundaries=[-1.0, 0.0, 1.0])),
    case("ops.LowerBound", SORTED, T(np.array([[3, 8], [2, -1]], np.float32)), init=()),
    case("ops.UpperBound", SORTED, T(np.array([[3, 8], [2, -1]], np.float32)), init=()),
    case("ops.UnravelIndex", ix([5, 1, 4]), ix([2, 3]), init=()),
    case("ops.IndexPut", T(X23), T((2,)), (ix([0, 1]), ix([1, 2])), init=(0,)),
    case("ops.IndexPut", T(X23), T((1,)), (ix([1, 1]), ix([-1, 0])), init=(1,)),
    case("Tensor.index_put", T(X23), (ix([1, 0], "int64"),), T((3,))),
    case("Tensor.index_put", T(X23), (ix([0, 0]), ix([2, 2])), T((2,)), accumulate=True),
    case("ops.is_nonzero", T(np.array([2.0], np.float32)), **PYNATIVE),
    case("ops.is_nonzero", T(np.array([[0]], np.int32)), **PYNATIVE),
    case("ops.unique_consecutive", T(np.array([1, 1, 2, 2, 1], np.int32)), True, True, **PYNATIVE),
    case("ops.unique_consecutive", T(np.array([[1, 1], [1, 1], [2, 3]], np.float32)),
         return_counts=True, dim=0, **PYNATIVE),
    case("Tensor.unique_consecutive", T(np.array([3.0, 3.0, 1.0], np.float32)), **PYNATIVE),
    case("ops.MaskedScatter", T(X23), mask([True, False, True]), T((4,)), init=(), **PYNATIVE),
    case("Tensor.masked_scatter", T(X23), mask([[True], [False]]), T((2, 3)), **PYNATIVE),
    *[case(f"ops.Segment{r}", T((3, 2), lo=0.5), ix([0, 0, 2]), init=(), **PYNATIVE)
      for r in ("Sum", "Max", "Min", "Prod", "Mean")],
    case("ops.ListDiff", ix([1, 2, 3, 4, 2]), ix([2, 5]), init=(), **PYNATIVE),
    case("ops.ListDiff", T(np.array([1, 2, 3], np.float32)), T(np.array([2], np.float32)),
         init=(D("int64"),), **PYNATIVE),
]

# --- empty and 0-d tensors ----------------------------------------------------------------------
EMPTY = ix(np.zeros(0))
NO_GRAD = dict(grad=False)  # an empty output: MindSpore 2.10's recorder gets no gradient back
CASES += [
    case("ops.gather", T((3,)), EMPTY, 0, **NO_GRAD),
    case("ops.gather_d", T((3,)), 0, EMPTY, **NO_GRAD),
    case("ops.gather_nd", T(X23), ix(np.zeros((0, 2))), **NO_GRAD),
    case("ops.index_select", T(X23), 0, EMPTY, **NO_GRAD),
    case("ops.scatter_update", T((1, 2)), EMPTY, T((0, 2)), **MS_GRAD_WRONG),
    case("ops.masked_fill", T(()), mask(True), 1.0),
    case("Tensor.masked_fill", T(()), mask(False), 1.0),
]

# --- errors (MindSpore refuses these; graphcell must too) --------------------------------------
CASES += [
    case("ops.gather", T(X23), ix([3, 0]), 1, id="index_out_of_range"),
    case("ops.gather", T(X23), T((2,)), 1, id="float_indices"),
    case("ops.gather_d", T(X23), 1, ix([[3, 0], [1, 1]]), id="index_out_of_range"),
    case("ops.gather_d", T(X23), 1, ix([[0], [1], [1]]), id="index_too_big"),
    case("ops.gather_nd", T(X23), ix([[2], [0]]), id="index_out_of_range"),
    case("ops.index_select", T(X23), 1, ix([[1]]), id="index_2d"),
    case("ops.tensor_scatter_add", T(X23), ix([[2]]), T((1, 3)), id="index_out_of_range"),
    case("ops.tensor_scatter_update", T((2,)), ix([0]), T(()), id="index_1d"),
    case("ops.tensor_scatter_add", T((2,)), ix([[0]]), T((1,), "float16"), id="dtype_mismatch"),
    case("ops.tensor_scatter_mul", mask([True, False]), ix([[0]]), mask([True]), id="bool_mul"),
    case("ops.tensor_scatter_elements", T(X23), ix([[0, 0]]), T((1, 2)), axis=1, reduction="mul",
         id="bad_reduction"),
    case("ops.scatter_add", T((3, 2)), ix([0, 5]), T((2, 2)), id="index_out_of_range"),
    case("ops.scatter_update", T((3, 2)), ix([0, 1]), T((2, 3)), id="updates_shape"),
    case("ops.scatter_nd_update", T(X23), ix([1]), T((3,)), id="index_1d"),
    case("ops.index_add", T(X23), ix([0, 2], "int64"), T((2, 2)), 1, id="int64_indices"),
    case("ops.inplace_update", T(X23), T((3,)), (1,), id="rank_mismatch"),
    case("ops.index_fill", T(X23), 0, ix([1], "int64"), 9.0, id="int64_index"),
    case("ops.unsorted_segment_sum", T((4,)), ix([0, 0, 2, 5]), 3, id="id_out_of_range"),
    case("ops.unsorted_segment_sum", T(X23), ix([1, 0, 1]), 3, id="ids_shape"),
    case("ops.unsorted_segment_max", mask([True, False]), ix([0, 0]), 1, id="bool_input"),
    case("ops.masked_fill", T(X23), ix([1, 0, 1]), 0.5, id="int_mask"),
    case("ops.masked_fill", T((2,), "int32", 0, 9), mask([True, False]), 3.7, id="float_into_int"),
    case("ops.masked_fill", T(X23), mask([True, False, True]), 2, id="int_into_float"),
    case("ops.argwhere", T(np.array(3.0, np.float32)), id="zero_dim", **PYNATIVE),
    case("ops.select_scatter", T(X23), T((3,)), 1, 0, id="src_shape"),
    case("ops.tensor_scatter_elements", T(()), ix(0), T(()), id="zero_dim"),
    case("ops.slice_scatter", T((3, 2)), T((1, 2)), id="src_shape"),
    case("Tensor.index_put", T(X23), (ix([1, 0], "int64"),), T((2, 3)), id="values_2d"),
    case("ops.is_nonzero", T((2,)), id="two_elements", **PYNATIVE),
    case("ops.ListDiff", T((3,)), ix([2]), init=(), id="dtypes_differ", **PYNATIVE),
]
