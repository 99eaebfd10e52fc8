"""The printer: names, attributes, literals, locations, determinism."""
from __future__ import annotations

import numpy as np

from graphcell_ir.ir import (Builder, Function, Literal, Loc, Module, ScalarType, TensorType,
                             float16, float32, float64, int64)
from graphcell_ir.ir.types import bool_
from graphcell_ir.text import HostRef, parse_module, print_function, print_module, print_op

T = TensorType(float32, (3,))


def build(hints=("h", "h", None, "h_1", "a b", "7", "")):
    m = Module()
    fn = m.add(Function("Net.construct"))
    x = fn.add_arg(T, "x")
    w = fn.add_arg(T, "layers.1.weight", param=True)
    b = Builder.at_end(fn.body)
    v = b.op("mul", x, w)
    for h in hints:
        v = b.op("neg", v)
        v.name_hint = h
    b.return_(v)
    return m


def test_names_parameters_hints_dedupe_and_numbers():
    text = print_module(build())
    assert text == """func @Net.construct(%x: f32[3], %layers.1.weight: f32[3] param) -> f32[3] {
  %0 = mul(%x, %layers.1.weight) : f32[3]
  %h = neg(%0) : f32[3]
  %h_1 = neg(%h) : f32[3]
  %1 = neg(%h_1) : f32[3]
  %h_1_1 = neg(%1) : f32[3]
  %a_b = neg(%h_1_1) : f32[3]
  %_7 = neg(%a_b) : f32[3]
  %2 = neg(%_7) : f32[3]
  return %2
}
"""
    assert print_module(parse_module(text)) == text


def test_canonical_names_keep_only_argument_names():
    text = print_module(build(), hints=False)
    assert "%h" not in text and "%layers.1.weight" in text and "%6 = neg(%5)" in text


def test_printing_is_deterministic_across_builds():
    assert print_module(build()) == print_module(build())


def test_attributes_are_sorted_and_complete():
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(TensorType(float32, (2, 3)), "x")
    b = Builder.at_end(fn.body)
    s = b.op("reduce_sum", x)
    g = b.op("getitem", x, key=(slice(None), slice(1, None, 2), None, Ellipsis))
    c = b.op("cast", g, dtype="float64")
    b.return_(s, c)
    text = print_module(m)
    assert "reduce_sum(%x) {axis=none, keep_dims=false} : f32[]" in text
    assert "getitem(%x) {key=[:,1::2,none,...]} : f32[2,1,1]" in text
    assert "cast(%1) {dtype=f64} : f64[2,1,1]" in text
    assert print_module(parse_module(text)) == text


def test_literals_are_spelled_exactly():
    cases = {1e-7: "1e-07:f32", float("nan"): "nan:f32", float("-inf"): "-inf:f32", -0.0: "-0.0:f32",
             0.1: "0.1:f32", 2: "2:i64", True: "true:bool", None: "none"}
    for value, spelled in cases.items():
        m = Module()
        fn = m.add(Function("f"))
        x = fn.add_arg(ScalarType(float32), "x")
        b = Builder.at_end(fn.body)
        b.return_(Literal(value))
        text = print_module(m)
        assert f"return {spelled}\n" in text
        back = parse_module(text)["f"].return_op.operands[0]
        assert back.type == Literal(value).type and repr(back.value) == repr(Literal(value).value)
    assert f"{Literal(1.5, ScalarType(float64)).type}" == "f64"


def test_constants_print_values_exactly_in_their_dtype():
    m = Module()
    fn = m.add(Function("f"))
    b = Builder.at_end(fn.body)
    arrays = [np.array([0.1, 1 / 3, 65504, np.nan], np.float16), np.array([[0.1, 1e-8]], np.float32),
              np.array(True), np.array([[], []], np.int64), np.array([-2 ** 62], np.int64)]
    b.return_(*[b.const(a) for a in arrays])
    text = print_module(m)
    assert "{value=[0.1,0.3333,6.55e+04,nan]} : f16[4]" in text
    assert "{value=[[0.1,1e-08]]} : f32[1,2]" in text and "{value=true} : bool[]" in text
    assert "{value=[[],[]]} : i64[2,0]" in text
    back = parse_module(text)["f"].return_op.operands
    for a, v in zip(arrays, back):
        got = v.op.attrs["value"]
        assert got.dtype == a.dtype and got.shape == a.shape
        np.testing.assert_array_equal(got, a)
    assert print_module(parse_module(text)) == text


def test_location_modes():
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(T, "x")
    site = Loc("/home/u/net.py", 9, 16, ("Net.construct",))
    b = Builder.at_end(fn.body, Loc("/lib/nn.py", 3, 4, ("Dense.construct",), marks=("lib",)).inlined_at(site))
    b.return_(b.op("neg", x))
    assert "loc(net.py:9:16 Net>Dense)" in print_module(m)  # the user view: class names
    assert "loc(/lib/nn.py:3:4 Net.construct>Dense.construct [lib] <- /home/u/net.py:9:16 " \
           "Net.construct)" in print_module(m, locs="full")
    assert "loc(" not in print_module(m, locs="none")


def test_function_attributes_and_host_objects():
    def my_hook():
        pass

    m = Module()
    fn = m.add(Function("grad", attrs={"backward_of": "Net.construct", "order": 2,
                                       "axes": (0, 1), "cb": my_hook, "cb2": my_hook}))
    x = fn.add_arg(T, "x")
    Builder.at_end(fn.body).return_(x)
    text = print_module(m)
    assert ('func @grad(%x: f32[3]) -> f32[3] attributes {axes=[0,1], backward_of="Net.construct", '
            'cb=@my_hook,\n    cb2=@my_hook, order=2} {') in text  # past 100 columns: goes on after a comma
    back = parse_module(text)["grad"]
    assert back.attrs["cb"] == HostRef("my_hook") and back.attrs["axes"] == (0, 1)
    assert print_module(parse_module(text)) == text


def test_multiple_results_regions_and_print_op():
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(T, "x")
    p = fn.add_arg(TensorType(bool_, ()), "p")
    b = Builder.at_end(fn.body)
    a, c = b.if_(p, lambda: (x, b.op("reduce_sum", x)), lambda: (b.op("neg", x), b.op(
        "reduce_sum", x, keep_dims=False)))
    b.return_(a, c)
    text = print_function(fn)
    assert "%0, %1 = if(%p) : (f32[3], f32[]) {" in text and "yield %x, %2" in text
    assert "yield %3, %4" in text
    assert print_op(a.op).splitlines()[0] == "%0, %1 = if(%p) : (f32[3], f32[]) {"
    assert text == str(fn) and print_module(m) == str(m)


def test_types_print_in_their_ir_spelling():
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(TensorType(float16, ()), "x")
    s = fn.add_arg(ScalarType(int64), "s")
    b = Builder.at_end(fn.body)
    t = b.make_tuple(x)
    b.return_(t, s)
    assert print_module(m).splitlines()[0] == "func @f(%x: f16[], %s: i64) -> (f16[],), i64 {"
