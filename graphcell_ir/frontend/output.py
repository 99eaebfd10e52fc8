"""What the frontend hands the runtime: the IR plus how Python values map onto its arguments and
results.

The compiled ``Function``'s signature, in order:

- **arguments**: first the tensor leaves of the positional arguments (``arg_specs``), depth
  first (``input_paths[i]`` is where argument ``i`` sits in the argument tuple: ``(0,)`` for the
  first argument, ``(1, 0)`` for the first element of a tuple given as the second), then those
  of the keyword arguments (``kwarg_specs``; their paths start with the keyword); then one
  ``param`` argument per Parameter the code reads, in order of first use (``params``);
- **results**: first the tensor leaves of the returned value, depth first (``output`` says how to
  rebuild the Python structure: tuples, lists, dicts, and the static leaves that are no results);
  then the final value of each Parameter the code writes (``mutated``), in order of the first
  write while compiling. The runtime writes those back after the call (DESIGN §4).

Example::

    >>> spec = OutSeq((OutResult(0), OutStatic(3), OutSeq((OutResult(1),), list)), tuple)
    >>> rebuild(spec, ["a", "b"])
    ('a', 3, ['b'])
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from graphcell_ir.frontend.resolve import Param
from graphcell_ir.ir.core import Function, Module


@dataclass(frozen=True)
class OutResult:
    """A leaf of the returned structure that is result number ``index`` of the function."""

    index: int


@dataclass(frozen=True)
class OutStatic:
    """A leaf known while compiling (a Python number, a string, None...): not a function result."""

    value: Any


@dataclass(frozen=True)
class OutSeq:
    """A tuple or list (``kind``) of output specs."""

    items: tuple
    kind: type = tuple


@dataclass(frozen=True)
class OutDict:
    """A dict with static ``keys`` and output specs as values."""

    keys: tuple
    items: tuple


Output = OutResult | OutStatic | OutSeq | OutDict


def rebuild(spec: Output, results, wrap: Callable[[Any], Any] = lambda x: x):
    """The Python value described by ``spec``, its results taken from ``results`` (each passed
    through ``wrap``, e.g. to make Tensors of arrays)."""
    if isinstance(spec, OutResult):
        return wrap(results[spec.index])
    if isinstance(spec, OutStatic):
        return spec.value
    if isinstance(spec, OutSeq):
        return spec.kind(rebuild(s, results, wrap) for s in spec.items)
    return {k: rebuild(s, results, wrap) for k, s in zip(spec.keys, spec.items)}


@dataclass(frozen=True, eq=False)
class CompiledFrontend:
    """The frontend's result for one function specialised to one signature.

    ``module`` holds ``function`` (verified); see the module docstring for the order of its
    arguments and results. ``params`` and ``mutated`` are the resolver's ``Param`` records
    (``.key`` is the Parameter object). ``warnings`` are messages the user should see once.
    ``attr_writes`` are ``(object, attribute name, output spec)`` of the attributes to set after
    a successful run (their ``OutResult`` indices count among the results before ``mutated``).
    """

    module: Module
    function: Function
    input_paths: tuple[tuple[int, ...], ...]
    params: tuple[Param, ...]
    mutated: tuple[Param, ...]
    output: Output
    warnings: tuple[str, ...] = ()
    attr_writes: tuple = ()

    @property
    def param_keys(self) -> tuple:
        """The Parameter objects passed as the ``param`` arguments, in order."""
        return tuple(p.key for p in self.params)

    @property
    def mutated_keys(self) -> tuple:
        """The Parameter objects whose new values are the extra results, in order."""
        return tuple(p.key for p in self.mutated)

    @property
    def num_user_results(self) -> int:
        return len(self.function.result_types or ()) - len(self.mutated)

    def flatten_args(self, args: tuple, kwargs: dict | None = None) -> list:
        """The values of the tensor arguments, taken from the actual ``args`` and ``kwargs``."""
        out = []
        for path in self.input_paths:
            v = kwargs[path[0]] if isinstance(path[0], str) else args[path[0]]
            for i in path[1:]:
                v = v[i]
            out.append(v)
        return out

    def split_results(self, results, wrap: Callable[[Any], Any] = lambda x: x):
        """``(returned Python value, [new value of each mutated Parameter])`` from the function's
        results."""
        results = list(results)
        n = self.num_user_results
        return rebuild(self.output, results[:n], wrap), results[n:]
