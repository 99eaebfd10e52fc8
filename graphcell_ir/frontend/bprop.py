"""A cell's custom ``bprop`` in graph mode: two Functions linked by the ``bprop`` attribute.

Where a cell with a ``bprop`` method is called inside something being differentiated (a
``GradCall``, ``grads.py``), its ``construct`` is not inlined: it becomes a Function of its own,
and ``bprop(self, *inputs, out, dout)`` another, which IR autodiff calls in place of
differentiating ``construct`` (``graphcell_ir/autodiff/custom.py``)::

    func @Net.construct(%x: f32[], %y: f32[]) -> f32[] attributes {bprop="Net.bprop"} { ... }
    func @Net.bprop(%x: f32[], %y: f32[], %out: f32[], %dout: f32[]) -> (f32[], f32[]) { ... }

``bprop``'s arguments mirror ``construct``'s (its inputs, then the Parameters either reads), then
one ``out`` and one ``dout`` per result; ``out`` and ``dout`` reach the Python code with the
structure ``construct`` returned (a tensor, or a tuple such as ``Dropout2D``'s ``(output,
mask)``). The Python ``bprop`` returns one gradient per input of ``construct`` (a tuple, or a
bare tensor for one input; ``None`` for no gradient); with ``bprop_params`` (MindSpore's
``internal_params``) it may return ``(input_grads, {parameter: grad})``. Without them the cell's
Parameters get no gradient through the cell, as in PyNative mode.

A gradient with the axes of a broadcast (a ``[3, 2]`` gradient of a ``[2]`` input) is summed
back to the input's shape and one of another dtype is cast to its input's dtype, as MindSpore's
PyNative mode does; a gradient of any other shape, or a wrong number of them, is an error naming
the cell, at the ``def bprop`` line (DESIGN §10.9).

Outside a gradient the cell is inlined as usual: its ``bprop`` is not even compiled.
"""
from __future__ import annotations

from graphcell_ir.frontend import resolve as R
from graphcell_ir.frontend.errors import Diagnostic, FrontendError, Kind, PoisonAbort
from graphcell_ir.frontend.exprs import describe
from graphcell_ir.frontend.grads import Callee, relocate
from graphcell_ir.frontend.output import rebuild
from graphcell_ir.frontend.scope import POISON, Poison, leaves, map_leaves
from graphcell_ir.frontend.source import parse_function
from graphcell_ir.ir.core import BlockArg, Function, Literal, Value
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ir.verify import verify
from graphcell_ir.ops import functional as F

__all__ = ["BpropMixin"]


def insert_arg(fn: Function, index: int, type, name: str | None, param: bool) -> BlockArg:
    """A new argument of ``fn`` at ``index`` (the following ones move up by one)."""
    block = fn.body
    arg = BlockArg(type, block, index, name, param)
    block.args.insert(index, arg)
    for i, a in enumerate(block.args):
        a.index = i
    return arg


class BpropMixin:
    """``call_with_bprop``: a differentiated call of a cell that has a custom ``bprop``."""

    def call_with_bprop(self, rec: R.CellCall, self_obj, inputs: list, kwargs: dict, node):
        cls = type(rec.cell).__name__
        if kwargs:
            self.fail(node, f"{cls} has a custom bprop: graph mode passes its inputs by position "
                            f"only, got keyword argument(s) {', '.join(kwargs)}", Kind.TYPE)
        values = [self.realize_deep(a, node) for a in inputs]
        if any(isinstance(x, Poison) for x in leaves(values)):
            return POISON
        c = rec.construct
        callee = self.compile_callee(
            f"{cls}.construct", values,
            lambda inner: self.inline(c.function, self_obj, c.scope, inner, {}, node, c.library),
            node)
        if callee is None:
            raise PoisonAbort()
        if callee.mutated:
            names = ", ".join(p.name for p in callee.mutated)
            self.fail(node, f"{cls}.construct writes Parameter(s) {names}; a cell with a custom "
                            "bprop cannot write Parameters in graph mode", Kind.UNSUPPORTED)
        bfn = self._compile_bprop(rec, self_obj, callee, node)
        callee.function.attrs["bprop"] = bfn.name
        results = self.emit_call(callee.function, self.call_operands(callee, node), node)
        return rebuild(callee.output, results)

    # -- the bprop Function --
    def _compile_bprop(self, rec: R.CellCall, self_obj, callee: Callee, node) -> Function:
        cls = type(rec.cell).__name__
        construct = callee.function
        n_diags = len(self.diags)
        with self.sub_function(f"{cls}.bprop") as bfn:
            mirror = {}
            for a, source in zip(construct.args, callee.sources):
                mirror[a] = bfn.add_arg(a.type, a.name_hint, param=a.param)
                if isinstance(source, R.Param):
                    self.add_param_slot(source, mirror[a])
            results = list(construct.result_types)
            outs = [bfn.add_arg(t, "out") for t in results]
            douts = [bfn.add_arg(t, "dout") for t in results]
            self.param_arg_factory = lambda p: self._new_bprop_param(p, callee, bfn, mirror)
            inputs = [map_leaves(lambda v: mirror.get(v, v), x) for x in callee.inner]
            b = rec.bprop
            try:
                out = self.inline(b.function, self_obj, b.scope,
                                  [*inputs, rebuild(callee.output, outs),
                                   rebuild(callee.output, douts)], {}, node, b.library)
            except FrontendError as e:
                self.diags.append(e.diagnostic)
                out = None
            except PoisonAbort:
                out = None
            if len(self.diags) > n_diags:
                raise PoisonAbort()
            if self.mutated:
                self._bprop_fail(rec, node, f"{cls}.bprop writes a Parameter; a bprop must only "
                                            "compute gradients", Kind.UNSUPPORTED)
            grads = self._bprop_results(rec, out, callee, mirror, node)
            self.b.loc = self._bprop_loc(rec, node)
            self.b.return_(*grads)
        relocate(bfn, self.loc(node))
        verify(bfn)
        return bfn

    def _new_bprop_param(self, rec: R.Param, callee: Callee, bfn: Function, mirror: dict):
        """``bprop`` reads a Parameter ``construct`` does not: both Functions get it (unused in
        ``construct``), before ``bprop``'s ``out`` arguments."""
        a = callee.function.add_arg(rec.type, rec.name, param=True)
        callee.sources.append(rec)
        mirror[a] = insert_arg(bfn, a.index, rec.type, rec.name, True)
        return mirror[a]

    def _bprop_results(self, rec: R.CellCall, out, callee: Callee, mirror: dict, node) -> list:
        """The Function's results: one per argument of ``construct`` that is not a Parameter (or
        one per argument with ``bprop_params``); ``None`` literals for no gradient."""
        cls = type(rec.cell).__name__
        by_param = {}
        if _is_param_dict_form(rec, out):
            out, table = out
            by_param = self._param_grads(rec, table, callee, mirror, node)
        out = self.realize_deep(out, node)
        grads = list(out) if type(out) in (tuple, list) else [out]
        n = len(callee.inner)
        if len(grads) != n:
            self._bprop_fail(rec, node, f"{cls}.bprop returned {len(grads)} gradient(s), expected "
                                        f"{n} (one per input of {cls}.construct, as a tuple)",
                             Kind.VALUE)
        per_arg: dict = dict(by_param)
        for i, (x, g) in enumerate(zip(callee.inner, grads)):
            self._match(rec, x, g, f"{i}", per_arg, node)
        construct = callee.function
        targets = [a for a, s in zip(construct.args, callee.sources)
                   if rec.bprop_params or not isinstance(s, R.Param)]
        return [per_arg.get(a, Literal(None)) for a in targets]

    def _match(self, rec: R.CellCall, x, g, what: str, per_arg: dict, node) -> None:
        """Check gradient ``g`` against input ``x`` (an argument, a static or a container)."""
        cls = type(rec.cell).__name__
        if isinstance(x, Value):
            if g is None or not isinstance(x.type, TensorType):
                return
            if not isinstance(g, Value) or not isinstance(g.type, TensorType):
                self._bprop_fail(rec, node, f"{cls}.bprop: gradient {what} must be a Tensor (or "
                                            f"None), got {describe(g)}", Kind.TYPE)
            if tuple(g.type.shape) != tuple(x.type.shape):
                if not F.broadcasts_to(x.type.shape, g.type.shape):
                    self._bprop_fail(rec, node, f"{cls}.bprop: gradient {what} has shape "
                                                f"{list(g.type.shape)}, expected "
                                                f"{list(x.type.shape)}", Kind.VALUE)
                # summed back to the input's shape, as MindSpore's PyNative mode does
                self.b.loc = self._bprop_loc(rec, node)
                with F.using_emitter(self.emitter):
                    g = F.sum_to(g, x.type.shape)
            per_arg[x] = g
        elif type(x) in (tuple, list) and g is not None:
            if type(g) not in (tuple, list) or len(g) != len(x):
                self._bprop_fail(rec, node, f"{cls}.bprop: gradient {what} ({describe(x)}) "
                                            f"must be a tuple of {len(x)}, got {describe(g)}",
                                 Kind.VALUE)
            for j, (xj, gj) in enumerate(zip(x, g)):
                self._match(rec, xj, gj, f"{what}[{j}]", per_arg, node)

    def _param_grads(self, rec: R.CellCall, table: dict, callee: Callee, mirror: dict,
                     node) -> dict:
        """``{parameter: grad}`` of the dict form, by ``construct``'s argument."""
        cls = type(rec.cell).__name__
        allowed = {id(p) for p in rec.bprop_params}
        args = {id(s.key): a for a, s in zip(callee.function.args, callee.sources)
                if isinstance(s, R.Param)}
        out = {}
        for key, g in table.items():
            key = self.python_object(key, node)
            p = self.classify(key)
            if not isinstance(p, R.Param) or id(p.key) not in allowed:
                self._bprop_fail(rec, node, f"{cls}.bprop returned a gradient for "
                                            f"{describe(key)}, which is not in internal_params",
                                 Kind.VALUE)
            g = self.realize_deep(g, node)
            a = args.get(id(p.key))
            if a is None:
                self._new_bprop_param(p, callee, self.fn, mirror)
                a = callee.function.args[-1]
            self._match(rec, a, g, f"of Parameter '{p.name}'", out, node)
        return out

    # -- where errors point: the def bprop line --
    def _bprop_loc(self, rec: R.CellCall, node):
        try:
            parsed = parse_function(rec.bprop.function)
        except Exception:  # noqa: BLE001 - it was parsed once already; fall back to the call
            return self.loc(node)
        return parsed.loc(parsed.node, self.frame.scope + (rec.bprop.scope or parsed.name,),
                          self.loc(node), ())

    def _bprop_fail(self, rec: R.CellCall, node, message: str, kind: Kind):
        try:
            parsed = parse_function(rec.bprop.function)
        except Exception:  # noqa: BLE001
            self.fail(node, message, kind)
        loc = self._bprop_loc(rec, node)
        raise FrontendError(Diagnostic(message, loc, kind, parsed.end_col(parsed.node),
                                       parsed.source_line(parsed.node)))


def _is_param_dict_form(rec: R.CellCall, out) -> bool:
    return bool(rec.bprop_params) and type(out) is tuple and len(out) == 2 and \
        type(out[1]) is dict
