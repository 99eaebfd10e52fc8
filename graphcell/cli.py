"""The ``graphcell`` command line.

    graphcell --version
    graphcell info                                   versions, CPU and the kernel cache directory
    graphcell ir net.py:Net --input f32[2,3] [--grad] [--after PASS | --all-passes]
                 [--format text|dot|svg|html | --svg] [--summary] [--locs user|full|none]
                 [--width N] [-o OUT]                the IR of a network, at any pass
    graphcell export net.py:Net --input f32[2,3] -o net.gcpkg      write an artifact
    graphcell run net.gcpkg --input x.npy [-o y.npy] [--profile]   run an artifact (and profile it)
    graphcell precompile net.gcpkg                   verify an artifact, build what can be built

``graphcell <command> --help`` says more, with examples. The ahead-of-time commands live in
``graphcell/aot/commands.py``; each subcommand is one entry of ``_SUBCOMMANDS``.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
from importlib import metadata

import graphcell
from graphcell.aot.commands import COMMANDS
from graphcell.aot.manifest import FORMAT, FORMAT_VERSION, cpu_name
from graphcell_ir.backend.cache_dir import cache_dir


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def info_lines() -> list[str]:
    """What ``graphcell info`` prints, one ``key: value`` per line."""
    return [
        f"graphcell: {graphcell.__version__}",
        f"python: {platform.python_version()} ({sys.executable})",
        f"numpy: {_version('numpy')}",
        f"numba: {_version('numba')}",
        f"llvmlite: {_version('llvmlite')}",
        f"networkx: {_version('networkx')}",
        f"platform: {platform.platform()}",
        f"cpu: {cpu_name()} ({os.cpu_count()} logical cores, {platform.machine()})",
        f"kernel compiler: {_kernel_compiler()}",
        f"cache directory: {cache_dir()}",
        f"artifact format: {FORMAT} version {FORMAT_VERSION} (.gcpkg)",
    ]


def _kernel_compiler() -> str:
    from graphcell_ir.backend import objects
    why = objects.usable()
    if why is None:
        return "graphcell codegen (llvmlite; numba for what it refuses)"
    return f"numba ({why})"


def cache_lines() -> list[str]:
    """``graphcell info --cache``: what the kernel disk cache holds (a second process reuses it;
    hits, misses and why each miss happened, in a process: graphcell_ir.backend.kernels.cache_stats())."""
    from graphcell_ir.backend.kernels import disk_summary
    d = disk_summary()
    return [f"kernel cache: {d['directory']}",
            f"  native objects (the code generator's, linked without compiling): "
            f"{d['native objects']} (and {d['refusals']} refusals)",
            f"  kernel sources: {d['kernels']}",
            f"  numba's compiled entries (what the code generator refused): "
            f"{d['compiled entries']}",
            f"  size: {d['bytes'] / 1024:.1f} KiB"]


def _cmd_info(args: argparse.Namespace) -> int:
    print("\n".join(info_lines() + (cache_lines() if args.cache else [])))
    return 0


def _info_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cache", action="store_true",
                   help="also describe the kernel disk cache (GRAPHCELL_CACHE_DIR)")


_SUBCOMMANDS = {
    "info": ("print versions, the CPU and the kernel cache directory",
             "example: graphcell info --cache", _info_args, _cmd_info),
    **COMMANDS,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphcell", description="graphcell: MindSpore's API over a "
                                     "Python graph compiler.")
    parser.add_argument("--version", action="version", version=f"graphcell {graphcell.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, epilog, add_args, run) in _SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        add_args(p)
        p.set_defaults(run=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except BrokenPipeError:  # `graphcell info | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the docs' recipe: no
        return 1                                                        # second error at exit


if __name__ == "__main__":
    sys.exit(main())
