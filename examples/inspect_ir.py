"""Print a network's IR after each pass of graph mode's pipeline, and draw its graph.

    python examples/inspect_ir.py [--out DIR]

The same as ``graphcell ir examples/inspect_ir.py:SmallNet --input f32[4,8] --all-passes``, then
``--summary``. The final graph is written as SVG (by Graphviz's ``dot`` when it is on PATH, else
by matplotlib, the extra ``pictures``), or as dot text when neither is installed.
"""
import argparse
import os
import tempfile

import graphcell as ms
from graphcell import nn, ops
from graphcell.aot.targets import example_inputs, ir_stages
from graphcell_ir.ir.export import to_dot, to_svg
from graphcell_ir.errors import GraphvizError
from graphcell_ir.text import parse_module
from graphcell_ir.text.summary import summarize


class SmallNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 4)
        self.scale = 2.0

    def construct(self, x):
        y = self.fc(x) * self.scale
        y = ops.relu(y) + ops.relu(y)      # cse merges the two relus
        return ops.sigmoid(y * 1.0)        # simplify drops the * 1.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="where to write the graph (default: a temp dir)")
    out = ap.parse_args().out or tempfile.mkdtemp(prefix="graphcell-ir-")
    ms.set_seed(0)
    stages = ir_stages(SmallNet(), example_inputs(["f32[4,8]"]), locs="none")
    for name, text, _ in stages:
        print(f"// ----- IR after {name} -----")
        print(text)
    final = parse_module(stages[-1][1], consts=stages[-1][2])
    print(summarize(final))
    try:   # Graphviz's dot when it is on PATH, else matplotlib (graphcell[pictures])
        path, content = os.path.join(out, "small_net.svg"), to_svg(final)
    except GraphvizError as e:
        path, content = os.path.join(out, "small_net.dot"), to_dot(final)
        print(f"{e}\nwriting dot text instead of SVG")
    with open(path, "w") as f:
        f.write(content)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
