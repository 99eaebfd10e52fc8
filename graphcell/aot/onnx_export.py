"""``graphcell.export(..., file_format="ONNX")``: the compiled inference graph as an ONNX model.

The network is compiled as for any export (graph mode's frontend and optimizing pipeline); the
optimized IR is lowered op by op to ONNX (``graphcell_ir.backend.onnx``: one lowering per
registry op, fusion groups taken apart) with the parameters as initializers, checked by
``onnx.checker`` and written with the ``onnx`` library. onnxruntime runs the file with the same
outputs as graphcell (up to rounding). The model's inputs are named after the function's
arguments (``x``), its outputs ``output0``, ``output1``... in the order of the flattened result.

Only inference graphs are written: a training step (a function that updates Parameters) is an
error, and so is an op without an ONNX mapping (``OnnxExportError``, at its source line). The
``onnx`` package is an optional extra: ``pip install "graphcell[onnx]"``.

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import graphcell as ms
    >>> x = ms.Tensor(np.ones((1, 3), np.float32))
    >>> path = os.path.join(tempfile.mkdtemp(), "dense")
    >>> try:
    ...     path = ms.export(ms.nn.Dense(3, 2), x, file_name=path, file_format="ONNX")
    ... except ImportError:          # without the extra: an error saying what to install
    ...     path = path + ".onnx"
    >>> os.path.basename(path)
    'dense.onnx'
"""
from __future__ import annotations

from graphcell.aot.files import write_atomically
from graphcell_ir.errors import OnnxExportError, OnnxUnavailableError

__all__ = ["require_onnx", "write_onnx", "onnx_model"]


def require_onnx() -> None:
    """OnnxUnavailableError, saying what to install, when the ``onnx`` package is missing."""
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise OnnxUnavailableError(
            "export: file_format='ONNX' needs the onnx package, which is not installed; install "
            "graphcell's onnx extra (pip install \"graphcell[onnx]\", or pip install onnx "
            "onnxruntime), or export file_format='GCIR'") from None


def onnx_model(compiled):
    """The checked ``onnx.ModelProto`` of a bridge ``Compiled`` (an inference function)."""
    from graphcell._version import __version__
    from graphcell_ir.backend.onnx import lower_function, to_model
    require_onnx()
    program = compiled.program
    if program.mutated:
        names = ", ".join(p.name for p in program.mutated)
        raise OnnxExportError(
            f"ONNX export: {program.function.name} updates parameters ({names}), and an ONNX "
            "model is written for inference only. A network in training mode (BatchNorm updates "
            "its moving statistics) exports after net.set_train(False); a training step exports "
            "with file_format='GCIR'")
    n_inputs = len(program.function.args) - len(program.params)
    weights = {p.name: p._data for p in program.params}
    graph = lower_function(program.module, program.function, n_inputs, weights)
    return to_model(graph, producer_version=__version__)


def write_onnx(compiled, path: str) -> None:
    """Write ``compiled`` as the ONNX file ``path`` (atomically: a failure leaves no file)."""
    data = onnx_model(compiled).SerializeToString()
    write_atomically(path, lambda f: f.write(data), ".onnx-")
