"""Effects and framework functions (``other_func``, ``optim_func``): the assign family,
stop_gradient, Print and the summaries, clip_by_global_norm, mixed_precision_cast, the detection
helpers, and the optimizer Primitives, which update Parameters (``P``) in place — their values
after the call are compared with MindSpore's. Names that take Python functions (``grad``,
``value_and_grad``, ``GradOperation``, ``HookBackward``, ``InsertGradientOf``,
``Tensor.register_hook``) cannot be written as golden cases; ``tests/graphcell/test_ops_effects.py``
checks them against values MindSpore 2.10 printed. Refusals come last.
"""
import numpy as np

from golden_cases import D, P, T, case

POS = dict(lo=0.1, hi=1.0)     # accumulators that are square-rooted
NO_GRAD = dict(grad=False)
# MindSpore 2.10's CPU kernels of these return zeros (or unset memory: "the outputs are useless")
# where the docs promise the updated tensors, which graphcell returns: only the Parameters'
# values are compared, and the outputs' shapes and dtypes
STATE_ONLY = dict(grad=False, values=False)


def v(shape=(3,), **kw):
    return T(shape, **kw)


def S(x):
    """A 0-d float32 tensor (some Primitives take hyperparameters as Tensors only)."""
    return T(np.array(x, np.float32))


BOXES = np.array([[0, 0, 2, 2], [1, 1, 3, 4], [0, 1, 1, 3]], np.float32)
GT = np.array([[0, 0, 2, 2], [2, 2, 3, 3]], np.float32)
NMS = np.array([[0, 0, 10, 10, 0.9], [1, 1, 11, 11, 0.8], [20, 20, 30, 30, 0.7],
                [0, 0, 10, 10, 0.95]], np.float32)

CASES = [
    # --- assign family ---
    # MindSpore's gradient of assign's value is zero; graphcell differentiates what assign returns
    # (docs/decisions.md), so gradients are not compared
    case("ops.assign", P(v()), v(), **NO_GRAD),
    case("ops.Assign", P(v((2, 2))), v((2, 2)), init=(), **NO_GRAD),
    case("ops.assign", P(v()), v(dtype="int32", lo=0, hi=5), **NO_GRAD),
    case("ops.assign_add", P(v()), v(), **NO_GRAD),
    case("ops.assign_add", P(v((2, 2), dtype="int32", lo=0, hi=5)), v((2, 2), dtype="int32",
                                                                      lo=0, hi=5)),
    case("ops.assign_add", P(v()), v(dtype="int32", lo=0, hi=5), **NO_GRAD),
    case("ops.AssignAdd", P(v()), v(), init=(), **NO_GRAD),
    case("ops.assign_sub", P(v()), v(), **NO_GRAD),
    case("ops.AssignSub", P(v((2,))), v((2,)), init=(), **NO_GRAD),
    case("ops.depend", v(), v((2,))),
    case("ops.Depend", v(), v((2,)), init=()),
    # --- gradient stopping ---
    # no finite differences: the forward is the identity, the gradient zero by definition
    case("ops.stop_gradient", v(), fd=False),
    case("ops.stop_gradient", (v(), v((2,))), fd=False),
    case("ops.StopGradient", v(), init=(), fd=False),
    # --- printing and summaries (None; Print's text is checked in test_ops_effects.py) ---
    case("ops.Print", "x:", v(), 3, init=()),
    case("ops.print_", "value", v((2,))),
    case("ops.ScalarSummary", "loss", v(()), init=()),
    case("ops.HistogramSummary", "hist", v(), init=()),
    case("ops.ImageSummary", "image", v((1, 3, 2, 2)), init=()),
    case("ops.TensorSummary", "tensor", v(), init=()),
    # --- norms, casts, numbers ---
    case("ops.clip_by_global_norm", (v(), v((2,))), 1.0),
    case("ops.clip_by_global_norm", (v(), v((2,))), 100.0),
    case("ops.clip_by_global_norm", [v((2,))], 0.5),
    case("ops.clip_by_global_norm", v((3,))),
    case("ops.mixed_precision_cast", D("float16"), v(), **NO_GRAD),
    case("ops.mixed_precision_cast", D("float32"), v(dtype="float64"), fd=False),
    case("ops.mixed_precision_cast", D("float16"), (v(), v(dtype="int32", lo=0, hi=4)),
         **NO_GRAD),
    case("ops.mixed_precision_cast", D("float16"), v(dtype="int32", lo=0, hi=4)),
    case("ops.Eps", v(), init=()),
    case("ops.Eps", v(dtype="float16"), init=()),
    case("ops.eps", v(dtype="float64")),
    # --- detection helpers ---
    # MindSpore's IOU has a zero gradient; graphcell's composite differentiates the overlap
    # (docs/decisions.md), so gradients are not compared
    case("ops.IOU", T(BOXES), T(GT), init=(), **NO_GRAD),
    case("ops.IOU", T(BOXES), T(GT), init=dict(mode="iof"), **NO_GRAD),
    case("ops.IOU", T(BOXES.astype(np.float16)), T(GT.astype(np.float16)), init=(), rtol=2e-3,
         **NO_GRAD),
    case("ops.iou", T(BOXES), T(GT), **NO_GRAD),
    case("ops.BoundingBoxEncode", T(np.array([[2, 2, 2, 3], [2, 2, 2, 3]], np.float32)),
         T(np.array([[1, 2, 1, 4], [1, 2, 1, 4]], np.float32)), init=()),
    case("ops.BoundingBoxEncode", T(np.array([[0, 0, 4, 3], [1, 2, 3, 5]], np.float32)),
         T(np.array([[1, 1, 3, 4], [0, 2, 4, 4]], np.float32)),
         init=dict(means=(0.1, 0.2, 0.0, 0.0), stds=(0.5, 1.0, 2.0, 1.0))),
    case("ops.BoundingBoxDecode", T(np.array([[4, 1, 2, 1], [2, 2, 2, 3]], np.float32)),
         T(np.array([[3, 1, 2, 2], [1, 2, 1, 4]], np.float32)), init=dict(max_shape=(768, 1280))),
    case("ops.BoundingBoxDecode", T(np.array([[0, 0, 4, 3], [1, 2, 3, 5]], np.float32)),
         T(np.array([[0.3, 0.1, 0.2, -0.2], [1.0, -2.0, 1.0, 0.4]], np.float32)),
         init=dict(max_shape=(5, 6), means=(0.1, 0.0, 0.0, 0.2), stds=(1.0, 2.0, 1.0, 1.0),
                   wh_ratio_clip=0.5)),
    case("ops.CheckValid", T(np.linspace(0, 6, 12, dtype=np.float32).reshape(3, 4)),
         T(np.array([2, 1, 3], np.float32)), init=()),
    case("ops.CheckValid", T(np.array([[0, 0, 1, 1], [-1, 0, 1, 1], [0, 0, 4.9, 3], [0, 0, 5, 3],
                                       [0, 0, 5.1, 3], [0, 0, 3, 5.1]], np.float32)),
         T(np.array([2, 2, 3], np.float32)), init=()),
    case("ops.NMSWithMask", T(NMS), init=(0.5,)),
    case("ops.NMSWithMask", T(NMS[[2, 0, 1]]), init=dict(iou_threshold=0.9)),
    # --- optimizer Primitives: Parameters updated in place ---
    case("ops.ApplyMomentum", P(v()), P(v()), 0.1, v(), 0.9, init=(), **NO_GRAD),
    case("ops.ApplyMomentum", P(v((2, 2))), P(v((2, 2))), T(np.array(0.01, np.float32)),
         v((2, 2)), T(np.array(0.9, np.float32)), init=(), **NO_GRAD),
    case("ops.SGD", P(v()), v(), T(np.array(0.1, np.float32)), P(v()),
         T(np.array(0.9, np.float32)), P(T(np.array([1.0, 1.0, 1.0], np.float32))), init=(),
         **NO_GRAD),
    case("ops.SGD", P(v()), v(), T(np.array(0.1, np.float32)), P(v()),
         T(np.array(0.9, np.float32)), P(T(np.array([0.0, 0.0, 0.0], np.float32))),
         init=dict(dampening=0.1, weight_decay=0.01), **NO_GRAD),
    case("ops.SGD", P(v()), v(), T(np.array(0.1, np.float32)), P(v()),
         T(np.array(0.9, np.float32)), P(T(np.array([0.0, 1.0, 0.0], np.float32))),
         init=dict(weight_decay=0.01, nesterov=True), **NO_GRAD),
    # the first step clears stat where it is positive only: a negative or zero stat stays
    case("ops.SGD", P(v((4,))), v((4,)), T(np.array(0.1, np.float32)), P(v((4,))),
         T(np.array(0.9, np.float32)), P(T(np.array([1.0, 0.0, -1.0, 2.0], np.float32))),
         init=(), id="mixed_stat", **NO_GRAD),
    # momentum 0: plain descent; accum and stat are left as they are
    case("ops.SGD", P(v()), v(), T(np.array(0.1, np.float32)), P(v()),
         T(np.array(0.0, np.float32)), P(T(np.array([1.0, 0.0, 1.0], np.float32))),
         init=dict(dampening=0.5, weight_decay=0.01), id="no_momentum", **NO_GRAD),
    case("ops.Adam", P(v()), P(v()), P(v(**POS)), 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, v(),
         init=(), **STATE_ONLY),
    case("ops.Adam", P(v()), P(v()), P(v(**POS)), 0.81, 0.998, 0.01, 0.9, 0.999, 1e-8, v(),
         init=dict(use_nesterov=True), **STATE_ONLY),
    case("ops.AdamWeightDecay", P(v()), P(v()), P(v(**POS)), 0.01, 0.9, 0.999, 1e-8, 0.01, v(),
         init=(), **STATE_ONLY),
    case("ops.ApplyAdadelta", P(v()), P(v(**POS)), P(v(**POS)), 0.001, 0.95, 1e-6, v(), init=(),
         **NO_GRAD),
    case("ops.ApplyRMSProp", P(v()), P(v(**POS)), P(v()), 0.01, v(), 0.9, 0.9, 1e-10, init=(),
         **STATE_ONLY),
    case("ops.ApplyCenteredRMSProp", P(v()), P(v(lo=-0.1, hi=0.1)), P(v(**POS)), P(v()), v(),
         0.01, 0.9, 0.9, 1e-10, init=(), **STATE_ONLY),
    case("ops.ApplyAdaMax", P(v()), P(v()), P(v(**POS)), 0.9, 0.001, 0.9, 0.99, 1e-10, v(),
         init=(), **NO_GRAD),
    case("ops.ApplyAdagrad", P(v()), P(v(**POS)), 0.001, v(), init=(), **NO_GRAD),
    case("ops.ApplyAdagradV2", P(v()), P(v(**POS)), 0.001, v(), init=dict(epsilon=1e-6),
         **NO_GRAD),
    case("ops.ApplyProximalAdagrad", P(v()), P(v(**POS)), 0.01, 0.0, 0.0, v(), init=(),
         **NO_GRAD),
    case("ops.ApplyProximalAdagrad", P(v()), P(v(**POS)), 0.1, 0.3, 0.2, v(), init=(),
         **NO_GRAD),
    case("ops.ApplyAdagradDA", P(v()), P(v()), P(v(**POS)), v(), 0.001, 0.0, 0.001,
         T(np.array(2, np.int32)), init=(), **NO_GRAD),
    case("ops.ApplyFtrl", P(v()), P(v(**POS)), P(v()), v(), 0.001, 0.0, 0.0, -0.5, init=(),
         **NO_GRAD),
    case("ops.ApplyFtrl", P(v()), P(v(**POS)), P(v()), v(), 0.1, 0.0, 0.1, -0.5, init=(),
         **NO_GRAD),
    case("ops.ApplyGradientDescent", P(v()), 0.001, v(), init=(), **NO_GRAD),
    case("ops.ApplyGradientDescent", P(v((2, 2))), T(np.array(0.1, np.float32)), v((2, 2)),
         init=(), **NO_GRAD),
    case("ops.ApplyProximalGradientDescent", P(v()), 0.01, 0.1, 0.2, v(), init=(), **NO_GRAD),
    case("ops.ApplyAdamWithAmsgrad", P(v()), P(v()), P(v(**POS)), P(v(**POS)), S(0.9), S(0.999),
         S(0.01), v(), init=(), **NO_GRAD),
    case("ops.ApplyAdamWithAmsgrad", P(v()), P(v()), P(v(**POS)), P(v(**POS)), S(0.81),
         S(0.998), S(0.01), v(), init=dict(beta1=0.8, beta2=0.99, epsilon=1e-6), **NO_GRAD),
    case("ops.ApplyAdamWithAmsgradV2", P(v()), P(v()), P(v(**POS)), P(v(**POS)), 0.9, 0.999,
         0.01, 0.9, 0.999, 1e-8, v(), init=(), **NO_GRAD),
    case("ops.ApplyPowerSign", P(v()), P(v()), 0.001, np.e, 0.99, 0.9, v(), init=(), **NO_GRAD),
    case("ops.ApplyAddSign", P(v()), P(v()), 0.001, 1.0, 0.99, 0.9, v(), init=(), **NO_GRAD),
    case("ops.FusedSparseAdam", P(v((3, 2))), P(v((3, 2))), P(v((3, 2), **POS)), 0.9, 0.999,
         0.001, 0.9, 0.999, 1e-8, v((2, 2)), T(np.array([0, 2], np.int32)), init=(),
         **STATE_ONLY),
    case("ops.FusedSparseLazyAdam", P(v((3, 2))), P(v((3, 2))), P(v((3, 2), **POS)), 0.9,
         0.999, 0.001, 0.9, 0.999, 1e-8, v((2, 2)), T(np.array([0, 2], np.int32)), init=(),
         **STATE_ONLY),
    case("ops.FusedSparseFtrl", P(v((3, 2))), P(v((3, 2), **POS)), P(v((3, 2))), v((2, 2)),
         T(np.array([0, 2], np.int32)), init=dict(lr=0.01, l1=0.0, l2=0.0, lr_power=-0.5),
         **STATE_ONLY),
    case("ops.FusedSparseProximalAdagrad", P(v((3, 2))), P(v((3, 2), **POS)),
         T(np.array(0.01, np.float32)), T(np.array(0.0, np.float32)),
         T(np.array(0.0, np.float32)), v((2, 2)), T(np.array([0, 2], np.int32)), init=(),
         **STATE_ONLY),
]

CASES += [
    case("ops.deepcopy", v()),
    case("ops.deepcopy", v((2,), dtype="int32", lo=0, hi=4)),
    case("ops.Coalesce", T(np.array([[1, 0, 1], [1, 0, 1]], np.int64)),
         T(np.array([1.0, 2.0, 3.0], np.float32)), T(np.array([3, 3], np.int64)), init=(),
         modes=("pynative",), why="the number of indices left depends on the data", **NO_GRAD),
]

CASES += [
    case("ops.AdamNoUpdateParam", P(v()), P(v(**POS)), S(0.9), S(0.999), S(0.001), S(0.9),
         S(0.999), S(1e-8), v(), init=(), **NO_GRAD),
    case("ops.CheckNumerics", v(), init=()),
]

# --- refusals (last) ---
CASES += [
    case("ops.assign", P(v()), v((1,)), id="shape", **NO_GRAD),
    case("ops.assign_add", P(v()), v((1,)), id="broadcast", **NO_GRAD),
    case("ops.AssignAdd", P(v(dtype="int32", lo=0, hi=3)), v(), init=(), id="float_into_int",
         **NO_GRAD),
    case("ops.clip_by_global_norm", (v(),), 1.0, T(np.array(2.0, np.float32)), id="use_norm",
         **NO_GRAD),
    case("ops.BoundingBoxEncode", T(BOXES), T(BOXES), init=dict(means=(0, 0, 0, 0)),
         id="int_means", **NO_GRAD),
    case("ops.ApplyMomentum", P(v()), P(v((2,))), 0.1, v(), 0.9, init=(), id="shapes",
         **NO_GRAD),
    case("ops.SGD", P(v()), v(), S(0.1), P(v()), S(0.9), P(v()),
         init=dict(dampening=0.1, nesterov=True), id="nesterov_dampening", **NO_GRAD),
]
