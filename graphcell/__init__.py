"""graphcell: MindSpore's API over a Python graph compiler.

``import graphcell as ms`` runs a MindSpore script. PyNative (the default) runs ``construct`` op by
op; graph mode compiles it through ``graphcell_ir``.

Example::

    >>> import graphcell as ms
    >>> ms.Tensor([1.0, 2.0]) * 2
    Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
"""
from graphcell._version import __version__

from graphcell import dtype
from graphcell.dtype import (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16,
                             float32, float64)
from graphcell.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context, set_device
from graphcell.context import (ParallelMode, get_auto_parallel_context,
                               reset_auto_parallel_context, set_auto_parallel_context)
from graphcell import context
from graphcell.common.seed import get_seed, set_seed
from graphcell.common.generator import (Generator, default_generator, get_rng_state,  # noqa: E402
                                        initial_seed, manual_seed, seed, set_rng_state)
from graphcell.tensor import Tensor
from graphcell import ops

mstype = dtype
from graphcell.autodiff import grad, value_and_grad
from graphcell.parameter import Parameter, ParameterTuple
from graphcell import common
from graphcell import nn
from graphcell.graph.jit import jit, ms_function  # noqa: E402
from graphcell.common.api import jit_class, mutable  # noqa: E402
from graphcell.common.jit_config import JitConfig  # noqa: E402
from graphcell.context import STRICT, COMPATIBLE, LAX  # noqa: E402
from graphcell.dtype import dtype_to_nptype  # noqa: E402
from graphcell._toplevel import tensor, run_check  # noqa: E402
from graphcell import graph  # noqa: E402
from graphcell.runtime import graph_mode as _graph_mode  # noqa: E402
_graph_mode.provide(graph)   # the seam: nn.Cell and gradient functions reach graph mode here
from graphcell.aot import export, load  # noqa: E402
from graphcell import train  # noqa: E402
from graphcell import numpy  # noqa: E402  (mindspore.numpy)
from graphcell import mint  # noqa: E402  (mindspore.mint)
from graphcell.train import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: E402
from graphcell import dataset  # noqa: E402
from graphcell import mindrecord  # noqa: E402
from graphcell import experimental  # noqa: E402
from graphcell import amp  # noqa: E402
from graphcell import device_context, hal, log, profiler, utils  # noqa: E402
from graphcell.log import get_level, get_log_config  # noqa: E402
from graphcell.train.loss_scale_manager import (DynamicLossScaleManager,  # noqa: E402
                                                FixedLossScaleManager, LossScaleManager)
from graphcell import communication, parallel  # noqa: E402
from graphcell.parallel import (Layout, get_algo_parameters, reset_algo_parameters,  # noqa: E402
                                set_algo_parameters, shard)
from graphcell.train import (Model, Callback, CheckpointConfig, EarlyStopping, History,  # noqa: E402
                             LambdaCallback, LearningRateScheduler, LossMonitor, ModelCheckpoint,
                             ReduceLROnPlateau, RunContext, TimeMonitor)
from graphcell.train.metrics import (F1, MAE, MSE, Accuracy, Fbeta, Loss, Metric,  # noqa: E402
                                     Precision, Recall, Top1CategoricalAccuracy,
                                     Top5CategoricalAccuracy, TopKCategoricalAccuracy,
                                     get_metric_fn, names, rearrange_inputs)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore", name, "module 'graphcell'")
