"""A few cases of names graphcell has had from the start: the golden machinery's own test."""
import numpy as np

from golden_cases import D, T, case

CASES = [
    case("ops.concat", (T((2, 3)), T((1, 3))), axis=0),
    case("ops.concat", [T((2, 3), "int32", 0, 9), T((2, 2), "int32", 0, 9)], axis=-1),
    case("ops.cast", T((3,)), D("int32")),
    case("ops.sum", T((2, 3)), dim=1, keepdim=True),
    case("ops.sum", T((2, 3), "int32", 0, 5)),
    case("Tensor.sum", T((2, 3)), axis=0),
    case("ops.ReduceSum", T((2, 3)), (1,), init=dict(keep_dims=True)),
    case("ops.Concat", (T((2, 3)), T((2, 3))), init=(1,)),
    case("ops.concat", (T((2, 3)), T((2, 2))), axis=0, id="shape_mismatch"),
    case("ops.exp", T(np.array([0.0, 1.0, -1.0], np.float32))),
]
CASES += [
    case("ops.stack", [T((2, 3)), T((2, 3))], axis=1),
    case("ops.stack", [T((3,), "int32", 0, 9)] * 1 + [T((3,), "int32", 0, 9)], axis=-1),
    case("ops.Stack", [T((2,)), T((2,)), T((2,))], init=dict(axis=0)),
    case("ops.stack", [T((2, 3)), T((3, 2))], id="shapes_differ"),
    case("ops.argmax", T(np.array([[1, 5, 3], [7, 2, 9]], np.float32))),
    case("ops.argmax", T((3, 4)), 1, True),
    case("ops.argmax", T((2, 3, 2), "int32", 0, 3), dim=-1),
    case("Tensor.argmax", T((3, 4))),
    case("Tensor.argmax", T((3, 4)), axis=0),
    case("Tensor.argmax", T((3, 4)), dim=1, keepdim=True),
    case("Tensor.argmax", T((3, 4)), 1, True),
    case("ops.Argmax", T((3, 4)), init=()),
    case("ops.Argmax", T((3, 4)), init=dict(axis=0, output_type=D("int64"))),
]

# Tensor properties and the methods that hand back numpy arrays
CASES += [
    case("Tensor.shape", T((2, 3)), attribute=True),
    case("Tensor.shape", T(np.float32(1.5)), attribute=True, id="0-d"),
    case("Tensor.dtype", T((2,), "int32", 0, 5), attribute=True),
    case("Tensor.size", T((2, 3)), attribute=True),
    case("Tensor.ndim", T((2, 3, 1)), attribute=True),
    case("Tensor.nbytes", T((2, 3)), attribute=True),
    case("Tensor.itemsize", T((2,), "float16"), attribute=True),
    case("Tensor.asnumpy", T((2, 3)), modes=("pynative",),
         why="a numpy array is a host value: graph mode runs it as JIT Fallback (issue 19)"),
    case("Tensor.numpy", T((3,), "int32", 0, 9), modes=("pynative",),
         why="a numpy array is a host value: graph mode runs it as JIT Fallback (issue 19)"),
    case("Tensor.asnumpy", T((0, 2)), modes=("pynative",), id="empty",
         why="a numpy array is a host value: graph mode runs it as JIT Fallback (issue 19)"),
]
