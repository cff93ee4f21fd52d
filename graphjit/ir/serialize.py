"""Saving and loading graphs: one zip file holding `graph.json` and each numpy
constant as an `.npy` entry. Nothing is pickled, and nothing in a file is executed.

    save_graph(graph, "net.gjm", name="Net")
    loaded, name = load_graph("net.gjm")
    assert str(loaded) == str(graph)

The JSON document, format version 1:

    {"format": "graphjit-model", "version": 1, "name": str, "metadata": {...}, "graph": G,
     "state"?: [S]}
    S   = {"name": str | null, "value": {"array": R}}: the value of each ref parameter
          of G (a Parameter the graph reads and updates), in parameter order
    G   = {"name": str, "params": [V], "nodes": [N], "results": [ref]}
    V   = {"name": str | null, "type": T}
    T   = {"dtype": "float32", "shape": null | [int | null, ...], "kind"?: K}
          (a null shape is an unknown rank, a null dim an unknown dim)
    K   = "ref" | "state"   (absent: a tensor; see graphjit.ir.defs.state)
    N   = {"op": str, "inputs": [ref], "attrs": {str: A}, "outputs": [V], "loc": L | null}
    ref = index of a value of the same graph: its params first, then the outputs of
          its nodes in order (subgraphs are closed, so refs never leave a graph)
    L   = {"file": str, "line": int, "col": int, "end_line": int | null,
           "end_col": int | null, "function": str, "text": str, "caller"?: L}
          (caller: for a line of graphjit's own layers, the line that called it)
    A   = null | bool | int | float | str
        | {"float": "nan" | "inf" | "-inf"} | {"tuple": [A]} | {"list": [A]}
        | {"dict": [[str, A]]} | {"dtype": str} | {"type": T} | {"graph": G}
        | {"array": R} | {"scalar": R}
    R   = {"entry": "arrays/0.npy", "dtype": str, "shape": [int]}

Array entries are stored uncompressed; their .npy headers are parsed by numpy and
checked against R before any data is read, and object dtypes are refused, so no
pickle can be loaded. Loading re-creates every node through Graph.add_node (the
operators' inference functions check the types again), compares the inferred
output types with the declared ones, and runs verify(). Any damage is reported
as a ModelFileError naming the part of the file that is wrong.
"""
from __future__ import annotations

import json
import math
import os
import uuid
import zipfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .dtypes import DType, from_numpy
from .graph import Graph
from .model_format import (ARRAY_PREFIX, DTYPE_NAMES, EPOCH, FORMAT_NAME, FORMAT_VERSION,
                           GRAPH_ENTRY, MAX_DEPTH, ModelFile)
from .model_reader import ModelReader
from .types import TensorType
from .verifier import verify

__all__ = ["save_graph", "load_graph", "load_model_file", "ModelFile", "FORMAT_NAME",
           "FORMAT_VERSION", "GRAPH_ENTRY"]


# -- saving ------------------------------------------------------------------------------------
def save_graph(graph: Graph, path, name: Optional[str] = None,
               metadata: Optional[Dict[str, Any]] = None,
               state: Sequence[Tuple[Optional[str], np.ndarray]] = ()) -> None:
    """Write a graph, its subgraphs and its constants to one file.

    Args:
        graph: the graph; it is verified first.
        path: a file path (written to a temporary file, then renamed into place) or
            a writable binary file object.
        name: the model's name (defaults to the graph's name).
        metadata: plain JSON data stored beside the graph (a dict with str keys).
        state: (name, array) of each ref parameter of the graph, in parameter order:
            the values of the Parameters it reads and updates (its weights).

    Raises:
        GraphVerificationError: the graph is not valid.
        TypeError: an attribute holds something that is not plain data (see the
            module docstring), or an array of a dtype graphjit does not have.
        ValueError: attributes nested deeper than the format allows, or metadata
            that is not plain JSON data.
    """
    if not isinstance(graph, Graph):
        raise TypeError(f"save_graph needs a Graph, got {type(graph).__name__}")
    if metadata is not None and not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
    verify(graph)
    writer = _Writer()
    doc = {"format": FORMAT_NAME, "version": FORMAT_VERSION,
           "name": graph.name if name is None else str(name),
           "metadata": metadata or {}, "graph": writer.graph(graph, 0)}
    refs = [p for p in graph.params if p.type.kind == "ref"]
    state = list(state)
    if len(state) != len(refs):
        raise ValueError(f"graph '{graph.name}' reads {len(refs)} Parameter(s) but "
                         f"{len(state)} value(s) were given to save with it")
    if refs:
        doc["state"] = [{"name": _enc_name(n, "state"),
                         "value": {"array": writer.array(_state_array(p, a), "state")}}
                        for p, (n, a) in zip(refs, state)]
    try:
        text = json.dumps(doc, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as e:
        raise ValueError(f"the metadata must be plain JSON data (dicts with str keys, lists, "
                         f"str, finite numbers, bools, None): {e}") from None
    if hasattr(path, "write"):
        _write_zip(path, text, writer.entries)
        return
    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        with open(tmp, "xb") as f:
            _write_zip(f, text, writer.entries)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _state_array(p, a) -> np.ndarray:
    arr = np.asarray(a)
    t = p.type
    if arr.dtype != t.dtype.np or (t.shape is not None and (arr.ndim != len(t.shape) or any(
            d is not None and d != s for d, s in zip(t.shape, arr.shape)))):
        raise ValueError(f"the value saved for {p.name or 'a Parameter'} is {arr.dtype}"
                         f"{list(arr.shape)}, but the graph reads it as {t}")
    return arr


def _write_zip(f, text: str, entries: List[Tuple[str, np.ndarray]]) -> None:
    with zipfile.ZipFile(f, "w") as zf:
        info = zipfile.ZipInfo(GRAPH_ENTRY, date_time=EPOCH)
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, text.encode("ascii"))
        for entry, arr in entries:
            info = zipfile.ZipInfo(entry, date_time=EPOCH)
            info.compress_type = zipfile.ZIP_STORED
            with zf.open(info, "w", force_zip64=arr.nbytes > (1 << 31)) as out:
                np.lib.format.write_array(out, arr, allow_pickle=False)


def _enc_type(t: TensorType) -> dict:
    out = {"dtype": t.dtype.name, "shape": None if t.shape is None else list(t.shape)}
    if not t.is_tensor:
        out["kind"] = t.kind
    return out


def _enc_loc(loc, depth: int = 0) -> Optional[dict]:
    if loc is None:
        return None
    out = {"file": loc.file, "line": loc.line, "col": loc.col, "end_line": loc.end_line,
           "end_col": loc.end_col, "function": loc.function, "text": loc.text}
    caller = getattr(loc, "caller", None)
    if caller is not None and depth < 16:    # the line that called a built-in layer
        out["caller"] = _enc_loc(caller, depth + 1)
    return out


def _enc_name(name, where: str):
    if name is not None and not isinstance(name, str):
        raise TypeError(f"{where}: names must be str or None, got {name!r}")
    return name


class _Writer:
    """Turns a graph into the JSON document and collects its arrays as entries."""

    def __init__(self):
        self.entries: List[Tuple[str, np.ndarray]] = []
        self._seen: Dict[int, Tuple[np.ndarray, dict]] = {}   # id -> (array kept alive, ref)

    def graph(self, g: Graph, depth: int) -> dict:
        where = f"graph '{g.name}'"
        index: Dict[int, int] = {}
        params = []
        for p in g.params:
            index[id(p)] = len(index)
            params.append({"name": _enc_name(p.name, where), "type": _enc_type(p.type)})
        nodes = []
        for i, node in enumerate(g.nodes):
            at = f"{where} > node {i} ({node.op})"
            nodes.append({
                "op": node.op,
                "inputs": [index[id(v)] for v in node.inputs],
                "attrs": {k: self.attr(v, f"{at} > attribute '{k}'", depth + 1)
                          for k, v in node.attrs.items()},
                "outputs": [{"name": _enc_name(o.name, at), "type": _enc_type(o.type)}
                            for o in node.outputs],
                "loc": _enc_loc(node.loc),
            })
            for o in node.outputs:
                index[id(o)] = len(index)
        return {"name": g.name, "params": params, "nodes": nodes,
                "results": [index[id(r)] for r in g.results]}

    def array(self, arr: np.ndarray, where: str) -> dict:
        hit = self._seen.get(id(arr))
        if hit is not None:
            return dict(hit[1])
        try:
            dt = from_numpy(arr.dtype)
        except TypeError:
            raise TypeError(f"{where}: a numpy array of dtype {arr.dtype} cannot be saved; "
                            f"the dtypes are {DTYPE_NAMES}") from None
        ref = {"entry": f"{ARRAY_PREFIX}{len(self.entries)}.npy", "dtype": dt.name,
               "shape": list(arr.shape)}
        self.entries.append((ref["entry"], arr))
        self._seen[id(arr)] = (arr, ref)
        return dict(ref)

    def attr(self, v, where: str, depth: int):
        if depth > MAX_DEPTH:
            raise ValueError(f"{where}: attribute values nest deeper than {MAX_DEPTH} levels")
        if isinstance(v, np.generic):
            return {"scalar": self.array(np.asarray(v), where)}
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return float(v) if math.isfinite(v) else {"float": repr(float(v))}
        if isinstance(v, tuple):
            return {"tuple": [self.attr(x, where, depth + 1) for x in v]}
        if isinstance(v, list):
            return {"list": [self.attr(x, where, depth + 1) for x in v]}
        if isinstance(v, dict):
            if not all(isinstance(k, str) for k in v):
                raise TypeError(f"{where}: dict attributes need str keys, got {list(v)!r}")
            return {"dict": [[k, self.attr(x, where, depth + 1)] for k, x in v.items()]}
        if isinstance(v, DType):
            return {"dtype": v.name}
        if isinstance(v, TensorType):
            return {"type": _enc_type(v)}
        if isinstance(v, np.ndarray):
            return {"array": self.array(v, where)}
        if isinstance(v, Graph):
            return {"graph": self.graph(v, depth + 1)}
        raise TypeError(f"{where}: a {type(v).__name__} is not plain data and cannot be saved; "
                        f"attributes hold numbers, strings, None, tuples, lists, dicts, "
                        f"dtypes, numpy arrays and Graphs")


# -- loading -----------------------------------------------------------------------------------
def load_graph(path) -> Tuple[Graph, str]:
    """Read a file written by save_graph.

    Args:
        path: a file path, or a readable binary file object.

    Returns:
        (graph, name): the verified graph and the model's name.

    Raises:
        ModelFileError: the file is damaged or not a graphjit model; the message
            names the part of the file that is wrong.
        OSError: the file cannot be opened (FileNotFoundError, PermissionError...).
    """
    model = load_model_file(path)
    return model.graph, model.name


def load_model_file(path) -> ModelFile:
    """Read a file written by save_graph, with the metadata saved beside the graph.

    Args:
        path: a file path, or a readable binary file object.

    Returns:
        ModelFile(graph, name, metadata).

    Raises:
        ModelFileError: the file is damaged or not a graphjit model.
        OSError: the file cannot be opened.
    """
    if hasattr(path, "read"):
        label = str(getattr(path, "name", "<stream>"))
        data = path.read()
    else:
        label = os.fspath(path)
        with open(label, "rb") as f:
            data = f.read()
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"load_graph needs a binary file, got {type(data).__name__} from it")
    return ModelReader(label, bytes(data)).load()
