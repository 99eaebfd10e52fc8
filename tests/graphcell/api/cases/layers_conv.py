"""Golden cases of the convolution layers (``graphcell/nn/layers/conv.py``): pad modes, strides,
dilations, groups (depthwise), biases and output padding, with the gradients of the input, the
weight and the bias."""
import numpy as np

from golden_cases import T, case


def conv2d(x, cin, cout, k, w=None, bias=False, **kw):
    init = dict(in_channels=cin, out_channels=cout, kernel_size=k,
                weight_init=T(w or (cout, cin // kw.get("group", 1)) + _pair(k)), **kw)
    if bias:
        init.update(has_bias=True, bias_init=T((cout,)))
    return case("nn.Conv2d", T(x), init=init)


def _with_infinities():
    """A (1, 16, 20, 21) input with +inf inside, -inf on an edge and +inf at a corner: in
    graphcell a 3x3 'same' convolution of it runs on the Winograd kernel (``nnkernels.winograd``:
    float32, from 16 channels each way, rows of 17 to 32), whose transforms alone gave NaN
    (``inf - inf``) where MindSpore gives +-inf."""
    x = np.random.default_rng(21).uniform(-2, 2, (1, 16, 20, 21)).astype(np.float32)
    x[0, 3, 9, 12], x[0, 7, 0, 5], x[0, 11, 19, 20] = np.inf, -np.inf, np.inf
    return x


def _pair(k):
    return (k, k) if isinstance(k, int) else tuple(k)


CASES = [
    conv2d((2, 3, 5, 5), 3, 4, 3),                                   # same, no bias
    conv2d((2, 3, 5, 6), 3, 4, 3, bias=True, pad_mode="valid"),
    conv2d((1, 2, 6, 5), 2, 4, (3, 2), stride=2, bias=True),         # same, stride 2, odd pad
    conv2d((1, 2, 5, 5), 2, 2, 3, pad_mode="pad", padding=1),
    conv2d((1, 2, 5, 5), 2, 2, 3, pad_mode="pad", padding=(1, 0, 2, 1), stride=(2, 1)),
    conv2d((1, 2, 7, 7), 2, 2, 3, dilation=2, pad_mode="valid"),
    conv2d((1, 4, 5, 5), 4, 6, 3, group=2, bias=True),
    conv2d((2, 3, 5, 5), 3, 3, 3, group=3, bias=True),                # depthwise
    conv2d((2, 3, 5, 5), 3, 6, 3, group=3, stride=2),                 # depthwise, multiplier 2
    case("nn.Conv2d", T((1, 2, 5, 5)), init=dict(in_channels=2, out_channels=3, kernel_size=3,
                                                 pad_mode="valid", padding=1), id="pad_not_pad"),
    case("nn.Conv2d", T((1, 2, 5, 5)), init=dict(in_channels=3, out_channels=2, kernel_size=3,
                                                 group=2), id="group"),
    case("nn.Conv2d", T(_with_infinities()),
         init=dict(in_channels=16, out_channels=16, kernel_size=3, weight_init=T((16, 16, 3, 3))),
         grad=False, rtol=1e-4, atol=1e-4, id="winograd_infinities"),   # sums of 144 terms
    # 1-D: weight (out, in / group, 1, k); a 3-D weight_init gets its height axis
    case("nn.Conv1d", T((2, 3, 7)), init=dict(in_channels=3, out_channels=4, kernel_size=3,
                                              weight_init=T((4, 3, 3)))),
    case("nn.Conv1d", T((2, 3, 8)), init=dict(in_channels=3, out_channels=2, kernel_size=3,
                                              stride=2, pad_mode="pad", padding=1,
                                              has_bias=True, weight_init=T((2, 3, 3)),
                                              bias_init=T((2,)))),
    case("nn.Conv1d", T((2, 3, 8)), init=dict(in_channels=3, out_channels=2, kernel_size=3,
                                              weight_init=T((2, 3, 1, 3))), id="weight_4d"),
    case("nn.Conv1d", T((1, 4, 9)), init=dict(in_channels=4, out_channels=4, kernel_size=3,
                                              dilation=2, group=4, pad_mode="valid",
                                              weight_init=T((4, 1, 3)))),
    case("nn.Conv1d", T((1, 3, 9)), init=dict(in_channels=3, out_channels=4, kernel_size=(3,)),
         id="tuple_kernel"),
    # 3-D (sums of 54 products: float32 rounding differs in the last digits)
    case("nn.Conv3d", T((1, 2, 4, 4, 4)), init=dict(in_channels=2, out_channels=3, kernel_size=3,
                                                    weight_init=T((3, 2, 3, 3, 3))), rtol=1e-4),
    case("nn.Conv3d", T((2, 2, 5, 4, 4)),
         init=dict(in_channels=2, out_channels=2, kernel_size=(3, 2, 2), stride=(2, 1, 2),
                   pad_mode="pad", padding=(1, 0, 1, 1, 0, 1), has_bias=True,
                   weight_init=T((2, 2, 3, 2, 2)), bias_init=T((2,)))),
    case("nn.Conv3d", T((1, 4, 4, 4, 4)), init=dict(in_channels=4, out_channels=2, kernel_size=2,
                                                    pad_mode="valid", group=2,
                                                    weight_init=T((2, 2, 2, 2, 2)))),
    # transposed 2-D: weight (in, out / group, kh, kw)
    case("nn.Conv2dTranspose", T((1, 3, 3, 3)),
         init=dict(in_channels=3, out_channels=2, kernel_size=2, stride=2,
                   weight_init=T((3, 2, 2, 2)))),
    case("nn.Conv2dTranspose", T((2, 2, 3, 4)),
         init=dict(in_channels=2, out_channels=3, kernel_size=3, stride=2, pad_mode="valid",
                   has_bias=True, weight_init=T((2, 3, 3, 3)), bias_init=T((3,)))),
    case("nn.Conv2dTranspose", T((1, 2, 4, 4)),
         init=dict(in_channels=2, out_channels=2, kernel_size=3, stride=2, pad_mode="pad",
                   padding=1, output_padding=1, has_bias=True, weight_init=T((2, 2, 3, 3)),
                   bias_init=T((2,)))),
    case("nn.Conv2dTranspose", T((1, 4, 3, 3)),
         init=dict(in_channels=4, out_channels=2, kernel_size=3, pad_mode="pad",
                   padding=(1, 0, 0, 1), group=2, weight_init=T((4, 1, 3, 3)))),
    case("nn.Conv2dTranspose", T((1, 2, 3, 3)),
         init=dict(in_channels=2, out_channels=2, kernel_size=2, stride=3, pad_mode="valid",
                   dilation=1, weight_init=T((2, 2, 2, 2)))),
    case("nn.Conv2dTranspose", T((1, 2, 4, 4)),
         init=dict(in_channels=2, out_channels=2, kernel_size=3, stride=2, output_padding=1),
         id="output_padding_same"),
    # transposed 1-D
    case("nn.Conv1dTranspose", T((2, 3, 4)),
         init=dict(in_channels=3, out_channels=2, kernel_size=3, stride=2,
                   weight_init=T((3, 2, 3)))),
    case("nn.Conv1dTranspose", T((1, 2, 5)),
         init=dict(in_channels=2, out_channels=4, kernel_size=3, pad_mode="pad", padding=1,
                   has_bias=True, weight_init=T((2, 4, 3)), bias_init=T((4,)))),
    case("nn.Conv1dTranspose", T((1, 2, 5)),
         init=dict(in_channels=2, out_channels=4, kernel_size=3, weight_init=T((2, 4, 1, 3))),
         id="weight_4d"),
    # transposed 3-D
    case("nn.Conv3dTranspose", T((1, 2, 2, 3, 2)),
         init=dict(in_channels=2, out_channels=3, kernel_size=2, stride=2,
                   weight_init=T((2, 3, 2, 2, 2)))),
    case("nn.Conv3dTranspose", T((1, 2, 3, 3, 3)),
         init=dict(in_channels=2, out_channels=2, kernel_size=3, stride=2, pad_mode="pad",
                   padding=1, output_padding=1, has_bias=True, weight_init=T((2, 2, 3, 3, 3)),
                   bias_init=T((2,)))),
]
