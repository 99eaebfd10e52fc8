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
# unary math (graphcell/ops/function/unary_func.py)
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
# Names MindSpore 2.10's CPU build refuses that graphcell provides anyway (checked against numpy in
# tests/graphcell/test_array_ops.py, as no golden can be recorded):
_CPU_REFUSES_ARRAY = {
    "mindspore.ops.roll": "has no Roll kernel ('The kernel Roll unregistered')",
    "mindspore.ops.Roll": "has no Roll kernel ('The kernel Roll unregistered')",
    "mindspore.Tensor.roll": "has no Roll kernel ('The kernel Roll unregistered')",
    "mindspore.Tensor.repeat": "refuses it (\"'repeat' is not supported on this device\")",
    "mindspore.Tensor.clone": "has no Clone kernel ('The kernel Clone unregistered')",
    "mindspore.Tensor.zero_": "has no InplaceZero kernel",
    "mindspore.ops.zero_": "has no InplaceZero kernel",
    "mindspore.Tensor.fill_": "has no InplaceFillScalar kernel",
    "mindspore.Tensor.fill_diagonal_": "refuses it ('should not come here for fill_diagonal "
                                       "method')",
    "mindspore.Tensor.new_full": "refuses it ('new_full method support Ascend only')",
    "mindspore.Tensor.fills": "refuses it (unsupported op Fills on CPU)",
    "mindspore.ops.fills": "refuses it (unsupported op Fills on CPU)",
    "mindspore.ops.Fills": "refuses it (unsupported op Fills on CPU)",
    "mindspore.ops.BatchToSpace": "refuses it (unsupported op BatchToSpace on CPU)",
    "mindspore.ops.SpaceToBatch": "refuses it (unsupported op SpaceToBatch on CPU)",
    "mindspore.ops.SplitV": "refuses it (unsupported op SplitV on CPU)",
    "mindspore.ops.BatchToSpaceNDV2": "refuses it (unsupported op BatchToSpaceNDV2 on CPU)",
    "mindspore.ops.type_as": "has no TypeAs kernel ('The kernel TypeAs unregistered')",
    "mindspore.ops.move_to": "refuses it (unsupported op MoveTo on CPU)",
    "mindspore.ops.MoveTo": "refuses it (unsupported op MoveTo on CPU)",
}
GAPS.update({name: f"MindSpore 2.10's CPU build {why}; graphcell provides it"
             for name, why in _CPU_REFUSES_ARRAY.items()})
GAPS.update({
    "mindspore.ops.DynamicShape": "MindSpore 2.10's CPU build refuses it ('prim:DynamicShape has "
                                  "no attr:__infer__'); deprecated since 1.7 for ops.shape / "
                                  "ops.dyn_shape, which graphcell provides",
    "mindspore.ops.ScalarToArray": "MindSpore 2.10's CPU build refuses it ('prim:ScalarToArray "
                                   "has no attr:__infer__'); use ops.scalar_to_tensor",
    "mindspore.ops.tail": "a graph-compiler helper (MetaFuncGraph) of MindSpore's: it returns None "
                          "when called in PyNative",
    "mindspore.ops.SliceGetItem": "an internal primitive of MindSpore's graph compiler (reading a "
                                  "slice's start/stop/step), not an array operation",
    "mindspore.ops.DataType": "not an operation: MindSpore's op-registration helper "
                              "(mindspore.ops.op_info_register.DataType)",
    "mindspore.Tensor.bfloat16": "graphcell has no bfloat16 dtype (bool, int8-64, uint8-64, "
                                 "float16/32/64)",
})

# --- indexing: gather, scatter, segments, masks ------------------------------------------------------
_CPU_NO_INPLACE = ("MindSpore 2.10's CPU build has no kernel for it ('{kernel} unregistered'); "
                   "use the functional {functional}, which returns the new tensor")
GAPS.update({
    # refused by MindSpore 2.10's CPU build, provided by graphcell all the same
    "mindspore.Tensor.index": "MindSpore 2.10's CPU build refuses it ('index only supports "
                              "Ascend'); graphcell provides it as advanced indexing",
    "mindspore.ops.ScatterNonAliasingAdd": "MindSpore 2.10's CPU build fails to launch its kernel "
                                           "(RuntimeError); graphcell provides it as "
                                           "tensor_scatter_add",
    # in-place Tensor methods: refused by MindSpore 2.10's CPU build, not provided
    "mindspore.Tensor.masked_fill_": _CPU_NO_INPLACE.format(kernel="InplaceMaskedFillScalar",
                                                            functional="x.masked_fill(...)"),
    "mindspore.Tensor.scatter_": _CPU_NO_INPLACE.format(kernel="InplaceScatterSrc",
                                                        functional="x.scatter(...)"),
    "mindspore.Tensor.scatter_add_": _CPU_NO_INPLACE.format(kernel="InplaceScatterAdd",
                                                            functional="x.scatter_add(...)"),
    "mindspore.Tensor.index_add_": _CPU_NO_INPLACE.format(kernel="InplaceIndexAddExt",
                                                          functional="x.index_add(...)"),
    "mindspore.Tensor.index_put_": _CPU_NO_INPLACE.format(kernel="InplaceIndexPut",
                                                          functional="x.index_put(...)"),
    "mindspore.Tensor.put_": "MindSpore 2.10's CPU build refuses it ('There is no branch to go "
                             "function tensor_put_'); use ops.tensor_scatter_update on the "
                             "flattened tensor",
})

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

# --- nn losses, optimizers, schedules, loss scaling, mixed precision (issue 17 item 3) -------------
GAPS.update({
    "mindspore.nn.SoftMarginLoss": _NO_CPU_KERNEL.format("SoftMarginLoss") + "; graphcell "
                                   "provides it (tests/graphcell/nn/test_nn_loss.py)",
    "mindspore.nn.TripletMarginLoss": _NO_CPU_KERNEL.format("TripletMarginLoss") + "; graphcell "
                                      "provides it (tests/graphcell/nn/test_nn_loss.py)",
    "mindspore.nn.MultilabelMarginLoss": _NO_CPU_KERNEL.format("MultilabelMarginLoss") + "; "
                                         "graphcell provides it (tests/graphcell/nn/"
                                         "test_nn_loss.py)",
    "mindspore.nn.Lamb": _NO_CPU_KERNEL.format("Lamb") + "; graphcell provides the documented "
                         "update (tests/graphcell/nn/test_nn_optim.py)",
    "mindspore.nn.LARS": _NO_CPU_KERNEL.format("LARSUpdate") + "; graphcell provides the "
                         "documented update (tests/graphcell/nn/test_nn_optim.py)",
    "mindspore.ops.LARSUpdate": _NO_CPU_KERNEL.format("LARSUpdate") + "; graphcell provides "
                                "the formula of its Ascend kernel",
    "mindspore.nn.TrainOneStepWithLossScaleCell": _NO_CPU_KERNEL.format("NPUGetFloatStatusV2")
                                                  + " (its overflow check); graphcell provides "
                                                  "it (tests/graphcell/nn/test_nn_loss_scale.py)",
})

# --- nn layers (issue 17 item 1: graphcell/nn/layers/) ---------------------------------------------
# provided by graphcell; MindSpore 2.10's CPU build cannot run them, so they have no golden cases
# (tests/graphcell/nn/test_layers_*.py check them against their formulas)
GAPS.update({
    "mindspore.nn.LogSoftmaxExt": _NO_CPU_KERNEL.format("LogSoftmaxExt") + "; graphcell "
                                  "provides it",
    **{f"mindspore.nn.InstanceNorm{d}d": _NO_CPU_KERNEL.format("InstanceNorm") + "; graphcell "
                                         "provides it (group_norm with one group per channel)"
       for d in (1, 2, 3)},
    "mindspore.nn.LayerNormExt": "MindSpore 2.10's CPU build fails to create its LayerNormExt "
                                 "kernel; graphcell provides it",
    "mindspore.nn.EmbeddingExt": "MindSpore 2.10's CPU build has no Embedding kernel ('The kernel "
                                 "Embedding unregistered'); graphcell provides it",
    **{f"mindspore.nn.{cell}": "MindSpore 2.10's CPU build fails on it in PyNative mode (a "
                               "ScalarCast of a Float32; its graph mode runs it); graphcell "
                               "provides it" for cell in ("PSNR", "SSIM", "MSSSIM")},
    **{f"mindspore.nn.{cell}": f"MindSpore 2.10's CPU build cannot run it ('{why}'); graphcell "
                               "provides it (PyTorch's semantics)"
       for cell, why in (("DropoutExt", "The kernel DropoutExt unregistered"),
                         ("Dropout2dExt", "Not implement exception"),
                         ("AvgPool1dExt", "The kernel AvgPool1D unregistered"),
                         ("AvgPool2dExt", "The kernel AvgPool2D unregistered"),
                         ("AvgPool3dExt", "The kernel AvgPool3DExt unregistered"),
                         ("MaxPool2dExt", "Not found op FuncMaxPool2D on device CPU"))},
    "mindspore.nn.Roll": "MindSpore 2.10's CPU build has no Roll kernel ('The kernel Roll "
                         "unregistered'); graphcell provides it",
    **{f"mindspore.nn.{cell}": _NO_CPU_KERNEL.format(kernel) + "; graphcell provides it"
       for cell, kernel in (("MatrixDiag", "MatrixDiag"), ("MatrixDiagPart", "MatrixDiagPart"),
                            ("MatrixSetDiag", "MatrixSetDiag"), ("MatInverse", "CholeskyTrsm"),
                            ("MatDet", "DetTriangle"))},
})
# not provided
GAPS.update({
    **{f"mindspore.nn.{cell}": "a layer of THOR, MindSpore's second-order optimizer, which "
                               "graphcell does not have; use nn." + cell.replace("Thor", "")
       for cell in ("Conv2dThor", "DenseThor", "EmbeddingThor", "EmbeddingLookupThor")},
    "mindspore.nn.Unfold": _NO_CPU_KERNEL.format("ExtractImagePatches") + "; graphcell does not "
                           "provide it (ops.unfold extracts patches, in PyTorch's layout)",
})

# --- the mindspore namespace: what graphcell does not provide yet, and why ------------------------
GAPS.update({
    "mindspore.bfloat16": "graphcell's kernels compute in numpy's dtypes and numpy has no "
                          "bfloat16; emulating it (float32 storage rounded after every op) is "
                          "planned, not done. Use float16 or float32",
    "mindspore.complex64": "graphcell's op registry and kernels have no complex dtypes yet",
    "mindspore.complex128": "graphcell's op registry and kernels have no complex dtypes yet",
    "mindspore.rewrite": "MindSpore's SymbolTree API edits a network's Python source; graphcell "
                         "does not provide it (its IR is printed, parsed and rewritten by passes: "
                         "graphcell_ir.passes)",
    "mindspore.boost": "MindSpore's training accelerations (LessBN, GradientFreeze, ...) are "
                       "Ascend-oriented; graphcell does not provide them (Model's boost_level is "
                       "accepted and warned about)",
})

# mindspore.mindrecord's converters (graphcell/mindrecord/)
_CONVERTER = ("it stores each image JPEG-encoded (through OpenCV), and graphcell has no image "
              "codec (DESIGN: numpy arrays; no Pillow/OpenCV); write the arrays with FileWriter "
              "instead")
GAPS.update({
    "mindspore.mindrecord.MnistToMR": _CONVERTER,
    "mindspore.mindrecord.Cifar10ToMR": _CONVERTER,
    "mindspore.mindrecord.Cifar100ToMR": _CONVERTER,
    "mindspore.mindrecord.ImageNetToMR": "it stores image files as they are, to be decoded by "
                                         "vision.Decode, which graphcell lacks (no image codec)",
    "mindspore.mindrecord.TFRecordToMR": "it needs TensorFlow to parse TFRecord files",
    "mindspore.mindrecord.CsvToMR": "it needs pandas to read the CSV file",
    **{f"mindspore.mindrecord.{name}": "graphcell does not encrypt MindRecord files (AES-GCM and "
                                       "SM4-CBC are not among its dependencies); files are "
                                       "written and read unencrypted"
       for name in ("set_enc_key", "set_enc_mode", "set_dec_mode")},
})

# mindspore.mint (graphcell/mint/): names MindSpore 2.10's CPU build refuses (every call of a
# recorded golden case raised); graphcell provides them, tested against numpy in
# tests/graphcell/mint/test_mint_numpy.py
_MINT_NO_KERNEL = ("MindSpore 2.10's CPU build has no {} kernel (RuntimeError); graphcell "
                   "implements it")
GAPS.update({
    "mindspore.mint.acos": _MINT_NO_KERNEL.format("AcosExt"),
    "mindspore.mint.acosh": _MINT_NO_KERNEL.format("AcoshExt"),
    "mindspore.mint.addbmm": _MINT_NO_KERNEL.format("Addbmm"),
    "mindspore.mint.addcdiv": _MINT_NO_KERNEL.format("AddcdivExt"),
    "mindspore.mint.addcmul": _MINT_NO_KERNEL.format("AddcmulExt"),
    "mindspore.mint.addmm": _MINT_NO_KERNEL.format("Addmm"),
    "mindspore.mint.addmv": _MINT_NO_KERNEL.format("Addmv"),
    "mindspore.mint.arange": _MINT_NO_KERNEL.format("Arange"),
    "mindspore.mint.arccos": _MINT_NO_KERNEL.format("AcosExt"),
    "mindspore.mint.arcsin": _MINT_NO_KERNEL.format("AsinExt"),
    "mindspore.mint.arctan2": _MINT_NO_KERNEL.format("Atan2Ext"),
    "mindspore.mint.arctan": _MINT_NO_KERNEL.format("AtanExt"),
    "mindspore.mint.asin": _MINT_NO_KERNEL.format("AsinExt"),
    "mindspore.mint.asinh": _MINT_NO_KERNEL.format("AsinhExt"),
    "mindspore.mint.atan2": _MINT_NO_KERNEL.format("Atan2Ext"),
    "mindspore.mint.atan": _MINT_NO_KERNEL.format("AtanExt"),
    "mindspore.mint.baddbmm": _MINT_NO_KERNEL.format("Baddbmm"),
    "mindspore.mint.bitwise_or": _MINT_NO_KERNEL.format("BitwiseOrTensor"),
    "mindspore.mint.bitwise_xor": _MINT_NO_KERNEL.format("BitwiseXorTensor"),
    "mindspore.mint.dot": _MINT_NO_KERNEL.format("Dot"),
    "mindspore.mint.equal": _MINT_NO_KERNEL.format("EqualExt"),
    "mindspore.mint.exp2": _MINT_NO_KERNEL.format("Exp2"),
    "mindspore.mint.frac": _MINT_NO_KERNEL.format("Frac"),
    "mindspore.mint.full": _MINT_NO_KERNEL.format("FillScalar"),
    "mindspore.mint.full_like": _MINT_NO_KERNEL.format("FullLike"),
    "mindspore.mint.isneginf": _MINT_NO_KERNEL.format("IsNegInf"),
    "mindspore.mint.linspace": _MINT_NO_KERNEL.format("LinSpaceExt"),
    "mindspore.mint.log10": _MINT_NO_KERNEL.format("Log10"),
    "mindspore.mint.log2": _MINT_NO_KERNEL.format("Log2"),
    "mindspore.mint.logaddexp2": _MINT_NO_KERNEL.format("LogAddExp2"),
    "mindspore.mint.logaddexp": _MINT_NO_KERNEL.format("LogAddExp"),
    "mindspore.mint.mm": _MINT_NO_KERNEL.format("Mm"),
    "mindspore.mint.mv": _MINT_NO_KERNEL.format("Mv"),
    "mindspore.mint.ones_like": _MINT_NO_KERNEL.format("OnesLikeExt"),
    "mindspore.mint.outer": _MINT_NO_KERNEL.format("Outer"),
    "mindspore.mint.trace": _MINT_NO_KERNEL.format("TraceExt"),
    "mindspore.mint.zeros_like": _MINT_NO_KERNEL.format("ZerosLikeExt"),
    "mindspore.mint.argmax": _MINT_NO_KERNEL.format("ArgMaxExt"),
    "mindspore.mint.argmin": _MINT_NO_KERNEL.format("ArgMinExt"),
    "mindspore.mint.argsort": _MINT_NO_KERNEL.format("ArgSort"),
    "mindspore.mint.bernoulli": _MINT_NO_KERNEL.format("BernoulliExt"),
    "mindspore.mint.bincount": _MINT_NO_KERNEL.format("BincountExt"),
    "mindspore.mint.clone": _MINT_NO_KERNEL.format("Clone"),
    "mindspore.mint.count_nonzero": _MINT_NO_KERNEL.format("CountNonZero"),
    "mindspore.mint.cummin": _MINT_NO_KERNEL.format("CumminExt"),
    "mindspore.mint.cumsum": _MINT_NO_KERNEL.format("CumsumExt"),
    "mindspore.mint.diag": _MINT_NO_KERNEL.format("DiagExt"),
    "mindspore.mint.histc": _MINT_NO_KERNEL.format("HistcExt"),
    "mindspore.mint.index_select": _MINT_NO_KERNEL.format("IndexSelect"),
    "mindspore.mint.logsumexp": _MINT_NO_KERNEL.format("LogSumExp"),
    "mindspore.mint.masked_select":
        "MindSpore 2.10's CPU MaskedSelect kernel refuses Float32 inputs; graphcell implements it",
    "mindspore.mint.median": _MINT_NO_KERNEL.format("MedianExt"),
    "mindspore.mint.multinomial": _MINT_NO_KERNEL.format("MultinomialExt"),
    "mindspore.mint.norm": _MINT_NO_KERNEL.format("LinalgVectorNorm"),
    "mindspore.mint.normal": _MINT_NO_KERNEL.format("NormalTensorTensor"),
    "mindspore.mint.rand": _MINT_NO_KERNEL.format("InplaceUniform"),
    "mindspore.mint.rand_like": _MINT_NO_KERNEL.format("InplaceUniform"),
    "mindspore.mint.randint": _MINT_NO_KERNEL.format("InplaceRandom"),
    "mindspore.mint.randint_like": _MINT_NO_KERNEL.format("InplaceRandom"),
    "mindspore.mint.randn": _MINT_NO_KERNEL.format("InplaceNormal"),
    "mindspore.mint.randn_like": _MINT_NO_KERNEL.format("InplaceNormal"),
    "mindspore.mint.randperm": _MINT_NO_KERNEL.format("RandpermExt"),
    "mindspore.mint.repeat_interleave": _MINT_NO_KERNEL.format("RepeatInterleaveInt"),
    "mindspore.mint.roll": _MINT_NO_KERNEL.format("Roll"),
    "mindspore.mint.scatter_add": _MINT_NO_KERNEL.format("ScatterAddExt"),
    "mindspore.mint.sort": _MINT_NO_KERNEL.format("SortExt"),
    "mindspore.mint.stack": _MINT_NO_KERNEL.format("StackExt"),
    "mindspore.mint.std": _MINT_NO_KERNEL.format("Std"),
    "mindspore.mint.std_mean": _MINT_NO_KERNEL.format("StdMean"),
    "mindspore.mint.take": _MINT_NO_KERNEL.format("Take"),
    "mindspore.mint.topk": _MINT_NO_KERNEL.format("TopkExt"),
    "mindspore.mint.tril": _MINT_NO_KERNEL.format("TrilExt"),
    "mindspore.mint.unique": _MINT_NO_KERNEL.format("Unique2"),
    "mindspore.mint.var": _MINT_NO_KERNEL.format("Var"),
    "mindspore.mint.var_mean": _MINT_NO_KERNEL.format("VarMean"),
    "mindspore.mint.linalg.inv": _MINT_NO_KERNEL.format("MatrixInverseExt"),
    "mindspore.mint.linalg.matrix_norm": _MINT_NO_KERNEL.format("LinalgVectorNorm"),
    "mindspore.mint.linalg.norm": _MINT_NO_KERNEL.format("LinalgVectorNorm"),
    "mindspore.mint.linalg.vector_norm": _MINT_NO_KERNEL.format("LinalgVectorNorm"),
    "mindspore.mint.nn.AdaptiveAvgPool2d": _MINT_NO_KERNEL.format("AdaptiveAvgPool2DExt"),
    "mindspore.mint.nn.AvgPool2d": _MINT_NO_KERNEL.format("AvgPool2D"),
    "mindspore.mint.nn.BatchNorm1d": _MINT_NO_KERNEL.format("BatchNormExt"),
    "mindspore.mint.nn.BatchNorm2d": _MINT_NO_KERNEL.format("BatchNormExt"),
    "mindspore.mint.nn.CrossEntropyLoss": _MINT_NO_KERNEL.format("LogSoftmaxExt"),
    "mindspore.mint.nn.ELU": _MINT_NO_KERNEL.format("EluExt"),
    "mindspore.mint.nn.Embedding": _MINT_NO_KERNEL.format("Embedding"),
    "mindspore.mint.nn.GELU": _MINT_NO_KERNEL.format("GeluExt"),
    "mindspore.mint.nn.Hardtanh": _MINT_NO_KERNEL.format("Hardtanh"),
    "mindspore.mint.nn.L1Loss": _MINT_NO_KERNEL.format("L1LossExt"),
    "mindspore.mint.nn.LayerNorm": _MINT_NO_KERNEL.format("LayerNormExt"),
    "mindspore.mint.nn.LogSoftmax": _MINT_NO_KERNEL.format("LogSoftmaxExt"),
    "mindspore.mint.nn.MSELoss": _MINT_NO_KERNEL.format("MSELossExt"),
    "mindspore.mint.nn.MaxPool2d": _MINT_NO_KERNEL.format("FuncMaxPool2D"),
    "mindspore.mint.nn.Mish": _MINT_NO_KERNEL.format("MishExt"),
    "mindspore.mint.nn.ZeroPad2d": _MINT_NO_KERNEL.format("ConstantPadND"),
    "mindspore.mint.nn.functional.adaptive_avg_pool2d":
        _MINT_NO_KERNEL.format("AdaptiveAvgPool2DExt"),
    "mindspore.mint.nn.functional.avg_pool2d": _MINT_NO_KERNEL.format("AvgPool2D"),
    "mindspore.mint.nn.functional.batch_norm": _MINT_NO_KERNEL.format("BatchNormExt"),
    "mindspore.mint.nn.functional.conv1d":
        "MindSpore 2.10 runs it on Ascend only (NotImplementedError on the CPU); graphcell "
        "implements it",
    "mindspore.mint.nn.functional.conv2d": _MINT_NO_KERNEL.format("Conv2DExt"),
    "mindspore.mint.nn.functional.cross_entropy": _MINT_NO_KERNEL.format("LogSoftmaxExt"),
    "mindspore.mint.nn.functional.elu": _MINT_NO_KERNEL.format("EluExt"),
    "mindspore.mint.nn.functional.embedding": _MINT_NO_KERNEL.format("Embedding"),
    "mindspore.mint.nn.functional.gelu": _MINT_NO_KERNEL.format("GeluExt"),
    "mindspore.mint.nn.functional.hardtanh": _MINT_NO_KERNEL.format("Hardtanh"),
    "mindspore.mint.nn.functional.kl_div": _MINT_NO_KERNEL.format("KLDiv"),
    "mindspore.mint.nn.functional.l1_loss": _MINT_NO_KERNEL.format("L1LossExt"),
    "mindspore.mint.nn.functional.layer_norm": _MINT_NO_KERNEL.format("LayerNormExt"),
    "mindspore.mint.nn.functional.leaky_relu": _MINT_NO_KERNEL.format("LeakyReLUExt"),
    "mindspore.mint.nn.functional.log_softmax": _MINT_NO_KERNEL.format("LogSoftmaxExt"),
    "mindspore.mint.nn.functional.logsigmoid": _MINT_NO_KERNEL.format("LogSigmoid"),
    "mindspore.mint.nn.functional.max_pool2d": _MINT_NO_KERNEL.format("FuncMaxPool2D"),
    "mindspore.mint.nn.functional.mish": _MINT_NO_KERNEL.format("MishExt"),
    "mindspore.mint.nn.functional.mse_loss": _MINT_NO_KERNEL.format("MSELossExt"),
    "mindspore.mint.nn.functional.normalize": _MINT_NO_KERNEL.format("LinalgVectorNorm"),
    "mindspore.mint.nn.functional.one_hot": _MINT_NO_KERNEL.format("OneHotExt"),
    "mindspore.mint.nn.functional.pad": _MINT_NO_KERNEL.format("ConstantPadND"),
    "mindspore.mint.nn.functional.relu6": _MINT_NO_KERNEL.format("Hardtanh"),
    "mindspore.mint.nn.functional.selu": _MINT_NO_KERNEL.format("SeLUExt"),
    "mindspore.mint.nn.functional.soft_margin_loss": _MINT_NO_KERNEL.format("SoftMarginLoss"),
    "mindspore.mint.nn.functional.threshold": _MINT_NO_KERNEL.format("Threshold"),
    "mindspore.mint.special.exp2": _MINT_NO_KERNEL.format("Exp2"),
    "mindspore.mint.special.log_softmax": _MINT_NO_KERNEL.format("LogSoftmaxExt"),
})
GAPS.update({
    "mindspore.mint.vdot": "MindSpore 2.10's CPU build raises 'Not implement exception' for it; "
                           "graphcell implements it",
    "mindspore.mint.inverse": _MINT_NO_KERNEL.format("MatrixInverseExt"),
    "mindspore.mint.triangular_solve": _MINT_NO_KERNEL.format("TriangularSolve"),
    "mindspore.mint.conv2d": _MINT_NO_KERNEL.format("Conv2DExt"),
    "mindspore.mint.polar": "graphcell has no complex dtypes (DESIGN: bool, integers, floats)",
    "mindspore.mint.npu_gelu": "an Ascend (NPU) kernel; graphcell runs on the CPU (mint.nn."
                               "functional.gelu computes the same)",
})
_MINT_ASCEND_ONLY = ("MindSpore 2.10 runs it on Ascend only (NotImplementedError on the CPU); "
                     "graphcell implements it")
_MINT_NOT_IMPLEMENTED = ("MindSpore 2.10's CPU build raises 'Not implement exception' (or an "
                         "internal error) for it; graphcell implements it")
GAPS.update({
    "mindspore.mint.arccosh": _MINT_NO_KERNEL.format("AcoshExt"),
    "mindspore.mint.arcsinh": _MINT_NO_KERNEL.format("AsinhExt"),
    "mindspore.mint.bitwise_not": _MINT_NO_KERNEL.format("BitwiseNot"),
    "mindspore.mint.kthvalue": _MINT_NOT_IMPLEMENTED,
    "mindspore.mint.linalg.qr": _MINT_NO_KERNEL.format("LinalgQr"),
    "mindspore.mint.nn.AdaptiveAvgPool1d": _MINT_NO_KERNEL.format("AdaptiveAvgPool1D"),
    "mindspore.mint.nn.AdaptiveAvgPool3d": _MINT_NO_KERNEL.format("AdaptiveAvgPool3DExt"),
    "mindspore.mint.nn.AdaptiveMaxPool1d": _MINT_NO_KERNEL.format("AdaptiveMaxPool1D"),
    "mindspore.mint.nn.AvgPool1d": _MINT_NO_KERNEL.format("AvgPool1D"),
    "mindspore.mint.nn.AvgPool3d": _MINT_NO_KERNEL.format("AvgPool3DExt"),
    "mindspore.mint.nn.BatchNorm3d": _MINT_NO_KERNEL.format("BatchNormExt"),
    "mindspore.mint.nn.ConstantPad1d": _MINT_NO_KERNEL.format("ConstantPadND"),
    "mindspore.mint.nn.ConstantPad2d": _MINT_NO_KERNEL.format("ConstantPadND"),
    "mindspore.mint.nn.ConstantPad3d": _MINT_NO_KERNEL.format("ConstantPadND"),
    "mindspore.mint.nn.Conv1d": _MINT_NO_KERNEL.format("Conv1DExt"),
    "mindspore.mint.nn.Conv2d": _MINT_NO_KERNEL.format("Conv2DExt"),
    "mindspore.mint.nn.Conv3d": _MINT_NO_KERNEL.format("Conv3DExt"),
    "mindspore.mint.nn.ConvTranspose2d": _MINT_NO_KERNEL.format("ConvTranspose2D"),
    "mindspore.mint.nn.CosineEmbeddingLoss": _MINT_NOT_IMPLEMENTED,
    "mindspore.mint.nn.Fold": _MINT_NO_KERNEL.format("Col2ImExt"),
    "mindspore.mint.nn.KLDivLoss": _MINT_NO_KERNEL.format("KLDiv"),
    "mindspore.mint.nn.LogSigmoid": _MINT_NO_KERNEL.format("LogSigmoid"),
    "mindspore.mint.nn.MaxUnpool2d": _MINT_NO_KERNEL.format("MaxUnpool2DExt"),
    "mindspore.mint.nn.ReLU6": _MINT_NO_KERNEL.format("Hardtanh"),
    "mindspore.mint.nn.ReflectionPad1d": _MINT_NO_KERNEL.format("ReflectionPad1D"),
    "mindspore.mint.nn.ReflectionPad2d": _MINT_NO_KERNEL.format("ReflectionPad2D"),
    "mindspore.mint.nn.ReflectionPad3d": _MINT_NO_KERNEL.format("ReflectionPad3D"),
    "mindspore.mint.nn.ReplicationPad1d": _MINT_NO_KERNEL.format("ReplicationPad1D"),
    "mindspore.mint.nn.ReplicationPad2d": _MINT_NO_KERNEL.format("ReplicationPad2D"),
    "mindspore.mint.nn.ReplicationPad3d": _MINT_NO_KERNEL.format("ReplicationPad3D"),
    "mindspore.mint.nn.SELU": _MINT_NO_KERNEL.format("SeLUExt"),
    "mindspore.mint.nn.SoftMarginLoss": _MINT_NO_KERNEL.format("SoftMarginLoss"),
    "mindspore.mint.nn.Threshold": _MINT_NO_KERNEL.format("Threshold"),
    "mindspore.mint.nn.Unfold": _MINT_NO_KERNEL.format("Im2ColExt"),
    "mindspore.mint.nn.UpsamplingBilinear2d": _MINT_NO_KERNEL.format("UpsampleBilinear2D"),
    "mindspore.mint.nn.UpsamplingNearest2d": _MINT_NO_KERNEL.format("UpsampleNearest2D"),
    "mindspore.mint.nn.ZeroPad1d": _MINT_NO_KERNEL.format("ConstantPadND"),
    "mindspore.mint.nn.ZeroPad3d": _MINT_NO_KERNEL.format("ConstantPadND"),
    "mindspore.mint.nn.functional.adaptive_avg_pool1d": _MINT_NO_KERNEL.format("AdaptiveAvgPool1D"),
    "mindspore.mint.nn.functional.adaptive_avg_pool3d":
        _MINT_NO_KERNEL.format("AdaptiveAvgPool3DExt"),
    "mindspore.mint.nn.functional.adaptive_max_pool1d": _MINT_NO_KERNEL.format("AdaptiveMaxPool1D"),
    "mindspore.mint.nn.functional.avg_pool1d": _MINT_NO_KERNEL.format("AvgPool1D"),
    "mindspore.mint.nn.functional.avg_pool3d": _MINT_NO_KERNEL.format("AvgPool3DExt"),
    "mindspore.mint.nn.functional.conv3d": _MINT_ASCEND_ONLY,
    "mindspore.mint.nn.functional.conv_transpose2d": _MINT_NO_KERNEL.format("ConvTranspose2D"),
    "mindspore.mint.nn.functional.cosine_embedding_loss": _MINT_NOT_IMPLEMENTED,
    "mindspore.mint.nn.functional.dropout2d": _MINT_NOT_IMPLEMENTED,
    "mindspore.mint.nn.functional.fold": _MINT_NO_KERNEL.format("Col2ImExt"),
    "mindspore.mint.nn.functional.max_unpool2d": _MINT_NO_KERNEL.format("MaxUnpool2DExt"),
    "mindspore.mint.nn.functional.unfold": _MINT_NO_KERNEL.format("Im2ColExt"),
})
# mint.optim (graphcell/mint/optim.py; tested against PyTorch's rules in numpy:
# tests/graphcell/mint/test_mint_optim.py)
GAPS.update({
    "mindspore.mint.optim.AdamW": "MindSpore 2.10's CPU build has no AdamW kernel (RuntimeError); "
                                  "graphcell's is experimental.optim.AdamW",
    "mindspore.mint.optim.FusedAdamW": "MindSpore 2.10's CPU build has no AdamW kernel "
                                       "(RuntimeError); graphcell's is AdamW",
    "mindspore.mint.optim.Adam": "MindSpore 2.10's CPU build runs it but leaves the parameters "
                                 "unchanged; graphcell implements PyTorch's Adam",
    "mindspore.mint.optim.SGD": "MindSpore 2.10's CPU build runs it but leaves the parameters "
                                "unchanged; graphcell implements PyTorch's SGD",
})
