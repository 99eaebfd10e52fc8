"""Golden cases of the activation layers (``graphcell/nn/layers/activation.py``): each layer's
default call and its constructor arguments, in both modes, with input gradients (and the slopes'
gradient for PReLU)."""
import numpy as np

from golden_cases import T, case

X = (2, 3, 4)
# every region of the piecewise layers, away from their kinks (where MindSpore's subgradients
# follow no one rule: half at a clip bound, a one-sided slope at HSwish's -3)
X0 = T(np.array([[-3.5, -1.6, -0.45, 0.1], [0.25, 1.3, 2.5, 7.0]], np.float32))

CASES = [
    case("nn.ReLU", T(X), init=()),
    case("nn.ReLU6", X0, init=()),
    case("nn.ReLU6", T(X, lo=-8, hi=8), init=()),
    case("nn.Sigmoid", T(X), init=()),
    case("nn.Tanh", T(X), init=()),
    case("nn.Softmax", T(X), init=()),
    case("nn.Softmax", T(X), init=dict(axis=0)),
    case("nn.Softmin", T(X), init=dict(axis=1)),
    case("nn.Softmax2d", T((2, 3, 2, 2)), init=()),
    case("nn.Softmax2d", T((3, 2, 2)), init=()),
    case("nn.LogSoftmax", T(X), init=()),
    case("nn.LogSoftmax", T(X), init=dict(axis=1)),
    case("nn.ELU", T(X), init=()),
    case("nn.CELU", T(X), init=dict(alpha=0.5)),
    # MindSpore 2.10's SeLU gradient is wrong for x <= 0 (docs/decisions.md); ops.selu's golden
    # cases check graphcell's against finite differences
    case("nn.SeLU", T(X), init=(), grad=False),
    case("nn.LeakyReLU", T(X), init=()),
    case("nn.LeakyReLU", T(X), init=dict(alpha=0.05)),
    case("nn.PReLU", T((2, 3, 2)), init=()),
    case("nn.PReLU", T((2, 3, 2)), init=dict(channel=3, w=T(np.array([0.1, 0.2, 0.3],
                                                                       np.float32)))),
    case("nn.PReLU", T((4, 3)), init=dict(channel=3, w=0.5)),
    case("nn.PReLUExt", T((2, 3, 2)), init=dict(num_parameters=3, init=0.1)),
    case("nn.GELU", T(X), init=()),
    case("nn.GELU", T(X), init=dict(approximate=False)),
    case("nn.FastGelu", T(X), init=()),
    case("nn.SiLU", T(X), init=()),
    case("nn.Mish", T(X), init=()),
    case("nn.Softsign", T(X), init=()),
    case("nn.Tanhshrink", T(X), init=()),
    case("nn.Hardtanh", X0, init=()),
    case("nn.Hardtanh", X0, init=dict(min_val=-2.0, max_val=3.0)),
    case("nn.HSwish", X0, init=()),
    case("nn.HSigmoid", X0, init=()),
    case("nn.LogSigmoid", T(X), init=()),
    case("nn.SoftShrink", X0, init=()),
    case("nn.SoftShrink", X0, init=dict(lambd=1.2)),
    case("nn.HShrink", X0, init=dict(lambd=1.2)),
    case("nn.Threshold", X0, init=dict(threshold=0.3, value=-9.0)),
    case("nn.GLU", T((2, 4)), init=()),
    case("nn.GLU", T((4, 3)), init=dict(axis=0)),
    case("nn.RReLU", T(X), init=(), values=False, grad=False),
    case("nn.RReLU", T(X), init=dict(lower=0.1, upper=0.2), values=False, grad=False),
    # refused constructions
    case("nn.Hardtanh", X0, init=dict(min_val=2.0, max_val=1.0), id="min_above_max"),
    case("nn.RReLU", T(X), init=dict(lower=0.5, upper=0.2), id="lower_above_upper"),
    case("nn.PReLU", T((2, 3)), init=dict(channel=3, w=[0.1, 0.2]), id="w_length"),
    case("nn.PReLU", T((2, 3)), init=dict(channel=0), id="channel_zero"),
    case("nn.GELU", T(X), init=dict(approximate="tanh"), id="approximate_str"),
    case("nn.Softmax2d", T((2, 3)), init=(), id="rank2"),
]
