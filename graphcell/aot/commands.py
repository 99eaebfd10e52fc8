"""The ``graphcell`` subcommands of ahead-of-time work: ``ir``, ``export``, ``run``, ``precompile``.

Each is an ``(add_arguments, run)`` pair that ``graphcell/cli.py`` registers in ``_SUBCOMMANDS``;
``run(args)`` returns the exit status (1 with a one-line ``error:`` message for a bad file, spec,
artifact or network — no traceback).

Example::

    >>> import argparse
    >>> p = argparse.ArgumentParser(); add_ir_arguments(p)
    >>> p.parse_args(["net.py:Net", "--input", "f32[2,3]", "--all-passes"]).all_passes
    True
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from graphcell_ir.errors import GraphcellError

__all__ = ["COMMANDS"]

FORMATS = ("text", "dot", "svg", "html")
_INPUT_HELP = ("an example input, DTYPE[DIMS] (f32[32,1,32,32], i32[32], f32[]); repeat for "
               "each input, in order")


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def _write(text: str, out: str | None) -> None:
    if out in (None, "-"):
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)


def _guarded(run):
    """Errors a user can cause print one line and exit 1."""
    from graphcell.aot.targets import TargetError

    def wrapper(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except (GraphcellError, TargetError, OSError, TypeError, ValueError) as e:
            return _fail(str(e))
    wrapper.__doc__ = run.__doc__
    return wrapper


# --- graphcell ir --------------------------------------------------------------------------------

def add_ir_arguments(p: argparse.ArgumentParser) -> None:
    from graphcell_ir.passes.pipelines import DEFAULT
    p.add_argument("target", metavar="FILE.py:NAME",
                   help="NAME in FILE.py: a Cell class (built with no arguments), a Cell or a "
                        "function")
    p.add_argument("--input", action="append", default=[], metavar="SPEC", help=_INPUT_HELP)
    p.add_argument("--grad", action="store_true",
                   help="the gradient instead: ms.grad(NAME, grad_position=0, weights=its "
                        "trainable params), forward and backward as one function")
    stage = p.add_mutually_exclusive_group()
    stage.add_argument("--after", metavar="PASS", choices=["frontend", *DEFAULT],
                       help=f"the IR after this pass ({', '.join(['frontend', *DEFAULT])}); "
                            "default: the final IR graph mode runs")
    stage.add_argument("--all-passes", action="store_true",
                       help="the IR from the frontend and after every pass, each under a header")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="text (.gcir), Graphviz dot, svg (drawn by Graphviz's dot when it is "
                        "on PATH, else by matplotlib: pip install 'graphcell[pictures]'), or html "
                        "(every stage side by side on one page, with the summary)")
    p.add_argument("--svg", dest="format", action="store_const", const="svg",
                   help="the same as --format svg")
    p.add_argument("--svg-engine", choices=("graphviz", "matplotlib"), default=None,
                   help="who draws the SVG (default: graphviz when its dot is on PATH)")
    p.add_argument("--summary", action="store_true",
                   help="a one-screen summary instead of the IR: inputs, parameters, ops per "
                        "kind, fused groups and their ops, estimated FLOPs and bytes")
    p.add_argument("--locs", choices=("user", "full", "none"), default="user",
                   help="source locations in text: user (the user's line and the cells, "
                        "default), full (every inlined frame) or none")
    p.add_argument("--width", type=int, default=100, metavar="N",
                   help="the line length text aims at: long ops continue after a comma, a loc "
                        "that does not fit goes on the next line (0: one line per op)")
    p.add_argument("-o", "--output", default=None, metavar="OUT", help="write here, not stdout")


@_guarded
def run_ir(args: argparse.Namespace) -> int:
    from graphcell.aot.targets import example_inputs, ir_stages, load_target
    net = load_target(args.target)
    if args.width < 0 or 0 < args.width < 20:
        return _fail(f"--width must be 0 (one line per op) or at least 20, got {args.width}")
    stages = ir_stages(net, example_inputs(args.input), grad=args.grad, locs=args.locs,
                       width=args.width or None)
    if args.format == "html" and not args.summary:
        return _html_page(args, stages)
    if args.after:
        stages = [next(s for s in stages if s[0] == args.after)]
    elif not args.all_passes:
        stages = stages[-1:]
    if args.format == "svg" and len(stages) > 1:
        return _fail("--format svg draws one stage: use --after PASS, not --all-passes")
    parts = [_render(name, text, consts, args, len(stages) > 1) for name, text, consts in stages]
    _write("\n".join(parts), args.output)
    return 0


def _html_page(args: argparse.Namespace, stages: list) -> int:
    """Every stage side by side (or the one --after names), with the final IR's summary."""
    from graphcell_ir.text.page import stages_html
    from graphcell_ir.text.parser import parse_module
    from graphcell_ir.text.summary import summarize
    if args.after:
        stages = [s for s in stages if s[0] == args.after]
    final_text, final_consts = stages[-1][1], stages[-1][2]
    summary = str(summarize(parse_module(final_text, consts=final_consts)))
    _write(stages_html([(name, text) for name, text, _ in stages], args.target, summary),
           args.output)
    return 0


def _render(stage: str, text: str, consts: dict, args: argparse.Namespace, header: bool) -> str:
    head = f"// ----- IR after {stage} -----\n" if header else ""
    if args.format == "text" and not args.summary:
        return head + text
    from graphcell_ir.ir.export import to_dot, to_svg
    from graphcell_ir.text.parser import parse_module
    module = parse_module(text, consts=consts)
    if args.summary:
        from graphcell_ir.text.summary import summarize
        return head + str(summarize(module, width=args.width or 100))
    if args.format == "dot":
        return head + to_dot(module)
    return head + to_svg(module, engine=args.svg_engine)


# --- graphcell export ----------------------------------------------------------------------------

def add_export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="FILE.py:NAME",
                   help="NAME in FILE.py: a Cell class (built with no arguments), a Cell (a "
                        "TrainOneStepCell exports a training step) or a function")
    p.add_argument("--input", action="append", default=[], metavar="SPEC", help=_INPUT_HELP)
    p.add_argument("-o", "--output", required=True, metavar="OUT.gcpkg",
                   help="the file to write (.gcpkg, or .onnx with --format onnx, is added when "
                        "missing)")
    p.add_argument("--ckpt", default=None, metavar="PATH",
                   help="a checkpoint (MindSpore's .ckpt or .safetensors, as save_checkpoint "
                        "writes it) to load into the network first, so the artifact carries the "
                        "trained weights; every parameter must be in it")
    p.add_argument("--format", default="gcir", type=str.lower, choices=("gcir", "onnx"),
                   help="gcir: graphcell's artifact (default); onnx: an ONNX model of the "
                        "inference graph (needs the onnx package: pip install 'graphcell[onnx]')")
    p.add_argument("--no-native", action="store_true",
                   help="leave out the kernels' object code for this CPU (what "
                        "'graphcell run --native' links instead of compiling)")


@_guarded
def run_export(args: argparse.Namespace) -> int:
    import os

    from graphcell.aot import export
    from graphcell.aot.targets import example_inputs, load_target
    net = load_target(args.target)
    start = time.perf_counter()
    path = export(net, *example_inputs(args.input), file_name=args.output,
                  file_format=args.format.upper(), native=not args.no_native,
                  ckpt_file_name=args.ckpt)
    print(f"wrote {path} ({os.path.getsize(path)} bytes) in {time.perf_counter() - start:.2f} s")
    return 0


# --- graphcell run -------------------------------------------------------------------------------

def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("artifact", metavar="ARTIFACT", help="a .gcpkg written by graphcell export")
    p.add_argument("--input", action="append", default=[], metavar="X.npy",
                   help="an input array (.npy, read without pickle); repeat for each input")
    p.add_argument("-o", "--output", default=None, metavar="Y.npy",
                   help="save the output (.npy for one tensor, .npz for several: out0, out1...); "
                        "default: print it")
    p.add_argument("--native", action="store_true",
                   help="link the artifact's native kernels instead of compiling them (the IR "
                        "path runs, with a warning, when they cannot run on this CPU); the "
                        "artifact must be signed with the key in GRAPHCELL_ARTIFACT_KEY, or "
                        "--trust-native-code given")
    p.add_argument("--trust-native-code", action="store_true",
                   help="with --native: run the artifact's machine code although it is not "
                        "signed. It runs with all your rights: only for a file you would run "
                        "as a program")
    p.add_argument("--profile", type=int, nargs="?", const=3, default=0, metavar="N",
                   help="after the first (compiling) call, time N more calls (default 3) and "
                        "print each kernel's and op's time, MB, GB/s, GFLOP/s and source lines "
                        "to stderr, slowest first")


def _profile(cell, inputs: list, calls: int) -> None:
    """Time ``calls`` calls of the compiled ``cell`` and print the profile table to stderr."""
    from graphcell.profiler import kernel_profile
    with kernel_profile() as prof:
        for _ in range(calls):
            cell(*inputs)
    print(f"profile of {calls} calls (slowest first):\n{prof.table(30)}", file=sys.stderr)


@_guarded
def run_run(args: argparse.Namespace) -> int:
    from graphcell.aot import load
    cell = load(args.artifact, native=args.native, trust_native_code=args.trust_native_code)
    inputs = [np.load(path, allow_pickle=False) for path in args.input]
    arrays = _leaves(cell(*inputs))
    if args.profile > 0:
        _profile(cell, inputs, args.profile)
    if args.output is None:
        for i, a in enumerate(arrays):
            print(f"out{i}: {a.dtype}{list(a.shape)}\n{np.array2string(a, threshold=50)}")
    elif args.output.endswith(".npz"):
        np.savez(args.output, **{f"out{i}": a for i, a in enumerate(arrays)})
    elif len(arrays) == 1:
        np.save(args.output, arrays[0], allow_pickle=False)
    else:
        return _fail(f"the artifact returns {len(arrays)} tensors; save them to a .npz")
    return 0


def _leaves(out) -> list[np.ndarray]:
    from graphcell.tensor import Tensor
    if isinstance(out, Tensor):
        return [out.asnumpy()]
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (tuple, list)):
        return [a for x in out for a in _leaves(x)]
    return [] if out is None else [np.asarray(out)]


# --- graphcell precompile ------------------------------------------------------------------------

def add_precompile_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("artifact", metavar="ARTIFACT", help="a .gcpkg written by graphcell export")


@_guarded
def run_precompile(args: argparse.Namespace) -> int:
    from graphcell.aot.tools import precompile
    print("\n".join(precompile(args.artifact)))
    return 0


COMMANDS = {
    "ir": ("print or draw the IR of a network, at any stage of the pass pipeline",
           "examples:\n  graphcell ir lenet.py:LeNet5 --input f32[32,1,32,32]\n"
           "  graphcell ir lenet.py:LeNet5 --input f32[32,1,32,32] --all-passes\n"
           "  graphcell ir lenet.py:LeNet5 --input f32[32,1,32,32] --after cse --format dot -o g.dot\n"
           "  graphcell ir lenet.py:LeNet5 --input f32[32,1,32,32] --grad\n"
           "  graphcell ir lenet.py:LeNet5 --input f32[32,1,32,32] --summary\n"
           "  graphcell ir lenet.py:LeNet5 --input f32[32,1,32,32] --svg -o lenet.svg\n"
           "  graphcell ir lenet.py:LeNet5 --input f32[32,1,32,32] --format html -o lenet.html",
           add_ir_arguments, run_ir),
    "export": ("compile a network and write it as one artifact (.gcpkg) or an ONNX model",
               "examples:\n  graphcell export lenet.py:LeNet5 --input f32[32,1,32,32] -o lenet.gcpkg\n"
               "  graphcell export lenet.py:LeNet5 --input f32[1,1,32,32] --ckpt lenet.ckpt -o lenet\n"
               "  graphcell export lenet.py:LeNet5 --input f32[1,1,32,32] --ckpt lenet.ckpt "
               "--format onnx -o lenet.onnx",
               add_export_arguments, run_export),
    "run": ("load an artifact and run it on .npy inputs",
            "examples:\n  graphcell run lenet.gcpkg --input x.npy -o y.npy\n"
            "  graphcell run lenet.gcpkg --input x.npy --native",
            add_run_arguments, run_run),
    "precompile": ("verify an artifact and prepare everything that can be compiled ahead of the "
                   "first call",
                   "example:\n  graphcell precompile lenet.gcpkg",
                   add_precompile_arguments, run_precompile),
}
"""name -> (help, epilog with examples, add_arguments, run)."""
