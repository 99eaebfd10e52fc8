"""codegen/release.py: an llvmlite module taken apart after printing is freed by reference
counting alone — its loop's cycles (phi and increment, back edge, block and function) would
otherwise wait for the cyclic collector, which graph mode pauses while it compiles."""
from __future__ import annotations

import gc
import weakref

import pytest

from graphcell_ir.backend.codegen.release import release

ir = pytest.importorskip("llvmlite.ir")


def _module_with_a_loop():
    """A module whose function counts to 10: a phi, its increment, a back edge."""
    i64 = ir.IntType(64)
    m = ir.Module("m")
    f = ir.Function(m, ir.FunctionType(i64, []), "count")
    entry, head, body, done = (f.append_basic_block(n) for n in ("entry", "head", "body", "done"))
    b = ir.IRBuilder(entry)
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(i64)
    i.add_incoming(i64(0), entry)
    b.cbranch(b.icmp_signed("<", i, i64(10)), body, done)
    b.position_at_end(body)
    i.add_incoming(b.add(i, i64(1)), body)
    b.branch(head)
    b.position_at_end(done)
    b.ret(i)
    return m, [weakref.ref(x) for x in (m, f, head, body, i, *f.args)]


@pytest.fixture
def collector_off():
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


def test_a_released_module_is_freed_without_the_collector_and_printed_as_before(collector_off):
    m, refs = _module_with_a_loop()
    text = str(m)
    release(m)
    del m
    assert all(r() is None for r in refs)
    again, _ = _module_with_a_loop()
    assert str(again) == text


def test_an_unreleased_module_waits_for_the_collector(collector_off):
    """The cycles :func:`release` breaks are there (else the test above proves nothing)."""
    m, refs = _module_with_a_loop()
    str(m)
    del m
    assert any(r() is not None for r in refs)
    gc.collect()
    assert all(r() is None for r in refs)

