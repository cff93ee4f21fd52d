"""Gradient checks shared by the autodiff tests: gradients in both modes, and central
finite differences that skip the points where the function has a kink."""
from __future__ import annotations

import numpy as np

import graphjit as ms


def grads_in(mode, fn, args, positions):
    """ms.grad(fn, positions)(*args) in `mode`, as a list of numpy arrays."""
    ms.set_context(mode=mode)
    try:
        g = ms.grad(fn, grad_position=tuple(positions))(*args)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    return [t.asnumpy() for t in g]


def float_total(out) -> float:
    """The sum of every floating-point tensor in fn's output (what grad differentiates)."""
    if isinstance(out, (tuple, list)):
        return sum(float_total(o) for o in out)
    if isinstance(out, ms.Tensor) and out.dtype.is_floating:
        return float(np.sum(out.asnumpy().astype(np.float64)))
    return 0.0


def finite_differences(fn, args, pos, eps=1e-6):
    """d total(fn) / d args[pos] by central differences in PYNATIVE mode; NaN where the
    one-sided slopes disagree (a kink, a tie, a branch switching), where the total is too
    large for a step of eps to show, or where fn fails."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        base = args[pos].asnumpy().astype(np.float64)
        out = np.zeros(base.shape)
        for i in np.ndindex(base.shape):
            def at(d):
                v = base.copy()
                v[i] += d
                a = list(args)
                a[pos] = ms.Tensor(v.astype(args[pos].asnumpy().dtype))
                return float_total(fn(*a))
            try:
                f0, fp, fm = at(0.0), at(eps), at(-eps)
            except Exception:
                out[i] = np.nan
                continue
            fwd, bwd = (fp - f0) / eps, (f0 - fm) / eps
            # a kink (the one-sided slopes differ by more than curvature explains), or a
            # total so large that rounding swamps a step of eps
            kink = abs(fwd - bwd) > 1e-4 * (1 + abs(fwd))
            swamped = abs(f0) * 1e-15 / eps > 1e-5
            out[i] = np.nan if kink or swamped else (fp - fm) / (2 * eps)
        return out
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def assert_grads_agree(fn, args, positions, fd=True, rtol=1e-5, atol=1e-6):
    """Graph-mode gradients equal PYNATIVE ones (same dtype, values equal to the last
    bits but for reassociated sums) and are close to finite differences."""
    eager = grads_in(ms.PYNATIVE_MODE, fn, args, positions)
    graph = grads_in(ms.GRAPH_MODE, fn, args, positions)
    for p, e, g in zip(positions, eager, graph):
        assert e.dtype == g.dtype == args[p].asnumpy().dtype, (p, e.dtype, g.dtype)
        assert e.shape == g.shape == args[p].shape, (p, e.shape, g.shape)
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12,
                                   err_msg=f"graph and eager gradients of input {p} differ")
    if fd:
        for p, g in zip(positions, graph):
            if not np.issubdtype(g.dtype, np.floating):
                continue
            num = finite_differences(fn, args, p)
            ok = ~np.isnan(num)
            np.testing.assert_allclose(g[ok], num[ok], rtol=rtol, atol=atol,
                                       err_msg=f"gradient of input {p} against finite "
                                               f"differences")
    return graph
