"""Golden cases of the learning-rate schedules (``nn.learning_rate_schedule``: cells of the step)
and the dynamic learning rates (``nn.dynamic_lr``: lists of floats)."""
import numpy as np

from golden_cases import T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses (run last)."""
    REFUSED.append(case(*args, **kwargs))


def steps():
    """The step counters of a run, as the optimizer's Int32 ``global_step`` holds them."""
    return T(np.array([0, 1, 2, 3, 4, 5, 7, 10, 13], np.int32))


def step(n):
    return T(np.array([n], np.int32))


PY = dict(modes=("pynative",), why="a Python function of numbers: it runs before compiling")

CASES = [
    # schedules
    case("nn.ExponentialDecayLR", steps(), init=(0.1, 0.9, 4)),
    case("nn.ExponentialDecayLR", steps(), init=dict(learning_rate=0.2, decay_rate=0.5,
                                                     decay_steps=3, is_stair=True)),
    case("nn.ExponentialDecayLR", step(6), init=(0.1, 0.9, 4)),
    case("nn.NaturalExpDecayLR", steps(), init=(0.1, 0.9, 4)),
    case("nn.NaturalExpDecayLR", steps(), init=(0.1, 0.3, 4, True)),
    case("nn.InverseDecayLR", steps(), init=(0.1, 0.5, 2)),
    case("nn.InverseDecayLR", steps(), init=(0.1, 0.5, 2, True)),
    case("nn.CosineDecayLR", steps(), init=(0.01, 0.1, 6)),
    case("nn.CosineDecayLR", step(3), init=dict(min_lr=0.0, max_lr=1.0, decay_steps=8)),
    case("nn.PolynomialDecayLR", steps(), init=(0.1, 0.01, 6, 0.5)),
    case("nn.PolynomialDecayLR", steps(), init=(0.1, 0.01, 4, 2.0, True)),
    case("nn.WarmUpLR", steps(), init=(0.1, 5)),
    case("nn.WarmUpLR", step(2), init=dict(learning_rate=0.5, warmup_steps=3)),
    # dynamic learning rates
    case("nn.piecewise_constant_lr", [2, 5, 7], [0.1, 0.05, 0.01], **PY),
    case("nn.exponential_decay_lr", 0.1, 0.9, 10, 2, 3, **PY),
    case("nn.exponential_decay_lr", 0.1, 0.9, 10, 2, 3, True, **PY),
    case("nn.natural_exp_decay_lr", 0.1, 0.9, 10, 2, 3, **PY),
    case("nn.natural_exp_decay_lr", 0.1, 0.9, 10, 2, 3, is_stair=True, **PY),
    case("nn.inverse_decay_lr", 0.1, 0.5, 10, 2, 3, **PY),
    case("nn.inverse_decay_lr", 0.1, 0.5, 10, 2, 3, True, **PY),
    case("nn.cosine_decay_lr", 0.01, 0.1, 10, 2, 3, **PY),
    case("nn.polynomial_decay_lr", 0.1, 0.01, 10, 2, 3, 0.5, **PY),
    case("nn.polynomial_decay_lr", 0.1, 0.01, 10, 2, 2, 2.0, update_decay_epoch=True, **PY),
    case("nn.warmup_lr", 0.1, 10, 2, 3, **PY),
    case("nn.learning_rate_schedule.WarmUpLR", steps(), init=(0.1, 5)),
    case("nn.dynamic_lr.warmup_lr", 0.2, 6, 1, 4, **PY),
]

bad("nn.ExponentialDecayLR", steps(), init=(1, 0.9, 4), id="int-rate")
bad("nn.ExponentialDecayLR", steps(), init=(0.1, 0.9, 0), id="zero-steps")
bad("nn.CosineDecayLR", steps(), init=(0.1, 0.1, 4), id="min-not-below-max")
bad("nn.CosineDecayLR", steps(), init=(0, 0.1, 4), id="int-min")
bad("nn.PolynomialDecayLR", steps(), init=(0.1, 0, 4, 1.0), id="int-end")
bad("nn.WarmUpLR", steps(), init=(0.1, -1), id="negative-warmup")
bad("nn.piecewise_constant_lr", [2, 1], [0.1, 0.05], id="decreasing", **PY)
bad("nn.piecewise_constant_lr", [2, 5], [0.1], id="sizes", **PY)
bad("nn.piecewise_constant_lr", [2, 5], [0.1, 1], id="int-rate", **PY)
bad("nn.exponential_decay_lr", 0.1, 0.9, 0, 2, 3, id="zero-total", **PY)
bad("nn.cosine_decay_lr", 0.2, 0.1, 10, 2, 3, id="min-above-max", **PY)
bad("nn.warmup_lr", 1, 10, 2, 3, id="int-rate", **PY)
CASES += REFUSED
