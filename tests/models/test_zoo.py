"""The sweep: each model of zoo.py runs forward, then trains three steps
(TrainOneStepCell), in PYNATIVE and in GRAPH mode from the same weights; the outputs,
the three losses and every Parameter afterwards agree between the modes, and the loss
goes down."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit.jit.api import compare_results
from zoo import ZOO


def _forward(spec, mode):
    ms.set_context(mode=mode)
    net = spec.make()
    net.set_train(False)
    target = spec.forward(net) if spec.forward else net
    return target(*spec.inputs)


def _train(spec, mode):
    ms.set_context(mode=mode)
    net = (spec.make_train or spec.make)()
    net.set_train(True)
    step = spec.train(net)
    step.set_train(True)
    ms.set_seed(7)                       # dropout and drop-path draw the same masks
    losses = [float(step(*spec.batch).asnumpy()) for _ in range(3)]
    return losses, {name: p.asnumpy() for name, p in net.parameters_and_names()}


@pytest.mark.parametrize("name", sorted(ZOO))
def test_forward_and_three_training_steps_agree_between_modes(name):
    spec = ZOO[name]
    eager = _forward(spec, ms.PYNATIVE_MODE)
    graph = _forward(spec, ms.GRAPH_MODE)
    problem = compare_results(graph, eager)
    assert not problem, f"{name} forward: {problem}"
    e_losses, e_params = _train(spec, ms.PYNATIVE_MODE)
    g_losses, g_params = _train(spec, ms.GRAPH_MODE)
    np.testing.assert_allclose(g_losses, e_losses, rtol=spec.rtol, atol=1e-6,
                               err_msg=f"{name} losses")
    assert all(np.isfinite(e_losses)) and e_losses[2] < e_losses[0], e_losses
    assert e_params.keys() == g_params.keys()
    for k in e_params:
        np.testing.assert_allclose(g_params[k], e_params[k], rtol=spec.rtol, atol=max(1e-6, spec.rtol / 10),
                                   err_msg=f"{name} parameter {k}")
