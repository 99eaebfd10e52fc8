"""nn.Cell, nn.CellList, nn.SequentialCell: registration, naming, traversal, state, printing.

Names, orders and printed forms were checked against MindSpore 2.10 (CPU); where graphcell does
better on purpose (names of cells added after nesting, slices that rename nothing) the test says so.
"""
import copy
from collections import OrderedDict

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, ParameterTuple, Tensor, nn, ops


class Leaf(nn.Cell):
    def __init__(self, k=1.0, name=None):
        super().__init__()
        self.w = Parameter(Tensor(np.full(2, k), ms.float32), name=name)
        self.b = Parameter(Tensor(np.zeros(2), ms.float32))

    def construct(self, x):
        return x * self.w + self.b


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = Leaf(name="explicit")
        self.p = Parameter(Tensor([1.0]), name="blockp")

    def construct(self, x):
        return self.conv1(x)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layer1 = Block()
        self.head = Leaf(2.0)

    def construct(self, x):
        return self.head(self.layer1(x))


class Wrap(nn.Cell):
    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self.network = network

    def construct(self, x):
        return self.network(x)


def names(cell):
    return [p.name for p in cell.get_parameters()]


# --- registration ------------------------------------------------------------------------------

def test_parameters_and_cells_are_registered_in_definition_order():
    net = Net()
    assert list(net._cells) == ["layer1", "head"] and list(net.layer1._params) == ["p"]
    assert "layer1" not in net.__dict__ and "w" not in net.head.__dict__
    assert net.head.w is net.head._params["w"] and net.layer1 is net._cells["layer1"]


def test_missing_attribute_error():
    with pytest.raises(AttributeError, match="The 'Net' object has no attribute 'nothing'."):
        Net().nothing


def test_assigning_before_init_says_to_call_super_init():
    class Early(nn.Cell):
        def __init__(self):
            self.w = Parameter(Tensor([1.0]))
            super().__init__()
    with pytest.raises(AttributeError, match=r"Early: cannot assign Parameter 'w' before "
                                             r"Cell.__init__\(\) ran; call super\(\).__init__\(\)"):
        Early()


def test_plain_attributes_stay_plain():
    cell = Leaf()
    cell.threshold = 0.1
    cell.items = [Leaf()]            # a list of cells is not registered, as in MindSpore
    assert cell.__dict__["threshold"] == 0.1 and list(cell._cells) == []


def test_assigning_a_tensor_to_a_parameter_sets_its_data():
    cell = Leaf()
    param = cell.w
    cell.w = Tensor([5.0, 6.0])
    assert cell.w is param and param.asnumpy().tolist() == [5.0, 6.0]


@pytest.mark.parametrize("bad", [3, [1, 2], "x"])
def test_assigning_a_non_tensor_to_a_parameter_raises_and_changes_nothing(bad):
    cell = Leaf()
    param = cell.w
    with pytest.raises(TypeError, match=r"Leaf: 'w' is a Parameter; assign a Parameter, a Tensor"):
        cell.w = bad
    assert cell.w is param and param.asnumpy().tolist() == [1.0, 1.0]


def test_assigning_a_non_cell_to_a_sub_cell_raises():
    net = Net()
    with pytest.raises(TypeError, match="Net: 'head' is a sub-cell; assign a Cell or None, not int"):
        net.head = 3
    assert isinstance(net.head, Leaf)


def test_none_clears_and_replacing_works():
    cell = Leaf()
    cell.w = None
    assert cell._params["w"] is None and cell.w is None and names(cell) == ["b"]
    cell.w = Parameter(Tensor([3.0]))
    assert cell.w.name == "w"
    net = Net()
    net.head = None
    assert net.head is None and list(net.name_cells()) == ["layer1"]


def test_none_placeholder_then_parameter():
    class Optional(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bias = None
            self.bias = Parameter(Tensor([0.0]))
    cell = Optional()
    assert names(cell) == ["bias"] and "bias" not in cell.__dict__


def test_delattr_removes_parameters_and_cells():
    net = Net()
    del net.head
    del net.layer1.p
    assert list(net._cells) == ["layer1"] and "p" not in net.layer1._params
    assert not hasattr(net, "head")


def test_primitives_are_recorded():
    cell = Leaf()
    cell.add = ops.Add()
    assert cell._primitives["add"] is cell.add


def test_dir_lists_parameters_and_cells():
    assert {"layer1", "head"} <= set(dir(Net())) and "w" in dir(Leaf())


# --- naming --------------------------------------------------------------------------------------

def test_top_level_names_explicit_kept_unnamed_take_the_attribute():
    assert names(Leaf(name="myw")) == ["myw", "b"]


def test_sub_cell_parameters_are_named_by_path():
    assert names(Block()) == ["blockp", "conv1.w", "conv1.b"]          # 'explicit' is renamed
    assert names(Net()) == ["layer1.p", "layer1.conv1.w", "layer1.conv1.b", "head.w", "head.b"]


def test_auto_prefix_false_parent_keeps_its_childrens_names():
    wrapped = Wrap(Net())
    assert names(wrapped) == ["layer1.p", "layer1.conv1.w", "layer1.conv1.b", "head.w", "head.b"]
    assert [n for n, _ in wrapped.parameters_and_names()][0] == "network.layer1.p"


def test_a_prefixing_parent_above_a_wrapper_renames_through_it():
    class Top(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gw = Wrap(Leaf())
    assert names(Top()) == ["gw.network.w", "gw.network.b"]


def test_children_added_after_nesting_get_the_full_path():
    # MindSpore would name these 'late.w' and 'Parameter#n' -> 'q'; graphcell keeps name == path.
    net = Net()
    net.layer1.late = Leaf()
    net.layer1.q = Parameter(Tensor([1.0]))
    assert [net.layer1.late.w.name, net.layer1.q.name] == ["layer1.late.w", "layer1.q"]
    assert all(param.name == path for path, param in net.parameters_and_names())


def test_parameter_tuple_attributes_register_their_members():
    class TP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.pt = ParameterTuple((Parameter(Tensor([1.0]), name="a"), Parameter(Tensor([1.0]))))
            self.plain = [Parameter(Tensor([1.0]), name="c")]
    cell = TP()
    assert names(cell) == ["a", "Parameter$1"] and type(cell.pt) is ParameterTuple

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.tp = TP()
    assert names(Outer()) == ["tp.a", "tp.Parameter$1"]


def test_parameter_tuple_clash_registers_and_renames_nothing():
    cell = Leaf()
    unnamed = Parameter(Tensor([1.0]))
    clash = Parameter(Tensor([1.0]), name="training")
    with pytest.raises(KeyError, match="ParameterTuple 'pt' has a parameter named 'training'"):
        cell.pt = ParameterTuple((unnamed, clash))
    assert names(cell) == ["w", "b"] and unnamed.name.startswith("Parameter#")
    assert "pt" not in cell.__dict__


def test_shared_parameters_and_cells_are_listed_once():
    leaf = Leaf()

    class Shared(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = leaf
            self.b = leaf
            self.extra = leaf.w
    cell = Shared()
    assert [n for n, _ in cell.parameters_and_names()] == ["extra", "a.b"]
    assert [n for n, _ in cell.cells_and_names()] == ["", "a"]
    assert list(cell.name_cells()) == ["a"]


def test_update_parameters_name():
    net = Net()
    net.update_parameters_name("model.")
    assert names(net)[0] == "model.layer1.p"
    with pytest.raises(TypeError, match="update_parameters_name: prefix must be a str"):
        net.update_parameters_name(3)


# --- insert_* --------------------------------------------------------------------------------------

def test_insert_param_and_child():
    cell = nn.Cell()
    p = Parameter(Tensor([1.0]))
    cell.insert_param_to_cell("x", p)
    named = Parameter(Tensor([1.0]), name="named")
    cell.insert_param_to_cell("y", named)
    child = Leaf()
    cell.insert_child_to_cell("c", child)
    assert (p.name, named.name) == ("x", "named") and cell.x is p and cell.c is child
    assert names(cell) == ["x", "named", "w", "b"]       # insert_child_to_cell renames nothing


@pytest.mark.parametrize("name, param, error, match", [
    ("a.b", Parameter(Tensor([1.0])), KeyError, "param_name 'a.b' must not contain '.'"),
    ("", Parameter(Tensor([1.0])), KeyError, "param_name must be a non-empty str"),
    ("x", Tensor([1.0]), TypeError, "param must be a Parameter or None, got Tensor"),
    ("training", Parameter(Tensor([1.0])), KeyError, "'training' is already an attribute"),
    ("construct", Parameter(Tensor([1.0])), KeyError, "'construct' is already an attribute"),
    ("c", Parameter(Tensor([1.0])), KeyError, "'c' is already an attribute"),
])
def test_insert_param_errors(name, param, error, match):
    cell = nn.Cell()
    cell.insert_child_to_cell("c", Leaf())
    with pytest.raises(error, match=f"Cell.insert_param_to_cell: {match}"):
        cell.insert_param_to_cell(name, param)
    assert list(cell._params) == []


@pytest.mark.parametrize("name, child, error, match", [
    (3, Leaf(), TypeError, "child_name must be a str, got int"),
    ("a.c", Leaf(), KeyError, "child_name must be non-empty and contain no '.'"),
    ("c", 3, TypeError, "child_cell must be a Cell or None, got int"),
    ("w", Leaf(), KeyError, "'w' is already an attribute"),
])
def test_insert_child_errors(name, child, error, match):
    cell = Leaf()
    with pytest.raises(error, match=f"Leaf.insert_child_to_cell: {match}"):
        cell.insert_child_to_cell(name, child)
    assert list(cell._cells) == []


# --- traversal -------------------------------------------------------------------------------------

def test_get_parameters_is_a_generator_and_expand_false_is_local():
    net = Net()
    assert type(net.get_parameters()).__name__ == "generator"
    assert names(net.layer1) == ["layer1.p", "layer1.conv1.w", "layer1.conv1.b"]
    assert [p.name for p in net.layer1.get_parameters(expand=False)] == ["layer1.p"]


def test_parameters_and_names_with_prefix():
    assert [n for n, _ in Leaf().parameters_and_names(name_prefix="m")] == ["m.w", "m.b"]
    assert [n for n, _ in Block().parameters_and_names(expand=False)] == ["p"]


def test_trainable_untrainable_and_dict():
    net = Net()
    net.head.b.requires_grad = False
    assert isinstance(net.trainable_params(), list)
    assert [p.name for p in net.trainable_params()] == ["layer1.p", "layer1.conv1.w",
                                                        "layer1.conv1.b", "head.w"]
    assert [p.name for p in net.untrainable_params()] == ["head.b"]
    assert net.trainable_params(recurse=False) == []
    d = net.parameters_dict()
    assert type(d) is OrderedDict and list(d)[-1] == "head.b" and d["head.w"] is net.head.w


def test_cells_and_names_cells_and_name_cells():
    net = Net()
    assert [n for n, _ in net.cells_and_names()] == ["", "layer1", "layer1.conv1", "head"]
    assert type(net.name_cells()) is OrderedDict and list(net.name_cells()) == ["layer1", "head"]
    assert list(net.cells()) == [net.layer1, net.head]
    assert type(net.cells()).__name__ == "odict_values"


def test_apply_visits_every_cell():
    seen = []
    Net().apply(lambda c: seen.append(c.cls_name))
    assert seen == ["Leaf", "Block", "Leaf", "Net"]


def test_init_parameters_data_maps_each_parameter_to_itself():
    net = Net()
    mapping = net.init_parameters_data()
    assert len(mapping) == 5 and all(k is v for k, v in mapping.items())


# --- state -----------------------------------------------------------------------------------------

def test_training_and_phase():
    net = Net()
    assert (net.training, net.phase) == (False, "train")
    assert net.set_train() is net
    assert net.phase == "train" and all(c.training for _, c in net.cells_and_names())
    net.set_train(False)
    assert net.phase == "predict" and not any(c.training for _, c in net.cells_and_names())
    assert net.layer1.phase == "train"        # MindSpore sets phase on the called cell only
    with pytest.raises(TypeError, match="Net: phase must be a str"):
        net.phase = 1


def test_set_grad_flags_and_cls_name():
    net = Net()
    assert net.requires_grad is False and net.set_grad() is net and net.requires_grad is True
    net.add_flags(sink_mode=True)
    assert net.sink_mode is True and net.get_flags() == {"sink_mode": True}
    assert nn.Cell(flags={"fp": 1}).fp == 1
    assert net.cls_name == "Net"


def test_bprop_debug_and_has_bprop():
    class WithBprop(nn.Cell):
        def construct(self, x):
            return x

        def bprop(self, x, out, dout):
            return (dout,)
    cell = WithBprop()
    assert cell.has_bprop and not Net().has_bprop and cell.bprop_debug is False
    cell.bprop_debug = True
    assert cell.bprop_debug is True
    with pytest.raises(TypeError, match="bprop_debug must be a bool"):
        cell.bprop_debug = 1


# --- calling ---------------------------------------------------------------------------------------

def test_call_runs_construct_with_args_and_kwargs():
    class Add(nn.Cell):
        def construct(self, x, y=1, *, z=0):
            return x + y + z
    assert Add()(1) == 2 and Add()(1, 2, z=3) == 6
    out = Net()(Tensor([1.0, 2.0]))
    assert out.asnumpy().tolist() == [2.0, 4.0]


def test_call_goes_through_the_run_construct_seam():
    calls = []

    class Traced(Leaf):
        def _run_construct(self, args, kwargs):
            calls.append((args, kwargs))
            return super()._run_construct(args, kwargs)
    Traced()(Tensor([1.0, 1.0]))
    assert len(calls) == 1


def test_cell_without_construct():
    with pytest.raises(AttributeError, match="Cell.construct is not defined"):
        nn.Cell()(1)


# --- printing --------------------------------------------------------------------------------------

def test_repr_lists_children_like_mindspore():
    assert repr(Leaf()) == "Leaf()" and str(Leaf()) == "Leaf()"
    assert repr(Net()) == ("Net(\n  (layer1): Block(\n    (conv1): Leaf()\n  )\n"
                           "  (head): Leaf()\n)")


def test_extend_repr():
    class Dense(nn.Cell):
        def extend_repr(self):
            return "in_channels=2, out_channels=3"

    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = Dense()

        def extend_repr(self):
            return "two"
    assert repr(Dense()) == "Dense(in_channels=2, out_channels=3)"
    assert repr(Two()) == "Two(\n  two\n  (d): Dense(in_channels=2, out_channels=3)\n)"


def test_deepcopy_copies_parameters_and_names():
    net = Net()
    other = copy.deepcopy(net)
    assert names(other) == names(net) and other.head.w is not net.head.w
    assert other.head(Tensor([1.0, 1.0])).asnumpy().tolist() == [2.0, 2.0]


# --- CellList --------------------------------------------------------------------------------------

class Holder(nn.Cell):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers


def test_cell_list_basics():
    a, b, c = Leaf(), Leaf(), Leaf()
    cl = nn.CellList([a, b])
    cl.append(c)
    assert len(cl) == 3 and list(cl) == [a, b, c] and cl[0] is a and cl[-1] is c
    assert [n for n, _ in cl.cells_and_names()] == ["", "0", "1", "2"]
    assert names(cl) == ["0.w", "0.b", "1.w", "1.b", "2.w", "2.b"]
    assert bool(nn.CellList()) is False and bool(cl) is True
    assert repr(nn.CellList()) == "CellList()"
    assert repr(nn.CellList([Leaf()])) == "CellList(\n  (0): Leaf()\n)"


def test_cell_list_names_follow_the_holder():
    holder = Holder(nn.CellList([Leaf(), Leaf()]))
    assert names(holder)[:2] == ["layers.0.w", "layers.0.b"]
    holder.layers.append(Leaf())
    assert names(holder)[-2:] == ["layers.2.w", "layers.2.b"]


def test_cell_list_filled_after_assignment():
    # MindSpore names these '0.w', '1.w' (its prefix comes from existing parameters), which
    # collides across two such lists; graphcell uses the list's own prefix.
    class A(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList()
            for _ in range(2):
                self.layers.append(Leaf())
    assert names(A()) == ["layers.0.w", "layers.0.b", "layers.1.w", "layers.1.b"]


def test_cell_list_extend_insert_iadd_setitem_delitem():
    cl = nn.CellList([Leaf(1.0)])
    cl.extend([Leaf(2.0)])
    cl += [Leaf(3.0)]
    first = Leaf(0.0)
    cl.insert(0, first)
    assert [c.w.asnumpy()[0] for c in cl] == [0.0, 1.0, 2.0, 3.0]
    assert names(cl)[::2] == ["0.w", "1.w", "2.w", "3.w"]
    cl[1] = Leaf(9.0)
    assert cl[1].w.name == "1.w" and cl[1].w.asnumpy()[0] == 9.0
    del cl[0]
    assert [c.w.asnumpy()[0] for c in cl] == [9.0, 2.0, 3.0] and names(cl)[::2] == ["0.w", "1.w", "2.w"]
    del cl[1:]
    assert len(cl) == 1 and list(cl._cells) == ["0"]
    cl.insert(1, Leaf())
    cl.insert(-1, Leaf())
    assert len(cl) == 3


def test_cell_list_slice_shares_cells_and_renames_nothing():
    holder = Holder(nn.CellList([Leaf(), Leaf(), Leaf()]))
    part = holder.layers[1:]
    assert type(part) is nn.CellList and len(part) == 2 and part[0] is holder.layers[1]
    assert names(holder)[2] == "layers.1.w"


def test_cell_list_auto_prefix_false():
    leaf = Leaf(name="mine")
    cl = nn.CellList([leaf], auto_prefix=False)
    assert leaf.w.name == "mine"


@pytest.mark.parametrize("action, error, match", [
    (lambda cl: cl.append(3), TypeError, "CellList: the appended item must be a Cell, got int"),
    (lambda cl: cl.extend([Leaf(), 3]), TypeError, "CellList: item 1 must be a Cell, got int"),
    (lambda cl: cl.extend(Leaf()), TypeError, "CellList.extend: expected a list of cells, got Leaf"),
    (lambda cl: cl[5], IndexError, r"CellList: index 5 is out of range \[-2, 2\) for 2 cell"),
    (lambda cl: cl["0"], TypeError, "CellList: an index must be an int or a slice, got str"),
    (lambda cl: cl.__setitem__(slice(0, 1), Leaf()), TypeError, "an index must be an int, got slice"),
    (lambda cl: cl.insert(4, Leaf()), IndexError, r"out of range \[-2, 2\]"),
    (lambda cl: cl.__setitem__(0, "x"), TypeError, "the new item must be a Cell, got str"),
    (lambda cl: cl.__delitem__(2), IndexError, "index 2 is out of range"),
])
def test_cell_list_errors_change_nothing(action, error, match):
    a, b = Leaf(), Leaf()
    cl = nn.CellList([a, b])
    before = names(cl)
    with pytest.raises(error, match=match):
        action(cl)
    assert list(cl) == [a, b] and names(cl) == before


def test_cell_list_construction_errors_and_no_construct():
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        nn.CellList([], prefix=1)
    with pytest.raises(NotImplementedError, match="CellList has no construct"):
        nn.CellList([Leaf()])(1)


def test_cell_list_set_grad_and_set_train_reach_children():
    cl = nn.CellList([Leaf()])
    cl.set_grad()
    cl.set_train()
    assert cl[0].requires_grad and cl[0].training


# --- SequentialCell --------------------------------------------------------------------------------

def test_sequential_runs_cells_in_order():
    seq = nn.SequentialCell([Leaf(2.0), Leaf(3.0)])
    assert seq(Tensor([1.0, 1.0])).asnumpy().tolist() == [6.0, 6.0]
    assert names(seq) == ["0.w", "0.b", "1.w", "1.b"]


def test_sequential_from_ordered_dict_varargs_and_single_cell():
    seq = nn.SequentialCell(OrderedDict([("a", Leaf()), ("b", Leaf())]))
    assert names(seq)[::2] == ["a.w", "b.w"]
    assert repr(seq) == "SequentialCell(\n  (a): Leaf()\n  (b): Leaf()\n)"
    assert len(nn.SequentialCell(Leaf(), Leaf())) == 2
    assert len(nn.SequentialCell(Leaf())) == 1 and repr(nn.SequentialCell()) == "SequentialCell()"


def test_sequential_indexing_append_insert_delete():
    a, b = Leaf(1.0), Leaf(2.0)
    seq = nn.SequentialCell([a, b])
    assert seq[0] is a and seq[-1] is b and seq[np.int64(1)] is b and seq.cell_list == [a, b]
    part = seq[0:1]
    assert type(part) is nn.SequentialCell and list(part._cells) == ["0"] and part[0] is a
    c = Leaf(3.0)
    seq.append(c)
    assert c.w.name == "2.w"
    seq.insert(0, Leaf(0.5))
    assert names(seq)[::2] == ["0.w", "1.w", "2.w", "3.w"]
    assert seq(Tensor([1.0, 1.0])).asnumpy().tolist() == [3.0, 3.0]
    del seq[0]
    assert seq.cell_list == [a, b, c] and names(seq)[::2] == ["0.w", "1.w", "2.w"]


def test_sequential_delete_keeps_ordered_dict_names():
    seq = nn.SequentialCell(OrderedDict([("a", Leaf()), ("b", Leaf())]))
    del seq[0]
    assert list(seq._cells) == ["b"] and seq[0].w.name == "b.w"


def test_sequential_nested_in_a_cell():
    holder = Holder(nn.SequentialCell([Leaf(), Leaf()]))
    assert names(holder)[::2] == ["layers.0.w", "layers.1.w"]


@pytest.mark.parametrize("args, match", [
    ((3,), "SequentialCell: expected a list or OrderedDict of cells, or cells as arguments; got int"),
    (([Leaf(), "x"],), "SequentialCell: each item must be a Cell, got str"),
    ((OrderedDict([("a", 1)]),), "SequentialCell: entry 'a' must be a Cell, got int"),
    ((Leaf(), 2), "got int"),
])
def test_sequential_construction_errors(args, match):
    with pytest.raises(TypeError, match=match):
        nn.SequentialCell(*args)
