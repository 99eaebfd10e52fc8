"""Compile time and steady step time of each real model's train step, graphcell against
MindSpore 2.10 (issue 17 item 4, issue 21).

    python tools/bench_model_compile.py [--model resnet50 ...] [--repeat 3] [--no-mindspore]
                                        [--steps 10] [--mode graph|pynative]

For each model of ``tools/record_model_goldens.py``'s table (the default-size ones unless named),
a fresh process builds the network with its seeded weights, wraps it in
``nn.TrainOneStepCell(nn.WithLossCell(net, loss), optimizer)`` in GRAPH_MODE and times the first
call and the second: compile time = first - second. graphcell runs with an empty kernel cache
directory (a cold compile) and its modules byte-compiled as pip installs a package, as
MindSpore's are (``tools/bench/installed.py``); MindSpore runs in ``/opt/msvenv/bin/python`` on
the same model file through the module mapping of the recorder. Each cell of the table is the median of ``--repeat``
processes (the frameworks take turns). The worker processes run without OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE, which this machine's environment sets: BLAS configures itself, as it does
for a user. ``--steps N`` makes N calls per process and reports as the step time the median of
the calls after the second (the first compiles; the second may still settle BLAS's thread
count); ``--mode pynative`` times PyNative instead (compile time is then meaningless).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.bench.installed import installed_env  # noqa: E402
from tools.record_model_goldens import (MODELS, build, loss_function, optimizer,  # noqa: E402
                                        use_mindspore_as_graphcell, with_loss)

MINDSPORE_PYTHON = "/opt/msvenv/bin/python"
UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def time_train_step(ms, name: str, steps: int = 3, mode: str = "graph",
                    explicit_compile: bool = False) -> dict:
    """Seconds of the first ``steps`` calls of the model's train step (GRAPH_MODE unless
    ``mode`` is ``"pynative"``); ``steady`` is the median of the calls after the second.

    ``explicit_compile``: ``compile`` is the time of ``step.compile(inputs)`` before the calls
    instead — for a framework whose steady step is so slow that its noise swamps
    first - second (MindSpore's ResNet-18 step takes 20 s on this machine's CPU)."""
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    case = MODELS[name]
    net, inputs, label = build(ms, case)
    step = ms.nn.TrainOneStepCell(with_loss(ms, net, loss_function(ms, case)),
                                  optimizer(ms, case, net.trainable_params()))
    step.set_train()
    if explicit_compile:
        t0 = time.perf_counter()
        step.compile(*inputs, label)
        compiled = time.perf_counter() - t0
        first = time.perf_counter()
        step(*inputs, label).asnumpy()
        second = time.perf_counter()
        step(*inputs, label).asnumpy()
        return {"first": second - first, "second": time.perf_counter() - second,
                "compile": compiled}
    times = []
    for _ in range(max(steps, 3)):
        t0 = time.perf_counter()
        step(*inputs, label).asnumpy()
        times.append(time.perf_counter() - t0)
    return {"first": times[0], "second": times[1], "third": times[2],
            "compile": times[0] - times[1], "steady": statistics.median(times[2:])}


def worker(framework: str, name: str, steps: int, mode: str,
           explicit_compile: bool = False) -> None:
    if framework == "mindspore":
        ms = use_mindspore_as_graphcell()
    else:
        import graphcell as ms
    print(json.dumps(time_train_step(ms, name, steps, mode, explicit_compile)))


def run_worker(framework: str, name: str, steps: int = 3, mode: str = "graph",
               explicit_compile: bool = False) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    python = MINDSPORE_PYTHON if framework == "mindspore" else sys.executable
    if framework != "mindspore":
        env = installed_env(env)
    with tempfile.TemporaryDirectory() as cache:
        env["GRAPHCELL_CACHE_DIR"] = cache
        flags = ["--explicit-compile"] if explicit_compile else []
        run = subprocess.run([python, __file__, "--worker", framework, "--model", name,
                              "--steps", str(steps), "--mode", mode, *flags],
                             capture_output=True, text=True, cwd=ROOT, env=env)
    if run.returncode != 0:
        raise RuntimeError(f"{framework} worker for {name} failed:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def medians(frameworks: list[str], name: str, repeat: int, steps: int = 3,
            mode: str = "graph", explicit_compile=()) -> list[dict]:
    """Per framework, the median of ``repeat`` worker runs; the frameworks take turns, so a
    change in the machine's load falls on both. The frameworks in ``explicit_compile`` time
    ``step.compile`` (:func:`time_train_step`)."""
    runs = {f: [] for f in frameworks}
    for _ in range(repeat):
        for f in frameworks:
            runs[f].append(run_worker(f, name, steps, mode, f in explicit_compile))
    return [{k: statistics.median(r[k] for r in runs[f]) for k in runs[f][0]} for f in frameworks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", action="append", choices=sorted(MODELS), default=[])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-mindspore", action="store_true")
    parser.add_argument("--steps", type=int, default=3, help="calls per process")
    parser.add_argument("--mode", choices=("graph", "pynative"), default="graph")
    parser.add_argument("--worker", choices=("graphcell", "mindspore"), help=argparse.SUPPRESS)
    parser.add_argument("--explicit-compile", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.model[0], args.steps, args.mode, args.explicit_compile)
        return
    names = args.model or [n for n, case in MODELS.items() if not case.slow]
    frameworks = ["graphcell"] + ([] if args.no_mindspore else ["mindspore"])
    print(f"train step ({args.mode} mode): compile time (first call - second call) and steady "
          f"step (median of calls 3..{max(args.steps, 3)}), median of {args.repeat} processes, "
          "seconds; ratio = graphcell step / mindspore step")
    print(f"  {'model':20}" + "".join(f"{f + ' compile':>20}{f + ' step':>17}" for f in frameworks)
          + ("" if args.no_mindspore else f"{'ratio':>8}"))
    for name in names:
        cells = medians(frameworks, name, args.repeat, args.steps, args.mode)
        ratio = "" if args.no_mindspore else f"{cells[0]['steady'] / cells[1]['steady']:8.2f}"
        print(f"  {name:20}" + "".join(f"{c['compile']:20.2f}{c['steady']:17.4f}" for c in cells)
              + ratio, flush=True)


if __name__ == "__main__":
    main()
