"""The parts of graph mode that need no frontend: signatures, guards, reads, the executor, logs,
and library code traced on IR values."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.graph.executor import Executable, Program
from graphcell.graph.guards import Guards
from graphcell.graph.log import CacheLog
from graphcell.graph.reads import ReadRecorder, attribute_reads
from graphcell.graph.resolver import GraphResolver
from graphcell.graph.signature import InputError, arg_specs, describe_spec, flatten
from graphcell.graph.traced import GraphTensor, UnknownValueError, traced
from graphcell.tensor import Tensor
from graphcell_ir.frontend.output import OutResult, OutSeq, OutStatic
from graphcell_ir.ir import Builder, Function, Module, TensorType, float32
from graphcell_ir.ops import functional as F
from graphcell_ir.text import parse_module


def t(*shape, dtype=np.float32):
    return Tensor(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


# --- signature -----------------------------------------------------------------------------------

def test_flatten_keys_by_dtype_shape_and_static_values():
    k1, leaves = flatten((t(2, 3), 3, (t(2), None)), True)
    k2, _ = flatten((t(2, 3), 3, (t(2), None)), True)
    assert k1 == k2 and hash(k1) == hash(k2) and len(leaves) == 2
    assert flatten((t(2, 3), 3.0, (t(2), None)), True)[0] != k1   # 3 vs 3.0
    assert flatten((t(2, 3), True, (t(2), None)), True)[0] != k1  # 3 vs True (hash-equal 1)
    assert flatten((t(2, 3), 3, (t(2), None)), False)[0] != k1    # training flag
    assert flatten((t(4, 3), 3, (t(2), None)), True)[0] != k1     # shape
    assert flatten((t(2, 3, dtype=np.int32), 3, (t(2), None)), True)[0] != k1
    assert flatten((t(2, 3), 3, [t(2), None]), True)[0] != k1     # list vs tuple


def test_flatten_rejects_what_graph_mode_cannot_take():
    with pytest.raises(InputError, match="numpy"):
        flatten((np.ones(2),))
    with pytest.raises(InputError, match="object"):
        flatten((object(),))


def test_specs_and_descriptions():
    specs = arg_specs((t(2, 3), 3, (t(2),), [1, 2]))
    assert specs[0] == TensorType(float32, (2, 3)) and specs[1] == 3
    assert [describe_spec(s) for s in specs] == ["f32[2,3]", "3", "(f32[2],)", "[1, 2]"]


# --- reads and guards ----------------------------------------------------------------------------

class Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2.0
        self.unused = 1
        self.fc = nn.Dense(2, 2)
        self.w = ms.Parameter(Tensor([1.0, 2.0]), name="w")


def test_reads_go_through_the_resolver_and_leave_the_class_alone():
    net = Scaled()
    rec = ReadRecorder()
    resolver = GraphResolver(watch=rec.watch, root=net)
    with rec:
        assert resolver.read_attribute(net, "scale") == 2.0
        assert resolver.read_attribute(net, "fc") is net.fc
        resolver.read_attribute(net, "w")
        assert type(net) is Scaled
    assert {"scale", "fc", "w"} <= rec.names(net) and "unused" not in rec.names(net)
    assert rec.objects() == [net]
    resolver.read_attribute(net.fc, "in_channels")   # a cell whose attribute is read is met
    assert rec.objects() == [net, net.fc] and rec.names(net.fc) == {"in_channels"}


class Computed(nn.Cell):
    def __init__(self):
        super().__init__()
        self._factor = 3.0
        self.plain = 1

    @property
    def factor(self):
        return self._factor * self._helper()

    def _helper(self):
        return self.plain


def test_a_property_read_counts_as_what_its_code_reads():
    assert attribute_reads(Computed, "factor") >= {"factor", "_factor", "_helper", "plain"}
    assert attribute_reads(Computed, "__class__") == frozenset()
    net = Computed()
    rec = ReadRecorder()
    GraphResolver(watch=rec.watch, root=net).read_attribute(net, "factor")
    g = _guards(net, rec.names(net))
    assert g.hold()
    net.plain = 2                          # read by the property: the graph is stale
    assert not g.hold() and "Computed.plain" in g.explain()


def test_a_compile_reads_through_the_resolver():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Computed()

        class Outer(nn.Cell):
            def __init__(self):
                super().__init__()
                self.inner = net

            def construct(self, x):
                return x * self.inner.factor
        outer = Outer()
        x = Tensor(np.ones(2, np.float32))
        assert outer(x).asnumpy().tolist() == [3.0, 3.0]
        net.plain = 2
        assert outer(x).asnumpy().tolist() == [6.0, 6.0]   # recompiled: factor's code reads it
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _guards(net, names):
    return Guards([net], {id(net): set(names)}, hooked=[net])


def test_guards_hold_until_a_read_attribute_changes():
    net = Scaled()
    g = _guards(net, {"scale", "fc", "w", "training"})
    assert g.hold()
    net.unused = 5
    assert g.hold()                        # not read: no recompile
    net.scale = 3.0
    assert not g.hold() and g.explain() == "attribute changed: Scaled.scale: 2.0 -> 3.0"


def test_equal_value_reassignment_is_no_change():
    net = Scaled()
    g = _guards(net, {"scale"})
    net.scale = float("2.0")                # an equal float, maybe another object
    assert g.explain() is None
    g.refresh()
    assert g.hold()


@pytest.mark.parametrize("change, reason", [
    (lambda n: setattr(n, "fc", nn.Dense(2, 2)), "sub-cell replaced: Scaled.fc"),
    (lambda n: setattr(n, "w", ms.Parameter(Tensor([1.0]), name="w")), "parameter replaced: Scaled.w"),
    (lambda n: n.set_train(), "training flag changed: Scaled.training False -> True"),
    (lambda n: n.register_forward_hook(lambda c, i, o: o), "forward hooks registered on Scaled"),
    (lambda n: n.register_forward_pre_hook(lambda c, i: i), "forward-pre hooks registered on Scaled"),
    (lambda n: n.register_backward_hook(lambda c, gi, go: gi), "backward hooks registered on Scaled"),
    (lambda n: delattr(n, "scale"), "attribute removed: Scaled.scale"),
])
def test_guard_reasons(change, reason):
    net = Scaled()
    g = _guards(net, {"scale", "fc", "w", "training"})
    change(net)
    assert not g.hold() and g.explain() == reason


def test_removing_a_hook_is_a_change():
    net = Scaled()
    handle = net.register_forward_hook(lambda c, i, o: o)
    g = _guards(net, set())
    handle.remove()
    assert not g.hold() and g.explain() == "forward hooks removed on Scaled"


def test_container_contents_are_guarded():
    cells = nn.CellList([nn.ReLU()])
    g = Guards([cells], {id(cells): {"_cells"}}, hooked=())
    assert g.hold()
    cells.append(nn.Tanh())
    assert not g.hold() and g.explain() == "contents changed: CellList._cells"


# --- the executor --------------------------------------------------------------------------------

_MUTATING = """func @f(%x: f32[3], %b: f32[3] param) -> f32[3], f32[3] {
  %0 = add(%x, %b) : f32[3]
  %1 = assign(%b, %x) : f32[3]
  return %0, %1
}
"""


def test_executor_writes_back_after_the_run():
    m = parse_module(_MUTATING)
    b = ms.Parameter(Tensor([1.0, 2.0, 3.0]), name="b")
    exe = Executable(Program(m, m["f"], (0, b), (b,), (b,), OutSeq((OutResult(0), OutStatic(True)))))
    x = np.array([10.0, 20.0, 30.0], np.float32)
    out, flag = exe([x], [b._data])
    assert out.asnumpy().tolist() == [11.0, 22.0, 33.0] and flag is True
    assert b.asnumpy().tolist() == [10.0, 20.0, 30.0]
    assert b._data is not x and b._data.flags.writeable


def test_executor_leaves_parameters_alone_when_the_run_fails():
    m = parse_module(_MUTATING)
    b = ms.Parameter(Tensor([1.0, 2.0, 3.0]), name="b")
    exe = Executable(Program(m, m["f"], (0, b), (b,), (b,), OutResult(0)))
    with pytest.raises(Exception):
        exe([np.zeros(4, np.float32)], [b._data])   # the wrong shape: the interpreter refuses
    assert b.asnumpy().tolist() == [1.0, 2.0, 3.0]


def test_executor_copies_read_only_outputs():
    m = parse_module("func @f() -> f32[2] {\n  %0 = const() {value=[1.0,2.0]} : f32[2]\n"
                     "  return %0\n}\n")
    out = Executable(Program(m, m["f"], (), (), (), OutResult(0)))([], [])
    out.asnumpy()[0] = 5.0
    again = Executable(Program(m, m["f"], (), (), (), OutResult(0)))([], [])
    assert again.asnumpy().tolist() == [1.0, 2.0]


# --- logs ----------------------------------------------------------------------------------------

def test_cache_log_text():
    log = CacheLog("Net.construct")
    log.compiled("first call", "x f32[2]")
    log.hit()
    log.compiled("new input signature: x f32[2] -> f32[3]", "x f32[3]")
    assert (log.hits, log.misses) == (1, 2)
    assert log.reasons == ["first call", "new input signature: x f32[2] -> f32[3]"]
    assert str(log).splitlines()[0] == "Net.construct: 1 hit, 2 compiles"


# --- library code on IR values -------------------------------------------------------------------

@pytest.fixture
def builder():
    m = Module()
    fn = m.add(Function("f"))
    x = fn.add_arg(TensorType(float32, (2, 3)), "x")
    b = Builder.at_end(fn.body)
    with F.using_emitter(b):
        yield b, x


def test_tensor_methods_emit_ir(builder):
    b, x = builder
    assert traced(Tensor.sum)(x, axis=1).type == TensorType(float32, (2,))
    assert traced(GraphTensor.__add__)(x, 1.0).op.opdef.name == "add"
    assert traced(Tensor.T.fget)(x).type == TensorType(float32, (3, 2))
    assert traced(Tensor.flatten)(x).type == TensorType(float32, (6,))
    assert traced(Tensor.__getitem__)(x, (0, slice(None))).type == TensorType(float32, (3,))


def test_nn_helpers_check_compiled_tensors(builder):
    b, x = builder
    from graphcell.nn.layers.dense import _check_input
    assert traced(_check_input)(nn.Dense(3, 4), x) is None
    with pytest.raises(ValueError, match="in_channels=4"):
        traced(_check_input)(nn.Dense(4, 4), x)


def test_values_are_not_known_while_compiling(builder):
    b, x = builder
    with pytest.raises(UnknownValueError, match="asnumpy"):
        traced(lambda a: a.asnumpy())(x)
    with pytest.raises(UnknownValueError, match="truth value"):
        traced(lambda a: bool(a))(x)
    with pytest.raises(UnknownValueError, match="Primitive"):
        traced(lambda a: ops.Add()(a, a))(x)       # an eager op reached by mistake
