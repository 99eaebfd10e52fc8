"""The one name of each kernel call site, and what it implements.

A kernel's *key* is the content hash of its source (``KernelSource.key``): the cache key, shared
by every group that lowers to the same source, so it cannot say which group it is. A kernel's
*name* says what one call site computes: ``fused_17_relu_add_mul`` is the fused group whose first
result prints as ``%17`` in the function's IR, holding relu, add and mul; ``relu_42`` is a lone
relu computing ``%42``. The name is unique in its function (IR names are), and the same string
is used everywhere: the runner calls the kernel by it, ``save_graphs`` writes
``kernel_<name>.py``, the runner's IR dump lists it next to its values, the compile report and
the profile (``backend/profile.py``) name it. It never enters the source, so it never changes a
cache key or an artifact's kernels.

    >>> # for %17 = fused(...) { relu, add, mul }
    >>> # kernel_name(op, names) == "fused_17_relu_add_mul"
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from graphcell_ir.ir.core import Op, Value

__all__ = ["Site", "kernel_name", "python_name", "site_of", "MAX_KINDS"]

MAX_KINDS = 4
"""How many op kinds a fused kernel's name lists (then ``_etc``): names stay file-name sized."""


def python_name(ir_name: str) -> str:
    """The runner's variable for the IR value printed ``%<ir_name>``: ``%17`` -> ``v17``,
    ``%fc.weight`` -> ``v_fc_weight`` (the ``v`` keeps them apart from the runner's globals)."""
    if ir_name.isdigit():
        return f"v{ir_name}"
    return "v_" + re.sub(r"\W", "_", ir_name)


def kernel_name(op: Op, names: dict[Value, str]) -> str:
    """The name of the kernel computing ``op`` (a ``fused`` op or a lone elementwise op);
    ``names`` are the function's printed value names (``text.printer.name_values``)."""
    first = re.sub(r"\W", "_", names.get(op.results[0], "x")) if op.results else "x"
    if op.regions:
        kinds: list[str] = []
        for o in op.regions[0].block.ops[:-1]:
            if o.opdef.name not in kinds:
                kinds.append(o.opdef.name)
        tail = "_".join(kinds[:MAX_KINDS]) + ("_etc" if len(kinds) > MAX_KINDS else "")
        return f"fused_{first}_{tail}"
    return f"{op.opdef.name}_{first}"


@dataclass(frozen=True)
class Site:
    """One call site of a compiled function's runner: a kernel or a primitive's implementation.

    ``name``: the kernel's name (:func:`kernel_name`) or the primitive's (``matmul_12``);
    ``kind``: ``"kernel"`` or ``"op"``; ``ops``: the op kinds it computes; ``values``: the IR
    values it defines (``%17``); ``sources``: the user's source lines it implements
    (``net.py:12``, innermost user frame, in op order, each once); ``flops``: the estimated
    floating-point operations of one call (``None`` when unknown)."""

    name: str
    kind: str
    ops: tuple[str, ...]
    values: tuple[str, ...]
    sources: tuple[str, ...]
    flops: int | None


def site_of(op: Op, name: str, kind: str, names: dict[Value, str]) -> Site:
    """The :class:`Site` of ``op`` called as ``name``."""
    inner = list(op.regions[0].block.ops[:-1]) if op.regions and kind == "kernel" else [op]
    sources: list[str] = []
    for o in inner:
        loc = o.loc.user_frame() if o.loc is not None and o.loc.known else None
        if loc is not None:
            text = f"{loc.file}:{loc.line}"
            if text not in sources:
                sources.append(text)
    from graphcell_ir.backend.cost import flops
    return Site(name, kind, tuple(o.opdef.name for o in inner),
                tuple("%" + names[r] for r in op.results if r in names),
                tuple(sources), flops(inner))


def header(site: Site, key: str) -> str:
    """The comment block a dumped kernel file starts with: what it computes and from where."""
    lines = [f"# kernel {site.name} (source hash {key})",
             f"# computes {', '.join(site.values) or '(no results)'}: {', '.join(site.ops)}"]
    lines += [f"# from {s}" for s in site.sources]
    return "\n".join(lines) + "\n"
