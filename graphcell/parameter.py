"""``Parameter`` and ``ParameterTuple``: the trainable state of a network.

A ``Parameter`` is a ``Tensor`` with a name and a ``requires_grad`` flag. Operators on it give
plain Tensors; ``set_data`` and index assignment (``p[0] = 1.``) change it in place, so every cell
and optimizer holding it sees the new value. Parameters hash by identity (they are the keys of
``{param: grad}`` dicts); ``==`` compares element-wise, as on any Tensor and as in MindSpore.

Naming follows MindSpore: an unnamed Parameter is called ``Parameter#<n>`` until a Cell adopts
it, and a Cell renames the parameters of a sub-cell to their attribute path (``conv1.weight``).

Example::

    >>> import numpy as np
    >>> from graphcell import Parameter, ParameterTuple, Tensor
    >>> w = Parameter(Tensor(np.ones((5, 3)), "float32"), name="w")
    >>> w
    Parameter (name=w, shape=(5, 3), dtype=Float32, requires_grad=True)
    >>> ParameterTuple((w,)).clone("copy")
    (Parameter (name=copy.w, shape=(5, 3), dtype=Float32, requires_grad=True),)
"""
from __future__ import annotations

import itertools
import re

import numpy as np

from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, int32

__all__ = ["Parameter", "ParameterTuple"]

GENERATED_NAME_PREFIX = "Parameter#"
_NAME_MAX_LEN = 1024
_name_ids = itertools.count()
_PREFIX_RE = re.compile(r"^\w+[0-9a-zA-Z_.]*$", re.ASCII)


def generated_name() -> str:
    """A fresh default name (``Parameter#0``, ``Parameter#1``, ...), as MindSpore numbers them."""
    return f"{GENERATED_NAME_PREFIX}{next(_name_ids)}"


def is_generated_name(name) -> bool:
    """True for names made by :func:`generated_name`; a Cell replaces them by attribute names."""
    return isinstance(name, str) and name.startswith(GENERATED_NAME_PREFIX)


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _initial_array(default_input) -> np.ndarray:
    """A private copy of ``default_input``'s values, with MindSpore's dtype rules for Parameters."""
    if isinstance(default_input, (bool, np.bool_)):
        # MindSpore refuses this too: a bool flag passed by mistake would make a 0-d Bool parameter.
        raise ValueError("Parameter: default_input cannot be a bool; pass a Tensor such as "
                         "Tensor(True) for a boolean parameter")
    if isinstance(default_input, Tensor):
        return default_input._data.copy()
    if isinstance(default_input, int):
        return np.asarray(default_input, dtype=int32.np_dtype)  # MindSpore: Parameter(2) is Int32
    if isinstance(default_input, float):
        return np.asarray(default_input, dtype=float32.np_dtype)
    if isinstance(default_input, (np.ndarray, np.generic, list, tuple)):
        return Tensor(default_input)._data.copy()
    raise TypeError(f"Parameter: default_input must be a Tensor, a numpy array, a Python int or "
                    f"float, a list of numbers, or the result of initializer(...); got "
                    f"{type(default_input).__name__} {_short(default_input)}")


def _check_bool(owner: str, what: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: {what} must be a bool, got {type(value).__name__} {_short(value)}")
    return value


class Parameter(Tensor):
    """A named, trainable Tensor.

    ``Parameter(default_input, name=None, requires_grad=True, layerwise_parallel=False,
    parallel_optimizer=True)``. ``default_input`` may be a Tensor (copied), a numpy array, a list,
    a Python float (0-d Float32), a Python int (0-d Int32) or an ``initializer(...)`` result.

    Example::

        >>> from graphcell import Parameter, Tensor
        >>> b = Parameter(Tensor([1.0, 2.0, 3.0]), name="b")
        >>> b.set_data(Tensor([3, 4, 5])).asnumpy()   # cast to the parameter's Float32
        array([3., 4., 5.], dtype=float32)
        >>> Parameter(2.0, name="z")
        Parameter (name=z, shape=(), dtype=Float32, requires_grad=True)
    """

    # No __slots__: a Parameter carries a __dict__ (name, flags, and whatever optimizers attach).

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True, storage_format="", device=None):
        self._data = _initial_array(default_input)
        self._node = None
        self.name = name
        self.requires_grad = requires_grad
        self.layerwise_parallel = _check_bool("Parameter", "layerwise_parallel", layerwise_parallel)
        self.parallel_optimizer = _check_bool("Parameter", "parallel_optimizer", parallel_optimizer)
        self.sliced = False
        self.is_init = False
        self.init_mode = None       # MindSpore's pending Initializer; graphcell initialises at once
        self.inited_param = None

    # --- identity and flags ------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The parameter's name; setting None or '' gives a fresh ``Parameter#<n>`` name."""
        return self._name

    @name.setter
    def name(self, name_) -> None:
        if name_ is None:
            name_ = generated_name()
        elif isinstance(name_, str):
            name_ = name_.strip() or generated_name()
            if len(name_) > _NAME_MAX_LEN:
                raise ValueError(f"Parameter: a name may have at most {_NAME_MAX_LEN} characters, "
                                 f"got {len(name_)} ({_short(name_)})")
        else:  # ValueError, as MindSpore raises for this
            raise ValueError(f"Parameter: name must be a str or None, got {type(name_).__name__} "
                             f"{_short(name_)}")
        self.__dict__["_name"] = name_

    @property
    def requires_grad(self) -> bool:
        """Whether optimizers and ``grad(..., weights)`` treat this parameter as trainable."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        self.__dict__["_requires_grad"] = _check_bool(f"Parameter '{self.name}'", "requires_grad",
                                                      value)

    @property
    def data(self) -> "Parameter":
        """The parameter itself (MindSpore 1.x semantics: writes through); assigning calls set_data."""
        return self

    @data.setter
    def data(self, value) -> None:
        self.set_data(value)

    @property
    def has_init(self) -> bool:
        """Always False: graphcell initialises parameters when they are made."""
        return False

    # --- changing the value ------------------------------------------------------------------

    def set_data(self, data, slice_shape=False) -> "Parameter":
        """Replace the value with ``data`` (a Tensor, int or float); returns the parameter.

        The parameter keeps its dtype (a Tensor of another dtype is cast) and takes ``data``'s
        shape (a number gives a 0-d parameter, as in MindSpore). On error nothing changes.

        Example::

            >>> from graphcell import Parameter, Tensor
            >>> p = Parameter(Tensor([1.0, 2.0]), name="p")
            >>> p.set_data(Tensor([7, 8, 9])).shape
            (3,)
        """
        self._data = self._converted(data)
        self.sliced = slice_shape
        return self

    def _converted(self, data) -> np.ndarray:
        """``data`` as a new array of this parameter's dtype; raises before anything changes."""
        target = self._data.dtype
        if isinstance(data, Tensor):
            return data._data.astype(target, copy=True)
        if isinstance(data, (int, float)):  # bool is an int: True sets 1
            if isinstance(data, float) and target.kind in "iu":
                raise TypeError(f"Parameter.set_data: parameter '{self.name}' has dtype "
                                f"{self.dtype} and cannot take the float {data!r} implicitly; pass "
                                f"a Tensor to cast it explicitly")
            return np.asarray(data, dtype=target)
        raise TypeError(f"Parameter.set_data: parameter '{self.name}' expects a Tensor, int or "
                        f"float, got {type(data).__name__} {_short(data)}")

    def init_data(self, layout=None, set_sliced=False) -> "Parameter":
        """The initialised parameter: itself, since graphcell initialises at once."""
        return self

    def value(self) -> Tensor:
        """The current value as a plain Tensor: a snapshot, as in MindSpore 2.10 (a graph-mode
        train step updates the parameter's own array in place; ``Tensor(p)`` and
        ``p.asnumpy()`` share it and see the update, ``p.value()`` does not).

        Example::

            >>> from graphcell import Parameter, Tensor
            >>> p = Parameter(Tensor([1.0, 2.0]), name="p")
            >>> v = p.value(); p.asnumpy()[0] = 5.0
            >>> v.asnumpy().tolist()
            [1.0, 2.0]
        """
        return Tensor._wrap(self._data.copy())

    # --- copies ------------------------------------------------------------------------------

    def clone(self, init="same") -> "Parameter":
        """A new Parameter with this one's name, flags, shape and dtype.

        ``init='same'`` copies the values; otherwise ``init`` is anything ``initializer`` takes
        (a name such as ``'zeros'``, a number, a Tensor of the same shape, an Initializer).

        Example::

            >>> from graphcell import Parameter, Tensor
            >>> Parameter(Tensor([1.0, 2.0]), name="p").clone(init="zeros").asnumpy()
            array([0., 0.], dtype=float32)
        """
        new = Parameter(Tensor._wrap(self._data), name=self.name, requires_grad=self.requires_grad,
                        layerwise_parallel=self.layerwise_parallel,
                        parallel_optimizer=self.parallel_optimizer)
        if not (isinstance(init, str) and init == "same"):
            from graphcell.common.initializer import initializer  # graphcell.common imports us
            new.set_data(initializer(init, self.shape, self.dtype))
        return new

    def copy(self) -> "Parameter":
        """Same as ``clone()``."""
        return self.clone()

    def __deepcopy__(self, memo) -> "Parameter":
        new = self.clone()
        memo[id(self)] = new
        return new

    # --- printing ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={str(self.dtype)}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__  # MindSpore prints a Parameter the same way with print() and repr()


class ParameterTuple(tuple):
    """A tuple of Parameters with distinct names; ``clone(prefix)`` copies them all.

    Example::

        >>> from graphcell import Parameter, ParameterTuple
        >>> params = ParameterTuple((Parameter(2.0, name="z"),))
        >>> params.clone("params_copy")
        (Parameter (name=params_copy.z, shape=(), dtype=Float32, requires_grad=True),)
    """

    def __new__(cls, iterable=()):
        items = tuple(iterable)
        _check_parameters(items)
        return tuple.__new__(cls, items)

    def clone(self, prefix, init="same") -> "ParameterTuple":
        """Clone every parameter, renamed ``<prefix>.<name>``; ``init`` as in ``Parameter.clone``.

        A parameter listed twice is cloned once, so the result holds the same clone twice.
        """
        if not isinstance(prefix, str):
            raise TypeError(f"ParameterTuple.clone: prefix must be a str, got "
                            f"{type(prefix).__name__} {_short(prefix)}")
        if not _PREFIX_RE.match(prefix):
            raise ValueError(f"ParameterTuple.clone: prefix {prefix!r} is not a valid name prefix; "
                             "use letters, digits, '_' and '.', starting with a letter, digit or '_'")
        clones: dict[int, Parameter] = {}
        for param in self:
            if id(param) not in clones:
                new = param.clone(init)
                new.name = f"{prefix}.{param.name}"
                clones[id(param)] = new
        return ParameterTuple(clones[id(p)] for p in self)


def _check_parameters(items: tuple) -> None:
    """Every item is a Parameter, and distinct Parameters have distinct names."""
    owners: dict[str, Parameter] = {}
    for i, item in enumerate(items):
        if not isinstance(item, Parameter):
            raise TypeError(f"ParameterTuple: every item must be a Parameter, but item {i} is "
                            f"{type(item).__name__} {_short(item)}")
        first = owners.setdefault(item.name, item)
        if first is not item:
            raise ValueError(f"ParameterTuple: two different Parameters are named '{item.name}' "
                             f"(items {_index_of(items, first)} and {i}); give each a unique name")


def _index_of(items: tuple, target) -> int:
    return next(i for i, x in enumerate(items) if x is target)
