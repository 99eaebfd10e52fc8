"""DenseNet121 in the style of MindSpore's model zoo: convolution helpers, ``_DenseLayer`` (batch
norm, ReLU, 1x1 bottleneck, batch norm, ReLU, 3x3 convolution), ``_DenseBlock`` concatenating
every layer's new features along the channels (a ``CellList`` walked in ``construct``),
``_Transition`` (1x1 convolution and 2x2 average pooling), and the network's features as a
``SequentialCell`` of named cells.

    net = densenet121(num_classes=10)    # the default tests: a 2x3x64x64 batch
    net = densenet121()                  # the full size: 1000 classes, 224x224 images
"""
from collections import OrderedDict

from graphcell import nn, ops


def conv7x7(in_channels, out_channels, stride=1, padding=3, has_bias=False):
    return nn.Conv2d(in_channels, out_channels, kernel_size=7, stride=stride, has_bias=has_bias,
                     padding=padding, pad_mode="pad")


def conv3x3(in_channels, out_channels, stride=1, padding=1, has_bias=False):
    return nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=stride, has_bias=has_bias,
                     padding=padding, pad_mode="pad")


def conv1x1(in_channels, out_channels, stride=1, padding=0, has_bias=False):
    return nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=stride, has_bias=has_bias,
                     padding=padding, pad_mode="pad")


class GlobalAvgPooling(nn.Cell):
    """The mean over the spatial axes: (N, C, H, W) -> (N, C)."""

    def __init__(self):
        super().__init__()
        self.mean = ops.ReduceMean(keep_dims=False)

    def construct(self, x):
        return self.mean(x, (2, 3))


class _DenseLayer(nn.Cell):
    """``growth_rate`` new feature maps from all the block's maps so far."""

    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU()
        self.conv1 = conv1x1(num_input_features, bn_size * growth_rate)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU()
        self.conv2 = conv3x3(bn_size * growth_rate, growth_rate)
        self.need_drop = drop_rate > 0
        if self.need_drop:
            self.dropout = nn.Dropout(p=drop_rate)

    def construct(self, x):
        new_features = self.conv1(self.relu1(self.norm1(x)))
        new_features = self.conv2(self.relu2(self.norm2(new_features)))
        if self.need_drop:
            new_features = self.dropout(new_features)
        return new_features


class _DenseBlock(nn.Cell):
    """``num_layers`` dense layers, each seeing the concatenation of the input and all earlier
    layers' outputs."""

    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate):
        super().__init__()
        self.cell_list = nn.CellList()
        for i in range(num_layers):
            layer = _DenseLayer(num_input_features + i * growth_rate, growth_rate, bn_size,
                                drop_rate)
            self.cell_list.append(layer)
        self.concat = ops.Concat(axis=1)

    def construct(self, x):
        for layer in self.cell_list:
            new_features = layer(x)
            x = self.concat((x, new_features))
        return x


class _Transition(nn.Cell):
    """Batch norm, ReLU, 1x1 convolution to ``num_output_features``, 2x2 average pooling."""

    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.features = nn.SequentialCell(OrderedDict([
            ("norm", nn.BatchNorm2d(num_input_features)),
            ("relu", nn.ReLU()),
            ("conv", conv1x1(num_input_features, num_output_features)),
            ("pool", nn.AvgPool2d(kernel_size=2, stride=2)),
        ]))

    def construct(self, x):
        return self.features(x)


class Densenet(nn.Cell):
    """The stem (7x7/2 convolution, batch norm, ReLU, 3x3/2 max pool), dense blocks joined by
    transitions that halve the channels, a last batch norm and ReLU."""

    def __init__(self, growth_rate, block_config, num_init_features, bn_size=4, drop_rate=0):
        super().__init__()
        layers = OrderedDict()
        layers["conv0"] = conv7x7(3, num_init_features, stride=2, padding=3)
        layers["norm0"] = nn.BatchNorm2d(num_init_features)
        layers["relu0"] = nn.ReLU()
        layers["pool0"] = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")

        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            layers[f"denseblock{i + 1}"] = _DenseBlock(num_layers, num_features, bn_size,
                                                       growth_rate, drop_rate)
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                layers[f"transition{i + 1}"] = _Transition(num_features, num_features // 2)
                num_features = num_features // 2

        layers["norm5"] = nn.BatchNorm2d(num_features)
        layers["relu5"] = nn.ReLU()
        self.features = nn.SequentialCell(layers)
        self.out_channels = num_features

    def construct(self, x):
        return self.features(x)


class DenseNet121(nn.Cell):
    """The DenseNet121 features, global average pooling and a Dense classifier."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.backbone = Densenet(growth_rate=32, block_config=(6, 12, 24, 16),
                                 num_init_features=64)
        self.pool = GlobalAvgPooling()
        self.classifier = nn.Dense(self.backbone.out_channels, num_classes, has_bias=True)

    def construct(self, x):
        return self.classifier(self.pool(self.backbone(x)))


def densenet121(num_classes=1000):
    """DenseNet121: growth rate 32, dense blocks of 6, 12, 24 and 16 layers.

    Example: ``densenet121(num_classes=10)(x)`` for ``x`` of shape (2, 3, 64, 64) has shape
    (2, 10).
    """
    return DenseNet121(num_classes=num_classes)
