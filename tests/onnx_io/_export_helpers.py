"""Shared by the export tests: export a model, run it on ONNX Runtime and compare
with graphjit (values, dtypes, shapes)."""
from __future__ import annotations

import numpy as np

import graphjit as ms
from graphjit.jit.compiled_model import CompiledModel


def session(path):
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def ort_run(sess, arrays):
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, dict(zip(names, arrays)))


def compare(got, want, rtol=1e-6, atol=1e-6, what=""):
    """None if got equals want (dtype, shape, values; floats within tolerance,
    NaN where NaN), else the difference as text."""
    if len(got) != len(want):
        return f"{what}{len(got)} outputs, graphjit gives {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        if g.dtype != w.dtype:
            return f"{what}output {k}: dtype {g.dtype}, graphjit gives {w.dtype}"
        if g.shape != w.shape:
            return f"{what}output {k}: shape {g.shape}, graphjit gives {w.shape}"
        if w.dtype.kind == "f":
            if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                return f"{what}output {k}: {g!r} vs graphjit {w!r}"
        elif not np.array_equal(g, w):
            return f"{what}output {k}: {g!r} vs graphjit {w!r}"
    return None


def export_and_compare(model_or_fn, tmp_path, example, runs=None, name="m", **tol):
    """Export (ms.compile with `example` unless it is a CompiledModel), then run each
    list of arrays in `runs` (default: the tensors of `example`) on both."""
    import graphjit.onnx as gx
    from graphjit.onnx.export_outputs import flat_outputs
    model = model_or_fn if isinstance(model_or_fn, CompiledModel) else \
        ms.compile(model_or_fn, *example)
    path = tmp_path / f"{name}.onnx"
    gx.export(model, path)
    sess = session(path)
    if runs is None:
        runs = [[np.asarray(x.asnumpy() if isinstance(x, ms.Tensor) else x)
                 for x in example if isinstance(x, (ms.Tensor, np.ndarray))]]
    for arrays in runs:
        with np.errstate(all="ignore"):
            want = flat_outputs(model, arrays)
        got = ort_run(sess, arrays)
        problem = compare(got, want, **tol)
        assert problem is None, problem
    return model, sess
