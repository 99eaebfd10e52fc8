"""The settings and look-ups of ``nn.Cell`` that real MindSpore models call beyond building and
running: compile options (``set_jit_config``), memory and parallel options (``recompute``,
``set_boost``, ``shard``, ``set_comm_fusion``, ...), declared input shapes (``set_inputs``, in ``cell.py``),
and finding cells and parameters by name.

graphcell runs in one process on the CPU, so the parallel and memory options are validated as
MindSpore validates them, recorded, and change nothing: MindSpore's own CPU build ignores them
too (``shard`` returns at once in one process; ``recompute`` only saves memory). Each is a method
of :class:`CellOptions`, a base class of ``nn.Cell``; their state lives in the cell's
``__dict__`` (set on first use), so cells built before any of them was called need nothing.
"""
from __future__ import annotations

import numbers
from collections import OrderedDict

__all__ = ["CellOptions"]

_RECOMPUTE_KEYS = ("mp_comm_recompute", "parallel_optimizer_comm_recompute",
                   "recompute_slice_activation")


def _state(cell, name: str, default):
    """The cell's option ``name``, created with ``default`` on first use."""
    d = cell.__dict__
    if name not in d:
        object.__setattr__(cell, name, default)
    return d[name]


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


class CellOptions:
    """Compile, memory and parallel options of a cell, and look-ups by name (a base of
    ``nn.Cell``; see the module docstring)."""

    # --- compiling ------------------------------------------------------------------------------

    def set_jit_config(self, jit_config) -> None:
        """Set the ``JitConfig`` graph mode compiles this cell with (once; later calls are
        ignored, as MindSpore does, with a warning): its ``jit_level`` overrides the context's
        when the cell is compiled (``'O0'`` runs no optimisation pass). Versions compiled before
        are dropped.

        Example::

            >>> from graphcell import nn, JitConfig
            >>> net = nn.Dense(2, 2)
            >>> net.set_jit_config(JitConfig(jit_level="O1"))
            >>> net.jit_config_dict["jit_level"]
            'O1'
        """
        config = getattr(jit_config, "jit_config_dict", None)
        if not isinstance(config, dict):
            raise TypeError(f"{self.cls_name}.set_jit_config: expected a JitConfig, got "
                            f"{type(jit_config).__name__}")
        if self.jit_config_dict:
            import warnings
            warnings.warn(f"{self.cls_name}.set_jit_config: the jit config can be set only once; "
                          "this setting is ignored", stacklevel=2)
            return
        object.__setattr__(self, "_jit_config_dict", dict(config))
        self.__dict__.pop("_graph_cache", None)  # compile again, with these options

    @property
    def jit_config_dict(self) -> dict:
        """The options given by ``set_jit_config`` (empty until then)."""
        return _state(self, "_jit_config_dict", {})

    # --- memory and parallel options (recorded; one process on the CPU) ---------------------------

    def recompute(self, **kwargs) -> None:
        """Mark the cell for recomputation in the backward pass (MindSpore's memory saving). It
        changes no result, and graphcell does not recompute: the option is recorded
        (``output_recompute`` flags on the sub-cells, as MindSpore sets them).

        Example::

            >>> from graphcell import nn
            >>> net = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU()])
            >>> net.recompute()
        """
        known = ("use_reentrant", "output_recompute", "early_stop", "context_fn") + _RECOMPUTE_KEYS
        for key, value in kwargs.items():
            if key not in known:
                raise ValueError(f"{self.cls_name}.recompute: keyword {key!r} is not recognised; "
                                 f"the keywords are {list(known)}")
            if key in ("mp_comm_recompute", "parallel_optimizer_comm_recompute") and \
                    not isinstance(value, bool):
                raise TypeError(f"{self.cls_name}.recompute: {key!r} must be a bool, got "
                                f"{type(value).__name__}")
        if self.__dict__.get("_has_config_recompute"):
            return  # MindSpore configures a cell (and its sub-cells) once
        output_recompute = bool(kwargs.get("output_recompute", False))
        object.__setattr__(self, "_has_config_recompute", True)
        self.add_flags(output_recompute=output_recompute)
        for _, cell in self.cells_and_names():
            if cell is not self:
                object.__setattr__(cell, "_has_config_recompute", True)
                cell.add_flags(output_recompute=True)

    def set_boost(self, boost_type) -> "CellOptions":
        """MindSpore's boost mode ``'less_bn'`` (training with fewer batch norms), recorded as a
        flag on the cell and its sub-cells; graphcell has no boost algorithms.

        Example::

            >>> from graphcell import nn
            >>> nn.Dense(2, 2).set_boost("less_bn").less_bn
            True
        """
        if boost_type != "less_bn":
            raise ValueError(f"{self.cls_name}.set_boost: 'boost_type' must be 'less_bn', got "
                             f"{boost_type!r}")
        return self.add_flags_recursive(less_bn=True)

    def set_broadcast_flag(self, mode=True) -> "CellOptions":
        """Flag the cell and its sub-cells for parameter broadcast (data parallelism)."""
        return self.add_flags_recursive(broadcast_flag=mode)

    def set_comm_fusion(self, fusion_type, recurse=True) -> "CellOptions":
        """Give the trainable parameters a gradient-communication fusion group (``comm_fusion``,
        a non-negative int), which data-parallel training reads.

        Example::

            >>> from graphcell import nn
            >>> net = nn.Dense(2, 2).set_comm_fusion(3)
            >>> net.weight.comm_fusion
            3
        """
        if not _is_int(fusion_type) or fusion_type < 0:
            raise ValueError(f"{self.cls_name}.set_comm_fusion: 'fusion_type' must be a "
                             f"non-negative int, got {fusion_type!r}")
        for param in self.trainable_params(recurse):
            param.comm_fusion = int(fusion_type)
        return self

    def set_data_parallel(self) -> None:
        """Ask for data-parallel sharding strategies (semi-auto parallel); one process: none."""
        object.__setattr__(self, "_strategy_gen_mode", "data_parallel")

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None) -> None:
        """Sharding strategies for semi-auto parallel training. With one process MindSpore
        returns at once; so does graphcell (the strategies are checked to be tuples).

        Example::

            >>> from graphcell import nn
            >>> nn.Dense(2, 2).shard(((1, 1),))
        """
        for name, value in (("in_strategy", in_strategy), ("out_strategy", out_strategy)):
            if value is not None and not isinstance(value, tuple):
                raise TypeError(f"{self.cls_name}.shard: '{name}' must be a tuple, got "
                                f"{type(value).__name__}")
        if parameter_plan is not None and not isinstance(parameter_plan, dict):
            raise TypeError(f"{self.cls_name}.shard: 'parameter_plan' must be a dict, got "
                            f"{type(parameter_plan).__name__}")

    def offload(self, backward_prefetch="Auto") -> None:
        """Keep activations in host memory (an Ascend option); checked and recorded."""
        if isinstance(backward_prefetch, str):
            if backward_prefetch != "Auto":
                raise ValueError(f"{self.cls_name}.offload: 'backward_prefetch' must be 'Auto' "
                                 f"or a non-negative int, got {backward_prefetch!r}")
        elif not _is_int(backward_prefetch) or backward_prefetch < 0:
            raise ValueError(f"{self.cls_name}.offload: 'backward_prefetch' must be 'Auto' or a "
                             f"non-negative int, got {backward_prefetch!r}")
        object.__setattr__(self, "_offload", backward_prefetch)

    @property
    def pipeline_stage(self) -> int:
        """The pipeline-parallel stage of the cell (0 until set)."""
        return _state(self, "_pipeline_stage", 0)

    @pipeline_stage.setter
    def pipeline_stage(self, value) -> None:
        if not _is_int(value):
            raise TypeError(f"{self.cls_name}: 'pipeline_stage' must be an int, got "
                            f"{type(value).__name__}")
        if value < 0:
            raise ValueError(f"{self.cls_name}: 'pipeline_stage' must be >= 0, got {value}")
        object.__setattr__(self, "_pipeline_stage", int(value))

    def cast_inputs(self, inputs, dst_type) -> None:
        """Deprecated in MindSpore 2.x, where it does nothing; so here."""

    def remove_redundant_parameters(self) -> None:
        """Deprecated in MindSpore 2.x, where it does nothing; so here."""

    # --- names -----------------------------------------------------------------------------------

    def update_cell_type(self, cell_type) -> None:
        """Record the cell's type (``'quant'``, ``'second-order'``...), as ``cell_type``."""
        object.__setattr__(self, "cell_type", cell_type)

    def update_cell_prefix(self) -> None:
        """Set every sub-cell's ``param_prefix`` to its path from this cell.

        Example::

            >>> from graphcell import nn
            >>> net = nn.SequentialCell([nn.ReLU()])
            >>> net.update_cell_prefix(); net[0].param_prefix
            '0'
        """
        for path, cell in self.cells_and_names():
            object.__setattr__(cell, "_param_prefix", path)

    @property
    def param_prefix(self) -> str:
        """The path set by ``update_cell_prefix`` ('' until then)."""
        return self.__dict__.get("_param_prefix", "")

    def get_sub_cell(self, target: str):
        """The sub-cell at the dotted path ``target`` ('' is this cell).

        Example::

            >>> from graphcell import nn
            >>> net = nn.SequentialCell([nn.SequentialCell([nn.ReLU()])])
            >>> net.get_sub_cell("0.0")
            ReLU()
        """
        if not isinstance(target, str):
            raise TypeError(f"{self.cls_name}.get_sub_cell: 'target' must be a str, got "
                            f"{type(target).__name__}")
        cell = self
        for item in target.split(".") if target else ():
            child = cell._cells.get(item) if hasattr(cell, "_cells") else None
            if child is None:
                raise AttributeError(f"{type(cell).__name__} has no sub-cell {item!r} (looking "
                                     f"for {target!r})")
            cell = child
        return cell

    def check_names(self) -> None:
        """Raise ValueError if two parameters share a name.

        Example::

            >>> from graphcell import nn
            >>> nn.Dense(2, 2).check_names()
        """
        seen = {}
        for path, param in self.parameters_and_names():
            if param.name in seen:
                raise ValueError(f"{self.cls_name}: the parameters {seen[param.name]!r} and "
                                 f"{path!r} are both named {param.name!r}; give each a unique "
                                 "name")
            seen[param.name] = path

    def parameters_broadcast_dict(self, recurse=True):
        """``{name: parameter}`` of the parameters data parallelism broadcasts (those not
        ``layerwise_parallel``), or None when there are none."""
        params = OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse)
                             if not getattr(p, "layerwise_parallel", False))
        return params or None
