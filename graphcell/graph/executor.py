"""Running a compiled function: arrays in, Tensors out, mutated Parameters written back.

:class:`Program` is what compiling produced, in graphcell's terms: the IR function, which of its
arguments are the call's tensors and which are Parameters, which extra results are the new values
of mutated Parameters (DESIGN §4), and the Python structure of what ``construct`` returns.
:class:`Executable` runs it. The backend behind it is the reference interpreter today; the numba
backend replaces ``_backend`` without changing anything a caller sees.

The order of a call (DESIGN §2): read the Parameters' current arrays, run, and only when the run
succeeded write the mutated Parameters back, so a failed run leaves every Parameter as it was.
A value that must not be shared is copied on the way out: read-only arrays (constants of the
compiled function) and, for a written-back Parameter, any array the call received. The native
step may update a mutated Parameter's array in place instead (``_donated``), only where nothing
after the first such write can fail (``graphcell_ir/backend/step/donate.py``).

Example::

    >>> import numpy as np
    >>> from graphcell_ir.text import parse_module
    >>> from graphcell_ir.frontend.output import OutResult
    >>> m = parse_module('''func @f(%x: f32[2]) -> f32[2] {
    ...   %0 = neg(%x) : f32[2]
    ...   return %0
    ... }
    ... ''')
    >>> exe = Executable(Program(m, m["f"], inputs=(0,), params=(), mutated=(), output=OutResult(0)))
    >>> exe([np.array([1.0, 2.0], np.float32)], [])
    Tensor(shape=[2], dtype=Float32, value= [-1.00000000e+00, -2.00000000e+00])
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from graphcell.graph.errors import without_frames
from graphcell.graph.gc_pause import collector_paused
from graphcell.tensor import Tensor
from graphcell_ir.errors import InterpError, OpError
from graphcell import context
from graphcell_ir import switches
from graphcell_ir.backend import report
from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.frontend.output import OutDict, OutResult, OutStatic
from graphcell_ir.ir.core import Function, Module
from graphcell_ir.ir.types import ObjectType

__all__ = ["Program", "Executable"]

# --- the output structure ------------------------------------------------------------------------

def _rebuild(spec, types=()) -> Callable[[list], Any]:
    """A function from the result list to the Python value ``spec`` (the frontend's output
    structure: ``OutResult``/``OutStatic``/``OutSeq``/``OutDict``) describes; Tensors out, and
    the Python objects of JIT-Fallback code (``obj`` results, ``types``) as they are."""
    if isinstance(spec, OutResult):
        i = spec.index
        if i < len(types) and isinstance(types[i], ObjectType):
            return lambda results: results[i]
        return lambda results: _wrap(results[i])
    if isinstance(spec, OutStatic):
        value = spec.value
        return lambda results: value
    parts = [_rebuild(s, types) for s in spec.items]
    if isinstance(spec, OutDict):
        keys = spec.keys
        return lambda results: {k: p(results) for k, p in zip(keys, parts)}
    if spec.kind is tuple:
        if len(parts) == 2:
            first, second = parts
            return lambda results: (first(results), second(results))
        return lambda results: tuple(p(results) for p in parts)
    kind = spec.kind
    return lambda results: kind(p(results) for p in parts)


def _wrap(x):
    if isinstance(x, np.ndarray):
        if not x.flags.writeable:  # a constant of the function: the caller gets its own copy
            x = x.copy()
        return Tensor._wrap(x)
    if isinstance(x, np.generic):
        return Tensor._wrap(np.asarray(x))
    return x


# --- the program and its executable --------------------------------------------------------------

@dataclass
class Program:
    """A compiled function in graphcell's terms.

    ``inputs``: for each argument of ``function``, an int ``i`` (the call's ``i``-th tensor) or a
    Parameter. ``params``: the Parameters among them, in argument order. ``mutated``: the
    Parameter written back from each result after the outputs. ``output``: the structure of what
    the function returns to Python (the frontend's ``OutResult``/``OutStatic``/``OutSeq``/
    ``OutDict``); the results after the ``n_outputs`` first are the mutated Parameters' values.
    ``pass_reports``: one ``PassReport`` per pass of the pipeline that optimised it.
    ``attr_writes``: the attributes the code assigned (``self.count += 1``), set after a run.
    """

    module: Module
    function: Function
    inputs: tuple
    params: tuple
    mutated: tuple
    output: Any
    n_outputs: int = field(default=-1)
    pass_reports: tuple = field(default=())  # what each optimisation pass did (PassReport)
    attr_writes: tuple = field(default=())   # (object, attribute, output spec): set after a run

    def __post_init__(self):
        if not self.params:
            self.params = tuple(a for a in self.inputs if not isinstance(a, int))
        if self.n_outputs < 0:
            self.n_outputs = len(self.function.result_types or ()) - len(self.mutated)


def _backend(program: Program, native=None) -> Callable[[list], list]:
    """The runner of the compiled function: a list of arguments in, the list of results out.

    The compiled backend (native kernels, BLAS, references; it reruns a call on the interpreter
    when anything is off, so results and errors are the interpreter's); ``GRAPHCELL_BACKEND=interp``
    keeps the interpreter alone. ``native``: kernels linked from an artifact (``graphcell.load``)."""
    interp = Interpreter(program.module)
    if switches.value("GRAPHCELL_BACKEND") == "interp":
        return interp.compiled(program.function)
    from graphcell_ir.backend.executable import compile_executable
    dump = None
    if context.get_context("save_graphs"):
        dump = os.path.join(context.get_context("save_graphs_path"), "kernels")
    return compile_executable(program.module, program.function, interpreter=interp, dump_dir=dump,
                              native=native, donated=_donated(program))


def _donated(program: Program) -> tuple:
    """The arguments whose arrays the call gives up: the mutated Parameters' (their new values
    replace them, DESIGN §4). The native step may write the updates into them, as MindSpore
    updates a Parameter in place: an array the user kept (``p.asnumpy()``) sees the new value."""
    mutated = {id(p) for p in program.mutated}
    return tuple(i for i, a in enumerate(program.inputs)
                 if not isinstance(a, int) and id(a) in mutated)


class Executable:
    """Runs a :class:`Program`: ``exe(tensor_arrays, param_arrays)`` -> the outputs.

    ``session``: the compile-report session of the compile that made it, ended by the first
    run (which compiles the kernels)."""

    session = None

    def __init__(self, program: Program, native=None):
        self.program = program
        self._run = _backend(program, native)
        types = tuple(program.function.result_types or ())
        self._rebuild = _rebuild(program.output, types)
        n_inputs = sum(1 for a in program.inputs if isinstance(a, int))
        natural = tuple(range(n_inputs)) + tuple(program.params)
        self._natural = tuple(program.inputs) == natural  # tensors first, then parameters
        where = {id(p): i for i, p in enumerate(program.params)}
        self._order = tuple(("t", a) if isinstance(a, int) else ("p", where[id(a)])
                            for a in program.inputs)
        self._n_out = program.n_outputs
        self._mutated = tuple(program.mutated)
        self._attrs = tuple((obj, name, _rebuild(spec, types))
                            for obj, name, spec in program.attr_writes)

    def __call__(self, tensors: list, params: list):
        if self._natural:
            args = tensors + params
        else:
            args = [tensors[i] if k == "t" else params[i] for k, i in self._order]
        try:
            if self.session is not None:
                results = self._first_run(args)
            else:
                results = self._run(args)
        except InterpError as e:
            if isinstance(e.__cause__, OpError):  # the data do not fit the op: the user's error
                raise without_frames(e) from e.__cause__
            raise
        if self._mutated:
            self._write_back(results[self._n_out:], args)
        for obj, name, value in self._attrs:   # self.count += 1 in construct
            setattr(obj, name, value(results))
        return self._rebuild(results)

    def _first_run(self, args: list) -> list:
        """The first call: its time without the kernel compiles inside it is ``first run``."""
        session, self.session = self.session, None
        session.resume()
        try:
            with report.timed("first run"), collector_paused():   # it compiles kernels
                return self._run(args)
        finally:
            session.end()

    def _write_back(self, values: list, args: list) -> None:
        given = {id(a) for a in args}   # once, not per parameter: a train step mutates dozens
        for p, v in zip(self._mutated, values):
            if v is p._data:   # updated in place (the native step)
                continue
            if not isinstance(v, np.ndarray):
                v = np.asarray(v)
            if not v.flags.writeable or id(v) in given:
                v = v.copy()
            dtype = p._data.dtype
            if v.dtype is not dtype and v.dtype != dtype:   # is: numpy's != costs ~80 ns
                v = v.astype(dtype)
            p._data = v
