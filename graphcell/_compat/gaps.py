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
    **{f"mindspore.ops.{n}": "Fourier transforms work on complex values, and graphcell has no "
                             "complex dtypes"
       for n in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
                 "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
                 "ihfftn", "stft", "FFTWithSize", "polar", "Polar")},
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
    "mindspore.Tensor.addmm_": "MindSpore 2.10's CPU build has no InplaceAddmm kernel (\"The "
                               "kernel InplaceAddmm unregistered\"); graphcell provides it",
})

# --- optimizer primitives, state, effects, framework functions --------------------------------------
_SPARSE = ("graphcell has no sparse tensors (COOTensor, CSRTensor); sparse data is out of its "
           "scope")
GAPS.update({
    "mindspore.ops.make_coo_tensor": _SPARSE,
    "mindspore.ops.make_csr_tensor": _SPARSE,
    "mindspore.Tensor.to_coo": _SPARSE,
    "mindspore.Tensor.to_csr": _SPARSE,
    "mindspore.ops.vm_impl_registry": "MindSpore's internal registry of its VM's Python op "
                                      "implementations, not an API to reproduce",
    "mindspore.ops.switch": "MindSpore's internal Switch primitive of its graph IR (graphcell's "
                            "IR has structured if/while); write the if in construct",
    "mindspore.ops.DynamicGRUV2": "MindSpore 2.10's CPU build has no DynamicGRUV2 kernel "
                                  "(\"Unsupported op [DynamicGRUV2] on CPU\"; an Ascend kernel)",
    "mindspore.ops.FloatStatus": "MindSpore 2.10's CPU build has no FloatStatus kernel; graphcell "
                                 "provides it",
    "mindspore.ops.ApplyKerasMomentum": "MindSpore 2.10's CPU build has no ApplyKerasMomentum "
                                        "kernel; graphcell provides it",
    "mindspore.ops.AccumulateNV2": "MindSpore 2.10's CPU build has no AccumulateNV2 kernel; "
                                   "graphcell provides it",
    "mindspore.ops.accumulate_n": "MindSpore 2.10's CPU build has no AccumulateNV2 kernel; "
                                  "graphcell provides it",
    "mindspore.ops.NoRepeatNGram": "MindSpore 2.10's CPU build refuses every call (\"seq_type "
                                   "must be Tensor[Int32], but got Tensor[Float32]\" for an Int32 "
                                   "state_seq); graphcell provides it",
})
