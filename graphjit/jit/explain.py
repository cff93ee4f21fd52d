"""The explain report of compilations (explain itself is in api.py) and checking graph
mode against eager mode (set_context(check_equivalence=True))."""
from __future__ import annotations

from typing import List

import numpy as np

from ..context import PYNATIVE_MODE, get_context, set_context
from ..ir.errors import EquivalenceError
from ..common.tensor import Tensor
from .cache import CacheEntry, apply_writes

__all__ = ["Report", "compare_results", "run_checked"]


def run_checked(entry, tensors, eager_fn, args=(), kwargs=None):
    """Run the entry (its changes to the caller's lists and dicts applied to `args`);
    with check_equivalence, once per entry, compare with eager mode."""
    check = get_context("check_equivalence") and not entry.checked
    variables = []
    if check and entry.state is not None:   # the Parameters it updates are compared too
        variables = entry.state.resolve([p for _, p in getattr(tensors, "params", ())]) or []
    before = [v._data for v in variables]
    out = apply_writes(entry.run(tensors), args, kwargs or {})
    if check:
        entry.checked = True
        after = [v._data for v in variables]
        for v, a in zip(variables, before):
            v._data = a
        old = get_context("mode")
        set_context(mode=PYNATIVE_MODE)
        try:
            expected = eager_fn()
        finally:
            set_context(mode=old)
        problem = compare_results(out, expected)
        for v, a in zip(variables, after):
            if not problem:
                problem = compare_results(Tensor._wrap(a), Tensor._wrap(v._data),
                                          f"Parameter {v.name}")
        if problem:
            raise EquivalenceError(
                "graph mode and eager mode disagree for this input signature: " + problem,
                detail=f"graph mode gave:\n{out!r}\neager mode gave:\n{expected!r}\n\n"
                       + str(Report([entry])),
                hint="please report this program; meanwhile run it in PYNATIVE_MODE")
    return out


def compare_results(a, b, path="result") -> str:
    """'' if a and b agree in structure, dtypes, shapes and values, else what differs."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
            if isinstance(a, Tensor) and isinstance(b, (bool, int, float)):
                return "" if a.size == 1 and np.asarray(a).reshape(-1)[0] == b else \
                    f"{path}: {a!r} vs {b!r}"
            if isinstance(b, Tensor) and isinstance(a, (bool, int, float)):
                return "" if b.size == 1 and np.asarray(b).reshape(-1)[0] == a else \
                    f"{path}: {a!r} vs {b!r}"
            return f"{path}: {type(a).__name__} vs {type(b).__name__}"
        x, y = a.asnumpy(), b.asnumpy()
        if x.dtype != y.dtype:
            return f"{path}: dtype {x.dtype} vs {y.dtype}"
        if x.shape != y.shape:
            return f"{path}: shape {x.shape} vs {y.shape}"
        if x.dtype.kind == "f":
            ok = np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True)
        else:
            ok = np.array_equal(x, y)
        return "" if ok else f"{path}: values differ"
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if type(a) is not type(b) or len(a) != len(b):
            return f"{path}: {type(a).__name__} of {len(a)} vs {type(b).__name__} of {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            p = compare_results(x, y, f"{path}[{i}]")
            if p:
                return p
        return ""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{path}: dict keys {list(a)} vs {list(b)}"
        for k in a:
            p = compare_results(a[k], b[k], f"{path}[{k!r}]")
            if p:
                return p
        return ""
    if isinstance(a, float) and isinstance(b, float):
        return "" if np.isclose(a, b, rtol=1e-6) or (np.isnan(a) and np.isnan(b)) else \
            f"{path}: {a!r} vs {b!r}"
    try:
        same = bool(a == b) and type(a) is type(b)
    except Exception:
        same = a is b
    return "" if same else f"{path}: {a!r} vs {b!r}"


class Report:
    """What the compiler decided for each if/while/for, and the compile cache.

    The user's own control flow is listed; the ifs and loops inside graphjit's built-in
    layers are one entry per call of a layer (at the user's line), or each on its own
    with library=True. A Loop's `carried` values are those the compiled Loop hands from
    one iteration to the next (its back edges, after the graph passes)."""

    def __init__(self, entries: List[CacheEntry], current: int = -1, library: bool = False):
        self.entries = entries          # in compile order
        self.current = current          # the entry of the inputs explain() was given
        self.library = library

    @property
    def entry(self) -> CacheEntry:
        return self.entries[self.current]

    @property
    def records(self):
        return self.entry.records if self.entries else []

    def __str__(self):
        lines = []
        if self.entries:
            e = self.entry
            lines.append(f"Control flow of {e.graph.name} ({_signature_text(e)}):")
            records, hidden = (e.records, 0) if self.library else _layers_folded(e.records)
            if not records:
                lines.append("  (no if/while/for)")
            loops = _ir_loops(e.graph)
            for r, times in _grouped(records):
                where = f"{r.loc.short()}" if r.loc is not None else "?"
                text = r.loc.text.strip() if r.loc is not None and r.loc.text else ""
                head = f"  {where:<18} {r.kind:<6} {text}"
                lines.append(head)
                if r.kind == "layer":
                    lines.append(f"      {r.decision}"
                                 + (f" (x{times}: once per unrolled iteration)"
                                    if times > 1 else ""))
                    continue
                detail = f"      {r.condition} condition -> {r.decision}"
                if times > 1:
                    detail += f" (x{times}: once per unrolled iteration)"
                if r.reason:
                    detail += f"  [{r.reason}]"
                lines.append(detail)
                d = r.details
                carried = loops.get(_loc_key(r.loc), d.get("carried")) \
                    if "Loop" in r.decision else d.get("carried")
                if carried:
                    lines.append(f"      carried: {', '.join(carried)}")
                if d.get("sliced"):
                    lines.append(f"      sliced inputs: {', '.join(d['sliced'])} (axis 0)")
                if d.get("concatenated"):
                    lines.append(f"      concatenated outputs: {', '.join(d['concatenated'])}")
            if hidden:
                lines.append(f"  ({hidden} if/for/while of graphjit's built-in layers, all "
                             f"decided by the layers' settings, not listed: "
                             f"ms.explain(..., library=True) lists them)")
            for w in e.warnings:
                lines.append(f"  note: {w}")
        lines.append("Compile cache:")
        current = self.current % len(self.entries) if self.entries else -1
        for i, e in enumerate(self.entries):
            mark = "  <- these inputs" if i == current else ""
            lines.append(f"  [{i}] ({_signature_text(e)}) compiled in "
                         f"{e.compile_seconds * 1000:.1f} ms because: {e.reason}{mark}")
        return "\n".join(lines)

    __repr__ = __str__


class _LayerRecord:
    """The ifs and loops of one call of graphjit's layers, as one report entry."""

    kind, condition, reason = "layer", "", ""

    def __init__(self, loc, inner):
        self.loc, self.inner = loc, inner
        self.details = {}
        counts: dict = {}
        for r in inner:
            what = r.decision.split(" (")[0] if r.condition == "variable" else "folded"
            key = f"{r.kind} -> {what}" if what != "folded" else f"{r.kind} folded"
            counts[key] = counts.get(key, 0) + 1
        self.decision = ("inside graphjit's layers: " +
                         ", ".join(f"{n} {k}" for k, n in counts.items()) +
                         " (ms.explain(..., library=True) lists them)")


def _layers_folded(records):
    """The records of code of graphjit's own layers merged per call of a layer (the
    user's line that called it), and left out when all of them folded (a constant
    condition: a setting of the layer); the user's records as they are. Returns the
    records and how many were left out."""
    merged = _merge_layers(records)
    out = [r for r in merged if not (isinstance(r, _LayerRecord) and
                                     all(x.condition == "constant" for x in r.inner))]
    return out, sum(len(r.inner) for r in merged if r not in out)


def _merge_layers(records):
    out = []
    for r in records:
        loc = r.loc
        if loc is None or not getattr(loc, "in_library", False):
            out.append(r)
            continue
        user = loc.user()
        if out and isinstance(out[-1], _LayerRecord) and out[-1].loc is user:
            out[-1] = _LayerRecord(user, out[-1].inner + [r])
        else:
            out.append(_LayerRecord(user, [r]))
    return out


def _loc_key(loc):
    return None if loc is None else (loc.file, loc.line, loc.col)


def _ir_loops(graph) -> dict:
    """The values each Loop of the compiled graph carries (its back edges' body
    parameters, named as the user's variables), by the Loop's source location."""
    out: dict = {}
    for node in graph.walk():
        if node.op != "Loop" or node.loc is None:
            continue
        body = node.attrs["body"]
        names = [body.params[bp].name or "?" for _, bp in node.attrs.get("back_edges", ())]
        names = [n for n in names if n != "state" and not n.startswith("state_")]
        have = out.setdefault(_loc_key(node.loc), [])
        have.extend(n for n in names if n not in have)
    return out


def _grouped(records):
    """Consecutive identical decisions (the copies of an unrolled loop) as one."""
    out = []
    for r in records:
        if out and _same_decision(out[-1][0], r):
            out[-1][1] += 1
        else:
            out.append([r, 1])
    return out


def _same_decision(a, b) -> bool:
    return (a.loc, a.kind, a.condition, a.decision, a.reason, a.details) == \
        (b.loc, b.kind, b.condition, b.decision, b.reason, b.details) and \
        (a.loc is None or a.loc.user() == b.loc.user())


def _signature_text(e: CacheEntry) -> str:
    return ", ".join(f"{p}: {t}" for p, t in e.arg_desc) or "no arguments"
