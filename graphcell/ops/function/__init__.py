"""MindSpore's functional API (``mindspore.ops.function``), one module per family.

Each family module declares the functions of its family (``__all__``), the Primitive classes that
alias them, and the Tensor methods that alias them (``TENSOR_METHODS``); ``graphcell.ops``
assembles the three faces from ``MODULES`` (``_faces.assemble``). A function here is either a thin
spelling of one registry primitive or a composite of several, written against
``graphcell_ir.ops.functional``: it runs eagerly in PyNative, graph mode traces it into IR, and its
gradient comes from its parts.
"""
from graphcell.ops.function import array_func, math_func, reduction_func, unary_func
from graphcell.ops.function import index_func, selection_func
from graphcell.ops.function import (creation_func, manip_func, matrix_func, shape_func,
                                    spatial_func)
from graphcell.ops.function import norm_func, scan_func, sort_func
from graphcell.ops.function import (control_func, linalg_func, optim_func, other_func,
                                    random_func, structured_func, window_func)
from graphcell.ops.function import (conv_func, ctc_func, image_func, loss_func, nn_func,
                                    normalization_func, pool_func, rnn_func)  # the nn family
from graphcell.ops.function import comm_func

MODULES = (array_func, math_func, reduction_func, unary_func, index_func, selection_func,
           creation_func, shape_func, manip_func, matrix_func, spatial_func, norm_func,
           scan_func, sort_func, linalg_func, structured_func, random_func, other_func,
           optim_func, window_func, control_func)
MODULES += (nn_func, normalization_func, loss_func, ctc_func, conv_func, pool_func, image_func,
            rnn_func)
MODULES += (comm_func,)

for _m in MODULES:
    globals().update({name: getattr(_m, name) for name in _m.__all__})
del _m
