"""Ahead of time (DESIGN §8): ``export`` a network as one artifact file, ``load`` it back.

- ``container.py`` — the zip of members and their hashes; ``manifest.py`` — the manifest's
  fields, the output structure, the environment; ``exporter.py`` — ``export``;
  ``loader.py`` — ``load``/``read_artifact`` and every check; ``native.py`` — the kernels'
  object code (emitted at export, linked by ``load(native=True)`` without numba);
  ``trust.py`` — signatures and trust: when an artifact's native code may run;
  ``nn/graph_cell.py`` — the cell that runs a loaded artifact; ``tools.py`` — what the command
  line's ``precompile`` does; ``checkpoint.py`` — exporting with a checkpoint's weights
  (``ckpt_file_name``, ``--ckpt``); ``onnx_export.py`` — ``file_format="ONNX"`` (the lowering
  itself is ``graphcell_ir.backend.onnx``).

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> def scale(x):
    ...     return ops.mul(x, 3.0)
    >>> x = ms.Tensor(np.ones(2, np.float32))
    >>> ms.load(ms.export(scale, x, file_name=os.path.join(tempfile.mkdtemp(), "s")))(x)
    Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  3.00000000e+00])
"""
from graphcell_ir.errors import ArtifactError, ArtifactTrustError
from graphcell.aot.exporter import export
from graphcell.aot.loader import ArtifactGraph, NativeCodeWarning, load, read_artifact

__all__ = ["export", "load", "read_artifact", "ArtifactGraph", "ArtifactError",
           "ArtifactTrustError", "NativeCodeWarning"]
