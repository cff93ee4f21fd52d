"""Shared helper of the MindSpore-style control-flow gradient programs: a GradNet Cell
wrapping GradOperation as MindSpore's own system tests do, run in PYNATIVE and GRAPH
mode on fresh networks, compared value for value (and the Parameters after the call)."""
from __future__ import annotations

import numpy as np

import graphjit as ms
from graphjit import nn, ops

grad_all = ops.GradOperation(get_all=True)
grad_by_list = ops.GradOperation(get_by_list=True)
grad_all_list = ops.GradOperation(get_all=True, get_by_list=True)
grad_all_sens = ops.GradOperation(get_all=True, sens_param=True)
grad_list_sens = ops.GradOperation(get_by_list=True, sens_param=True)
grad_first = ops.GradOperation()


class GradNet(nn.Cell):
    """grad_op(net)(*inputs), or grad_op(net, weights)(*inputs) for get_by_list."""

    def __init__(self, net, grad_op, by_list=False):
        super().__init__()
        self.net = net
        self.grad_op = grad_op
        self.by_list = by_list
        self.weights = ms.ParameterTuple(net.trainable_params())

    def construct(self, *inputs):
        if self.by_list:
            return self.grad_op(self.net, self.weights)(*inputs)
        return self.grad_op(self.net)(*inputs)


def flat(out):
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in flat(o)]
    return [out.asnumpy() if isinstance(out, ms.Tensor) else np.asarray(out)]


def params_of(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def run_grad(make, grad_op, *args, by_list=False, forward=False):
    """The gradients (a flat list of numpy arrays) of a fresh make() in GRAPH mode after
    checking they equal PYNATIVE mode's, dtype and shape included, as do the Parameters
    after the call; with forward=True the forward output of another fresh net too."""
    by_list = by_list or grad_op.get_by_list
    res = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = make()
            grads = flat(GradNet(net, grad_op, by_list)(*args))
            fwd = flat(make()(*args)) if forward else None
            res[mode] = (grads, params_of(net), fwd)
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
    (ge, pe, fe), (gg, pg, fg) = res[ms.PYNATIVE_MODE], res[ms.GRAPH_MODE]
    assert len(ge) == len(gg)
    for i, (e, g) in enumerate(zip(ge, gg)):
        assert e.dtype == g.dtype and e.shape == g.shape, (i, e.dtype, g.dtype, e.shape, g.shape)
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6, err_msg=f"gradient {i}")
    assert pe.keys() == pg.keys()
    for k in pe:
        np.testing.assert_allclose(pg[k], pe[k], rtol=1e-6, atol=1e-6, err_msg=f"Parameter {k}")
    if forward:
        for e, g in zip(fe, fg):
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
        return gg, fg
    return gg


def check(got, *expected, dtype=None):
    """The gradients equal the hand-derived values (and dtype, when given)."""
    assert len(got) == len(expected), (len(got), len(expected))
    for i, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(g, np.asarray(e, dtype=np.float64), rtol=1e-5, atol=1e-5,
                                   err_msg=f"gradient {i}")
        if dtype is not None:
            assert g.dtype == dtype, (i, g.dtype)


def fd(make, args, pos, eps=1e-3):
    """d sum(make()(*args)) / d args[pos] by central differences in float64 (PYNATIVE)."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        base = args[pos].asnumpy().astype(np.float64)
        out = np.zeros(base.shape)
        for i in np.ndindex(base.shape):
            vals = []
            for d in (eps, -eps):
                v = base.copy()
                v[i] += d
                a = list(args)
                a[pos] = ms.Tensor(v)
                a = [ms.Tensor(x.asnumpy().astype(np.float64)) if isinstance(x, ms.Tensor)
                     and x.dtype.is_floating else x for x in a]
                vals.append(sum(float(np.sum(o)) for o in flat(make()(*a))))
            out[i] = (vals[0] - vals[1]) / (2 * eps)
        return out
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def T(x, dtype=ms.float32):
    return ms.Tensor(np.asarray(x), dtype)
