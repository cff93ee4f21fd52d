"""Which values an exported ONNX model outputs: what the Cell or function returns, in
order, with the values that folded to constants (exporter.py makes those Constant
nodes), and the same outputs computed by graphjit, to compare with ONNX Runtime."""
from __future__ import annotations

from typing import List, Optional

import numpy as np

__all__ = ["output_plan", "flat_outputs"]


def output_plan(model) -> List[tuple]:
    """The ONNX outputs of a CompiledModel, in order: ("result", i) for graph result i,
    ("const", array) for a returned value that folded to a constant (a constant Tensor
    of the Cell, a Python number: int as int64, float as float64, bool as bool, as
    graphjit's Python-number results). The order is the returned structure's leaves
    (tuples, lists and dict values in order); None leaves have no ONNX value and are
    left out. A model with no returned structure (imported) has its graph results.

    Raises:
        OnnxExportError: a returned leaf that is neither a tensor nor a number.
    """
    entry = getattr(model, "_entry", None)
    if entry is None:
        return [("result", i) for i, r in enumerate(model.graph.results)
                if r.type.kind != "state"]
    from ..frontend.templates import Out
    from .exporter import OnnxExportError   # (exporter imports this module)
    plan: List[tuple] = []

    def walk(t, path):
        if isinstance(t, Out):
            plan.append(("result", t.i))
        elif isinstance(t, (tuple, list)):
            for k, v in enumerate(t):
                walk(v, f"{path}[{k}]")
        elif isinstance(t, dict):
            for k, v in t.items():
                walk(v, f"{path}[{k!r}]")
        elif t is None:
            pass
        else:
            arr = _constant_array(t)
            if arr is None:
                raise OnnxExportError(
                    f"cannot export '{model.name}' to ONNX: the returned value{path} is "
                    f"{type(t).__name__} {t!r:.60}, which has no ONNX form",
                    hint="return tensors and numbers only")
            plan.append(("const", arr))
    walk(entry.template, "")
    return plan


def _constant_array(x) -> Optional[np.ndarray]:
    if isinstance(x, bool) or isinstance(x, np.bool_):
        return np.array(x, dtype=np.bool_)
    if isinstance(x, int):
        return np.array(x, dtype=np.int64)
    if isinstance(x, float):
        return np.array(x, dtype=np.float64)
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    data = getattr(x, "asnumpy", None)     # a Tensor
    if callable(data):
        try:
            return np.asarray(data())
        except Exception:  # a Tensor without data (a spec)
            return None
    return None


def flat_outputs(model, arrays) -> List[np.ndarray]:
    """The outputs of the model on these input arrays (one per graph tensor input, as
    `run_arrays` takes them) as the ONNX model has them (output_plan's order): what
    to compare ONNX Runtime with."""
    outs = model.run_arrays(list(arrays))
    return [np.asarray(outs[item[1]]) if item[0] == "result" else item[1]
            for item in output_plan(model)]
