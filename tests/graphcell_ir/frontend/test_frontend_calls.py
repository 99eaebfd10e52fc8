"""Calls: sub-cells (inlined, with their forward hooks and the call chain in every location),
helper functions and methods, Primitive instances, traced library functions, compile-time calls,
``super()``; and classification of Python objects only where they are used."""
from __future__ import annotations

import numpy as np
import pytest
from expect_ir import check
from frontend_fakes import Cell, FakeResolver, Parameter, Primitive, ops, run_eager

from graphcell_ir.backend.interp import interpret
from graphcell_ir.errors import GraphLimitError, GraphSyntaxError
from graphcell_ir.frontend import Limits, compile_function
from graphcell_ir.frontend import resolve as R
from graphcell_ir.ir import LIB, TensorType, float32, walk

F32_23 = TensorType(float32, (2, 3))


class Dense(Cell):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = Parameter(np.linspace(-1, 1, n_in * n_out, dtype=np.float32)
                                .reshape(n_out, n_in))
        self.bias = Parameter(np.full(n_out, 0.5, np.float32))
        self.unused = Parameter(np.zeros(1, np.float32))

    def construct(self, x):
        if not isinstance(x, np.ndarray) or x.shape[-1] != self.weight.shape[1]:
            raise ValueError(f"Dense: bad input {x.shape}")
        return ops.bias_add(ops.matmul(x, self.weight, transpose_b=True), self.bias)


class Net(Cell):
    def __init__(self):
        super().__init__()
        self.fc = Dense(3, 4)
        self.act = Primitive("relu")

    def helper(self, x, k=2.0):
        return x * k

    def construct(self, x):
        y = self.fc(x)
        return self.helper(self.act(y))


def test_sub_cell_inlined_with_the_call_chain_in_every_location():
    net = Net()
    out = check(Net.construct, [F32_23], """
func @Net.construct(%x: f32[2,3], %fc.weight: f32[4,3] param, %fc.bias: f32[4] param) -> f32[2,4] {
  %0 = matmul(%x, %fc.weight) {transpose_a=false, transpose_b=true} : f32[2,4]
      loc(test_frontend_calls.py:31:29 Net>Dense)
  %y = bias_add(%0, %fc.bias) {data_format="NCHW"} : f32[2,4]
      loc(test_frontend_calls.py:31:16 Net>Dense)
  %1 = relu(%y) : f32[2,4]  loc(test_frontend_calls.py:45:28 Net)
  %2 = mul(%1, 2.0:f32) : f32[2,4]  loc(test_frontend_calls.py:41:16 Net>.helper)
  return %2
}
""", self_obj=net, locs="user")
    ops_ = [op for op in walk(out.module) if op.opdef.name == "matmul"]
    loc = ops_[0].loc
    assert loc.scope == ("Net.construct", "Dense.construct")
    assert loc.caller.line == Net.construct.__code__.co_firstlineno + 1  # y = self.fc(x)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(interpret(out.module, x, *out.param_keys), run_eager(net, x))


def test_library_cells_point_at_the_users_line():
    net = Net()
    out = compile_function(Net.construct, net, [F32_23], FakeResolver(net, library={Dense}))
    matmul = next(op for op in walk(out.module) if op.opdef.name == "matmul")
    assert LIB in matmul.loc.marks
    assert matmul.loc.user_frame().line == Net.construct.__code__.co_firstlineno + 1


def test_parameters_and_attributes_are_classified_only_where_used():
    net = Net()
    resolver = FakeResolver(net)
    compile_function(Net.construct, net, [F32_23], resolver)
    seen = {id(o) for o in resolver.calls}
    assert id(net.fc.weight) in seen and id(net.fc.unused) not in seen


def test_forward_pre_hook_and_forward_hook_are_inlined():
    def double_input(cell, inputs):
        return inputs[0] * 2.0

    def add_one(cell, inputs, output):
        return output + 1.0

    def observe(cell, inputs, output):
        return None

    class Outer(Cell):
        def __init__(self):
            super().__init__()
            self.inner = Dense(3, 2)
            self.inner.register_forward_pre_hook(double_input)
            self.inner.register_forward_hook(add_one)
            self.inner.register_forward_hook(observe)

        def construct(self, x):
            return self.inner(x)

    outer = Outer()
    out = check(Outer.construct, [F32_23], """
func @Outer.construct(%x: f32[2,3], %inner.weight: f32[2,3] param,
    %inner.bias: f32[2] param) -> f32[2,2] {
  %0 = mul(%x, 2.0:f32) : f32[2,3]
  %1 = matmul(%0, %inner.weight) {transpose_a=false, transpose_b=true} : f32[2,2]
  %2 = bias_add(%1, %inner.bias) {data_format="NCHW"} : f32[2,2]
  %3 = add(%2, 1.0:f32) : f32[2,2]
  return %3
}
""", self_obj=outer)
    scopes = {op.loc.scope for op in walk(out.module) if op.loc.known}
    assert ("Outer.construct", "double_input") in scopes and \
        ("Outer.construct", "add_one") in scopes
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(interpret(out.module, x, *out.param_keys), run_eager(outer, x))


def test_the_backward_hooks_flag_is_ignored():
    net = Net()
    net.fc.has_backward_hooks = True   # backward hooks are the resolver's hooks now
    out = compile_function(Net.construct, net, [F32_23], FakeResolver(net))
    assert not out.warnings


def test_primitives_with_constructor_and_call_attributes():
    rsum = Primitive("reduce_sum", keep_dims=True)
    concat = Primitive("concat", axis=1)

    def f(x, y):
        s = rsum(x, (1,))
        return concat((x, y, s))

    check(f, [F32_23, F32_23], """
func @f(%x: f32[2,3], %y: f32[2,3]) -> f32[2,7] {
  %s = reduce_sum(%x) {axis=[1], keep_dims=true} : f32[2,1]
  %0 = concat(%x, %y, %s) {axis=1} : f32[2,7]
  return %0
}
""")


def test_super_and_inherited_construct():
    class Base(Cell):
        def construct(self, x):
            return x + 1.0

    class Child(Base):
        def construct(self, x):
            y = super().construct(x)
            return Base.construct(self, y) * 3.0

    child = Child()
    out = check(Child.construct, [F32_23], """
func @Child.construct(%x: f32[2,3]) -> f32[2,3] {
  %y = add(%x, 1.0:f32) : f32[2,3]
  %0 = add(%y, 1.0:f32) : f32[2,3]
  %1 = mul(%0, 3.0:f32) : f32[2,3]
  return %1
}
""", self_obj=child)
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(interpret(out.module, x), run_eager(child, x))


def test_cell_call_with_keywords_and_a_static_result_structure():
    class Two(Cell):
        def construct(self, x, scale=1.0, *, offset=0.0):
            return x * scale + offset, {"scale": scale}

    two = Two()

    def f(x):
        y, info = two(x, offset=2.0, scale=3.0)
        return y, info["scale"]

    check(f, [F32_23], """
func @f(%x: f32[2,3]) -> f32[2,3] {
  %0 = mul(%x, 3.0:f32) : f32[2,3]
  %y = add(%0, 2.0:f32) : f32[2,3]
  return %y
}
""")


def test_functions_without_source_and_unsupported_records():
    class Resolver(FakeResolver):
        def classify(self, obj):
            if obj is banned:
                return R.Unsupported("banned() is not allowed in graph mode")
            if obj is native:
                return R.Inline(native)
            return super().classify(obj)

    def banned(x):
        return x

    native = np.add.reduce   # a C function: no Python source to inline

    def f(x):
        y = banned(x)
        return native(x) + y

    with pytest.raises(GraphSyntaxError) as e:
        compile_function(f, None, [F32_23], Resolver())
    msg = str(e.value)
    assert "banned() is not allowed in graph mode" in msg and "cannot compile the call to" in msg


def test_recursion_is_reported():
    def fact(x, n):
        return x if n == 0 else fact(x, n - 1) * 1.0

    out = compile_function(fact, None, [F32_23, 3], FakeResolver())   # bounded: unrolled
    assert sum(1 for _ in walk(out.module)) == 4

    def forever(x):
        return forever(x)

    with pytest.raises(GraphLimitError, match="calls nest 41 levels deep .is forever recursive"):
        compile_function(forever, None, [F32_23], FakeResolver(), limits=Limits(call_depth=40))
    with pytest.raises(GraphLimitError, match="max_call_depth=1000; raise the limit with "
                                              r"set_context\(max_call_depth=...\)"):
        compile_function(forever, None, [F32_23], FakeResolver())


def test_deep_but_bounded_recursion_compiles_up_to_the_limit():
    def count(x, n):
        return x if n == 0 else count(x + 1.0, n - 1)

    out = compile_function(count, None, [F32_23, 150], FakeResolver())
    assert sum(1 for op in walk(out.module) if op.opdef.name == "add") == 150
    with pytest.raises(GraphLimitError):
        compile_function(count, None, [F32_23, 150], FakeResolver(), limits=Limits(call_depth=100))
