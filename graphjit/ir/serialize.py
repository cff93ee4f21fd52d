"""Saving and loading graphs: one zip file holding `graph.json` and each numpy
constant as an `.npy` entry. Nothing is pickled, and nothing in a file is executed.

    save_graph(graph, "net.gjm", name="Net")
    loaded, name = load_graph("net.gjm")
    assert str(loaded) == str(graph)

The JSON document, format version 1:

    {"format": "graphjit-model", "version": 1, "name": str, "metadata": {...}, "graph": G}
    G   = {"name": str, "params": [V], "nodes": [N], "results": [ref]}
    V   = {"name": str | null, "type": T}
    T   = {"dtype": "float32", "shape": null | [int | null, ...]}
          (a null shape is an unknown rank, a null dim an unknown dim)
    N   = {"op": str, "inputs": [ref], "attrs": {str: A}, "outputs": [V], "loc": L | null}
    ref = index of a value of the same graph: its params first, then the outputs of
          its nodes in order (subgraphs are closed, so refs never leave a graph)
    L   = {"file": str, "line": int, "col": int, "end_line": int | null,
           "end_col": int | null, "function": str, "text": str}
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

import io
import json
import math
import os
import struct
import uuid
import zipfile
import zlib
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from .dtypes import ALL_DTYPES, DType, from_numpy
from .errors import ModelFileError
from .graph import Graph, Value
from .loc import SourceLoc
from .registry import has_op
from .types import TensorType
from .verifier import verify

__all__ = ["save_graph", "load_graph", "load_model_file", "ModelFile", "FORMAT_NAME",
           "FORMAT_VERSION", "GRAPH_ENTRY"]

FORMAT_NAME = "graphjit-model"
FORMAT_VERSION = 1
GRAPH_ENTRY = "graph.json"

_ARRAY_PREFIX = "arrays/"
_MAX_JSON_BYTES = 1 << 28          # graph.json larger than this is not a model we wrote
_MAX_DEPTH = 100                   # nesting of attribute values and subgraphs
_MAX_RANK = 64                     # numpy's own limit
_MAX_DIM = 1 << 62
_EPOCH = (1980, 1, 1, 0, 0, 0)     # fixed timestamps make exports reproducible
_DTYPES: Dict[str, DType] = {d.name: d for d in ALL_DTYPES}
_DTYPE_NAMES = ", ".join(_DTYPES)

# What zipfile (and the zlib under it) raise on bytes that are not a sound archive.
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError,
               OverflowError, NotImplementedError, RuntimeError, struct.error, zlib.error)


class ModelFile(NamedTuple):
    """What load_model_file returns: the graph, the model's name, and the metadata
    (plain JSON data) it was saved with."""

    graph: Graph
    name: str
    metadata: Dict[str, Any]


# -- saving ------------------------------------------------------------------------------------
def save_graph(graph: Graph, path, name: Optional[str] = None,
               metadata: Optional[Dict[str, Any]] = None) -> None:
    """Write a graph, its subgraphs and its constants to one file.

    Args:
        graph: the graph; it is verified first.
        path: a file path (written to a temporary file, then renamed into place) or
            a writable binary file object.
        name: the model's name (defaults to the graph's name).
        metadata: plain JSON data stored beside the graph (a dict with str keys).

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


def _write_zip(f, text: str, entries: List[Tuple[str, np.ndarray]]) -> None:
    with zipfile.ZipFile(f, "w") as zf:
        info = zipfile.ZipInfo(GRAPH_ENTRY, date_time=_EPOCH)
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, text.encode("ascii"))
        for entry, arr in entries:
            info = zipfile.ZipInfo(entry, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_STORED
            with zf.open(info, "w", force_zip64=arr.nbytes > (1 << 31)) as out:
                np.lib.format.write_array(out, arr, allow_pickle=False)


def _enc_type(t: TensorType) -> dict:
    return {"dtype": t.dtype.name,
            "shape": None if t.shape is None else list(t.shape)}


def _enc_loc(loc) -> Optional[dict]:
    if loc is None:
        return None
    return {"file": loc.file, "line": loc.line, "col": loc.col, "end_line": loc.end_line,
            "end_col": loc.end_col, "function": loc.function, "text": loc.text}


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
                            f"the dtypes are {_DTYPE_NAMES}") from None
        ref = {"entry": f"{_ARRAY_PREFIX}{len(self.entries)}.npy", "dtype": dt.name,
               "shape": list(arr.shape)}
        self.entries.append((ref["entry"], arr))
        self._seen[id(arr)] = (arr, ref)
        return dict(ref)

    def attr(self, v, where: str, depth: int):
        if depth > _MAX_DEPTH:
            raise ValueError(f"{where}: attribute values nest deeper than {_MAX_DEPTH} levels")
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
    return _Reader(label, bytes(data)).load()


class _Reader:
    """Reads and checks one file; every failure becomes a ModelFileError."""

    def __init__(self, label: str, data: bytes):
        self.label = label
        self.data = data
        self.zf: Optional[zipfile.ZipFile] = None
        self.infos: Dict[str, zipfile.ZipInfo] = {}
        self.arrays: Dict[str, np.ndarray] = {}

    def fail(self, part: Optional[str], msg: str) -> ModelFileError:
        return ModelFileError(msg, path=self.label, part=part)

    # -- the container -------------------------------------------------------------------------
    def load(self) -> ModelFile:
        try:
            self.zf = zipfile.ZipFile(io.BytesIO(self.data))
            infos = self.zf.infolist()
        except _ZIP_ERRORS as e:
            raise self.fail(None, f"it is not a readable zip archive ({type(e).__name__}: "
                                  f"{e}); the file is truncated, damaged, or not a graphjit "
                                  f"model") from None
        self.infos = {i.filename: i for i in infos}
        with self.zf:
            doc = self.read_document()
            try:
                model = self.model(doc)
            except RecursionError:
                raise self.fail(GRAPH_ENTRY, "values are nested too deeply") from None
        try:
            verify(model.graph)
        except Exception as e:  # verify re-runs inference on data from the file
            raise self.fail(f"graph '{model.graph.name}'",
                            f"the graph does not verify: {type(e).__name__}: {e}") from e
        return model

    def read_entry(self, name: str, limit: int) -> bytes:
        info = self.infos[name]
        if info.file_size > limit:
            raise self.fail(name, f"the entry claims {info.file_size} bytes, more than the "
                                  f"{limit} this entry may have")
        try:
            with self.zf.open(info) as f:
                data = f.read(limit + 1)
        except _ZIP_ERRORS as e:
            raise self.fail(name, f"the zip entry cannot be read ({type(e).__name__}: {e}); "
                                  f"the file is damaged") from None
        if len(data) > limit:
            raise self.fail(name, f"the entry holds more than {limit} bytes")
        return data

    def read_document(self):
        if GRAPH_ENTRY not in self.infos:
            names = sorted(self.infos)[:5]
            raise self.fail(None, f"the archive has no '{GRAPH_ENTRY}', so it is not a graphjit "
                                  f"model (it holds {names or 'nothing'})")
        raw = self.read_entry(GRAPH_ENTRY, _MAX_JSON_BYTES)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(GRAPH_ENTRY, f"it is not UTF-8 text ({e})") from None
        try:
            return json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:
            raise self.fail(GRAPH_ENTRY, "the JSON nests too deeply") from None
        except ValueError as e:
            raise self.fail(GRAPH_ENTRY, f"it is not valid JSON: {e}") from None

    # -- the document --------------------------------------------------------------------------
    def model(self, doc) -> ModelFile:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
            found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            raise self.fail(GRAPH_ENTRY, f"it is not a graphjit model document (format "
                                         f"{found!r}, expected {FORMAT_NAME!r})")
        version = doc.get("version")
        if not _is_int(version):
            raise self.fail(GRAPH_ENTRY, f"the format version must be an int, got {version!r}")
        if version != FORMAT_VERSION:
            newer = " (written by a newer graphjit)" if version > FORMAT_VERSION else ""
            raise self.fail(GRAPH_ENTRY, f"format version {version} is not supported{newer}; "
                                         f"this graphjit reads version {FORMAT_VERSION}")
        d = self.as_obj(doc, GRAPH_ENTRY, ("graph",))
        metadata = d.get("metadata", {})
        if not isinstance(metadata, dict):
            raise self.fail(f"{GRAPH_ENTRY} > metadata",
                            f"must be an object, got {type(metadata).__name__}")
        graph = self.graph(d["graph"], "graph", 0)
        name = d.get("name", graph.name)
        if not isinstance(name, str):
            raise self.fail(f"{GRAPH_ENTRY} > name", f"must be a string, got {name!r}")
        return ModelFile(graph, name, metadata)

    def as_obj(self, x, where: str, required=()) -> dict:
        if not isinstance(x, dict):
            raise self.fail(where, f"expected a JSON object, got {_kind(x)}")
        missing = [k for k in required if k not in x]
        if missing:
            raise self.fail(where, f"missing the key(s) {missing}")
        return x

    def as_list(self, x, where: str) -> list:
        if not isinstance(x, list):
            raise self.fail(where, f"expected a JSON array, got {_kind(x)}")
        return x

    def as_str(self, x, where: str, optional: bool = False):
        if isinstance(x, str) or (optional and x is None):
            return x
        raise self.fail(where, f"expected a string{' or null' if optional else ''}, got "
                               f"{_kind(x)}")

    def as_int(self, x, where: str, optional: bool = False):
        if _is_int(x) or (optional and x is None):
            return x
        raise self.fail(where, f"expected an integer{' or null' if optional else ''}, got "
                               f"{_kind(x)}")

    def as_dtype(self, x, where: str) -> DType:
        d = _DTYPES.get(x) if isinstance(x, str) else None
        if d is None:
            raise self.fail(where, f"unknown dtype {x!r}; the dtypes are {_DTYPE_NAMES}")
        return d

    def as_shape(self, x, where: str, unknown_ok: bool):
        if x is None and unknown_ok:
            return None
        dims = self.as_list(x, where)
        if len(dims) > _MAX_RANK:
            raise self.fail(where, f"rank {len(dims)} is more than {_MAX_RANK}")
        for i, d in enumerate(dims):
            if d is None and unknown_ok:
                continue
            if not _is_int(d) or not 0 <= d <= _MAX_DIM:
                raise self.fail(where, f"dim {i} must be a non-negative integer"
                                       f"{' or null' if unknown_ok else ''} (at most "
                                       f"{_MAX_DIM}), got {d!r}")
        return tuple(dims)

    def as_type(self, x, where: str) -> TensorType:
        d = self.as_obj(x, where, ("dtype", "shape"))
        return TensorType(self.as_dtype(d["dtype"], f"{where} > dtype"),
                          self.as_shape(d["shape"], f"{where} > shape", unknown_ok=True))

    def value_decl(self, x, where: str) -> Tuple[Optional[str], TensorType]:
        d = self.as_obj(x, where, ("type",))
        return (self.as_str(d.get("name"), f"{where} > name", optional=True),
                self.as_type(d["type"], f"{where} > type"))

    def loc(self, x, where: str) -> Optional[SourceLoc]:
        if x is None:
            return None
        d = self.as_obj(x, where, ("file", "line"))
        return SourceLoc(
            file=self.as_str(d["file"], f"{where} > file"),
            line=self.as_int(d["line"], f"{where} > line"),
            col=self.as_int(d.get("col", 0), f"{where} > col"),
            end_line=self.as_int(d.get("end_line"), f"{where} > end_line", optional=True),
            end_col=self.as_int(d.get("end_col"), f"{where} > end_col", optional=True),
            function=self.as_str(d.get("function", ""), f"{where} > function"),
            text=self.as_str(d.get("text", ""), f"{where} > text"))

    def ref(self, x, values: List[Value], where: str) -> Value:
        if not _is_int(x):
            raise self.fail(where, f"a value reference must be an integer, got {_kind(x)}")
        if not 0 <= x < len(values):
            raise self.fail(where, f"refers to value {x}, but only {len(values)} value(s) "
                                   f"(parameters, then outputs of earlier nodes) exist there")
        return values[x]

    # -- graphs and nodes ----------------------------------------------------------------------
    def graph(self, x, where: str, depth: int) -> Graph:
        if depth > _MAX_DEPTH:
            raise self.fail(where, f"subgraphs nest deeper than {_MAX_DEPTH} levels")
        d = self.as_obj(x, where, ("name", "params", "nodes", "results"))
        g = Graph(self.as_str(d["name"], f"{where} > name"))
        where = f"{where} '{g.name}'"
        values: List[Value] = []
        for i, p in enumerate(self.as_list(d["params"], f"{where} > params")):
            name, t = self.value_decl(p, f"{where} > parameter {i}")
            values.append(g.add_param(t, name))
        for i, n in enumerate(self.as_list(d["nodes"], f"{where} > nodes")):
            values.extend(self.node(g, n, values, f"{where} > node {i}", depth))
        g.set_results([self.ref(r, values, f"{where} > result {i}")
                       for i, r in enumerate(self.as_list(d["results"], f"{where} > results"))])
        return g

    def node(self, g: Graph, x, values: List[Value], where: str, depth: int):
        d = self.as_obj(x, where, ("op", "inputs", "attrs", "outputs"))
        op = self.as_str(d["op"], f"{where} > op")
        where = f"{where} ({op})"
        if not has_op(op):
            raise self.fail(where, f"the operator '{op}' is not registered in this graphjit; "
                                   f"if it is a custom operator, register it with "
                                   f"ops.register_op(...) before loading the model")
        inputs = [self.ref(r, values, f"{where} > input {i}")
                  for i, r in enumerate(self.as_list(d["inputs"], f"{where} > inputs"))]
        attrs = {k: self.attr(v, f"{where} > attribute '{k}'", depth + 1)
                 for k, v in self.as_obj(d["attrs"], f"{where} > attrs").items()}
        declared = [self.value_decl(o, f"{where} > output {i}")
                    for i, o in enumerate(self.as_list(d["outputs"], f"{where} > outputs"))]
        loc = self.loc(d.get("loc"), f"{where} > loc")
        try:
            node = g.add_node(op, inputs, attrs, loc=loc, names=[n for n, _ in declared])
        except Exception as e:  # the op's inference function judges data from the file
            raise self.fail(where, f"the operator rejects the inputs or attributes in the file: "
                                   f"{type(e).__name__}: {e}") from e
        if len(node.outputs) != len(declared):
            raise self.fail(where, f"the file declares {len(declared)} output(s), but the "
                                   f"operator gives {len(node.outputs)}")
        for i, (o, (_, t)) in enumerate(zip(node.outputs, declared)):
            if o.type != t:
                raise self.fail(where, f"the file declares output {i} as {t}, but type "
                                       f"inference gives {o.type}")
        return node.outputs

    # -- attribute values ----------------------------------------------------------------------
    def attr(self, x, where: str, depth: int):
        if depth > _MAX_DEPTH:
            raise self.fail(where, f"attribute values nest deeper than {_MAX_DEPTH} levels")
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if not isinstance(x, dict) or len(x) != 1:
            raise self.fail(where, f"an attribute value is null, a bool, a number, a string or "
                                   f"an object with one key such as {{\"tuple\": [...]}}; got "
                                   f"{_kind(x)}")
        ((tag, body),) = x.items()
        decode = _ATTR_KINDS.get(tag)
        if decode is None:
            raise self.fail(where, f"unknown attribute kind {tag!r}; the kinds are "
                                   f"{', '.join(sorted(_ATTR_KINDS))}")
        return decode(self, body, where, depth)

    def _float(self, body, where, depth):
        if body not in ("nan", "inf", "-inf"):
            raise self.fail(where, f"a 'float' value is 'nan', 'inf' or '-inf', got {body!r}")
        return float(body)

    def _tuple(self, body, where, depth):
        return tuple(self.attr(v, where, depth + 1) for v in self.as_list(body, where))

    def _list(self, body, where, depth):
        return [self.attr(v, where, depth + 1) for v in self.as_list(body, where)]

    def _dict(self, body, where, depth):
        out = {}
        for item in self.as_list(body, where):
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
                raise self.fail(where, f"a 'dict' holds [key, value] pairs with str keys, got "
                                       f"{_kind(item)}")
            out[item[0]] = self.attr(item[1], where, depth + 1)
        return out

    def _dtype(self, body, where, depth):
        return self.as_dtype(body, where)

    def _type(self, body, where, depth):
        return self.as_type(body, where)

    def _graph(self, body, where, depth):
        return self.graph(body, f"{where} > graph", depth + 1)

    def _array(self, body, where, depth):
        d = self.as_obj(body, where, ("entry", "dtype", "shape"))
        entry = self.as_str(d["entry"], f"{where} > entry")
        dtype = self.as_dtype(d["dtype"], f"{where} > dtype")
        shape = self.as_shape(d["shape"], f"{where} > shape", unknown_ok=False)
        arr = self.arrays.get(entry)
        if arr is None:
            arr = self.arrays[entry] = self.read_array(entry, where)
        if arr.dtype != dtype.np:
            raise self.fail(where, f"the constant in '{entry}' is {arr.dtype}, but "
                                   f"{GRAPH_ENTRY} declares {dtype.name}")
        if arr.shape != shape:
            raise self.fail(where, f"the constant in '{entry}' has shape {arr.shape}, but "
                                   f"{GRAPH_ENTRY} declares {shape}")
        return arr

    def _scalar(self, body, where, depth):
        arr = self._array(body, where, depth)
        if arr.ndim != 0:
            raise self.fail(where, f"a 'scalar' needs a 0-d array, got shape {arr.shape}")
        return arr[()]

    # -- arrays --------------------------------------------------------------------------------
    def read_array(self, entry: str, where: str) -> np.ndarray:
        info = self.infos.get(entry)
        if info is None:
            raise self.fail(where, f"the constant '{entry}' is missing from the archive")
        if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
            raise self.fail(entry, "constants must be stored uncompressed in the archive")
        if info.file_size > len(self.data):
            raise self.fail(entry, f"the entry claims {info.file_size} bytes, but the whole "
                                   f"file has {len(self.data)}")
        raw = self.read_entry(entry, len(self.data))
        try:
            return _parse_npy(raw)
        except _NpyError as e:
            raise self.fail(entry, str(e)) from None


_ATTR_KINDS = {"float": _Reader._float, "tuple": _Reader._tuple, "list": _Reader._list,
               "dict": _Reader._dict, "dtype": _Reader._dtype, "type": _Reader._type,
               "graph": _Reader._graph, "array": _Reader._array, "scalar": _Reader._scalar}


class _NpyError(Exception):
    pass


def _parse_npy(raw: bytes) -> np.ndarray:
    """The array in one .npy entry; the header is checked before any data is read."""
    fmt = np.lib.format
    buf = io.BytesIO(raw)
    try:
        version = fmt.read_magic(buf)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(buf)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(buf)
        else:
            raise _NpyError(f".npy format version {version} is not supported")
    except Exception as e:  # numpy's header parser meets damaged bytes (even tokenize errors)
        raise _NpyError(f"it is not a valid .npy array ({type(e).__name__}: {e})") from None
    if dtype.hasobject:
        raise _NpyError(f"the array holds Python objects (dtype {dtype}); graphjit files never "
                        f"contain pickled objects")
    if dtype.fields is not None or dtype.subdtype is not None:
        raise _NpyError(f"structured dtype {dtype} is not a graphjit dtype")
    native = dtype.newbyteorder("=") if dtype.byteorder in "<>" else dtype
    try:
        from_numpy(native)
    except TypeError:
        raise _NpyError(f"dtype {dtype} is not a graphjit dtype; the dtypes are "
                        f"{_DTYPE_NAMES}") from None
    if len(shape) > _MAX_RANK or any(d < 0 for d in shape):
        raise _NpyError(f"the header declares an invalid shape {shape}")
    count = math.prod(shape)
    start = buf.tell()
    if count * dtype.itemsize != len(raw) - start:
        raise _NpyError(f"the header declares shape {shape} of {dtype} ({count * dtype.itemsize}"
                        f" bytes of data), but the entry holds {len(raw) - start} bytes")
    if count == 0:
        return np.zeros(shape, native, order="F" if fortran else "C")
    flat = np.frombuffer(raw, dtype=dtype, count=count, offset=start)
    return flat.reshape(shape, order="F" if fortran else "C").astype(native, order="K",
                                                                    copy=True)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _kind(x) -> str:
    if x is None:
        return "null"
    if isinstance(x, dict):
        return "an object"
    if isinstance(x, list):
        return "an array"
    text = repr(x)
    return f"{type(x).__name__} {text[:40] + '...' if len(text) > 40 else text}"
