"""Parameters written in the graph: ``assign`` rebinds the Parameter in the frontend's environment,
later reads see the new value, and every written Parameter becomes an extra result (in order of
its first write) that the runtime writes back."""
from __future__ import annotations

import numpy as np
from expect_ir import check
from frontend_fakes import Cell, FakeResolver, Parameter, ops, run_eager

from graphcell_ir.backend.interp import interpret
from graphcell_ir.frontend import OutStatic, compile_function
from graphcell_ir.ir import TensorType, float32

F32_3 = TensorType(float32, (3,))


class _Net(Cell):
    def __init__(self):
        super().__init__()
        self.b = Parameter(np.array([0.1, -0.4, 0.09], np.float32))
        self.w = Parameter(np.ones(3, np.float32))


net = _Net()


def modify_parameter():
    b_hat = np.array([7, 8, 9])   # ms.Tensor([7, 8, 9]) in the MindSpore sample: an Int64 constant
    ops.assign(net.b, b_hat)
    return True


def test_modify_parameter_sample():
    out = check(modify_parameter, [], """
func @modify_parameter(%b: f32[3] param) -> f32[3] {
  %0 = const() {value=[7,8,9]} : i64[3]
  %1 = assign(%b, %0) : f32[3]
  return %1
}
""", resolver=FakeResolver(net))
    assert out.output == OutStatic(True)
    assert out.param_keys == (net.b,) and out.mutated_keys == (net.b,)
    value, new = out.split_results([interpret(out.module, net.b)])
    assert value is True
    np.testing.assert_array_equal(new[0], [7.0, 8.0, 9.0])


class _Optimizer(Cell):
    def __init__(self, params, lr):
        super().__init__()
        self.params = tuple(params)   # a ParameterTuple
        self.lr = lr

    def construct(self, grads):
        for p, g in zip(self.params, grads):
            ops.assign(p, p - self.lr * g)
        return self.params[0] * 1.0   # reads the new value


def test_optimizer_update_in_construct_and_reads_after_the_write():
    a = Parameter(np.ones(3, np.float32), "a")
    b = Parameter(np.full(3, 2.0, np.float32), "b")
    opt = _Optimizer([a, b], 0.5)
    out = check(_Optimizer.construct, [(F32_3, F32_3)], """
func @_Optimizer.construct(%grads_0: f32[3], %grads_1: f32[3], %a: f32[3] param,
    %b: f32[3] param) -> f32[3], f32[3], f32[3] {
  %0 = mul(0.5:f32, %grads_0) : f32[3]
  %1 = sub(%a, %0) : f32[3]
  %2 = assign(%a, %1) : f32[3]
  %3 = mul(0.5:f32, %grads_1) : f32[3]
  %4 = sub(%b, %3) : f32[3]
  %5 = assign(%b, %4) : f32[3]
  %6 = mul(%2, 1.0:f32) : f32[3]
  return %6, %2, %5
}
""", self_obj=opt)
    assert out.mutated_keys == (a, b)
    g = (np.full(3, 2.0, np.float32), np.ones(3, np.float32))
    got = interpret(out.module, *out.flatten_args((g,)), a, b)
    value, (new_a, new_b) = out.split_results(got)
    want = run_eager(opt, g)
    np.testing.assert_allclose(value, want)
    np.testing.assert_allclose(new_a, a)  # run_eager wrote the Parameters in place
    np.testing.assert_allclose(new_b, b)


def test_a_local_alias_of_a_parameter_reads_its_current_value():
    w = Parameter(np.ones(3, np.float32), "w")

    def f(x):
        alias = w
        old = w * 1.0
        ops.assign(w, x)
        return alias + old

    check(f, [F32_3], """
func @f(%x: f32[3], %w: f32[3] param) -> f32[3], f32[3] {
  %old = mul(%w, 1.0:f32) : f32[3]
  %0 = assign(%w, %x) : f32[3]
  %1 = add(%0, %old) : f32[3]
  return %1, %0
}
""")


def test_mutated_results_are_in_order_of_first_write():
    a = Parameter(np.zeros(3, np.float32), "a")
    b = Parameter(np.zeros(3, np.float32), "b")

    def f(x):
        ops.assign(b, x)
        ops.assign(a, x * 2.0)
        ops.assign(b, b + a)
        return ops.depend(x, ops.assign(a, a + 1.0))

    out = check(f, [F32_3], """
func @f(%x: f32[3], %b: f32[3] param, %a: f32[3] param) -> f32[3], f32[3], f32[3] {
  %0 = assign(%b, %x) : f32[3]
  %1 = mul(%x, 2.0:f32) : f32[3]
  %2 = assign(%a, %1) : f32[3]
  %3 = add(%0, %2) : f32[3]
  %4 = assign(%0, %3) : f32[3]
  %5 = add(%2, 1.0:f32) : f32[3]
  %6 = assign(%2, %5) : f32[3]
  %7 = depend(%x, %6) : f32[3]
  return %7, %4, %6
}
""")
    assert out.mutated_keys == (b, a) and out.param_keys == (b, a)


def test_a_write_in_one_branch_of_a_tensor_if_is_joined():
    steps = Parameter(np.zeros((), np.float32), "steps")

    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.steps = steps

        def construct(self, x):
            if x.sum() > 0:
                ops.assign(self.steps, self.steps + 1.0)
            return x * self.steps

    net = Net()
    out = check(Net.construct, [F32_3], """
func @Net.construct(%x: f32[3], %steps: f32[] param) -> f32[3], f32[] {
  %0 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %1 = greater(%0, 0:i64) : bool[]
  %steps_1 = if(%1) : f32[] {
    %2 = add(%steps, 1.0:f32) : f32[]
    %3 = assign(%steps, %2) : f32[]
    yield %3
  } else {
    yield %steps
  }
  %4 = mul(%x, %steps_1) : f32[3]
  return %4, %steps_1
}
""", self_obj=net)
    for x, want in ((np.ones(3, np.float32), 1.0), (-np.ones(3, np.float32), 0.0)):
        y, s = interpret(out.module, x, np.array(0, np.float32))
        assert s == want
        np.testing.assert_allclose(y, x * want)


def test_primitive_assign_and_a_static_branch_on_training():
    mean = Parameter(np.zeros(3, np.float32), "moving_mean", requires_grad=False)

    class BN(Cell):
        def __init__(self):
            super().__init__()
            self.moving_mean = mean
            self.momentum = 0.9

        def construct(self, x):
            if self.training:
                batch = x.mean(axis=0)
                ops.assign(self.moving_mean,
                           self.momentum * self.moving_mean + (1 - self.momentum) * batch)
                return x - batch
            return x - self.moving_mean

    bn = BN()
    eval_out = compile_function(BN.construct, bn, [TensorType(float32, (4, 3))], FakeResolver(bn))
    assert eval_out.mutated == () and eval_out.params[0].requires_grad is False
    bn.training = True
    train_out = compile_function(BN.construct, bn, [TensorType(float32, (4, 3))],
                                 FakeResolver(bn))
    assert train_out.mutated_keys == (mean,)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y, new_mean = interpret(train_out.module, x, mean)
    np.testing.assert_allclose(new_mean, 0.1 * x.mean(axis=0), rtol=1e-6)
