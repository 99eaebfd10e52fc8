"""``nn.GraphCell``: a cell that runs a loaded artifact (MindSpore's ``nn.GraphCell``).

``graphcell.load(path)`` returns one; ``nn.GraphCell(graph, params_init=None)`` builds one from the
``ArtifactGraph`` that ``graphcell.aot.read_artifact`` returns, or from a loaded GraphCell:
MindSpore's idiom ``nn.GraphCell(ms.load(path))`` (where ``load`` returns a graph) works as written,
and the new cell shares the loaded one's Parameters. It needs neither the network's
class nor its source: the IR runs through graphcell's executor (``graphcell.graph.executor``, the
reference interpreter today; the numba backend plugs in at the same place).

Its Parameters are the exported ones, by their exported names (``conv1.weight``), holding the
exported values. A training-step artifact (``kind == "train_step"``) updates its mutated
Parameters in place on every call, as the compiled ``TrainOneStepCell`` did.

A call takes the exported inputs, in order (the Tensors of the exported call, nested ones
flattened), as Tensors or numpy arrays of exactly the exported dtypes and shapes.

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> x = ms.Tensor(np.ones((1, 3), np.float32))
    >>> path = ms.export(nn.Dense(3, 2), x, file_name=os.path.join(tempfile.mkdtemp(), "d"))
    >>> cell = ms.load(path)
    >>> isinstance(cell, nn.GraphCell), cell(x).shape
    (True, (1, 2))
    >>> [name for name, _ in cell.parameters_and_names()]
    ['weight', 'bias']
"""
from __future__ import annotations

import numpy as np

from graphcell.nn.cell import Cell
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["GraphCell"]


class GraphCell(Cell):
    """Runs the function of a loaded artifact; see the module docstring.

    ``params_init`` (name -> Tensor or array) replaces exported parameter values; each must have
    the exported dtype and shape.
    """

    def __init__(self, graph, params_init: dict | None = None, **kwargs):
        super().__init__()
        if isinstance(graph, GraphCell):   # nn.GraphCell(ms.load(path)), as in MindSpore
            self._share(graph, params_init)
            return
        if not all(hasattr(graph, a) for a in ("module", "function", "manifest", "weights")):
            raise TypeError("GraphCell: graph must be what graphcell.aot.read_artifact returns "
                            f"(use graphcell.load(path)), got {type(graph).__name__}")
        self.graph = graph
        self.kind = graph.manifest["kind"]
        values = dict(graph.weights)
        values.update(_initial_values(graph, params_init or {}))
        params = []
        for spec in graph.params:
            p = Parameter(Tensor._wrap(values[spec["name"]]), name=spec["name"],
                          requires_grad=spec.get("requires_grad", True))
            self.insert_param_to_cell(spec["name"], p, check_name_contain_dot=False)
            params.append(p)
        self._executable = _executable(graph, tuple(params))
        self._param_list = tuple(params)
        self._input_types = tuple((np.dtype(t["dtype"]), tuple(t["shape"]), t["name"])
                                  for t in graph.inputs)

    def _share(self, loaded: "GraphCell", params_init: dict | None) -> None:
        """Run ``loaded``'s graph on ``loaded``'s Parameters (``params_init`` sets their values,
        as MindSpore's ``params_init`` sets the graph's)."""
        for name, value in _initial_values(loaded.graph, params_init or {}).items():
            dict(loaded.parameters_and_names())[name].set_data(Tensor._wrap(value))
        self.graph, self.kind = loaded.graph, loaded.kind
        for p in loaded._param_list:
            self.insert_param_to_cell(p.name, p, check_name_contain_dot=False)
        self._executable = loaded._executable
        self._param_list = loaded._param_list
        self._input_types = loaded._input_types

    def __call__(self, *inputs):
        return self.construct(*inputs)

    def construct(self, *inputs):
        arrays = self._arrays(inputs)
        return self._executable(arrays, [p._data for p in self._param_list])

    def _arrays(self, inputs: tuple) -> list:
        want = self._input_types
        if len(inputs) != len(want):
            names = ", ".join(f"{n} {d}{list(s)}" for d, s, n in want)
            raise TypeError(f"GraphCell: takes {len(want)} input(s) ({names}), got {len(inputs)}")
        out = []
        for x, (dtype, shape, name) in zip(inputs, want):
            arr = x._data if isinstance(x, Tensor) else np.asarray(x)
            if arr.dtype != dtype or arr.shape != shape:
                raise ValueError(f"GraphCell: input {name!r} must be {dtype}{list(shape)} (as "
                                 f"exported), got {arr.dtype}{list(arr.shape)}")
            out.append(arr)
        return out

    def extend_repr(self) -> str:
        sig = ", ".join(f"{n} {d}{list(s)}" for d, s, n in self._input_types)
        return f"{self.graph.function.name}({sig}), {self.kind}"


def _initial_values(graph, params_init: dict) -> dict:
    specs = {p["name"]: p for p in graph.params}
    out = {}
    for name, value in params_init.items():
        if name not in specs:
            raise KeyError(f"GraphCell: params_init has {name!r}, which is not a parameter of "
                           f"the graph (it has {', '.join(specs)})")
        arr = np.array(value._data if isinstance(value, Tensor) else value)
        spec = specs[name]
        if arr.dtype != np.dtype(spec["dtype"]) or list(arr.shape) != spec["shape"]:
            raise ValueError(f"GraphCell: params_init[{name!r}] is {arr.dtype}{list(arr.shape)}, "
                             f"the parameter is {spec['dtype']}{spec['shape']}")
        out[name] = arr
    return out


def _executable(graph, params: tuple):
    from graphcell.graph.executor import Executable, Program
    by_name = {p.name: p for p in params}
    n_inputs = len(graph.inputs)
    program = Program(graph.module, graph.function, inputs=tuple(range(n_inputs)) + params,
                      params=params, mutated=tuple(by_name[n] for n in graph.mutated),
                      output=graph.output, n_outputs=graph.n_outputs)
    return Executable(program, native=getattr(graph, "native", None))   # load(native=True)
