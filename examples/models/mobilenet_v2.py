"""MobileNetV2 in the style of MindSpore's model zoo: ``ConvBNReLU`` and ``InvertedResidual``
helper cells (depthwise convolutions through ``group``), a backbone of stacked blocks in a
``SequentialCell``, a head with global average pooling, Dropout and Dense.

    net = mobilenet_v2(num_classes=10, dropout=0.0)    # the default tests: a 2x3x64x64 batch
    net = mobilenet_v2()                               # the full size: 1000 classes, 224x224
"""
from graphcell import nn, ops


def _make_divisible(value, divisor, min_value=None):
    """Round ``value`` to the nearest multiple of ``divisor``, not below ``min_value`` and not
    below 90% of ``value``."""
    min_value = min_value or divisor
    new_value = max(min_value, int(value + divisor / 2) // divisor * divisor)
    if new_value < 0.9 * value:
        new_value += divisor
    return new_value


class ConvBNReLU(nn.Cell):
    """Convolution (depthwise when ``groups == in_planes``), batch norm, ReLU6."""

    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1):
        super().__init__()
        padding = (kernel_size - 1) // 2
        conv = nn.Conv2d(in_planes, out_planes, kernel_size, stride, pad_mode="pad",
                         padding=padding, group=groups)
        self.features = nn.SequentialCell([conv, nn.BatchNorm2d(out_planes), nn.ReLU6()])

    def construct(self, x):
        return self.features(x)


class InvertedResidual(nn.Cell):
    """Expand with a 1x1 convolution, filter with a 3x3 depthwise one, project back with a linear
    1x1 convolution; add the input when the shape stays."""

    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"InvertedResidual: stride must be 1 or 2, got {stride}")
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup

        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden_dim, kernel_size=1))
        layers.extend([
            ConvBNReLU(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim),
            nn.Conv2d(hidden_dim, oup, kernel_size=1, stride=1),
            nn.BatchNorm2d(oup),
        ])
        self.conv = nn.SequentialCell(layers)
        self.add = ops.Add()

    def construct(self, x):
        identity = x
        x = self.conv(x)
        if self.use_res_connect:
            return self.add(identity, x)
        return x


class MobileNetV2Backbone(nn.Cell):
    """The stem, the seven stages of inverted residual blocks, and the last 1x1 convolution to
    ``1280 * width_mult`` channels."""

    def __init__(self, width_mult=1.0, round_nearest=8):
        super().__init__()
        input_channel = 32
        last_channel = 1280
        # t (expansion), c (output channels), n (blocks), s (stride of the first block)
        self.cfgs = [
            [1, 16, 1, 1],
            [6, 24, 2, 2],
            [6, 32, 3, 2],
            [6, 64, 4, 2],
            [6, 96, 3, 1],
            [6, 160, 3, 2],
            [6, 320, 1, 1],
        ]
        input_channel = _make_divisible(input_channel * width_mult, round_nearest)
        self.out_channels = _make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features = [ConvBNReLU(3, input_channel, stride=2)]
        for t, c, n, s in self.cfgs:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                stride = s if i == 0 else 1
                features.append(InvertedResidual(input_channel, output_channel, stride,
                                                 expand_ratio=t))
                input_channel = output_channel
        features.append(ConvBNReLU(input_channel, self.out_channels, kernel_size=1))
        self.features = nn.SequentialCell(features)

    def construct(self, x):
        return self.features(x)


class MobileNetV2Head(nn.Cell):
    """Global average pooling, Dropout (probability ``dropout``) and the Dense classifier."""

    def __init__(self, input_channel=1280, num_classes=1000, dropout=0.2):
        super().__init__()
        self.mean = ops.ReduceMean(keep_dims=False)
        self.dropout = nn.Dropout(p=dropout)
        self.dense = nn.Dense(input_channel, num_classes, has_bias=True)

    def construct(self, x):
        x = self.mean(x, (2, 3))
        x = self.dropout(x)
        return self.dense(x)


class MobileNetV2(nn.Cell):
    """The backbone and the head."""

    def __init__(self, num_classes=1000, width_mult=1.0, dropout=0.2):
        super().__init__()
        self.backbone = MobileNetV2Backbone(width_mult=width_mult)
        self.head = MobileNetV2Head(self.backbone.out_channels, num_classes, dropout)

    def construct(self, x):
        return self.head(self.backbone(x))


def mobilenet_v2(num_classes=1000, width_mult=1.0, dropout=0.2):
    """MobileNetV2 (``dropout=0.0`` makes train mode deterministic, as the tests need).

    Example: ``mobilenet_v2(num_classes=10, dropout=0.0)(x)`` for ``x`` of shape (2, 3, 64, 64)
    has shape (2, 10).
    """
    return MobileNetV2(num_classes=num_classes, width_mult=width_mult, dropout=dropout)
