"""Print the skeleton of a new primitive: its registry entry and its sample row (STYLE.md §9.3).

Adding an op means one ``defop`` in its family module (``graphcell_ir/ops/<family>.py``) plus one
row in ``tests/graphcell_ir/ops/samples.py``; the registry meta-tests then check infer against
ref, bad inputs, the kernel template and the gradient. Run from a checkout::

    python tools/new_op.py softplus --kind elementwise --operands x --ms-name Softplus
    python tools/new_op.py lrn --operands x --attrs depth_radius:int=5,alpha:float=1.0

and paste the two printed blocks where the comments say.
"""
from __future__ import annotations

import argparse
import keyword
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KINDS = ("elementwise", "reduction", "contraction", "layout", "opaque", "side_effect")
FAMILY = {"elementwise": "elementwise", "reduction": "reduction", "contraction": "contraction",
          "layout": "layout", "opaque": "nn", "side_effect": "effects"}
ATTR_KINDS = ("int", "float", "bool", "str", "dtype", "ints", "opt_ints", "scalar", "index")


def _attr_specs(text: str) -> list[tuple[str, str, str | None]]:
    """``name:kind[=default],...`` -> [(name, kind, default source or None)]."""
    specs = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        m = re.fullmatch(r"(\w+):(\w+)(?:=(.+))?", item)
        if not m or m.group(2) not in ATTR_KINDS:
            raise SystemExit(f"bad attribute {item!r}: write name:kind[=default], kind one of "
                             f"{', '.join(ATTR_KINDS)}")
        specs.append(m.groups())
    return specs


def entry(name: str, kind: str, operands: list[str], attrs, ms_name: str) -> str:
    args = ", ".join(operands)
    kwonly = "".join(f", {a}" for a, _, _ in attrs)
    kwonly = f", *{kwonly}" if attrs else ""
    pad = " " * (len(name) + len(" = defop("))
    attr_list = ", ".join(f'attr("{a}", AttrKind.{k.upper()}' + (f", {d})" if d is not None else ")")
                          for a, k, d in attrs)
    kernel = f'\n{pad}kernel="TODO: a scalar expression, e.g. math.exp({{x}})",' if kind == "elementwise" else ""
    tuple_ops = f'("{operands[0]}",)' if len(operands) == 1 else "(" + ", ".join(f'"{o}"' for o in operands) + ")"
    return f'''# --- paste into graphcell_ir/ops/{FAMILY[kind]}.py ---------------------------------------------

def _{name}_infer({args}{kwonly}):
    """Result type of {name}; raise ShapeError/OpTypeError with a message for the user."""
    raise NotImplementedError  # usually a shared rule from shape_rules.py instead


def _{name}_ref({args}{kwonly}):
    """numpy reference: must return exactly the dtype and shape infer gives (vectorised)."""
    raise NotImplementedError


def bprop_{name}({args}, out, dout{kwonly}):
    """One gradient per operand (None = zero), written only with F.<op> (no numpy)."""
    raise NotImplementedError


{name} = defop("{name}", {tuple_ops}, kind=Kind.{kind.upper()}, ms_name="{ms_name}",
{pad}attrs=[{attr_list}],{kernel}
{pad}infer=_{name}_infer, ref=_{name}_ref, bprop=bprop_{name})  # or bprop=NONDIFF
'''


def row(name: str, kind: str, operands: list[str], attrs) -> str:
    arrays = ", ".join(f"g.array(shape, dt)" for _ in operands)
    attr_dict = ", ".join(f'"{a}": {d if d is not None else "TODO"}' for a, _, d in attrs)
    if kind == "elementwise" and len(operands) <= 2:
        builder = "unary()" if len(operands) == 1 else "binary()"
        return f'''# --- paste into tests/graphcell_ir/ops/samples.py (the _rows of its family) ------------------
_rows["{name}"] = {builder}  # domain: unary(lo, hi), binary(x=(lo, hi), y=(lo, hi)); dtypes=...
'''
    return f'''# --- paste into tests/graphcell_ir/ops/samples.py (the _rows of its family) ------------------

def _{name}(g, dt):
    shape = g.shape(1, 3)
    return ({arrays}{"," if len(operands) == 1 else ""}), {{{attr_dict}}}


_rows["{name}"] = Sample(_{name}, FLOATS, bad=(Bad((T("f32[2,3]"),), {{}}),))  # bad: inputs infer rejects
'''


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("name", help="IR name, snake_case (add, reduce_sum, conv2d)")
    p.add_argument("--kind", choices=KINDS, default="opaque")
    p.add_argument("--operands", default="x", help="comma-separated operand names (default: x)")
    p.add_argument("--attrs", default="", help="name:kind[=default],... (kinds: " + ", ".join(ATTR_KINDS) + ")")
    p.add_argument("--ms-name", default="", help="MindSpore Primitive name (default: CamelCase of name)")
    a = p.parse_args(argv)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", a.name) or keyword.iskeyword(a.name):
        raise SystemExit(f"op names are snake_case identifiers, got {a.name!r}")
    from graphcell_ir.ops import REGISTRY, lookup
    try:
        existing = lookup(a.name)
        raise SystemExit(f"{a.name!r} is already in the registry (as {existing.name!r})")
    except KeyError:
        pass
    operands = [o.strip() for o in a.operands.split(",") if o.strip()]
    attrs = _attr_specs(a.attrs)
    ms_name = a.ms_name or "".join(w.capitalize() for w in a.name.split("_"))
    print(entry(a.name, a.kind, operands, attrs, ms_name))
    print(row(a.name, a.kind, operands, attrs))
    print(f"# then: python3 -m pytest tests/graphcell_ir/ops -q -k {a.name}   ({len(REGISTRY)} ops today)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
