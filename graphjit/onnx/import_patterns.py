"""Recognizing graphjit's own export patterns, so that graphjit -> ONNX -> graphjit
gives back the op (exporter.py's table: every node made for one graphjit node is
named `gj.Op.n` or `gj.Op.n/k`).

    ONNX (from the exporter):  gj.Rsqrt.14/0 = Sqrt(x); gj.Rsqrt.14/1 = Reciprocal(.)
    IR after the node-by-node translation:  Sqrt(x), Reciprocal(.)
    IR after recognition:                   Rsqrt(x)

A name is only a claim: the group is replaced by the named op only when both give
identical values (dtype, NaN and signed zeros included) on probe inputs covering
each input dtype's special values, so a file whose names lie keeps ONNX's meaning.
Only pure elementwise ops without attributes are recognized (their meaning is
pointwise, so probes decide it); the inputs are tried in each order.
"""
from __future__ import annotations

import itertools
import re
from typing import Dict, List, Optional

import numpy as np

from ..ir.graph import Value
from ..ir.registry import get_op, has_op
from .import_ops import evaluate

__all__ = ["GROUP_NAME", "collapse_group"]

GROUP_NAME = re.compile(r"gj\.([A-Za-z][A-Za-z0-9_]*)\.(\d+)(?:/\d+)?$")

_FLOAT_PROBES = [-np.inf, -1e5, -3.5, -2.0, -1.0, -0.5, -1e-8, -0.0, 0.0, 1e-8, 0.5, 1.0,
                 2.0, 2.5, 3.0, 7.25, 1e5, np.inf, np.nan]
_INT_PROBES = [-7, -3, -2, -1, 0, 1, 2, 3, 5, 8]
_BOOL_PROBES = [False, True]


def _probes(dtype) -> np.ndarray:
    if dtype.is_bool:
        vals = _BOOL_PROBES
    elif dtype.is_integer:
        info = np.iinfo(dtype.np)
        vals = [v for v in _INT_PROBES if info.min <= v <= info.max] + [info.min, info.max]
    else:
        vals = _FLOAT_PROBES
    return np.array(vals, dtype=dtype.np)


def _inputs_of(values: List[Value]) -> List[np.ndarray]:
    """One probe array per input, all of one length (the cartesian product)."""
    grids = np.meshgrid(*[_probes(v.dtype) for v in values], indexing="ij")
    return [g.reshape(-1) for g in grids]


def collapse_group(graph, op: str, externals: List[Value], out: Value) -> Optional[Value]:
    """A node `op(*externals)` (in some order) equal to `out`, or None."""
    if not has_op(op) or not 1 <= len(externals) <= 2:
        return None
    opdef = get_op(op)
    if opdef.family != "elementwise" or opdef.attrs or opdef.effects is not None or \
            len(opdef.inputs) != len(externals) or opdef.variadic:
        return None
    probes = _inputs_of(externals)
    env: Dict[int, np.ndarray] = {id(v): p for v, p in zip(externals, probes)}
    with np.errstate(all="ignore"):
        want = evaluate(out, env)
    if want is None:
        return None
    for order in itertools.permutations(range(len(externals))):
        args = [externals[i] for i in order]
        try:
            types = opdef.infer_types([v.type for v in args], {}, None)
        except Exception:   # the op does not take these types
            continue
        if list(types) != [out.type]:
            continue
        kernel = opdef.make_kernel([v.type for v in args], types, {})
        try:
            with np.errstate(all="ignore"):
                got = np.asarray(kernel(*[env[id(v)] for v in args]))
        except Exception:   # the op fails on a probe the pattern takes: not the same op
            continue
        if got.dtype == want.dtype and got.shape == want.shape and _identical(got, want):
            return graph.apply(op, *args)
    return None


def _identical(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True) and
                    np.array_equal(np.signbit(a), np.signbit(b)))
    return bool(np.array_equal(a, b))
