"""PyNative errors name the cell they happened in, by its path from the cell called (issue 24)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell_ir.errors import ShapeError


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(5, 4)
        self.fc2 = nn.Dense(3, 2)             # 4 features reach it
        self.blocks = nn.CellList([nn.ReLU(), Square()])

    def construct(self, x):
        x = self.blocks[1](self.blocks[0](x))
        return self.fc2(self.fc1(x))


class Square(nn.Cell):
    def construct(self, x):
        return ops.matmul(x, x)               # only square inputs


def test_a_shape_error_in_a_dense_names_the_layer():
    net = Net()
    net.blocks[1] = nn.ReLU()
    with pytest.raises(ValueError) as info:
        net(ms.Tensor(np.ones((2, 5), np.float32)))
    assert str(info.value) == ("Dense: expected an input whose last axis has in_channels=3 values, "
                               "got Float32 [2, 4]\n  in net.fc2 (Dense), where net is the Net called")


def test_an_op_error_keeps_its_type_and_names_the_cell_in_a_cell_list():
    with pytest.raises(ShapeError, match=r"contracted sizes 5 and 2 differ\n  in net\.blocks\.1 "
                                         r"\(Square\), where net is the Net called$"):
        Net()(ms.Tensor(np.ones((2, 5), np.float32)))


def test_the_cell_called_is_not_named_again_and_a_second_call_is_clean():
    with pytest.raises(ShapeError) as info:
        Square()(ms.Tensor(np.ones((2, 5), np.float32)))
    assert "\n  in " not in str(info.value)
    net = Net()
    net.blocks[1] = nn.ReLU()
    for _ in range(2):   # each error is named once, however often it happens
        with pytest.raises(ValueError) as info:
            net(ms.Tensor(np.ones((2, 5), np.float32)))
        assert str(info.value).count("\n  in net.fc2 (Dense)") == 1
