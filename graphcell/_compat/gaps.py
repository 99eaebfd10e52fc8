"""Why graphcell does not provide some MindSpore names: ``"namespace.name" -> reason``.

Only names with a reason beyond "not done yet" belong here. A reason that starts with
"MindSpore 2.10" says MindSpore 2.10's CPU build itself refuses the name (checked by running it);
``docs/api_coverage.md`` does not count those against graphcell. The AttributeError for a name
quotes its reason.
"""
GAPS: dict[str, str] = {}

# --- elementwise math ----------------------------------------------------------------------------
GAPS.update({})
# binary math (graphcell/ops/function/math_func.py); the refused names are implemented anyway
GAPS.update({
    "mindspore.ops.fmin": "MindSpore 2.10's CPU build refuses it (a RuntimeError from its Minimum "
                          "kernel selection); graphcell implements it",
    "mindspore.ops.Fmin": "MindSpore 2.10's CPU build refuses it (a RuntimeError from its kernel "
                          "selection); graphcell implements it",
    "mindspore.Tensor.fmin": "MindSpore 2.10's CPU build refuses it (a RuntimeError from its "
                             "kernel selection); graphcell implements it",
    "mindspore.Tensor.addcdiv": "MindSpore 2.10's CPU build has no AddcdivExt kernel (RuntimeError); "
                                "graphcell implements it (ops.addcdiv works in MindSpore too)",
    "mindspore.Tensor.clamp_": "MindSpore 2.10's CPU build has no InplaceClampScalar kernel "
                               "(RuntimeError); graphcell implements it",
    "mindspore.Tensor.bitwise_not": "MindSpore 2.10's CPU build has no BitwiseNot kernel "
                                    "(RuntimeError); graphcell implements it",
    "mindspore.ops.is_": "MindSpore 2.10's CPU build fails on it at run time (RuntimeError: "
                         "no output of its kernel graph); graphcell implements it (x is y)",
    "mindspore.ops.is_not": "MindSpore 2.10's CPU build fails on it at run time (RuntimeError); "
                            "graphcell implements it (x is not y)",
    "mindspore.ops.Complex": "graphcell has no complex dtypes (DESIGN: bool, integers, floats)",
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
