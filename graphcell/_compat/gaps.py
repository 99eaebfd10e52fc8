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
# graphcell provides these names; MindSpore 2.10's CPU build refuses them, so they have no golden
# cases (tests/graphcell/test_nn_functions.py checks them against their formulas).
_NO_CPU_KERNEL = "MindSpore 2.10's CPU build has no {} kernel ('Unsupported op on CPU')"
GAPS.update({
    "mindspore.ops.SoftMarginLoss": _NO_CPU_KERNEL.format("SoftMarginLoss"),
    "mindspore.ops.soft_margin_loss": _NO_CPU_KERNEL.format("SoftMarginLoss"),
    "mindspore.ops.TripletMarginLoss": _NO_CPU_KERNEL.format("TripletMarginLoss"),
    "mindspore.ops.triplet_margin_loss": _NO_CPU_KERNEL.format("TripletMarginLoss"),
    "mindspore.ops.MultilabelMarginLoss": _NO_CPU_KERNEL.format("MultilabelMarginLoss"),
    "mindspore.ops.multilabel_margin_loss": _NO_CPU_KERNEL.format("MultilabelMarginLoss"),
    "mindspore.ops.RmsNorm": _NO_CPU_KERNEL.format("RmsNorm"),
    "mindspore.ops.rms_norm": _NO_CPU_KERNEL.format("RmsNorm"),
    "mindspore.ops.embedding": _NO_CPU_KERNEL.format("Embedding"),
    "mindspore.ops.layer_norm": "MindSpore 2.10's CPU build fails to create its LayerNormExt "
                                "kernel ('Create kernelmod for op LayerNormExt failed')",
    "mindspore.ops.add_rms_norm": _NO_CPU_KERNEL.format("AddRmsNorm"),
    "mindspore.ops.add_layer_norm": _NO_CPU_KERNEL.format("AddRmsNorm"),
})
# not provided: MindSpore 2.10's CPU build cannot run these either (checked)
GAPS.update({
    "mindspore.ops.DynamicRNN": _NO_CPU_KERNEL.format("DynamicRNN") + "; an Ascend op",
    "mindspore.ops.BasicLSTMCell": _NO_CPU_KERNEL.format("BasicLSTMCell") + "; ops.LSTM is "
                                   "provided",
    "mindspore.ops.LogSoftmaxExt": _NO_CPU_KERNEL.format("LogSoftmaxExt") + "; ops.log_softmax "
                                   "is provided",
    "mindspore.ops.RNNTLoss": _NO_CPU_KERNEL.format("RNNTLoss"),
})

# --- nn functional: convolution, pooling, resizing -------------------------------------------------
# provided by graphcell; refused by MindSpore 2.10's CPU build, so tested against formulas
GAPS.update({
    "mindspore.ops.conv_transpose2d": _NO_CPU_KERNEL.format("ConvTranspose2D"),
    "mindspore.ops.DepthwiseConv2dNative": _NO_CPU_KERNEL.format("DepthwiseConv2dNative"),
    "mindspore.ops.Dilation2D": "MindSpore 2.10's CPU build fails to run Dilation2D ('Cast "
                                "failed' converting its pad_mode)",
})

# --- random, linear algebra, matrix products --------------------------------------------------------
GAPS.update({})

# --- optimizer primitives, state, effects, framework functions --------------------------------------
GAPS.update({})
