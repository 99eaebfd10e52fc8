"""Golden cases of the pooling layers (``graphcell/nn/layers/pooling.py``): pad modes, padding,
dilation, ceil mode, returned indices, unbatched inputs, the adaptive pools and unpooling."""
import numpy as np

from golden_cases import T, case

IMG = (2, 3, 6, 7)
VOL = (1, 2, 5, 4, 6)
SEQ = (2, 3, 9)

CASES = [
    # MaxPool2d
    case("nn.MaxPool2d", T(IMG), init=dict(kernel_size=2, stride=2)),
    case("nn.MaxPool2d", T(IMG), init=dict(kernel_size=3, stride=2, pad_mode="same")),
    case("nn.MaxPool2d", T((3, 6, 7)), init=dict(kernel_size=(2, 3), stride=(1, 2))),
    case("nn.MaxPool2d", T(IMG), init=dict(kernel_size=3, stride=2, pad_mode="pad", padding=1)),
    case("nn.MaxPool2d", T(IMG), init=dict(kernel_size=2, stride=2, pad_mode="pad",
                                           ceil_mode=True)),
    case("nn.MaxPool2d", T(IMG), init=dict(kernel_size=2, stride=1, pad_mode="pad", dilation=2,
                                           padding=(1, 0))),
    case("nn.MaxPool2d", T(IMG), init=dict(kernel_size=2, stride=2, pad_mode="pad",
                                           return_indices=True)),
    case("nn.MaxPool2d", T(IMG), init=dict(kernel_size=2, padding=1), id="padding_valid"),
    case("nn.MaxPool2d", T(IMG), init=dict(kernel_size=2, pad_mode="full"), id="pad_mode"),
    # MaxPool1d
    case("nn.MaxPool1d", T(SEQ), init=dict(kernel_size=3, stride=2)),
    case("nn.MaxPool1d", T(SEQ), init=dict(kernel_size=2, stride=2, pad_mode="same")),
    case("nn.MaxPool1d", T((3, 9)), init=dict(kernel_size=3, stride=1)),
    case("nn.MaxPool1d", T(SEQ), init=dict(kernel_size=3, stride=2, pad_mode="pad", padding=1,
                                           return_indices=True)),
    case("nn.MaxPool1d", T(SEQ), init=dict(kernel_size=2, stride=2, pad_mode="pad",
                                           ceil_mode=True, dilation=2)),
    # MaxPool3d
    case("nn.MaxPool3d", T(VOL), init=dict(kernel_size=2, stride=2)),
    case("nn.MaxPool3d", T(VOL), init=dict(kernel_size=(2, 3, 2), stride=(1, 2, 2),
                                           pad_mode="same")),
    case("nn.MaxPool3d", T(VOL), init=dict(kernel_size=3, stride=2, pad_mode="pad", padding=1)),
    case("nn.MaxPool3d", T((2, 5, 4, 6)), init=dict(kernel_size=2, stride=2, pad_mode="pad",
                                                    dilation=2, return_indices=True)),
    case("nn.MaxPool3d", T(VOL), init=dict(kernel_size=2, stride=2, pad_mode="pad",
                                           ceil_mode=True)),
    case("nn.MaxPool3d", T(VOL), init=dict(kernel_size=2, return_indices=True),
         id="indices_valid"),
    # AvgPool2d
    case("nn.AvgPool2d", T(IMG), init=dict(kernel_size=2, stride=2)),
    case("nn.AvgPool2d", T(IMG), init=dict(kernel_size=3, stride=2, pad_mode="same")),
    case("nn.AvgPool2d", T((3, 6, 7)), init=dict(kernel_size=(3, 2), stride=(2, 1))),
    case("nn.AvgPool2d", T(IMG), init=dict(kernel_size=3, stride=2, pad_mode="pad", padding=1)),
    case("nn.AvgPool2d", T(IMG), init=dict(kernel_size=3, stride=2, pad_mode="pad", padding=1,
                                           count_include_pad=False)),
    case("nn.AvgPool2d", T(IMG), init=dict(kernel_size=2, stride=2, pad_mode="pad",
                                           ceil_mode=True, divisor_override=3)),
    case("nn.AvgPool2d", T(IMG), init=dict(kernel_size=2, stride=2, ceil_mode=True)),
    case("nn.AvgPool2d", T(IMG), init=dict(kernel_size=2, divisor_override=0), id="divisor"),
    # AvgPool1d: MindSpore's special cases of short inputs included
    case("nn.AvgPool1d", T(SEQ), init=dict(kernel_size=3, stride=2)),
    case("nn.AvgPool1d", T(SEQ), init=dict(kernel_size=2, stride=3, pad_mode="same")),
    case("nn.AvgPool1d", T((3, 9)), init=dict(kernel_size=9, stride=1)),
    case("nn.AvgPool1d", T(SEQ), init=dict(kernel_size=6, stride=4)),
    case("nn.AvgPool1d", T(SEQ), init=dict(kernel_size=3, stride=2, pad_mode="pad", padding=1,
                                           count_include_pad=False)),
    case("nn.AvgPool1d", T(SEQ), init=dict(kernel_size=2, stride=2, ceil_mode=True)),
    # AvgPool3d
    case("nn.AvgPool3d", T(VOL), init=dict(kernel_size=2, stride=2)),
    case("nn.AvgPool3d", T(VOL), init=dict(kernel_size=3, stride=2, pad_mode="same")),
    case("nn.AvgPool3d", T((2, 5, 4, 6)), init=dict(kernel_size=3, stride=2, pad_mode="pad",
                                                    padding=(1, 0, 1), count_include_pad=False)),
    case("nn.AvgPool3d", T(VOL), init=dict(kernel_size=2, stride=2, pad_mode="pad",
                                           ceil_mode=True, divisor_override=5)),
    # Lp pools
    case("nn.LPPool1d", T(SEQ, lo=0.1, hi=2.0), init=dict(norm_type=2, kernel_size=3, stride=2)),
    case("nn.LPPool1d", T((3, 9), lo=0.1, hi=2.0), init=dict(norm_type=1.5, kernel_size=2,
                                                             ceil_mode=True)),
    case("nn.LPPool2d", T(IMG, lo=0.1, hi=2.0), init=dict(norm_type=2, kernel_size=2)),
    case("nn.LPPool2d", T(IMG, lo=0.1, hi=2.0), init=dict(norm_type=3, kernel_size=(3, 2),
                                                          stride=(2, 1))),
    # adaptive pools
    case("nn.AdaptiveAvgPool1d", T(SEQ), init=dict(output_size=3)),
    case("nn.AdaptiveAvgPool1d", T((2, 3, 8)), init=dict(output_size=3), id="not_divisible"),
    case("nn.AdaptiveMaxPool1d", T(SEQ), init=dict(output_size=3)),
    case("nn.AdaptiveMaxPool1d", T(SEQ), init=dict(output_size=0), id="zero"),
    case("nn.AdaptiveAvgPool2d", T(IMG), init=dict(output_size=(2, 3))),
    case("nn.AdaptiveAvgPool2d", T(IMG), init=dict(output_size=1)),
    case("nn.AdaptiveAvgPool2d", T((3, 6, 7)), init=dict(output_size=(4, None))),
    case("nn.AdaptiveAvgPool3d", T(VOL), init=dict(output_size=(2, 3, 4))),
    case("nn.AdaptiveAvgPool3d", T(VOL), init=dict(output_size=1)),
    case("nn.AdaptiveMaxPool2d", T(IMG), init=dict(output_size=(4, 3))),
    case("nn.AdaptiveMaxPool2d", T((3, 6, 7)), init=dict(output_size=2, return_indices=True)),
    case("nn.AdaptiveMaxPool3d", T(VOL), init=dict(output_size=(2, 2, 3))),
    case("nn.AdaptiveMaxPool3d", T(VOL), init=dict(output_size=2, return_indices=True)),
    # unpooling: the indices of a 2x2 max pool of a 4x4 input (distinct positions per channel)
    case("nn.MaxUnpool2d", T((1, 2, 2, 2)),
         T(np.array([[[[0, 3], [9, 14]], [[5, 2], [13, 15]]]]), "int64"),
         init=dict(kernel_size=2)),
    case("nn.MaxUnpool2d", T((1, 2, 2, 2)),
         T(np.array([[[[0, 3], [9, 14]], [[5, 2], [13, 15]]]]), "int64"), (1, 2, 5, 5),
         init=dict(kernel_size=2, stride=2)),
    case("nn.MaxUnpool1d", T((2, 3)), T(np.array([[1, 2, 5], [0, 3, 4]]), "int64"),
         init=dict(kernel_size=2)),
    case("nn.MaxUnpool3d", T((1, 1, 1, 2, 1)), T(np.array([[[[[3], [6]]]]]), "int64"),
         init=dict(kernel_size=2)),
]

# fractional max pools: the windows' positions fixed by _random_samples (MindSpore 2.10's CPU
# build has no gradient kernel for them — "Unsupported data type" — so these compare values;
# tests/graphcell/nn/test_layers_pool.py checks the gradient goes to each maximum)
CASES += [
    case("ops.fractional_max_pool2d", T((2, 3, 9, 8)), 2, output_size=(4, 3),
         _random_samples=T((2, 3, 2), lo=0.0, hi=1.0)),
    case("ops.fractional_max_pool2d", T((3, 9, 9)), (3, 2), output_ratio=(0.5, 0.4),
         return_indices=True, _random_samples=T((1, 3, 2), lo=0.0, hi=1.0)),
    case("ops.fractional_max_pool2d", T((1, 1, 7, 6)), 3, output_size=(1, 2),
         return_indices=True, _random_samples=T((1, 1, 2), lo=0.0, hi=1.0)),
    case("ops.fractional_max_pool3d", T((1, 2, 7, 8, 6)), 2, output_size=(3, 4, 2),
         return_indices=True, _random_samples=T((1, 2, 3), lo=0.0, hi=1.0)),
    case("ops.fractional_max_pool2d", T((1, 1, 5, 5)), 2, output_size=(5, 2), id="too_big"),
    case("nn.FractionalMaxPool2d", T((2, 3, 9, 8)),
         init=dict(kernel_size=2, output_size=(4, 3),
                   _random_samples=T((2, 3, 2), lo=0.0, hi=1.0))),
    case("nn.FractionalMaxPool3d", T((1, 2, 7, 8, 6)),
         init=dict(kernel_size=(2, 3, 2), output_ratio=(0.5, 0.5, 0.5), return_indices=True,
                   _random_samples=T((1, 2, 3), lo=0.0, hi=1.0))),
]
