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
_COMPLEX = ("its results are complex (eigenvalues of a real matrix may be), and graphcell has no "
            "complex dtypes")
GAPS.update({
    "mindspore.ops.eigvals": _COMPLEX,
    "mindspore.ops.eig": _COMPLEX,
    "mindspore.ops.Eig": _COMPLEX,
    "mindspore.Tensor.eigvals": _COMPLEX,
    "mindspore.ops.ormqr": "MindSpore 2.10's CPU build has no Ormqr kernel (\"Unsupported op "
                           "[Ormqr] on CPU\"); graphcell provides it (a composite of the "
                           "Householder reflectors)",
    "mindspore.Tensor.ormqr": "MindSpore 2.10's CPU build has no Ormqr kernel; graphcell "
                              "provides it",
    "mindspore.ops.Ormqr": "MindSpore 2.10's CPU build has no Ormqr kernel; graphcell provides it",
    "mindspore.ops.einsum": "MindSpore 2.10's CPU build has no Einsum kernel (\"Unsupported op "
                            "[Einsum] on CPU\")",
    "mindspore.ops.Einsum": "MindSpore 2.10's CPU build has no Einsum kernel",
    "mindspore.ops.gamma": "MindSpore 2.10's CPU build has no Gamma kernel (\"Unsupported op "
                           "[Gamma] on CPU\"); graphcell provides it",
    "mindspore.ops.Gamma": "MindSpore 2.10's CPU build has no Gamma kernel; graphcell provides it",
    "mindspore.ops.Randperm": "MindSpore 2.10's CPU build has no Randperm kernel (\"Unsupported "
                              "op [Randperm] on CPU\"); graphcell provides it",
    "mindspore.ops.poisson": "MindSpore 2.10's CPU build has no Poisson kernel (\"Unsupported op "
                             "[Poisson] on CPU\"); see ops.random_poisson",
    "mindspore.ops.Poisson": "MindSpore 2.10's CPU build has no Poisson kernel",
    "mindspore.Tensor.uniform": "MindSpore 2.10's CPU build has no UniformExt kernel (\"The "
                                "kernel UniformExt unregistered\"); graphcell provides it",
    "mindspore.Tensor.bernoulli": "MindSpore 2.10's CPU build has no BernoulliExt kernel; "
                                  "graphcell provides it",
    "mindspore.Tensor.normal_": "MindSpore 2.10's CPU build has no InplaceNormal kernel; "
                                "graphcell provides it",
    "mindspore.Tensor.uniform_": "MindSpore 2.10's CPU build has no InplaceUniform kernel; "
                                 "graphcell provides it",
    "mindspore.Tensor.random_": "MindSpore 2.10's CPU build has no InplaceRandom kernel; "
                                "graphcell provides it",
})

# --- optimizer primitives, state, effects, framework functions --------------------------------------
GAPS.update({})
