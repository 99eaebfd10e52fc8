"""Golden cases of the nn family's pooling (``graphcell.ops.function.pool_func`` and the
registry's ``MaxPool``/``AvgPool``)."""
import numpy as np

from golden_cases import D, T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses; these run last (MindSpore reports a refused call's error late,
    at the next synchronisation, which could fail the next valid case)."""
    REFUSED.append(case(*args, **kwargs))


def ARGMAX_INPUT():  # noqa: N802 - distinct values: a unique maximum in every window
    return T(np.random.default_rng(7).permutation(2 * 3 * 5 * 5).reshape(2, 3, 5, 5)
             .astype(np.float32))


CASES = [
    # the registry's 2-D primitives
    case("ops.MaxPool", T((1, 2, 4, 4)), init=dict(kernel_size=2, strides=2)),
    case("ops.MaxPool", T((1, 2, 5, 5)), init=(3, 2, "same")),
    case("ops.AvgPool", T((1, 2, 4, 4)), init=dict(kernel_size=2, strides=2)),
    case("ops.AvgPool", T((1, 2, 5, 5)), init=dict(kernel_size=3, strides=2, pad_mode="SAME")),
    # average pooling with padding, ceil_mode, count_include_pad, divisor_override
    case("ops.avg_pool1d", T((2, 3, 6))),
    case("ops.avg_pool1d", T((2, 3, 7)), kernel_size=3, stride=2, padding=1),
    case("ops.avg_pool1d", T((2, 3, 7)), 3, 2, 1, True, False),
    case("ops.avg_pool2d", T((1, 2, 5, 5)), kernel_size=2, stride=2),
    case("ops.avg_pool2d", T((1, 2, 5, 5)), 3, 2, 1, ceil_mode=True),
    case("ops.avg_pool2d", T((1, 2, 5, 6)), (3, 2), (2, 1), (1, 1, 0, 1), count_include_pad=False),
    case("ops.avg_pool2d", T((1, 2, 4, 4)), 2, 1, divisor_override=3),
    case("ops.avg_pool3d", T((1, 2, 4, 4, 4)), kernel_size=2, stride=2),
    case("ops.avg_pool3d", T((1, 1, 5, 4, 5)), (3, 2, 3), (2, 1, 2), 1, ceil_mode=True,
         count_include_pad=False),
    case("ops.avg_pool3d", T((1, 1, 4, 4, 4)), 2, 1, divisor_override=5),
    case("ops.AvgPool3D", T((1, 2, 4, 4, 4)), init=dict(kernel_size=2, strides=2)),
    case("ops.AvgPool3D", T((1, 1, 5, 5, 5)),
         init=dict(kernel_size=3, strides=2, pad_mode="pad", pad=1, count_include_pad=False)),
    case("ops.AvgPool3D", T((1, 1, 5, 5, 5)), init=dict(kernel_size=3, strides=2, pad_mode="same")),
    case("ops.AvgPool3D", T((1, 1, 5, 4, 5)),
         init=dict(kernel_size=2, strides=2, pad_mode="pad", pad=(1, 0, 0, 1, 1, 1),
                   ceil_mode=True)),
    # max pooling
    case("ops.max_pool2d", T((1, 2, 5, 5)), 2),
    case("ops.max_pool2d", T((1, 2, 6, 5)), kernel_size=3, stride=2, padding=1, ceil_mode=True),
    case("ops.max_pool2d", T((1, 2, 7, 7)), 3, 1, 1, 2),
    case("ops.max_pool2d", ARGMAX_INPUT(), 3, 2, 1, return_indices=True),
    case("ops.max_pool2d", T((1, 1, 5, 5), "int32", -20, 20), 2, 1),
    case("ops.max_pool3d", T((1, 2, 4, 4, 4)), 2),
    case("ops.max_pool3d", T((1, 1, 5, 5, 5)), kernel_size=3, stride=2, padding=1, return_indices=True),
    case("ops.MaxPool3D", T((1, 2, 4, 4, 4)), init=dict(kernel_size=2, strides=2)),
    case("ops.MaxPool3D", T((1, 1, 5, 5, 5)), init=dict(kernel_size=3, strides=2, pad_mode="SAME")),
    case("ops.MaxPool3D", T((1, 1, 5, 4, 5)),
         init=dict(kernel_size=3, strides=2, pad_mode="PAD", pad_list=1, ceil_mode=True)),
    case("ops.MaxPoolWithArgmax", ARGMAX_INPUT(), init=dict(kernel_size=2, strides=2)),
    case("ops.MaxPoolWithArgmax", ARGMAX_INPUT(), init=dict(kernel_size=3, strides=2, pad_mode="same")),
    case("ops.MaxPoolWithArgmaxV2", ARGMAX_INPUT(), init=dict(kernel_size=2)),
    case("ops.MaxPoolWithArgmaxV2", ARGMAX_INPUT(),
         init=dict(kernel_size=3, strides=2, pads=1, dilation=(1, 1), ceil_mode=True)),
    case("ops.lp_pool1d", T((1, 2, 6), lo=0.1, hi=2), 2, 3),
    case("ops.lp_pool2d", T((1, 2, 4, 5), lo=0.1, hi=2), 2.0, (2, 3), stride=1),
    case("ops.lp_pool2d", T((1, 2, 5, 5), lo=0.1, hi=2), 3, 2, ceil_mode=True),
    # adaptive pooling
    case("ops.adaptive_avg_pool1d", T((2, 3, 6)), 3),
    case("ops.adaptive_avg_pool1d", T((2, 3, 6)), output_size=1),
    case("ops.adaptive_avg_pool2d", T((1, 2, 5, 7)), (2, 3)),
    case("ops.adaptive_avg_pool2d", T((2, 5, 6)), (None, 4)),
    case("ops.adaptive_avg_pool3d", T((1, 2, 4, 5, 6)), (2, 3, 4)),
    case("ops.adaptive_avg_pool3d", T((1, 2, 4, 5, 6)), 2),
    case("ops.AdaptiveAvgPool2D", T((1, 2, 5, 7)), init=((2, 3),)),
    case("ops.AdaptiveAvgPool2D", T((2, 5, 6)), init=dict(output_size=4)),
    case("ops.AdaptiveAvgPool3D", T((1, 2, 4, 5, 6)), init=((3, 2, 4),)),
    case("ops.adaptive_max_pool1d", T((2, 3, 8)), 4),
    case("ops.adaptive_max_pool2d", ARGMAX_INPUT(), (2, 3)),
    case("ops.adaptive_max_pool2d", ARGMAX_INPUT(), 3, return_indices=True),
    case("ops.adaptive_max_pool3d", T((1, 2, 4, 5, 6)), (2, 3, 2)),
    case("ops.AdaptiveMaxPool2D", ARGMAX_INPUT(), init=((3, 2),)),
    # unpooling: the indices a max pool returns
    case("ops.max_unpool2d", T((1, 2, 2, 2)), T(np.array([[[[0, 3], [9, 14]], [[5, 7], [12, 15]]]],
                                                       np.int64)), 2),
    case("ops.max_unpool2d", T((1, 1, 2, 2)), T(np.array([[[[1, 4], [11, 13]]]], np.int64)), 2,
         stride=2, output_size=(5, 5)),
    case("ops.max_unpool1d", T((1, 2, 3)), T(np.array([[[1, 2, 5], [0, 3, 4]]], np.int64)), 2),
    case("ops.max_unpool3d", T((1, 1, 1, 2, 2)), T(np.array([[[[[0, 3], [9, 14]]]]], np.int64)), 2),
    case("ops.MaxPool3DWithArgmax", T((1, 2, 4, 4, 4)), init=dict(ksize=2, strides=2, pads=0)),
    case("ops.MaxPool3DWithArgmax", T((1, 1, 5, 5, 5)),
         init=dict(ksize=3, strides=2, pads=1, ceil_mode=True, argmax_type=D("int32"))),
    case("ops.AdaptiveMaxPool3D", T((1, 2, 4, 5, 6)), T(np.array([2, 3, 2], np.int32)), init=(),
         modes=("pynative",), why="output_size is a tensor argument here: its values set the "
                                  "output's shape, which graph mode must know while compiling"),
    case("ops.MaxUnpool3D", T((1, 1, 1, 2, 2)), T(np.array([[[[[0, 3], [9, 14]]]]], np.int64)),
         init=dict(ksize=2, strides=2)),
    case("ops.MaxUnpool2D", T((1, 2, 2, 2)), T(np.array([[[[0, 3], [9, 14]], [[5, 7], [12, 15]]]],
                                                       np.int64)), init=dict(ksize=2, strides=2)),
]

bad("ops.avg_pool2d", T((1, 2, 5)), 2, id="rank")
bad("ops.max_pool2d", T((1, 2, 5, 5)), 2, 2, 2, id="padding_over_half_kernel")
bad("ops.adaptive_avg_pool2d", T((1, 2, 5, 7)), (2, 3, 4), id="output_size_length")
bad("ops.MaxPool3D", T((1, 2, 4, 4)), init=dict(kernel_size=2), id="rank")
bad("ops.adaptive_avg_pool1d", T((2, 3, 7)), 3, id="not_divisible")
bad("ops.adaptive_max_pool1d", T((2, 3, 7)), 3, id="not_divisible")

CASES += REFUSED
