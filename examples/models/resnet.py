"""ResNet50 and ResNet18 in the style of MindSpore's model zoo: helper functions for the
convolutions and batch norms, a bottleneck ``ResidualBlock`` and a ``BasicBlock``,
``ResNet._make_layer`` stacking blocks into a ``SequentialCell``, ``ops`` calls in ``construct``.

    net = resnet50(num_classes=10)      # the default tests: a 2x3x64x64 batch
    net = resnet50()                    # the full size: 1000 classes, 224x224 images
    net = resnet18(num_classes=10, small_input=True)   # CIFAR-sized 32x32 images (benchmarks)

The basic block pads its 3x3 convolutions explicitly (``pad_mode="pad"``, one pixel each side),
as other frameworks do, so that the benchmarks (``tools/bench``) run the same network there.
"""
from graphcell import nn, ops


def _conv3x3(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, kernel_size=3, stride=stride, padding=0,
                     pad_mode="same")


def _conv1x1(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, kernel_size=1, stride=stride, padding=0,
                     pad_mode="same")


def _conv7x7(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, kernel_size=7, stride=stride, padding=0,
                     pad_mode="same")


def _bn(channel):
    return nn.BatchNorm2d(channel, eps=1e-5, momentum=0.9)


def _shortcut(in_channel, out_channel, stride):
    """The projection a block's identity takes when its shape changes (a strided 1x1
    convolution and batch norm), else None."""
    if stride == 1 and in_channel == out_channel:
        return None
    return nn.SequentialCell([_conv1x1(in_channel, out_channel, stride), _bn(out_channel)])


def _fc(in_channel, out_channel):
    return nn.Dense(in_channel, out_channel, has_bias=True)


class ResidualBlock(nn.Cell):
    """The bottleneck: 1x1 down to ``out_channel / 4``, 3x3 (with the stride), 1x1 back up, added
    to the input (through a strided 1x1 convolution and batch norm when the shape changes)."""

    expansion = 4

    def __init__(self, in_channel, out_channel, stride=1):
        super().__init__()
        channel = out_channel // self.expansion
        self.conv1 = _conv1x1(in_channel, channel)
        self.bn1 = _bn(channel)
        self.conv2 = _conv3x3(channel, channel, stride=stride)
        self.bn2 = _bn(channel)
        self.conv3 = _conv1x1(channel, out_channel)
        self.bn3 = _bn(out_channel)
        self.relu = nn.ReLU()

        self.down_sample_layer = _shortcut(in_channel, out_channel, stride)
        self.down_sample = self.down_sample_layer is not None

    def construct(self, x):
        identity = x

        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)

        out = self.conv2(out)
        out = self.bn2(out)
        out = self.relu(out)

        out = self.conv3(out)
        out = self.bn3(out)

        if self.down_sample:
            identity = self.down_sample_layer(identity)

        out = out + identity
        out = self.relu(out)
        return out


def _conv3x3_padded(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, kernel_size=3, stride=stride, padding=1,
                     pad_mode="pad")


class BasicBlock(nn.Cell):
    """Two 3x3 convolutions (the first with the stride) with batch norms, added to the input
    (through a strided 1x1 convolution and batch norm when the shape changes)."""

    expansion = 1

    def __init__(self, in_channel, out_channel, stride=1):
        super().__init__()
        self.conv1 = _conv3x3_padded(in_channel, out_channel, stride=stride)
        self.bn1 = _bn(out_channel)
        self.conv2 = _conv3x3_padded(out_channel, out_channel)
        self.bn2 = _bn(out_channel)
        self.relu = nn.ReLU()

        self.down_sample_layer = _shortcut(in_channel, out_channel, stride)
        self.down_sample = self.down_sample_layer is not None

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down_sample:
            identity = self.down_sample_layer(identity)
        return self.relu(out + identity)


class ResNet(nn.Cell):
    """A stem (7x7/2 convolution, batch norm, ReLU, 3x3/2 max pool; with ``small_input``, for
    32x32 images: a 3x3/1 convolution, batch norm, ReLU), four stages of ``block``, a global
    average pool and a Dense classifier."""

    def __init__(self, block, layer_nums, in_channels, out_channels, strides, num_classes,
                 small_input=False):
        super().__init__()
        if not len(layer_nums) == len(in_channels) == len(out_channels) == 4:
            raise ValueError("the length of layer_num, in_channels, out_channels list must be 4!")
        if small_input:
            self.conv1 = _conv3x3_padded(3, 64)
            self.maxpool = nn.Identity()
        else:
            self.conv1 = _conv7x7(3, 64, stride=2)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.bn1 = _bn(64)
        self.relu = ops.ReLU()

        self.layer1 = self._make_layer(block, layer_nums[0], in_channels[0], out_channels[0],
                                       strides[0])
        self.layer2 = self._make_layer(block, layer_nums[1], in_channels[1], out_channels[1],
                                       strides[1])
        self.layer3 = self._make_layer(block, layer_nums[2], in_channels[2], out_channels[2],
                                       strides[2])
        self.layer4 = self._make_layer(block, layer_nums[3], in_channels[3], out_channels[3],
                                       strides[3])

        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.end_point = _fc(out_channels[3], num_classes)

    def _make_layer(self, block, layer_num, in_channel, out_channel, stride):
        layers = [block(in_channel, out_channel, stride=stride)]
        for _ in range(1, layer_num):
            layers.append(block(out_channel, out_channel, stride=1))
        return nn.SequentialCell(layers)

    def construct(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        c1 = self.maxpool(x)

        c2 = self.layer1(c1)
        c3 = self.layer2(c2)
        c4 = self.layer3(c3)
        c5 = self.layer4(c4)

        out = self.mean(c5, (2, 3))
        out = self.flatten(out)
        out = self.end_point(out)
        return out


def resnet50(num_classes=1000):
    """ResNet50: bottleneck stages of 3, 4, 6 and 3 blocks.

    Example: ``resnet50(num_classes=10)(x)`` for ``x`` of shape (2, 3, 64, 64) has shape (2, 10).
    """
    return ResNet(ResidualBlock,
                  [3, 4, 6, 3],
                  [64, 256, 512, 1024],
                  [256, 512, 1024, 2048],
                  [1, 2, 2, 2],
                  num_classes)


def resnet18(num_classes=1000, small_input=False):
    """ResNet18: basic-block stages of 2, 2, 2 and 2 blocks.

    Example: ``resnet18(num_classes=10, small_input=True)(x)`` for ``x`` of shape (8, 3, 32, 32)
    has shape (8, 10).
    """
    return ResNet(BasicBlock,
                  [2, 2, 2, 2],
                  [64, 64, 128, 256],
                  [64, 128, 256, 512],
                  [1, 2, 2, 2],
                  num_classes,
                  small_input=small_input)
