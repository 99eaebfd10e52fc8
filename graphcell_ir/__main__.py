"""``python -m graphcell_ir FILE.gcir``: read, verify and print IR (an ``mlir-opt`` for graphcell).

::

    python -m graphcell_ir net.gcir                  # parse, verify, print back
    python -m graphcell_ir net.gcir --locs none      # print without locations
    python -m graphcell_ir net.gcir --emit dot -o net.dot
    python -m graphcell_ir - < net.gcir              # read stdin
    python -m graphcell_ir net.gcir -p simplify,cse,dce      # run passes, print the result
    python -m graphcell_ir net.gcir -p default --report --dump-dir dumps/

``-p`` takes pass names and pipeline names (``default``, ``cleanup``...; see
``graphcell_ir.passes.pipelines``); the IR is verified after every pass unless ``--no-verify``.
``--report`` prints what each pass did to stderr, ``--dump-dir`` writes the IR after every pass
that changed it, ``--print-after cse,fuse`` prints it to stderr after those passes.
Errors print their message, without a traceback, and exit with status 1.
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
                    help="comma-separated passes or pipelines to run, in order "
                         "(e.g. -p simplify,cse,dce or -p default)")
    ap.add_argument("--report", action="store_true",
                    help="print what each pass did (changed, op counts, time) to stderr")
    ap.add_argument("--dump-dir", default=None,
                    help="write the IR after every pass that changed it to this directory")
    ap.add_argument("--print-after", default=None,
                    help="print the IR to stderr after these passes (comma-separated, or all)")
    ap.add_argument("--locs", choices=LOC_MODES, default="user",
                    help="how to print locations (default: user)")
    ap.add_argument("--emit", choices=("gcir", "dot", "svg"), default="gcir",
                    help="output format (svg needs Graphviz's dot on PATH)")
    ap.add_argument("-o", "--output", default="-", help="where to write ('-' for stdout)")
    ap.add_argument("--no-verify", action="store_true", help="do not run the verifier")
    ap.add_argument("--require-locs", action="store_true",
                    help="reject ops without a source location")
    return ap


def run_passes(module, names: Sequence[str], verify_each: bool, *, report: bool = False,
               dump_dir: str | None = None, print_after: str | None = None) -> list:
    """Run the named passes (or pipelines) on ``module`` in place; returns the PassReports."""
    if not names:
        return []
    from graphcell_ir.passes import PassManager, format_reports, resolve
    from graphcell_ir.passes.pipelines import parse_pipeline
    manager = PassManager(resolve(names), verify_each=verify_each, dump_dir=dump_dir,
                          print_after=None if print_after is None else parse_pipeline(print_after))
    reports = manager.run(module)
    if report:
        print(format_reports(reports), file=sys.stderr)
    return reports


def opt(text: str | bytes, *, filename: str = "<string>", passes: str = "", locs: str = "user",
        emit: str = "gcir", verify: bool = True, require_locs: bool = False,
        report: bool = False, dump_dir: str | None = None,
        print_after: str | None = None) -> str:
    """What the command line does, as a function: parse, verify, run ``passes``, render."""
    from graphcell_ir.ir.verify import verify as verify_ir
    from graphcell_ir.passes.pipelines import parse_pipeline
    from graphcell_ir.text.parser import parse_module
    module = parse_module(text, filename=filename)
    if verify:
        verify_ir(module, require_locs=True if require_locs else None)
    run_passes(module, parse_pipeline(passes), verify_each=verify, report=report,
               dump_dir=dump_dir, print_after=print_after)
    return _render(module, emit, locs)


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
        text, name = _read(args.file)
        out = opt(text, filename=name, passes=args.passes, locs=args.locs, emit=args.emit,
                  verify=not args.no_verify, require_locs=args.require_locs,
                  report=args.report, dump_dir=args.dump_dir, print_after=args.print_after)
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
