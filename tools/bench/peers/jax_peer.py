"""JAX's side of the benchmarks: ``python jax_peer.py arrays.npz spec.json`` (see ``common.py``).
Each train step (forward, loss, gradient, SGD/Momentum update, batch-norm running statistics)
is one ``jax.jit`` function with its parameters and state donated, as a JAX training loop
writes it; the models take graphcell's parameters in graphcell's order."""
from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax

from common import C, A, measure, params, report, run_steps, load  # noqa: E402

EPS = 1e-5


def dense(it, x):
    w, b = next(it), next(it)
    return x @ w.T + b


def conv(x, w, stride=1, pad=0):
    return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)])


class BatchNorm:
    """Batch norm in train mode over NCHW: batch statistics, and running statistics updated
    (MindSpore's momentum 0.9) in ``new``; ``old`` is None to get the state's shapes."""

    def __init__(self, old):
        self.old, self.new = (iter(old) if old is not None else None), []

    def __call__(self, it, x):
        g, b = next(it), next(it)
        m, v = x.mean((0, 2, 3)), x.var((0, 2, 3))
        rm, rv = next(self.old) if self.old else (jnp.zeros_like(m), jnp.ones_like(v))
        n = x.size // x.shape[1]
        self.new.append((0.9 * rm + 0.1 * m, 0.9 * rv + 0.1 * v * n / (n - 1)))
        s = (g * lax.rsqrt(v + EPS))[None, :, None, None]
        return (x - m[None, :, None, None]) * s + b[None, :, None, None]


def basic_block(it, bn, x, cin, cout, stride=1):
    out = jax.nn.relu(bn(it, conv(x, next(it), stride, 1)))
    out = bn(it, conv(out, next(it), 1, 1))
    if stride != 1 or cin != cout:
        x = bn(it, conv(x, next(it), stride, 0))
    return jax.nn.relu(out + x)


def mlp(w, P, S, x):
    it = iter(P)
    for i in range(len(w["config"]["sizes"]) - 1):
        x = dense(it, x)
        if i < len(w["config"]["sizes"]) - 2:
            x = jax.nn.relu(x)
    return x, S


def pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def lenet(w, P, S, x):
    it = iter(P)
    x = pool(jax.nn.relu(conv(x, next(it))))
    x = pool(jax.nn.relu(conv(x, next(it)))).reshape(x.shape[0], -1)
    x = jax.nn.relu(dense(it, x))
    x = jax.nn.relu(dense(it, x))
    return dense(it, x), S


def resblock(w, P, S, x):
    it, bn, c = iter(P), BatchNorm(S), w["config"]["channels"]
    x = basic_block(it, bn, x, c, c)
    return dense(it, x.mean((2, 3))), bn.new


def resnet18(w, P, S, x):
    it, bn = iter(P), BatchNorm(S)
    x = jax.nn.relu(bn(it, conv(x, next(it), 1, 1)))
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        x = basic_block(it, bn, x, cin, cout, stride)
        x = basic_block(it, bn, x, cout, cout)
        cin = cout
    return dense(it, x.mean((2, 3))), bn.new


def layer_norm(x, g, b):
    m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + EPS) * g + b


def transformer(w, P, S, x):
    """Post-norm encoder layer, batch first: x = LN(x + MHA(x)); x = LN(x + FFN(x))."""
    wi, bi, wo, bo, w1, b1, w2, b2, g1, be1, g2, be2 = P
    B, T, E = x.shape
    h = w["config"]["nhead"]

    def heads(t):
        return t.reshape(B, T, h, E // h).transpose(0, 2, 1, 3)
    q, k, v = map(heads, jnp.split(x @ wi.T + bi, 3, axis=-1))
    a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(E // h), axis=-1)
    att = (a @ v).transpose(0, 2, 1, 3).reshape(B, T, E) @ wo.T + bo
    x = layer_norm(x + att, g1, be1)
    return layer_norm(x + jax.nn.relu(x @ w1.T + b1) @ w2.T + b2, g2, be2), S


MODELS = {"mlp": mlp, "lenet": lenet, "resblock": resblock, "resnet18": resnet18,
          "transformer": transformer}


def cross_entropy(logits, y):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))


def mse(out, target):
    return jnp.mean((out - target) ** 2)


def make_step(w, D):
    P = [jnp.asarray(a) for a in params(D, w)]
    apply = partial(MODELS[w["model"]], w)
    x, y = jnp.asarray(D[f"{w['key']}/x"]), jnp.asarray(D[f"{w['key']}/y"])
    S = jax.eval_shape(apply, P, None, x)[1]   # the running-statistics state's shapes
    S = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), S)
    S = [(rm, rv + 1) for rm, rv in S] if isinstance(S, list) else S
    loss_fn = cross_entropy if w["loss"] == "ce" else mse
    kind, lr, *rest = w["optimizer"]

    def objective(P, S):
        out, S = apply(P, S, x)
        return loss_fn(out, y), S

    @partial(jax.jit, donate_argnums=(0, 1, 2))
    def step(P, V, S):
        (loss, S), g = jax.value_and_grad(objective, has_aux=True)(P, S)
        if kind == "momentum":
            V = [rest[0] * v + gi for v, gi in zip(V, g)]
            return [p - lr * v for p, v in zip(P, V)], V, S, loss
        return [p - lr * gi for p, gi in zip(P, g)], V, S, loss

    state = [P, [jnp.zeros_like(p) for p in P] if kind == "momentum" else [], S]

    def run():
        P, V, S, loss = step(*state)
        state[:] = [P, V, S]
        jax.block_until_ready(P)
        return loss
    return run, float


def extra_rows(D, spec) -> dict:
    out = {}
    if "w3_x" in D:
        x = jnp.asarray(D["w3_x"])

        def gelu(x):
            z = x * 1.5 - 0.25
            return 0.5 * z * (1 + jnp.tanh(C * (z + A * z * z * z)))
        fwd = jax.jit(gelu)
        grad = jax.jit(jax.grad(lambda x: gelu(x).sum()))
        out["W3 fwd"] = measure(lambda: fwd(x).block_until_ready())
        out["W3 grad"] = measure(lambda: grad(x).block_until_ready())
    for w in (w for w in spec["workloads"] if w["key"] == "W1"):
        P = [jnp.asarray(a) for a in params(D, w)]
        fwd = jax.jit(lambda P, x: mlp(w, P, None, x)[0])
        x = jnp.asarray(D["W1/x"])
        out["W1 fwd"] = measure(lambda: fwd(P, x).block_until_ready())
    return out


if __name__ == "__main__":
    D, spec = load()
    report(run_steps(spec, D, make_step), extra_rows(D, spec))
