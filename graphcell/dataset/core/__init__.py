"""``mindspore.dataset.core``: the pipeline's configuration (``config``) and its errors."""
from graphcell.dataset.core import config, errors

__all__ = ["config", "errors"]
