"""The Loop kernel: runs a body plan with the seed's port-map semantics."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir.errors import GraphRuntimeError

__all__ = ["loop_kernel"]


def _scalar(x, what):
    a = np.asarray(x)
    if a.size != 1:
        raise ValueError(f"the Loop {what} must have one element, got shape {a.shape}")
    return a.reshape(-1)[0].item()


def loop_kernel(node) -> Callable:
    from .executor import compile_graph
    attrs = node.attrs
    body = compile_graph(attrs["body"]).fn
    n_par = len(attrs["body"].params)
    ci = attrs["current_iteration"]
    cr = attrs["condition_result"]
    plain = [(li - 2, bp) for li, bp, axis in attrs["input_map"] if axis is None]
    sliced = [(li - 2, bp, axis) for li, bp, axis in attrs["input_map"] if axis is not None]
    back = tuple(attrs["back_edges"])
    back_of = dict(back)
    concat = [ri for ri, axis in attrs["output_map"] if axis is not None]
    ci_dtype = attrs["body"].params[ci].type.dtype.np if ci >= 0 else None
    ci_shape = attrs["body"].params[ci].type.shape if ci >= 0 else None
    out_info = []
    for (ri, axis), o in zip(attrs["output_map"], node.outputs):
        out_info.append((ri, axis, o.type))

    def run_loop(trip, cond, *inputs):
        trip = int(_scalar(trip, "trip count"))
        go = bool(_scalar(cond, "condition"))
        params = [None] * n_par
        for i, bp in plain:
            params[bp] = inputs[i]
        bound = trip if trip >= 0 else None
        slices = []
        for i, bp, axis in sliced:
            arr = np.asarray(inputs[i])
            ax = axis % arr.ndim
            n = arr.shape[ax]
            bound = n if bound is None else min(bound, n)
            slices.append((bp, arr, ax))
        stacks = {ri: [] for ri in concat}
        res = None
        it = 0
        while go and (bound is None or it < bound):
            if ci >= 0:
                params[ci] = np.asarray(it, dtype=ci_dtype).reshape(ci_shape)
            for bp, arr, ax in slices:
                params[bp] = arr[(slice(None),) * ax + (slice(it, it + 1),)]
            res = body(*params)
            for ri, bp in back:
                params[bp] = res[ri]
            for ri in concat:
                stacks[ri].append(res[ri])
            go = bool(_scalar(res[cr], "execution condition"))
            it += 1
        outs = []
        for ri, axis, t in out_info:
            if axis is not None:
                if stacks[ri]:
                    outs.append(np.concatenate(stacks[ri], axis=axis).astype(t.dtype.np,
                                                                             copy=False))
                else:
                    shape = [0 if d is None else d for d in t.shape]
                    outs.append(np.zeros(shape, dtype=t.dtype.np))
            elif ri in back_of:
                outs.append(params[back_of[ri]])
            elif res is not None:
                outs.append(res[ri])
            else:
                raise GraphRuntimeError(
                    f"Loop ran zero times, so its output from body result {ri} (not carried "
                    f"by a back edge) has no value", loc=node.loc)
        return tuple(outs)
    return run_loop
