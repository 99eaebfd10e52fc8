"""The frontend: Python source of ``construct`` -> IR, through a Resolver (resolve.py).

- :func:`compile_function` (``to_ir.py``): the entry point; returns a :class:`CompiledFrontend`
  (``output.py``: the verified IR and how Python arguments, Parameters and results map onto it);
  :func:`compile_call` compiles a call of an object that has no source of its own (a gradient
  function, a cell with its hooks) the same way;
- ``resolve.py``: the protocol graphcell implements to say what user objects mean;
- :class:`PythonResolver` (``simple.py``): a resolver for plain Python/numpy functions;
- :class:`Limits` (``limits.py``): how deep calls nest and how far loops unroll while compiling;
- ``grads.py`` and ``bprop.py``: gradients inside compiled code (a ``GradCall`` becomes the
  callee's own Function, its gradient Function from IR autodiff, and a ``call``) and cells' custom
  ``bprop`` (two Functions linked by the ``bprop`` attribute).
"""
from graphcell_ir.frontend.output import (CompiledFrontend, OutDict, OutResult, OutSeq, OutStatic,
                                          rebuild)
from graphcell_ir.frontend.limits import Limits
from graphcell_ir.frontend.simple import PythonResolver
from graphcell_ir.frontend.to_ir import compile_call, compile_function

__all__ = ["compile_function", "compile_call", "Limits", "CompiledFrontend", "PythonResolver",
           "OutResult", "OutStatic", "OutSeq", "OutDict", "rebuild"]
