"""Helpers for programs that update Parameters: run the same sequence of calls in
PYNATIVE and GRAPH mode on fresh Cells and compare every output and every Parameter
after every call."""
from __future__ import annotations

import numpy as np

import graphjit as ms
from graphjit.jit.api import compare_results


def param_values(net):
    """name -> array of every Parameter of the Cell (and its sub-Cells)."""
    out = {}
    for prefix, cell in net.cells_and_names():
        for attr, v in vars(cell).items():
            if isinstance(v, ms.Parameter):
                out[f"{prefix}.{attr}" if prefix else attr] = v.asnumpy()
            elif isinstance(v, (tuple, list)):
                for i, p in enumerate(v):
                    if isinstance(p, ms.Parameter):
                        out[f"{prefix}.{attr}[{i}]" if prefix else f"{attr}[{i}]"] = \
                            p.asnumpy()
    return out


def run_steps(make, calls, *, exact=True):
    """make() gives a fresh Cell; each call in `calls` is a tuple of arguments. Returns
    (graph results, eager results, graph net), each result being (output, Parameters)
    after one call, after checking the two modes agree."""
    runs, nets = {}, {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = nets[mode] = make()
        runs[mode] = [(net(*args), param_values(net)) for args in calls]
    ms.set_context(mode=ms.GRAPH_MODE)
    for step, ((g_out, g_par), (e_out, e_par)) in enumerate(
            zip(runs[ms.GRAPH_MODE], runs[ms.PYNATIVE_MODE])):
        problem = compare_results(g_out, e_out)
        assert not problem, f"step {step}: outputs differ: {problem}"
        assert g_par.keys() == e_par.keys()
        for k in g_par:
            if exact:
                np.testing.assert_array_equal(g_par[k], e_par[k], err_msg=f"step {step}: {k}")
            else:
                np.testing.assert_allclose(g_par[k], e_par[k], rtol=1e-5, atol=1e-6,
                                           err_msg=f"step {step}: {k}")
    return runs[ms.GRAPH_MODE], runs[ms.PYNATIVE_MODE], nets[ms.GRAPH_MODE]
