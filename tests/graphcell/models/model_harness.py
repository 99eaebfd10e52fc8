"""Comparing a real model of ``examples/models/`` with MindSpore 2.10's goldens (issue 17 item 4).

A model's test file is a few lines::

    @pytest.mark.parametrize("mode", MODES)
    @pytest.mark.parametrize("phase", PHASES)
    def test_resnet50(mode, phase):
        check_model("resnet50", mode, phase)

``check_model`` runs the phase — ``forward``, ``gradients`` (the loss and the gradient of every
trainable parameter) or ``step`` (one ``TrainOneStepCell`` call: its loss and every parameter
after it) — with graphcell in ``mode``, through the very functions
``tools/record_model_goldens.py`` ran with MindSpore, and compares every array with the golden of
the same MindSpore mode: float32, rtol 1e-4.

Tolerance: an element of a gradient, or of an output computed through a batch norm, is a sum of
many terms; its rounding error is relative to the size of those terms, not to its own size, and
elements that cancel to nearly zero carry errors far above 1e-4 of themselves in any float32
implementation (MindSpore's two modes among them). The array's root mean square stands in for
the size of the terms: ``atol = RTOL * rms(golden)``. The reductions of big arrays (see
``reduce_array``) are checked against the bounds that elementwise ``rtol`` implies: a sum, or a sum
with random signs, within ``RTOL * l1``.
"""
from contextlib import contextmanager

import numpy as np
import pytest

import graphcell as ms
from tools.record_model_goldens import (GOLDENS, MODELS, reduce_array, run_forward,
                                        run_gradients, run_step, unpack_reduced)

MODES = ("pynative", "graph")
PHASES = ("forward", "gradients", "step")
RTOL = 1e-4
# With ``parameter_rtol``: elements below NOISE times the model's gradient scale are rounding
# noise (a batch norm's shift feeding a 1x1 convolution and another batch norm has a zero
# gradient in exact arithmetic, 1e-7 of the scale in float32, in both frameworks).
NOISE = 1e-5
RUNNERS = {"forward": run_forward, "gradients": run_gradients, "step": run_step}


@contextmanager
def framework_mode(mode):
    previous = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        yield
    finally:
        ms.set_context(mode=previous)


def load_goldens(name):
    path = GOLDENS / f"{name}.npz"
    if not path.exists():
        pytest.fail(f"no goldens for {name}: run /opt/msvenv/bin/python "
                    f"tools/record_model_goldens.py --model {name}")
    with np.load(path) as data:
        return dict(data)


def golden_keys(gold, mode, phase):
    """The keys (without mode and reduction suffix) the golden holds for ``phase``."""
    prefix = f"{mode}/"
    keys = {k[len(prefix):].split("#")[0] for k in gold if k.startswith(prefix)}
    if phase == "forward":
        return {k for k in keys if k == "forward"}
    if phase == "gradients":
        return {k for k in keys if k == "loss" or k.startswith("grad/")}
    return {k for k in keys if k.startswith("step/")}


def assert_close(key, got, gold, mode, rtol, full_limit):
    """Compare graphcell's ``got`` for ``key`` with the golden's whole array or reductions,
    element by element."""
    reduced = reduce_array(key, got, full_limit)
    where = f"{key} ({mode} mode)"
    if key in reduced:
        want = gold[f"{mode}/{key}"]
        assert got.shape == want.shape, f"{where}: shape {got.shape}, MindSpore {want.shape}"
        atol = rtol * np.sqrt(np.mean(np.square(want, dtype=np.float64)))
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=where)
        return
    want = unpack_reduced(gold[f"{mode}/{key}#reduced"])
    have = unpack_reduced(reduced[f"{key}#reduced"])
    bound = rtol * want["l1"]
    for suffix in ("l1", "l2"):
        np.testing.assert_allclose(have[suffix], want[suffix], rtol=rtol,
                                   err_msg=f"{where} {suffix}")
    for suffix in ("sum", "signs"):
        np.testing.assert_allclose(have[suffix], want[suffix], rtol=0, atol=bound,
                                   err_msg=f"{where} {suffix}")
    rms = want["l2"] / np.sqrt(got.size)
    np.testing.assert_allclose(have["sample"], want["sample"], rtol=rtol, atol=rtol * rms,
                               err_msg=f"{where} sampled elements")


def gradient_rms(gold, mode):
    """The root mean square of the elements of the gradients the golden holds whole: the
    model's gradient scale."""
    whole = [gold[k] for k in gold if k.startswith(f"{mode}/grad/") and "#" not in k]
    squares = sum(np.sum(np.square(g, dtype=np.float64)) for g in whole)
    return np.sqrt(squares / max(sum(g.size for g in whole), 1))


def assert_close_in_norm(key, got, gold, mode, rtol, noise, full_limit):
    """Compare ``got`` with the golden as a whole: ``|got - want| <= rtol * |want| + noise *
    sqrt(size)`` (2-norms; ``noise``: the per-element size below which a value is rounding noise,
    as the gradient of a batch norm's shift that the next batch norm removes again is); for a big
    array, its norm, and its sums with random signs within ``rtol`` times its l1 norm."""
    reduced = reduce_array(key, got, full_limit)
    where = f"{key} ({mode} mode)"
    if key in reduced:
        want = gold[f"{mode}/{key}"].astype(np.float64)
        assert got.shape == want.shape, f"{where}: shape {got.shape}, MindSpore {want.shape}"
        error = np.linalg.norm(got - want)
        bound = rtol * np.linalg.norm(want) + noise * np.sqrt(want.size)
        assert error <= bound, (f"{where}: |got - MindSpore's| = {error:.3g} > {bound:.3g} "
                                f"(rtol {rtol:.0e} of |MindSpore's| = {np.linalg.norm(want):.3g})")
        return
    have = unpack_reduced(reduced[f"{key}#reduced"])
    want = unpack_reduced(gold[f"{mode}/{key}#reduced"])
    np.testing.assert_allclose(have["l2"], want["l2"], rtol=rtol,
                               atol=noise * np.sqrt(got.size), err_msg=f"{where} l2")
    np.testing.assert_allclose(have["signs"], want["signs"], rtol=0,
                               atol=rtol * want["l1"] + noise * got.size,
                               err_msg=f"{where} signs")


def check_model(name, mode, phase, rtol=RTOL, parameter_rtol=None):
    """Run ``phase`` of model ``name`` in graphcell's ``mode`` and compare every array with
    MindSpore's golden; every array the golden has must be produced, and nothing more.

    ``parameter_rtol``: compare the gradients and the parameters after the step in norm, to this
    tolerance, instead of element by element to ``rtol`` — for deep networks where float32
    rounding compounds (the model's test file says why, with the measured errors)."""
    gold = load_goldens(name)
    with framework_mode(mode):
        got = RUNNERS[phase](ms, MODELS[name])
    full_limit = MODELS[name].full_limit
    expected = golden_keys(gold, mode, phase)
    assert expected, f"{name}: the goldens hold nothing for {phase} in {mode} mode"
    assert set(got) == expected, (
        f"{name} {phase}: missing {sorted(expected - set(got))[:5]}, "
        f"unexpected {sorted(set(got) - expected)[:5]}")
    noise = NOISE * gradient_rms(gold, mode)
    for key in sorted(got):
        if parameter_rtol is not None and key.startswith(("grad/", "step/")) and \
                key != "step/loss":
            assert_close_in_norm(key, np.asarray(got[key]), gold, mode, parameter_rtol, noise,
                                 full_limit)
        else:
            assert_close(key, np.asarray(got[key]), gold, mode, rtol, full_limit)
