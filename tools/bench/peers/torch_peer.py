"""PyTorch's side of the benchmarks: ``python torch_peer.py arrays.npz spec.json [--compile]``
(see ``common.py``). Eager by default; with ``--compile`` each train step (forward, loss,
backward, ``zero_grad`` and ``opt.step()``) is one ``torch.compile``d function, and the extra
rows (W3, W1 forward) are skipped."""
from __future__ import annotations

import os
import sys

import torch
from torch import nn

from common import C, A, check_shapes, measure, params, report, run_steps, load  # noqa: E402

torch.set_num_threads(os.cpu_count() or 1)
F = nn.functional


def mlp(sizes):
    layers = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers += [nn.Linear(a, b)] + ([nn.ReLU()] if i < len(sizes) - 2 else [])
    return nn.Sequential(*layers)


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, bias=False)
        self.conv2 = nn.Conv2d(6, 16, 5, bias=False)
        self.fc1, self.fc2, self.fc3 = nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2).reshape(x.shape[0], -1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class BasicBlock(nn.Module):
    """graphcell's examples/models/resnet.py BasicBlock, parameters in the same order."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.down is None else self.down(x)))


class ResBlockNet(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.block = BasicBlock(channels, channels)
        self.head = nn.Linear(channels, 10)

    def forward(self, x):
        return self.head(self.block(x).mean((2, 3)))


class ResNet18(nn.Module):
    """The 32x32 stem (3x3/1 convolution, batch norm, ReLU), stages of 2 basic blocks."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        blocks, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, 10)

    def forward(self, x):
        return self.fc(self.blocks(F.relu(self.bn1(self.conv1(x)))).mean((2, 3)))


def network(w):
    c = w["config"]
    if w["model"] == "mlp":
        return mlp(c["sizes"])
    if w["model"] == "lenet":
        return LeNet5()
    if w["model"] == "resblock":
        return ResBlockNet(c["channels"])
    if w["model"] == "resnet18":
        return ResNet18()
    if w["model"] == "transformer":
        return nn.TransformerEncoderLayer(c["d_model"], c["nhead"], c["ffn"], dropout=0.0,
                                          batch_first=True)
    raise ValueError(f"unknown model {w['model']!r}")


def loaded(w, D):
    net = network(w)
    P = params(D, w)
    check_shapes(w["key"], [p.shape for p in net.parameters()], P)
    with torch.no_grad():
        for p, a in zip(net.parameters(), P):
            p.copy_(torch.from_numpy(a))
    return net


def make_step(compiled: bool):
    def make(w, D):
        if compiled:    # a fresh start: each workload's step is its own function to compile
            torch.compiler.reset()
        net = loaded(w, D).train()
        x = torch.from_numpy(D[f"{w['key']}/x"])
        y = torch.from_numpy(D[f"{w['key']}/y"])
        if w["loss"] == "ce":
            y, loss_fn = y.long(), nn.CrossEntropyLoss()
        else:
            loss_fn = nn.MSELoss()
        kind, lr, *rest = w["optimizer"]
        opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=rest[0] if rest else 0.0)

        def step():
            opt.zero_grad()
            loss = loss_fn(net(x), y)
            loss.backward()
            opt.step()
            return loss.detach()
        return (torch.compile(step) if compiled else step), float
    return make


def extra_rows(D, spec) -> dict:
    out = {}
    if "w3_x" in D:
        x = torch.from_numpy(D["w3_x"])

        def gelu(x):
            z = x * 1.5 - 0.25
            return 0.5 * z * (1 + torch.tanh(C * (z + A * z * z * z)))
        with torch.no_grad():
            out["W3 fwd"] = measure(lambda: gelu(x))
        xg = x.clone().requires_grad_()

        def grad():
            xg.grad = None
            gelu(xg).sum().backward()
        out["W3 grad"] = measure(grad)
    for w in (w for w in spec["workloads"] if w["key"] == "W1"):
        net = loaded(w, D)
        x = torch.from_numpy(D["W1/x"])
        with torch.no_grad():
            out["W1 fwd"] = measure(lambda: net(x))
    return out


if __name__ == "__main__":
    compiled = "--compile" in sys.argv[3:]
    D, spec = load()
    steps = run_steps(spec, D, make_step(compiled))
    report(steps, {} if compiled else extra_rows(D, spec))
