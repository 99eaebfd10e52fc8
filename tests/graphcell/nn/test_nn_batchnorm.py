"""BatchNorm1d/2d: parameters, training vs. inference statistics, and the moving statistics after
training steps, against MindSpore 2.10's printed values and a numpy reference."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn

X = (np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2) ** 1.5) / 10


def close(actual, expected, tol=1e-5):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected, np.float64), rtol=tol,
                               atol=tol)


def test_parameters_names_and_repr():
    bn = nn.BatchNorm2d(3)
    assert [(n, p.name, p.shape, p.requires_grad) for n, p in bn.parameters_and_names()] == [
        ("moving_mean", "mean", (3,), False), ("moving_variance", "variance", (3,), False),
        ("gamma", "gamma", (3,), True), ("beta", "beta", (3,), True)]
    close(bn.moving_variance.asnumpy(), [1, 1, 1])
    assert repr(bn) == (
        "BatchNorm2d(num_features=3, eps=1e-05, momentum=0.9, gamma=Parameter (name=gamma, "
        "shape=(3,), dtype=Float32, requires_grad=True), beta=Parameter (name=beta, shape=(3,), "
        "dtype=Float32, requires_grad=True), moving_mean=Parameter (name=mean, shape=(3,), "
        "dtype=Float32, requires_grad=False), moving_variance=Parameter (name=variance, "
        "shape=(3,), dtype=Float32, requires_grad=False))")
    frozen = nn.BatchNorm1d(2, affine=False)
    assert not frozen.gamma.requires_grad and not frozen.beta.requires_grad


def test_names_inside_a_network():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(2)
    assert [p.name for p in Net().get_parameters()] == [
        "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta"]


def test_training_steps_match_mindspore():
    bn = nn.BatchNorm2d(3, momentum=0.8, gamma_init=2.0, beta_init=0.5, eps=1e-3).set_train()
    y = bn(Tensor(X))
    close(y.asnumpy().ravel()[:5], [-1.6503401, -1.5676124, -1.416351, -1.2204745, -1.7980096])
    y2 = bn(Tensor(X[::-1].copy() * 2))
    close(y2.asnumpy().ravel()[:5], [1.7886686, 2.2273972, 2.6833417, 3.155875, 1.8569704])
    close(bn.moving_mean.asnumpy(), [1.4556074, 2.4197385, 3.6183221])
    close(bn.moving_variance.asnumpy(), [7.0513139, 10.941393, 14.696311])
    bn.set_train(False)
    close(bn(Tensor(X)).asnumpy().ravel()[:5],
          [-0.59624696, -0.52093494, -0.38323253, -0.20491433, -0.47930682])


def test_moving_statistics_numpy_reference():
    """moving = momentum * moving + (1 - momentum) * batch, with the unbiased batch variance."""
    bn = nn.BatchNorm2d(3, momentum=0.8).set_train()
    y = bn(Tensor(X)).asnumpy()
    mean, var = X.mean((0, 2, 3)), X.var((0, 2, 3))
    close(bn.moving_mean.asnumpy(), 0.2 * mean)
    close(bn.moving_variance.asnumpy(), 0.8 + 0.2 * X.var((0, 2, 3), ddof=1))
    close(y, (X - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5))


def test_batchnorm1d_2d_and_3d_inputs_match_mindspore():
    bn = nn.BatchNorm1d(3).set_train()
    x = np.array([[1., 2., 3.], [4., 6., 9.], [0., -1., 2.]], np.float32)
    close(bn(Tensor(x)).asnumpy()[0], [-0.39223155, -0.11624755, -0.53916353])
    close(bn.moving_mean.asnumpy(), [0.16666667, 0.23333333, 0.46666667])
    close(bn.moving_variance.asnumpy(), [1.3333334, 2.1333334, 2.3333333])
    bn.set_train(False)
    close(bn(Tensor(x)).asnumpy()[1], [3.3197513, 3.9481578, 5.5863662])
    seq = nn.BatchNorm1d(2, momentum=0.5).set_train()
    x3 = np.linspace(-1, 2, 12, dtype=np.float32).reshape(2, 2, 3)
    close(seq(Tensor(x3)).asnumpy().ravel()[:3], [-1.286526, -0.9648945, -0.643263])
    close(seq.moving_mean.asnumpy(), [0.04545452, 0.45454547])
    close(seq.moving_variance.asnumpy(), [0.93140495, 0.93140495])


def test_inference_uses_moving_statistics_and_changes_nothing():
    bn = nn.BatchNorm2d(3, moving_mean_init=0.5, moving_var_init=4.0)
    y = bn(Tensor(X)).asnumpy()
    close(y, (X - 0.5) / np.sqrt(4.0 + 1e-5))
    close(bn.moving_mean.asnumpy(), [0.5] * 3)


def test_use_batch_statistics_overrides_the_mode():
    always = nn.BatchNorm2d(3, use_batch_statistics=True)  # not training, yet batch statistics
    close(always(Tensor(X)).asnumpy().ravel()[:4], [-1.0752611, -1.0338938, -0.95825666, -0.8603101])
    close(always.moving_mean.asnumpy(), 0.1 * X.mean((0, 2, 3)))
    never = nn.BatchNorm2d(3, use_batch_statistics=False).set_train()
    close(never(Tensor(X)).asnumpy().ravel()[:4], [0.0, 0.0999995, 0.28284127, 0.51961267])
    close(never.moving_mean.asnumpy(), [0, 0, 0])


def test_gradient_in_inference_mode_is_the_hook_page_value():
    """The Conv2d+BatchNorm2d network of hook_programming.md (its gradient, without hooks)."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, kernel_size=2, stride=1, padding=0, weight_init="ones",
                                  pad_mode="valid")
            self.bn = nn.BatchNorm2d(2, momentum=0.99, eps=0.00001, gamma_init="ones")
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(self.bn(self.conv(x)))

    out = ms.grad(Net())(Tensor(np.ones([1, 1, 2, 2]).astype(np.float32)))
    close(out.asnumpy(), np.full((1, 1, 2, 2), 2 / np.sqrt(1 + 1e-5)), 1e-6)
    assert np.array2string(out.asnumpy()) == "[[[[1.99999 1.99999]\n   [1.99999 1.99999]]]]"


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match=r"BatchNorm2d: expected a 4-D input, got Float32 \[2, 3\]"):
        nn.BatchNorm2d(3)(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match=r"BatchNorm1d: expected a 2-D or 3-D input"):
        nn.BatchNorm1d(3)(Tensor(X))
    with pytest.raises(ValueError, match=r"expected num_features=2 channels on axis 1"):
        nn.BatchNorm2d(2)(Tensor(X))
    with pytest.raises(ValueError, match=r"'momentum' must be in \[0.0, 1.0\], got 1.5"):
        nn.BatchNorm2d(2, momentum=1.5)
