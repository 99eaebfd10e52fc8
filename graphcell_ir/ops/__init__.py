"""The op registry, populated by the family modules and then frozen.

``REGISTRY`` maps IR names to ``OpDef``s; ``lookup`` also accepts aliases (``gt`` for ``greater``).
"""
from graphcell_ir.ops.registry import (NONDIFF, REGISTRY, Attr, AttrKind, Kind, OpDef, Trait, attr,
                                       lookup, register_custom_op)
from graphcell_ir.ops import elementwise, reduction, contraction, layout  # noqa: F401  (declare ops)
from graphcell_ir.ops import nn, conv, effects  # noqa: F401  (declare ops)
from graphcell_ir.ops import indexing  # noqa: F401  (declare ops)
from graphcell_ir.ops import binary_math  # noqa: F401  (declare ops)
from graphcell_ir.ops import unary_math  # noqa: F401  (declare ops)
from graphcell_ir.ops import scan, sort  # noqa: F401  (declare ops)
from graphcell_ir.ops import boxes, linalg, random  # noqa: F401  (declare ops)
from graphcell_ir.ops import activation  # noqa: F401  (declare ops)
from graphcell_ir.ops import collective  # noqa: F401  (declare ops)
from graphcell_ir.ops.registry import freeze as _freeze

_freeze()

__all__ = ["REGISTRY", "NONDIFF", "Attr", "AttrKind", "Kind", "OpDef", "Trait", "attr", "lookup",
           "register_custom_op"]
