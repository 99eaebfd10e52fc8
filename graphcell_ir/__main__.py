"""``python -m graphcell_ir FILE.gcir``: read, verify and print IR (an ``mlir-opt`` for graphcell).

::

    python -m graphcell_ir net.gcir                  # parse, verify, print back
    python -m graphcell_ir net.gcir --locs none      # print without locations
    python -m graphcell_ir net.gcir --emit dot -o net.dot
    python -m graphcell_ir - < net.gcir              # read stdin

``-p pass1,pass2`` is reserved for the pass pipeline (the pass manager hooks into
``run_passes``). Errors print their message, without a traceback, and exit with status 1.
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from graphcell_ir.errors import GraphcellError
from graphcell_ir.text.printer import LOC_MODES


def build_arg_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m graphcell_ir",
                                 description="Read, verify and print graphcell IR (.gcir).")
    ap.add_argument("file", help="the .gcir file to read ('-' for standard input)")
    ap.add_argument("-p", "--passes", default="",
                    help="comma-separated passes to run, in order (e.g. -p simplify,cse,dce)")
    ap.add_argument("--locs", choices=LOC_MODES, default="user",
                    help="how to print locations (default: user)")
    ap.add_argument("--emit", choices=("gcir", "dot", "svg"), default="gcir",
                    help="output format (svg needs Graphviz's dot on PATH)")
    ap.add_argument("-o", "--output", default="-", help="where to write ('-' for stdout)")
    ap.add_argument("--no-verify", action="store_true", help="do not run the verifier")
    ap.add_argument("--require-locs", action="store_true",
                    help="reject ops without a source location")
    return ap


def run_passes(module, names: Sequence[str], verify_each: bool) -> None:
    """Run the named passes on ``module`` in order (the pass manager plugs in here)."""
    if names:
        raise GraphcellError(f"cannot run passes {', '.join(names)}: no pass pipeline is "
                             "available in this version of graphcell_ir")


def _read(path: str) -> tuple[str, str]:
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    with open(path, "rb") as f:
        return f.read(), path


def _render(module, emit: str, locs: str) -> str:
    if emit == "dot":
        from graphcell_ir.ir.export import to_dot
        return to_dot(module)
    if emit == "svg":
        from graphcell_ir.ir.export import to_svg
        return to_svg(module)
    from graphcell_ir.text.printer import print_module
    return print_module(module, locs=locs)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    try:
        from graphcell_ir.ir.verify import verify
        from graphcell_ir.text.parser import parse_module
        text, name = _read(args.file)
        module = parse_module(text, filename=name)
        require = True if args.require_locs else None
        if not args.no_verify:
            verify(module, require_locs=require)
        passes = [p.strip() for p in args.passes.split(",") if p.strip()]
        run_passes(module, passes, verify_each=not args.no_verify)
        out = _render(module, args.emit, args.locs)
        if args.output == "-":
            sys.stdout.write(out)
        else:
            with open(args.output, "w") as f:
                f.write(out)
    except (GraphcellError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
