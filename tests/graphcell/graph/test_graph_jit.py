"""``graphcell.jit`` / ``ms_function``: decorating, staging inside PyNative, outputs, ``lower``
and ``Cell.compile``, gradients (compiled with IR autodiff in GRAPH_MODE)."""
import re

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops, Tensor
from graphcell.graph import JitFunction, Lowered


def f32(*shape, seed=0):
    return Tensor(np.random.RandomState(seed).randn(*shape).astype(np.float32))


def test_decorator_forms():
    def f(x):
        return x + 1
    for jitted in (ms.jit(f), ms.jit()(f), ms.jit(jit_level="O1")(f), ms.ms_function(f),
                   ms.jit(capture_mode="ast", fullgraph=True)(f)):
        assert isinstance(jitted, JitFunction) and jitted.__name__ == "f"
        assert jitted(Tensor([1.0])).asnumpy().tolist() == [2.0]
    assert ms.jit(ms.jit(f)).__graphcell_jit__ is f


def test_bad_options():
    with pytest.raises(TypeError, match="unexpected keyword"):
        ms.jit(lambda x: x, no_such_option=1)
    with pytest.raises(ValueError, match="capture_mode"):
        ms.jit(lambda x: x, capture_mode="bytecode")
    with pytest.raises(TypeError, match="function"):
        ms.jit(3)


def test_output_structures_are_kept():
    @ms.jit
    def f(x, y):
        return (x + y, [x * 2, None]), {"n": 3, "y": y}, True
    (a, (b, none)), d, flag = f(f32(2), f32(2, seed=1))
    assert isinstance(a, Tensor) and isinstance(b, Tensor) and none is None and flag is True
    assert d["n"] == 3 and isinstance(d["y"], Tensor)


def test_tuple_inputs_and_keywords():
    @ms.jit
    def f(pair, scale=2.0):
        a, b = pair
        return a * scale + b
    x, y = f32(3), f32(3, seed=1)
    expected = x.asnumpy() * 2.0 + y.asnumpy()
    np.testing.assert_allclose(f((x, y)).asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(f(pair=(x, y)).asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(f((x, y), scale=3.0).asnumpy(), x.asnumpy() * 3 + y.asnumpy(),
                               rtol=1e-6)
    assert f.cache_log.misses == 2


def test_staged_function_calls_cells_and_writes_parameters():
    bn = nn.BatchNorm1d(2).set_train()

    @ms.jit
    def normalise(x):
        return bn(x)
    x = f32(4, 2)
    twin = nn.BatchNorm1d(2).set_train()
    expected = twin(x)
    out = normalise(x)
    np.testing.assert_allclose(out.asnumpy(), expected.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), twin.moving_mean.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), twin.moving_variance.asnumpy(),
                               rtol=1e-6)


def test_lower_shows_the_ir_without_running():
    w = ms.Parameter(Tensor(np.ones(3, np.float32)), name="w")

    @ms.jit
    def step(x):
        ops.assign(w, x + w)
        return w * 2
    lowered = step.lower(f32(3))
    assert isinstance(lowered, Lowered)
    assert w.asnumpy().tolist() == [1.0, 1.0, 1.0] and step.cache_log.misses == 0
    text = lowered.as_text()
    assert text.startswith("func @step(%x: f32[3], %w: f32[3] param)")
    assert "assign(" in text and "loc(test_graph_jit.py:" in text
    assert "loc(" not in lowered.as_text(locs="none")
    assert "test_graph_jit.py" in lowered.as_text(locs="full")
    assert lowered.param_names == ["w"] and lowered.mutated_names == ["w"]
    assert str(lowered) == text
    with pytest.raises(ValueError, match="locs"):
        lowered.as_text(locs="everything")


def test_cell_compile_caches_and_returns_the_ir():
    net = nn.Dense(3, 2)
    x = f32(4, 3)
    ir = net.compile(x)
    assert "matmul" in ir.as_text() and "%weight: f32[2,3] param" in ir.as_text()
    ms.set_context(mode=ms.GRAPH_MODE)
    net(x)
    info = ms.graph.cache_info(net)
    assert (info.hits, info.misses) == (1, 1)


def test_lowered_text_round_trips():
    from graphcell_ir.text import parse_module, print_module
    net = nn.SequentialCell([nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Dense(2 * 5 * 5, 3)])
    text = net.compile(f32(2, 1, 5, 5)).as_text(locs="full") + "\n"
    assert print_module(parse_module(text), locs="full") == text


def test_gradients_see_through_jit_functions():
    @ms.jit
    def f(x, y):
        return x * y

    def loss(x, y):
        return f(x, y).sum()
    x, y = f32(3), f32(3, seed=1)
    gx, gy = ms.grad(loss, grad_position=(0, 1))(x, y)
    np.testing.assert_allclose(gx.asnumpy(), y.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), x.asnumpy(), rtol=1e-6)


def test_gradients_of_a_cell_in_graph_mode_are_compiled(graph_mode):
    net = nn.Dense(3, 1)
    x = f32(2, 3)
    grad_fn = ms.grad(lambda v: net(v).sum(), weights=net.trainable_params())
    grads = grad_fn(x)
    # the gradient of sum(x @ w.T + b) wrt w is the column sums of x
    np.testing.assert_allclose(grads[1][0].asnumpy(), x.asnumpy().sum(0, keepdims=True), rtol=1e-5)
    assert grad_fn.cache_log.misses == 1


def _double_negation(x):
    return -(-x)


def test_jit_level_o0_skips_the_passes():
    f = ms.jit(_double_negation)
    assert "neg(" not in f.lower(f32(2)).as_text()     # simplify removed it
    assert "neg(" in ms.jit(_double_negation, jit_level="O0").lower(f32(2)).as_text()
    ms.set_context(jit_level="O0")
    assert "neg(" in f.lower(f32(2)).as_text()
    assert "neg(" not in ms.jit(_double_negation, jit_level="O1").lower(f32(2)).as_text()
    with pytest.raises(ValueError, match="jit_level"):
        ms.jit(_double_negation, jit_level="O7")
    with pytest.raises(ValueError, match="jit_level"):
        ms.set_context(jit_level="O9")


def test_graph_mode_runs_a_cell_with_a_staged_construct(graph_mode):
    class Net(nn.Cell):
        @ms.ms_function
        def construct(self, x):
            return x * 2
    net = Net()
    assert net(Tensor([1.0])).asnumpy().tolist() == [2.0]
    assert net.construct(Tensor([2.0])).asnumpy().tolist() == [4.0]


def test_save_graphs_writes_the_ir_of_each_pass(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))

    @ms.jit
    def f(x):
        return -(-x) * 2.0 + 1.0
    f(f32(3))
    files = sorted(p.name for p in (tmp_path / "f").iterdir())
    assert files[0].startswith("00_") and any("simplify" in name for name in files)


def test_save_graphs_writes_each_kernels_source_and_llvm_ir(tmp_path):
    """Beside the IR of each pass: the runner, every kernel's Python source and, for those the
    code generator compiles, its LLVM IR after LLVM's passes (a vectorised loop shows)."""
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))

    @ms.jit
    def g(x):
        return ops.tanh(x * 2.0) + 1.0
    x = np.linspace(-1, 1, 4096).astype(np.float32)
    np.testing.assert_allclose(g(ms.Tensor(x)).asnumpy(), np.tanh(x * 2) + 1, rtol=1e-5)
    d = tmp_path / "kernels"
    (src,) = d.glob("kernel_*.py")
    (ir,) = d.glob("kernel_*.ll")
    assert "def kernel(" in src.read_text() and src.stem == ir.stem
    text = ir.read_text()
    assert "define" in text and re.search(r"<\d+ x float>", text), "no vector loop"
