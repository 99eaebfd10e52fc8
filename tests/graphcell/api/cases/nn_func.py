"""Golden cases of the nn family: activations, losses, normalization, dropout, convolution,
pooling, resizing (``graphcell.ops.function.nn_func`` and its sibling modules)."""
import numpy as np

from golden_cases import D, T, case


def bad(*args, **kwargs):
    """A call MindSpore refuses. These run after every other case: a refused call can leave
    MindSpore's primitive caches in a state that fails the next valid call of the same name."""
    c = case(*args, **kwargs)
    REFUSED.append(c)
    return None


REFUSED: list = []

X = (2, 3)

def INTS():  # noqa: N802 - a fresh T per case (a T numbers itself in its case)
    return T(np.array([[-3, -1, 0], [1, 2, 5]], np.int32))


def EDGES():  # noqa: N802 - a fresh T per case (a T numbers itself in its case)
    return T(np.array([-4.0, -0.5, 0.25, 0.5, 3.0, 7.0], np.float32))


# --- activations -----------------------------------------------------------------------------------
CASES = [
    case("ops.relu", T(X)),
    case("ops.relu", INTS()),
    case("ops.relu", T(np.array([True, False]))),
    case("ops.relu", T(())),
    case("ops.relu", T((0, 3))),
    bad("ops.relu", T(X), inplace=True, id="inplace_refused_on_cpu"),
    case("ops.ReLU", T((2, 2, 3)), init=()),
    case("ops.ReLU", T((4,), "int8", -5, 5), init=()),
    case("ops.relu6", T(X, lo=-3, hi=8)),
    bad("ops.relu6", INTS(), id="int_refused"),
    case("ops.ReLU6", EDGES(), init=()),
    case("ops.leaky_relu", T(X)),
    case("ops.leaky_relu", T(X), alpha=0.01),
    case("ops.leaky_relu", INTS()),
    case("ops.leaky_relu", T(X), alpha=2),
    case("ops.prelu", T((2, 3, 2)), T((3,), lo=-1, hi=1)),
    case("ops.prelu", T((2, 3)), T((1,), lo=-1, hi=1)),
    case("ops.prelu", T((4,)), T((1,))),
    bad("ops.prelu", T((2, 3)), T((2,)), id="weight_size"),
    bad("ops.prelu", T((2, 3)), T(()), id="weight_0d"),
    bad("ops.prelu", INTS(), T((3,), "int32"), id="int_refused"),
    case("ops.PReLU", T((2, 4, 2, 2)), T((4,), lo=-1, hi=1), init=()),
    case("ops.elu", T(X)),
    case("ops.elu", T(X), alpha=1.0),
    bad("ops.elu", INTS(), id="int_refused"),
    case("ops.Elu", T((3, 2)), init=()),
    case("ops.Elu", T((3, 2)), init=dict(alpha=1.0)),
    case("ops.celu", T(X)),
    case("ops.celu", T(X), alpha=2.0),
    bad("ops.celu", T(X), 0.0, id="alpha_zero"),
    case("ops.CeLU", T((4,)), init=(0.5,)),
    case("ops.selu", T(X), grad=False),  # MindSpore 2.10's gradient is wrong: test_nn_func.py
    case("ops.selu", INTS()),
    case("ops.SeLU", T((3, 2)), init=(), grad=False),
    case("ops.SeLU", T((5,), "int8", -3, 3), init=()),
    case("ops.gelu", T(X)),
    case("ops.gelu", T(X), approximate="tanh"),
    case("ops.gelu", T(X), "tanh"),
    bad("ops.gelu", T(X), approximate="erf", id="bad_approximate"),
    bad("ops.gelu", INTS(), id="int_refused"),
    case("ops.GeLU", T((2, 4), lo=-4, hi=4), init=()),
    case("ops.fast_gelu", T(X, lo=-4, hi=4)),
    case("ops.FastGeLU", T((3, 2)), init=()),
    bad("ops.FastGeLU", INTS(), init=(), id="int_refused"),
    case("ops.softplus", T(X)),
    case("ops.softplus", T(X, lo=-10, hi=10), beta=2, threshold=10),
    bad("ops.softplus", INTS(), id="int_refused"),
    case("ops.Softplus", T((3, 2)), init=()),
    case("ops.Softplus", T((4,), "float64"), init=()),
    case("ops.softsign", T(X)),
    bad("ops.softsign", INTS(), id="int_refused"),
    case("ops.Softsign", T((3, 2)), init=()),
    case("ops.mish", T(X)),
    case("ops.Mish", T((3, 2)), init=()),
    bad("ops.Mish", INTS(), init=(), id="int_refused"),
    case("ops.hardswish", T(X, lo=-4, hi=4)),
    case("ops.hardswish", INTS()),
    case("ops.HSwish", T((3, 2), lo=-4, hi=4), init=()),
    case("ops.HSwish", INTS(), init=()),
    case("ops.hardsigmoid", T(X, lo=-4, hi=4)),
    case("ops.hardsigmoid", INTS()),
    case("ops.HSigmoid", T((3, 2), lo=-4, hi=4), init=()),
    case("ops.hardtanh", T(X)),
    case("ops.hardtanh", T(X), min_val=-0.5, max_val=0.5),
    case("ops.hardtanh", T(X), -2, 1),
    case("ops.hardtanh", INTS()),
    case("ops.hardshrink", T(X)),
    case("ops.hardshrink", T(X), lambd=1.0),
    bad("ops.hardshrink", INTS(), id="int_refused"),
    case("ops.HShrink", T((3, 2)), init=(0.3,)),
    case("ops.HShrink", T((3, 2)), init=()),
    case("Tensor.hardshrink", T(X)),
    case("Tensor.hardshrink", T(X), lambd=1.5),
    case("Tensor.hardshrink", T(X), 0.2),
    case("ops.softshrink", T(X)),
    case("ops.softshrink", T(X), lambd=1.0),
    bad("ops.softshrink", T(X), lambd=-1.0, id="negative_lambd"),
    case("ops.SoftShrink", T((3, 2)), init=(0.3,)),
    case("ops.soft_shrink", T(X), 0.7),
    case("Tensor.soft_shrink", T(X)),
    case("ops.threshold", T(X), 0.5, 20.0),
    case("ops.threshold", INTS(), 0, 5),
    case("ops.threshold", T(X), thr=-1, value=-3),
    case("ops.silu", T(X)),
    case("ops.logsigmoid", T(X)),
    case("ops.tanhshrink", T(X)),
    case("ops.glu", T((2, 4))),
    case("ops.glu", T((4, 3)), axis=0),
    bad("ops.glu", T((3, 3)), id="odd_axis"),
    case("ops.GLU", T((2, 6)), init=dict(axis=-1)),
    case("ops.logit", T(X, lo=0.05, hi=0.95)),
    case("ops.logit", T(X, lo=0, hi=1), eps=0.1),
    case("Tensor.logit", T(X, lo=0.05, hi=0.95)),
    case("Tensor.logit", T(X, lo=0, hi=1), 0.2),
    case("ops.Logit", T(X, lo=0, hi=1), init=dict(eps=0.1)),
    case("ops.Logit", T(X, lo=0.05, hi=0.95), init=()),
    case("ops.softmax", T(X)),
    case("ops.softmax", T((2, 3, 4)), axis=1),
    case("ops.softmax", T((2, 3, 4)), -2),
    case("ops.softmax", T(X), dtype=D("float64")),
    case("ops.softmax", T((0, 3))),
    bad("ops.softmax", INTS(), id="int_refused"),
    bad("ops.softmax", T(X), axis=(0, 1), id="tuple_axis"),
    case("ops.Softmax", T(X), init=()),
    case("ops.Softmax", T((2, 3, 2)), init=dict(axis=1)),
    case("Tensor.softmax", T(X), 0),
    case("Tensor.softmax", T(X), axis=-1),
    bad("Tensor.softmax", T(X), id="axis_required"),
    case("ops.softmin", T(X)),
    case("ops.softmin", T((2, 3, 2)), axis=1),
    case("ops.log_softmax", T(X), rtol=1e-4, atol=1e-5),  # MindSpore is ~30 ulp off
    case("ops.log_softmax", T((2, 3, 2)), axis=0, rtol=1e-4, atol=1e-5),
    bad("ops.log_softmax", INTS(), id="int_refused"),
    case("ops.LogSoftmax", T((3, 4)), init=(), rtol=1e-4, atol=1e-5),
    case("ops.LogSoftmax", T((3, 4)), init=(0,), rtol=1e-4, atol=1e-5),
]

# --- last: the calls MindSpore refuses (see bad()) ------------------------------------------------
CASES = [c for c in CASES if c is not None] + REFUSED
