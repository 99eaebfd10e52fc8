"""The peers, each in its own process: PyTorch eager and JAX jit (``/opt/torchvenv`` when they
are not importable here; skipped silently when absent). Every peer loads the same weights and
inputs from an ``.npz`` the parent writes, and prints ``{row: [median, min]}`` as JSON.

W5 for JAX is its first call minus a steady step in that fresh process (JAX's persistent cache
is off, so it is a cold compile); PyTorch eager compiles nothing.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

PEER_PY = "/opt/torchvenv/bin/python"

COMMON = r"""
import json, sys, time
import numpy as np
D = dict(np.load(sys.argv[1]))
def measure(f, n=20):
    f(); ts = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return [float(np.median(ts)), float(np.min(ts))]
C, A = 0.7978845608, 0.044715
"""

TORCH = COMMON + r"""
import torch
torch.set_num_threads(%(threads)d)
out = {}
x = torch.from_numpy(D["w3_x"])
def gelu(x):
    z = x * 1.5 - 0.25
    return 0.5 * z * (1 + torch.tanh(C * (z + A * z * z * z)))
with torch.no_grad():
    out["W3 fwd torch eager"] = measure(lambda: gelu(x))
xg = x.clone().requires_grad_()
def w3_grad():
    xg.grad = None
    gelu(xg).sum().backward()
    return xg.grad
out["W3 grad torch eager"] = measure(w3_grad)

def linear(w, b):
    m = torch.nn.Linear(w.shape[1], w.shape[0])
    with torch.no_grad():
        m.weight.copy_(torch.from_numpy(w)); m.bias.copy_(torch.from_numpy(b))
    return m
W = [D[f"w1_{i}"] for i in range(6)]
mlp = torch.nn.Sequential(linear(W[0], W[1]), torch.nn.ReLU(), linear(W[2], W[3]), torch.nn.ReLU(),
                          linear(W[4], W[5]))
xb, yb = torch.from_numpy(D["w1_x"]), torch.from_numpy(D["w1_y"]).long()
loss_fn = torch.nn.CrossEntropyLoss()
with torch.no_grad():
    out["W1 fwd torch eager"] = measure(lambda: mlp(xb))
opt = torch.optim.SGD(mlp.parameters(), lr=0.01)
def w1_step():
    opt.zero_grad(); loss_fn(mlp(xb), yb).backward(); opt.step()
out["W1 train step torch eager"] = measure(w1_step)

class LeNet5(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5, bias=False)
        self.conv2 = torch.nn.Conv2d(6, 16, 5, bias=False)
        L = torch.nn.Linear
        self.fc1, self.fc2, self.fc3 = L(400, 120), L(120, 84), L(84, 10)
    def forward(self, x):
        f = torch.nn.functional
        x = f.max_pool2d(f.relu(self.conv1(x)), 2)
        x = f.max_pool2d(f.relu(self.conv2(x)), 2)
        x = x.reshape(32, -1)
        return self.fc3(f.relu(self.fc2(f.relu(self.fc1(x)))))
net = LeNet5()
with torch.no_grad():
    for p, i in zip(net.parameters(), range(8)):
        p.copy_(torch.from_numpy(D[f"w2_{i}"]))
x2, y2 = torch.from_numpy(D["w2_x"]), torch.from_numpy(D["w2_y"]).long()
opt2 = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
def w2_step():
    opt2.zero_grad(); loss_fn(net(x2), y2).backward(); opt2.step()
out["W2 train step torch eager"] = measure(w2_step)
print(json.dumps(out))
"""

JAX = COMMON + r"""
import jax, jax.numpy as jnp
out = {}
x = jnp.asarray(D["w3_x"])
def gelu(x):
    z = x * 1.5 - 0.25
    return 0.5 * z * (1 + jnp.tanh(C * (z + A * z * z * z)))
fwd = jax.jit(gelu)
grad = jax.jit(jax.grad(lambda x: gelu(x).sum()))
out["W3 fwd jax jit"] = measure(lambda: fwd(x).block_until_ready())
out["W3 grad jax jit"] = measure(lambda: grad(x).block_until_ready())

W = [jnp.asarray(D[f"w1_{i}"]) for i in range(6)]
xb, yb = jnp.asarray(D["w1_x"]), jnp.asarray(D["w1_y"])
def mlp(W, x):
    h = jax.nn.relu(x @ W[0].T + W[1])
    h = jax.nn.relu(h @ W[2].T + W[3])
    return h @ W[4].T + W[5]
def xent(logits, y):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))
mlp_fwd = jax.jit(mlp)
out["W1 fwd jax jit"] = measure(lambda: mlp_fwd(W, xb).block_until_ready())
@jax.jit
def w1_step(W, x, y):
    g = jax.grad(lambda W: xent(mlp(W, x), y))(W)
    return [w - 0.01 * gw for w, gw in zip(W, g)]
state = [W]
def run_w1():
    state[0] = w1_step(state[0], xb, yb); jax.block_until_ready(state[0])
out["W1 train step jax jit"] = measure(run_w1)

P = [jnp.asarray(D[f"w2_{i}"]) for i in range(8)]
x2, y2 = jnp.asarray(D["w2_x"]), jnp.asarray(D["w2_y"])
def conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "VALID")
def pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
def lenet(P, x):
    x = pool(jax.nn.relu(conv(x, P[0])))
    x = pool(jax.nn.relu(conv(x, P[1]))).reshape(32, -1)
    x = jax.nn.relu(x @ P[2].T + P[3])
    x = jax.nn.relu(x @ P[4].T + P[5])
    return x @ P[6].T + P[7]
@jax.jit
def w2_step(P, V, x, y):
    g = jax.grad(lambda P: xent(lenet(P, x), y))(P)
    V = [0.9 * v + gp for v, gp in zip(V, g)]
    return [p - 0.01 * v for p, v in zip(P, V)], V
s2 = [P, [jnp.zeros_like(p) for p in P]]
def run_w2():
    s2[:] = w2_step(s2[0], s2[1], x2, y2); jax.block_until_ready(s2[0])
t0 = time.perf_counter(); run_w2(); first = time.perf_counter() - t0
out["W2 train step jax jit"] = measure(run_w2)
out["W5 compile cold jax jit"] = [first - out["W2 train step jax jit"][0]] * 2
print(json.dumps(out))
"""

SCRIPTS = {"torch": TORCH, "jax": JAX}


def _python_for(module: str) -> str | None:
    try:
        __import__(module)
        return sys.executable
    except ImportError:
        pass
    if not os.path.exists(PEER_PY):
        return None
    ok = subprocess.run([PEER_PY, "-c", f"import {module}"], capture_output=True)
    return PEER_PY if ok.returncode == 0 else None


def run(npz: str) -> dict:
    """Every installed peer's rows: ``{name: (median, min)}``; a failing peer is reported on
    stderr and left out."""
    rows = {}
    for name, script in SCRIPTS.items():
        py = _python_for(name)
        if py is None:
            continue
        out = subprocess.run([py, "-c", script % {"threads": os.cpu_count() or 1}, npz],
                             capture_output=True, text=True, timeout=900)
        if out.returncode:
            print(f"(peer {name} failed: {out.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
            continue
        rows.update({k: tuple(v) for k, v in json.loads(out.stdout.strip().splitlines()[-1]).items()})
    return rows
