"""The loss a step's output carries, as the built-in callbacks read it (MindSpore's rule)."""
from __future__ import annotations

import numpy as np

from graphcell.tensor import Tensor


def step_loss(outputs):
    """A Tensor output: its mean as a Python float. A tuple/list output (``(loss, ...)``, as
    ``WithEvalCell`` and loss-scaled steps return): its first item, as it is. Anything else
    unchanged."""
    if isinstance(outputs, (tuple, list)):
        return outputs[0] if outputs and isinstance(outputs[0], Tensor) else outputs
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs.asnumpy()))
    return outputs


def is_bad_loss(loss) -> bool:
    """NaN or infinite (only a float loss is checked)."""
    return isinstance(loss, float) and not np.isfinite(loss)
