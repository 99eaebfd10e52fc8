"""Source locations: inlined-call chains, marks, the three printing modes, and round trips."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphcell_ir.ir import GRAD, LIB, UNKNOWN, Builder, Function, Loc, Module, TensorType, float32
from graphcell_ir.ir.loc import format_loc
from graphcell_ir.text import parse_module, print_module

SITE = Loc("/home/u/net.py", 9, 16, ("Net.construct",))
DENSE = Loc("/site-packages/graphcell/nn/basic.py", 120, 8, ("Dense.construct",), marks=(LIB,))


def test_inlining_prefixes_the_scope_and_chains_the_call_site():
    inner = DENSE.inlined_at(SITE)
    assert inner.scope == ("Net.construct", "Dense.construct")
    assert inner.caller == SITE and [f.line for f in inner.frames()] == [120, 9]
    outer = Loc("main.py", 2, 0, ("main",))
    twice = inner.inlined_at(outer)
    assert twice.scope == ("main", "Net.construct", "Dense.construct")
    assert [f.scope for f in twice.frames()] == [twice.scope, ("main", "Net.construct"), ("main",)]
    assert UNKNOWN.inlined_at(SITE) == SITE


def test_user_mode_shows_the_users_frame_and_the_whole_scope_chain():
    inner = DENSE.inlined_at(SITE)
    assert inner.user_frame() is inner.caller
    assert format_loc(inner) == "net.py:9:16 Net>Dense"   # a cell's construct by its class
    assert format_loc(DENSE) == "basic.py:120:8 Dense"  # all frames are library code
    assert format_loc(inner.with_mark(GRAD)) == "net.py:9:16 Net>Dense [grad]"


def test_user_mode_names_a_method_of_the_cell_before_it_by_its_name():
    loc = Loc("loss.py", 5, 1, ("Net.construct", "Loss.construct", "Loss.get_loss", "helper"))
    assert format_loc(loc) == "loss.py:5:1 Net>Loss>.get_loss>helper"
    again = Loc("loss.py", 5, 1, ("Net", "Loss", ".get_loss", "helper"))  # as parsed back
    assert format_loc(again) == format_loc(loc)


def test_full_mode_shows_every_frame():
    inner = DENSE.inlined_at(SITE).with_mark(GRAD)
    assert format_loc(inner, "full") == (
        "/site-packages/graphcell/nn/basic.py:120:8 Net.construct>Dense.construct [lib,grad] <- "
        "/home/u/net.py:9:16 Net.construct")


def test_odd_names_are_quoted():
    loc = Loc("my dir/a:b.py", 1, 2, ("<lambda>", "f"))
    assert format_loc(loc, "full") == '"my dir/a:b.py":1:2 "<lambda>">f'


def test_unknown_is_not_known_and_is_not_printed():
    assert not UNKNOWN.known and not Loc("", 0).known and Loc("", 0, 1).known and SITE.known
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(TensorType(float32, (2,)), "x")
    b = Builder.at_end(fn.body)
    b.return_(b.op("neg", x))
    assert "loc(" not in print_module(m)


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)


@st.composite
def locs(draw, depth=0):
    caller = draw(locs(depth + 1)) if depth < 2 and draw(st.booleans()) else None
    return Loc(draw(names), draw(st.integers(0, 10 ** 6)), draw(st.integers(0, 500)),
               tuple(draw(st.lists(names.filter(bool), max_size=3))), caller,
               tuple(draw(st.lists(names.filter(bool), max_size=2))))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(locs())
def test_any_location_round_trips_through_text_in_full_mode(loc):
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(TensorType(float32, (2,)), "x")
    b = Builder.at_end(fn.body, loc)
    b.return_(b.op("neg", x))
    text = print_module(m, locs="full")
    back = parse_module(text)
    assert next(iter(back["f"].body)).loc == loc
    user = print_module(m)
    assert print_module(parse_module(user)) == user
