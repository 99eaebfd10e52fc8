"""``mindspore.Generator`` and the default generator's functions (``manual_seed``, ``seed``,
``initial_seed``, ``get_rng_state``, ``set_rng_state``).

A :class:`Generator` is a stream of random numbers of its own: the random ops and Tensor methods
that take ``generator=`` (``Tensor.uniform_``, ``normal_``, ``bernoulli``...) draw from it in
PyNative mode, so two generators seeded alike give the same draws whatever else the program
draws. Its state is an opaque Tensor (``get_state``/``set_state``) that restores the stream
exactly. ``default_generator`` is the stream every other random op draws from — the one
``ms.set_seed`` also seeds. The numbers themselves are numpy's, never MindSpore's (no two
generators share values).

Example::

    >>> import graphcell as ms
    >>> g = ms.Generator().manual_seed(5)
    >>> state = g.get_state()
    >>> a = ms.Tensor([0.0, 0.0]).uniform_(generator=g)
    >>> _ = g.set_state(state)
    >>> b = ms.Tensor([0.0, 0.0]).uniform_(generator=g)
    >>> bool((a == b).all())
    True
"""
from __future__ import annotations

import json
import secrets

import numpy as np

from graphcell_ir.ops import random as op_random

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state"]

_MASK64 = (1 << 64) - 1  # numpy takes non-negative seeds; MindSpore's may be negative


def _check_seed(seed) -> int:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"Seed must be an integer, got {type(seed).__name__}")
    return int(seed)


def _rng_of(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed & _MASK64)


class Generator:
    """A random stream: ``Generator()`` starts from seed 0, as MindSpore's does."""

    def __init__(self):
        self._seed = 0
        self._own = _rng_of(0)

    @property
    def _rng(self) -> np.random.Generator:
        return self._own

    def _reset(self, seed: int) -> None:
        self._own = _rng_of(seed)

    def manual_seed(self, seed) -> Generator:
        """Restart the stream from ``seed`` (any int); returns the generator."""
        self._seed = _check_seed(seed)
        self._reset(self._seed)
        return self

    def seed(self) -> int:
        """Restart the stream from a fresh random seed, and return that seed."""
        self.manual_seed(secrets.randbits(63))
        return self._seed

    def initial_seed(self) -> int:
        """The seed the stream was last started from."""
        return self._seed

    def get_state(self):
        """The stream's state as a Tensor (opaque: give it to :meth:`set_state`)."""
        from graphcell.tensor import Tensor
        state = {"seed": self._seed, "bit_generator": self._rng.bit_generator.state}
        text = json.dumps(state, default=_jsonable)
        return Tensor(np.frombuffer(text.encode(), np.uint8).copy())

    def set_state(self, state) -> Generator:
        """Put the stream back where :meth:`get_state` found it; returns the generator."""
        from graphcell.tensor import Tensor
        if not isinstance(state, Tensor) or state.ndim != 1 or str(state.dtype) != "UInt8":
            raise TypeError("Generator.set_state: expected a state Tensor from get_state, got "
                            f"{type(state).__name__}")
        try:
            saved = json.loads(state.asnumpy().tobytes().decode())
            rng = np.random.default_rng()
            rng.bit_generator.state = saved["bit_generator"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise ValueError("Generator.set_state: the Tensor is not a state from get_state")
        self._seed = saved["seed"]
        self._set_rng(rng)
        return self

    def _set_rng(self, rng: np.random.Generator) -> None:
        self._own = rng


class _DefaultGenerator(Generator):
    """The stream of every random op: graphcell_ir's generator (``ms.set_seed`` seeds it too)."""

    @property
    def _rng(self) -> np.random.Generator:
        return op_random.generator()

    def _reset(self, seed: int) -> None:
        op_random.set_generator(_rng_of(seed))

    def _set_rng(self, rng: np.random.Generator) -> None:
        op_random.set_generator(rng)


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError(f"cannot store {type(value).__name__} in a generator state")


default_generator = _DefaultGenerator()


def manual_seed(seed) -> Generator:
    """Restart the default generator from ``seed``; returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Restart the default generator from a fresh random seed, and return that seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last started from."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (see :meth:`Generator.get_state`)."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    """Restore the default generator's state from :func:`get_rng_state`."""
    default_generator.set_state(state)


def drawing_from(generator):
    """The context in which random ops draw from ``generator`` (None: the default stream)."""
    from contextlib import nullcontext
    if generator is None or generator is default_generator:
        return nullcontext()
    if not isinstance(generator, Generator):
        raise TypeError(f"'generator' must be a mindspore Generator or None, got "
                        f"{type(generator).__name__}")
    return op_random.drawing_from(generator._rng)
