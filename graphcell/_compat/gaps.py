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
GAPS.update({})

# --- nn functional: activations, losses, normalization, dropout -------------------------------------
GAPS.update({})

# --- nn functional: convolution, pooling, resizing -------------------------------------------------
GAPS.update({})

# --- random, linear algebra, matrix products --------------------------------------------------------
GAPS.update({})

# --- optimizer primitives, state, effects, framework functions --------------------------------------
GAPS.update({})
