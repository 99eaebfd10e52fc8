"""``nn.Cell``: the building block of networks.

A Cell registers the Parameters and sub-cells assigned to its attributes, in definition order,
and names the parameters by attribute path (``layer1.conv1.weight``). Calling a cell runs its
``construct``.

Naming rules (checked against MindSpore 2.x):

- A Parameter assigned to a cell keeps an explicit name; an unnamed one (``Parameter#<n>``) takes
  its attribute name.
- Assigning a sub-cell to a cell renames every parameter of the sub-cell to ``<attr>.<path>``
  (its path inside the sub-cell), explicit names included; nesting deeper renames again, so names
  end up as the full path from the outermost cell. A parent created with ``auto_prefix=False``
  (a wrapper such as ``GradWrap`` or ``WithLossCell``) leaves its children's names unchanged.
- Where MindSpore loses the outer part of the path (a child assigned to, or appended to a
  ``CellList`` of, a cell that is already nested; a ``CellList`` filled after it was assigned),
  graphcell uses the cell's current prefix, so the name always equals the path.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn, ops, Parameter, Tensor
    >>> class Network(nn.Cell):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = Parameter(Tensor(np.ones((5, 3)), ms.float32), name='w')
    ...     def construct(self, x):
    ...         return ops.matmul(x, self.w)
    >>> class Outer(nn.Cell):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.net = Network()
    >>> [p.name for p in Outer().get_parameters()]
    ['net.w']
"""
from __future__ import annotations

from collections import OrderedDict

from graphcell.context import GRAPH_MODE
from graphcell.nn._cell_options import CellOptions
from graphcell.nn._cell_path import running
from graphcell.context import _values as _context_values
from graphcell.parameter import Parameter, ParameterTuple, is_generated_name
from graphcell.runtime import dispatch, graph_mode
from graphcell.runtime.hooks import CellHooks
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32

__all__ = ["Cell"]


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return "\n".join([lines[0]] + [" " * spaces + line for line in lines[1:]])


class Cell(CellHooks, CellOptions):
    """Base class of every network and layer; subclasses define ``construct``.

    ``Cell(auto_prefix=True, flags=None)``: ``auto_prefix=False`` keeps the parameter names of
    the children (for wrappers); ``flags`` are added with ``add_flags``.

    Example::

        >>> from graphcell import nn, ops
        >>> class Threshold(nn.Cell):
        ...     def __init__(self, threshold, value):
        ...         super().__init__()
        ...         self.threshold, self.value = threshold, value
        ...     def construct(self, inputs):
        ...         cond = ops.gt(inputs, self.threshold)
        ...         value = ops.fill(inputs.dtype, inputs.shape, self.value)
        ...         return ops.select(cond, inputs, value)
        >>> Threshold(0.1, 20)
        Threshold()
    """

    def __init__(self, auto_prefix=True, flags=None):
        init = object.__setattr__
        init(self, "_params", OrderedDict())
        init(self, "_cells", OrderedDict())
        init(self, "_primitives", OrderedDict())
        init(self, "_auto_prefix", auto_prefix)
        init(self, "_name_prefix", "")       # the prefix this cell's parameter names carry
        init(self, "_param_tuple_ids", 1)    # numbers unnamed members of ParameterTuples
        init(self, "training", False)
        init(self, "requires_grad", False)
        init(self, "_phase", "train")
        init(self, "_bprop_debug", False)
        init(self, "has_bprop", hasattr(self, "bprop"))
        # Hook tables, filled by register_*_hook ({handle id: fn}, in registration order).
        init(self, "_forward_pre_hook", OrderedDict())
        init(self, "_forward_hook", OrderedDict())
        init(self, "_backward_pre_hook", OrderedDict())
        init(self, "_backward_hook", OrderedDict())
        init(self, "_mixed_precision", None)  # the dtype of to_float, or None
        init(self, "_mp_running", 0)          # > 0 while it runs with that precision
        if flags:
            self.add_flags(**flags)

    # --- calling -----------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        """Run the cell on its inputs: ``construct(*args, **kwargs)``."""
        return self._run_construct(args, kwargs)

    def _run_construct(self, args: tuple, kwargs: dict):
        # THE SEAM. In GRAPH_MODE the call is compiled and run (graphcell/graph/bridge.py, reached
        # through runtime/graph_mode.py), except
        # while a PyNative gradient call is recording: its tape must see this cell's ops (in
        # GRAPH_MODE, ms.grad itself compiles the gradient, so that only happens for PyNative
        # grads of a cell run in GRAPH_MODE). PyNative hooks and a custom bprop wrap construct
        # (runtime/hooks.py: forward-pre -> input boundary -> construct -> forward -> output
        # boundary, DESIGN §9); a cell with neither runs construct directly.
        if _context_values["mode"] == GRAPH_MODE and dispatch.recorder is None:
            return _graph_call(self, args, kwargs)
        with running(self):   # an error leaving construct names this cell (nn/_cell_path.py)
            if self._mixed_precision is not None:
                return self._run_in_precision(args, kwargs)
            if self._has_hooks_or_bprop():
                return self._call_with_hooks(args, kwargs, self.construct)
            return self.construct(*args, **kwargs)

    def _run_in_precision(self, args: tuple, kwargs: dict):
        """PyNative run of a cell given a precision by ``to_float``: its float inputs and the
        trainable Parameters it reads are cast (``nn/_mixed_precision.py``)."""
        from graphcell.nn._mixed_precision import cast_floats
        dtype = self._mixed_precision
        args = cast_floats(args, dtype)
        kwargs = dict(zip(kwargs, cast_floats(tuple(kwargs.values()), dtype)))
        d = self.__dict__
        d["_mp_running"] += 1
        try:
            if self._has_hooks_or_bprop():
                return self._call_with_hooks(args, kwargs, self.construct)
            return self.construct(*args, **kwargs)
        finally:
            d["_mp_running"] -= 1

    def compile(self, *inputs, **kwargs):
        """Compile ``construct`` for these inputs (graph mode) without running it; returns the
        ``Lowered`` IR, whose ``as_text()`` prints it. A later call with inputs of the same
        signature runs the compiled function without compiling again.

        Example::

            >>> import numpy as np
            >>> import graphcell as ms
            >>> from graphcell import nn
            >>> ir = nn.ReLU().compile(ms.Tensor(np.ones((2, 3), np.float32)))
            >>> print(ir.as_text(locs="none"))
            func @ReLU.construct(%input: f32[2,3]) -> f32[2,3] {
              %0 = relu(%input) : f32[2,3]
              return %0
            }
        """
        return _graph_bridge().compile_cell(self, inputs, kwargs)

    def set_inputs(self, *inputs, **kwargs) -> None:
        """Declare the inputs' dtypes and shapes, dimensions unknown as ``None``
        (``Tensor(shape=[None, 3], dtype=ms.float32)``), MindSpore's way to compile once for
        dynamic shapes. graphcell specialises each compiled version on the concrete shapes it is
        called with (the compile cache key), so each new shape compiles once; what the
        declaration adds is the check: a graph-mode call whose inputs do not fit it (another
        rank, dtype or a fixed dimension) is an error, as in MindSpore.

        Example::

            >>> import graphcell as ms
            >>> from graphcell import nn
            >>> net = nn.ReLU()
            >>> net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32))
            >>> net.get_inputs()
            (Tensor(shape=[-1, 3], dtype=Float32, value= <unknown>),)

        MindSpore also takes the inputs by name (``set_inputs(x=...)``); graphcell records them
        and checks the positional form only.
        """
        if inputs and kwargs:
            raise ValueError(f"{self.cls_name}.set_inputs: give the inputs by position or by "
                             f"name, not both (got {len(inputs)} and {sorted(kwargs)})")
        object.__setattr__(self, "_declared_inputs", dict(kwargs) if kwargs else tuple(inputs))

    def get_inputs(self):
        """The inputs given to :meth:`set_inputs` (None when there were none)."""
        return self.__dict__.get("_declared_inputs")

    def construct(self, *args, **kwargs):
        """The computation of the cell; every subclass defines it."""
        raise AttributeError(f"{self.cls_name}.construct is not defined: a Cell subclass must "
                             "define construct(self, ...) to be called")

    # --- attribute registration --------------------------------------------------------------

    def __setattr__(self, name, value):
        if isinstance(value, (Parameter, ParameterTuple, Cell)) and "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: cannot assign {type(value).__name__} "
                                 f"'{name}' before Cell.__init__() ran; call super().__init__() "
                                 f"first in {type(self).__name__}.__init__")
        if isinstance(value, Parameter):
            self.__dict__.pop(name, None)
            self.insert_param_to_cell(name, value)
        elif isinstance(value, ParameterTuple):
            self._set_parameter_tuple(name, value)
        elif isinstance(value, Cell):
            self._set_cell(name, value)
        else:
            self._set_plain(name, value)

    def _set_cell(self, name: str, cell: "Cell") -> None:
        self.__dict__.pop(name, None)
        self.insert_child_to_cell(name, cell)
        if self._auto_prefix:
            cell.update_parameters_name(f"{self._name_prefix}{name}.")

    def _set_parameter_tuple(self, name: str, params: ParameterTuple) -> None:
        """Register each member under its own name (MindSpore's rule), then keep the tuple.

        Unnamed members are called ``Parameter$1``, ``Parameter$2``, ... All keys are checked
        before anything is registered or renamed, so a failure changes nothing.
        """
        members = list(dict.fromkeys(params))  # distinct members, in order
        keys, next_id = [], self._param_tuple_ids
        for param in members:
            key = param.name
            if is_generated_name(key):
                key, next_id = f"Parameter${next_id}", next_id + 1
            if key not in self._params and _name_taken(self, key):
                raise KeyError(f"{self.cls_name}: ParameterTuple '{name}' has a parameter named "
                               f"'{key}', which is already an attribute of {self.cls_name}")
            keys.append(key)
        object.__setattr__(self, "_param_tuple_ids", next_id)
        for key, param in zip(keys, members):
            self.insert_param_to_cell(key, param, check_name_contain_dot=False)
        object.__setattr__(self, name, params)

    def _set_plain(self, name: str, value) -> None:
        """A non-Parameter value; it may only replace a parameter or sub-cell in restricted ways."""
        params, cells = self.__dict__.get("_params", {}), self.__dict__.get("_cells", {})
        if name in params:
            if isinstance(value, Tensor):
                params[name].set_data(value)  # net.w = Tensor(...) updates the parameter
            elif value is None:
                params[name] = None
            else:
                raise TypeError(f"{self.cls_name}: '{name}' is a Parameter; assign a Parameter, a "
                                f"Tensor (sets its data) or None, not {type(value).__name__}")
        elif name in cells:
            if value is not None:
                raise TypeError(f"{self.cls_name}: '{name}' is a sub-cell; assign a Cell or None, "
                                f"not {type(value).__name__}")
            cells[name] = None
        else:
            primitives = self.__dict__.get("_primitives")
            if primitives is not None and _is_primitive(value):
                primitives[name] = value  # the graph-mode resolver finds operator objects here
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # Only called when normal lookup fails: parameters and sub-cells live in their tables.
        d = self.__dict__
        for table in ("_params", "_cells"):
            if table in d and name in d[table]:
                value = d[table][name]
                if table == "_params" and d.get("_mp_running") and value is not None:
                    from graphcell.nn._mixed_precision import param_in_precision
                    return param_in_precision(value, d["_mixed_precision"])
                return value
        raise AttributeError(f"The '{type(self).__name__}' object has no attribute '{name}'.")

    def __delattr__(self, name):
        for table in ("_params", "_cells"):
            entries = self.__dict__.get(table, {})
            if name in entries:
                del entries[name]
                return
        self.__dict__.get("_primitives", {}).pop(name, None)
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._params) | set(self._cells))

    def __bool__(self) -> bool:
        return True

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True) -> None:
        """Register ``param`` (a Parameter or None) as ``param_name``.

        An unnamed parameter takes ``param_name`` (after the cell's prefix).

        Example::

            >>> from graphcell import nn, Parameter, Tensor
            >>> cell = nn.Cell()
            >>> cell.insert_param_to_cell("bias", Parameter(Tensor([1.0])))
            >>> cell.bias.name
            'bias'
        """
        where = f"{self.cls_name}.insert_param_to_cell"
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"{where}: param_name must be a non-empty str, got {param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"{where}: param_name {param_name!r} must not contain '.'")
        if "_params" not in self.__dict__:
            raise AttributeError(f"{where}: call Cell.__init__() first")
        if param_name not in self._params and _name_taken(self, param_name):
            raise KeyError(f"{where}: '{param_name}' is already an attribute of {self.cls_name}; "
                           "a parameter cannot replace it")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"{where}: param must be a Parameter or None, got "
                            f"{type(param).__name__}")
        if param is not None and is_generated_name(param.name):
            param.name = self._name_prefix + param_name
        self._params[param_name] = param

    def insert_child_to_cell(self, child_name, child_cell) -> None:
        """Register ``child_cell`` (a Cell or None) as ``child_name``; names are not changed.

        Example::

            >>> from graphcell import nn
            >>> net = nn.Cell()
            >>> net.insert_child_to_cell("child", nn.Cell())
            >>> list(net.name_cells())
            ['child']
        """
        where = f"{self.cls_name}.insert_child_to_cell"
        if not isinstance(child_name, str):
            raise TypeError(f"{where}: child_name must be a str, got {type(child_name).__name__}")
        if not child_name or "." in child_name:
            raise KeyError(f"{where}: child_name must be non-empty and contain no '.', got "
                           f"{child_name!r}")
        if child_name not in self._cells and _name_taken(self, child_name):
            raise KeyError(f"{where}: '{child_name}' is already an attribute of {self.cls_name}; "
                           "a sub-cell cannot replace it")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"{where}: child_cell must be a Cell or None, got "
                            f"{type(child_cell).__name__}")
        self._cells[child_name] = child_cell

    def update_parameters_name(self, prefix="", recurse=True) -> None:
        """Rename every parameter to ``prefix + <its path in this cell>``.

        Example::

            >>> from graphcell import nn, Parameter
            >>> cell = nn.Cell(); cell.w = Parameter(1.0)
            >>> cell.update_parameters_name("block."); cell.w.name
            'block.w'
        """
        if not isinstance(prefix, str):
            raise TypeError(f"{self.cls_name}.update_parameters_name: prefix must be a str, got "
                            f"{type(prefix).__name__}")
        for path, param in self.parameters_and_names(expand=recurse):
            param.name = prefix + path
        cells = self.cells_and_names() if recurse else [("", self)]
        for path, cell in cells:
            object.__setattr__(cell, "_name_prefix", f"{prefix}{path}." if path else prefix)

    # --- traversal ---------------------------------------------------------------------------

    def cells_and_names(self, cells=None, name_prefix=""):
        """Yield ``(path, cell)`` for this cell and every sub-cell, each cell once.

        Example::

            >>> from graphcell import nn
            >>> net = nn.SequentialCell([nn.Cell()])
            >>> [name for name, _ in net.cells_and_names()]
            ['', '0']
        """
        seen = cells if cells is not None else set()
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is not None:
                yield from cell.cells_and_names(seen, f"{name_prefix}.{name}" if name_prefix else name)

    def parameters_and_names(self, name_prefix="", expand=True):
        """Yield ``(path, parameter)`` in definition order, each parameter once.

        ``expand=False`` yields only this cell's own parameters.

        Example::

            >>> from graphcell import nn, Parameter
            >>> cell = nn.Cell(); cell.w = Parameter(1.0)
            >>> [name for name, _ in cell.parameters_and_names()]
            ['w']
        """
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        seen = set()
        for cell_name, cell in cells:
            for par_name, param in cell._params.items():
                if param is not None and id(param) not in seen:
                    seen.add(id(param))
                    yield (f"{cell_name}.{par_name}" if cell_name else par_name), param

    def get_parameters(self, expand=True):
        """A generator over the parameters (``expand=False``: this cell's own only).

        Example::

            >>> from graphcell import nn
            >>> type(nn.Cell().get_parameters()).__name__
            'generator'
        """
        for _, param in self.parameters_and_names(expand=expand):
            yield param

    def trainable_params(self, recurse=True) -> list:
        """The parameters with ``requires_grad=True``, as a list (what optimizers take)."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True) -> list:
        """The parameters with ``requires_grad=False``, as a list."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True) -> OrderedDict:
        """An OrderedDict ``{parameter.name: parameter}``."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def name_cells(self) -> OrderedDict:
        """The direct sub-cells as an OrderedDict ``{attribute name: cell}``, each cell once."""
        out, seen = OrderedDict(), set()
        for name, cell in self._cells.items():
            if cell is not None and id(cell) not in seen:
                seen.add(id(cell))
                out[name] = cell
        return out

    def cells(self):
        """The direct sub-cells (a view of ``name_cells().values()``)."""
        return self.name_cells().values()

    def apply(self, fn) -> "Cell":
        """Call ``fn(cell)`` on every sub-cell, then on this cell; returns this cell."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    def init_parameters_data(self, auto_parallel_mode=False) -> dict:
        """Initialise every parameter; returns ``{old: new}`` (the same objects in graphcell,
        whose parameters are initialised when they are made)."""
        return {p: p.init_data() for p in self.get_parameters()}

    # --- state -------------------------------------------------------------------------------

    def set_train(self, mode=True) -> "Cell":
        """Training (``True``) or inference mode for this cell and all sub-cells.

        Sets ``training`` recursively and this cell's ``phase`` to ``'train'`` / ``'predict'``.

        Example::

            >>> from graphcell import nn
            >>> nn.Cell().set_train(False).phase
            'predict'
        """
        object.__setattr__(self, "_phase", "train" if mode else "predict")
        return self.add_flags_recursive(training=bool(mode))

    def set_grad(self, requires_grad=True) -> "Cell":
        """Mark the cell as one whose gradients will be taken (PyNative builds the tape)."""
        object.__setattr__(self, "requires_grad", requires_grad)
        return self

    def add_flags(self, **flags) -> "Cell":
        """Set attributes from keyword flags (``add_flags(training=True)``), remembering them.
        The flags ``fp16``/``fp32`` set the cell's precision (see ``to_float``)."""
        self.__dict__.setdefault("_func_graph_flags", {}).update(flags)
        self.__dict__.update(flags)
        if flags.get("fp16"):
            object.__setattr__(self, "_mixed_precision", float16)
        elif flags.get("fp32"):
            object.__setattr__(self, "_mixed_precision", float32)
        return self

    def to_float(self, dst_type) -> "Cell":
        """Run this cell and its sub-cells in ``dst_type`` (``float16`` or ``float32``): their
        floating-point inputs, and the trainable Parameters they read, are cast to it (in both
        modes). Returns the cell. A later call on a sub-cell overrides it for that sub-cell.

        Example::

            >>> import numpy as np
            >>> import graphcell as ms
            >>> from graphcell import nn
            >>> net = nn.Dense(3, 2).to_float(ms.float16)
            >>> net(ms.Tensor(np.ones((1, 3), np.float32))).dtype, net.weight.dtype
            (Float16, Float32)
        """
        if dst_type not in (float16, float32):
            raise ValueError(f"{self.cls_name}.to_float: 'dst_type' must be float16 or float32 "
                             f"(graphcell has no bfloat16), got {dst_type!r}")
        return self.add_flags_recursive(fp16=dst_type == float16, fp32=dst_type == float32,
                                        bf16=False)

    def add_flags_recursive(self, **flags) -> "Cell":
        """``add_flags`` on this cell and every sub-cell."""
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        """The flags set with ``add_flags``."""
        return self.__dict__.setdefault("_func_graph_flags", {})

    @property
    def phase(self) -> str:
        """``'train'`` or ``'predict'``, as set by ``set_train`` (``'train'`` at first)."""
        return self._phase

    @phase.setter
    def phase(self, value) -> None:
        if not isinstance(value, str):
            raise TypeError(f"{self.cls_name}: phase must be a str, got {type(value).__name__}")
        object.__setattr__(self, "_phase", value)

    @property
    def bprop_debug(self) -> bool:
        """Run a custom ``bprop`` as Python (PyNative always does)."""
        return self._bprop_debug

    @bprop_debug.setter
    def bprop_debug(self, value) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"{self.cls_name}: bprop_debug must be a bool, got "
                            f"{type(value).__name__}")
        object.__setattr__(self, "_bprop_debug", value)

    @property
    def cls_name(self) -> str:
        """The class name of the cell."""
        return type(self).__name__

    # --- printing ----------------------------------------------------------------------------

    def extend_repr(self) -> str:
        """Extra text inside the parentheses of ``repr`` (layers override it)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extend_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): {_addindent(repr(cell), 2)}"
                       for key, cell in self._cells.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{type(self).__name__}({body})"

    def __str__(self) -> str:
        return self.__repr__()


def _graph_bridge():
    """graphcell.graph.bridge (``runtime/graph_mode.py``: graph mode builds on this module)."""
    return graph_mode.graph().bridge


def _graph_call(cell: Cell, args: tuple, kwargs: dict):
    return graph_mode.graph().bridge.call_cell(cell, args, kwargs)


def _name_taken(cell: Cell, name: str) -> bool:
    """True if ``name`` is an attribute, parameter or sub-cell (without running properties)."""
    return (name in cell.__dict__ or name in cell._params or name in cell._cells
            or any(name in vars(k) for k in type(cell).__mro__))


def _is_primitive(value) -> bool:
    from graphcell.ops.primitive import Primitive
    return isinstance(value, Primitive)
