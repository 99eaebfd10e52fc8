"""Why graphcell does not provide some MindSpore names: ``"namespace.name" -> reason``.

Only names with a reason beyond "not done yet" belong here. A reason that starts with
"MindSpore 2.10" says MindSpore 2.10's CPU build itself refuses the name (checked by running it);
``docs/api_coverage.md`` does not count those against graphcell. The AttributeError for a name
quotes its reason.
"""
GAPS: dict[str, str] = {}

# --- elementwise math ----------------------------------------------------------------------------
GAPS.update({})

# --- reductions, scans, sorting, statistics --------------------------------------------------------
# graphcell provides all of these; the reasons say why their golden cases only record refusals
# (their values are tested against numpy in tests/graphcell/api/test_reduce_extras.py).
_NO_QUANTILE = ("MindSpore 2.10's CPU build has no Quantile kernel: every call raises \"Unsupported "
                "op [Quantile] on CPU\"")
GAPS.update({
    "mindspore.ops.quantile": _NO_QUANTILE,
    "mindspore.ops.nanquantile": _NO_QUANTILE,
    "mindspore.ops.Quantile": _NO_QUANTILE,
    "mindspore.Tensor.quantile": _NO_QUANTILE,
    "mindspore.Tensor.nanquantile": _NO_QUANTILE,
    "mindspore.Tensor.kthvalue": "MindSpore 2.10's CPU build raises \"should not come here for "
                                 "kthvalue py_method\" for every call",
    "mindspore.Tensor.unique": "MindSpore 2.10's CPU build has no Unique2/UniqueDim kernel (\"The "
                               "kernel Unique2 unregistered\")",
    "mindspore.Tensor.searchsorted": "MindSpore 2.10's CPU build's SearchSorted kernel fails for the "
                                     "Int32 output that Tensor.searchsorted always asks for",
    "mindspore.ops.HistogramFixedWidth": "MindSpore 2.10's CPU build has no HistogramFixedWidth kernel",
    "mindspore.ops.EuclideanNorm": "MindSpore 2.10's CPU build has no EuclideanNorm kernel",
})

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
