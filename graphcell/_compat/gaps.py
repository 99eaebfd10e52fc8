"""Why graphcell does not provide some MindSpore names: ``"namespace.name" -> reason``.

Only names with a reason beyond "not done yet" belong here. A reason that starts with
"MindSpore 2.10" says MindSpore 2.10's CPU build itself refuses the name (checked by running it);
``docs/api_coverage.md`` does not count those against graphcell. The AttributeError for a name
quotes its reason.
"""
GAPS: dict[str, str] = {}

# --- elementwise math ----------------------------------------------------------------------------
_INPLACE = "MindSpore 2.10's CPU build does not register the {} kernel (RuntimeError)"
GAPS.update({
    # implemented by graphcell for floats (pi for negative values, 0 otherwise)
    "mindspore.ops.angle": "MindSpore 2.10's CPU build has Angle kernels for Complex64 and "
                           "Complex128 only; real inputs are refused",
    "mindspore.ops.Angle": "MindSpore 2.10's CPU build has Angle kernels for Complex64 and "
                           "Complex128 only; real inputs are refused",
    "mindspore.Tensor.angle": "MindSpore 2.10's CPU build has Angle kernels for Complex64 and "
                              "Complex128 only; real inputs are refused",
    # in-place variants (graphcell has no in-place tensor writes yet)
    "mindspore.ops.tanh_": _INPLACE.format("InplaceTanh"),
    "mindspore.Tensor.tanh_": _INPLACE.format("InplaceTanh"),
    "mindspore.ops.erfinv_": _INPLACE.format("InplaceErfinv"),
    "mindspore.Tensor.erfinv_": _INPLACE.format("InplaceErfinv"),
    "mindspore.Tensor.floor_": _INPLACE.format("InplaceFloor"),
    "mindspore.Tensor.log_": _INPLACE.format("InplaceLog"),
    "mindspore.Tensor.exponential_": "MindSpore 2.10's CPU build raises 'Not implement "
                                     "exception' for it",
    "mindspore.ops.ComplexAbs": "graphcell has no complex dtypes",
})

# --- reductions, scans, sorting, statistics --------------------------------------------------------
GAPS.update({})

# --- layout, creation, shapes, Tensor plumbing -----------------------------------------------------
GAPS.update({})

# --- indexing: gather, scatter, segments, masks ------------------------------------------------------
GAPS.update({})

# --- nn functional: activations, losses, normalization, dropout -------------------------------------
GAPS.update({})

# --- nn functional: convolution, pooling, resizing -------------------------------------------------
GAPS.update({})

# --- random, linear algebra, matrix products --------------------------------------------------------
GAPS.update({})

# --- optimizer primitives, state, effects, framework functions --------------------------------------
GAPS.update({})
