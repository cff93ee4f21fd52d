"""Reading a model file without trusting it: the zip container, graph.json checked
value by value, and .npy entries whose headers are checked before any data is read
(no object dtypes, so nothing is unpickled). Every failure is a ModelFileError naming
the part of the file that is wrong."""
from __future__ import annotations

import io
import json
import math
import zipfile
from typing import Dict, List, Optional, Tuple

import numpy as np

from .dtypes import DType, from_numpy
from .errors import ModelFileError
from .graph import Graph, Value
from .loc import SourceLoc
from .model_format import (DTYPE_NAMES, DTYPES, FORMAT_NAME, FORMAT_VERSION, GRAPH_ENTRY,
                           MAX_DEPTH, MAX_DIM, MAX_JSON_BYTES, MAX_RANK, ZIP_ERRORS, ModelFile)
from .registry import has_op
from .types import KINDS, TensorType
from .verifier import verify

__all__ = ["ModelReader"]


class ModelReader:
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
        except ZIP_ERRORS as e:
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
        except ZIP_ERRORS as e:
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
        raw = self.read_entry(GRAPH_ENTRY, MAX_JSON_BYTES)
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
        return ModelFile(graph, name, metadata, self.state(d.get("state", []), graph))

    def state(self, x, graph: Graph):
        """The (name, array) of each ref parameter, checked against its type."""
        where = f"{GRAPH_ENTRY} > state"
        items = self.as_list(x, where)
        refs = [p for p in graph.params if p.type.kind == "ref"]
        if len(items) != len(refs):
            raise self.fail(where, f"the graph reads {len(refs)} Parameter(s), but the file "
                                   f"holds {len(items)} value(s) for them")
        out = []
        for i, (item, p) in enumerate(zip(items, refs)):
            at = f"{where} > {i}"
            d = self.as_obj(item, at, ("value",))
            name = self.as_str(d.get("name"), f"{at} > name", optional=True)
            v = self.as_obj(d["value"], f"{at} > value", ("array",))
            arr = self._array(v["array"], f"{at} > value", 0)
            t = p.type
            if arr.dtype != t.dtype.np or (t.shape is not None and (
                    arr.ndim != len(t.shape) or any(a is not None and a != b
                                                    for a, b in zip(t.shape, arr.shape)))):
                raise self.fail(at, f"the value is {arr.dtype}{list(arr.shape)}, but the "
                                    f"graph reads parameter '{p.name}' as {t}")
            out.append((name, arr))
        return tuple(out)

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
        d = DTYPES.get(x) if isinstance(x, str) else None
        if d is None:
            raise self.fail(where, f"unknown dtype {x!r}; the dtypes are {DTYPE_NAMES}")
        return d

    def as_shape(self, x, where: str, unknown_ok: bool):
        if x is None and unknown_ok:
            return None
        dims = self.as_list(x, where)
        if len(dims) > MAX_RANK:
            raise self.fail(where, f"rank {len(dims)} is more than {MAX_RANK}")
        for i, d in enumerate(dims):
            if d is None and unknown_ok:
                continue
            if not _is_int(d) or not 0 <= d <= MAX_DIM:
                raise self.fail(where, f"dim {i} must be a non-negative integer"
                                       f"{' or null' if unknown_ok else ''} (at most "
                                       f"{MAX_DIM}), got {d!r}")
        return tuple(dims)

    def as_type(self, x, where: str) -> TensorType:
        d = self.as_obj(x, where, ("dtype", "shape"))
        kind = d.get("kind", "tensor")
        if kind not in KINDS:
            raise self.fail(f"{where} > kind", f"unknown kind {kind!r}; the kinds are "
                                               f"{', '.join(KINDS)}")
        return TensorType(self.as_dtype(d["dtype"], f"{where} > dtype"),
                          self.as_shape(d["shape"], f"{where} > shape", unknown_ok=True), kind)

    def value_decl(self, x, where: str) -> Tuple[Optional[str], TensorType]:
        d = self.as_obj(x, where, ("type",))
        return (self.as_str(d.get("name"), f"{where} > name", optional=True),
                self.as_type(d["type"], f"{where} > type"))

    def loc(self, x, where: str, depth: int = 0) -> Optional[SourceLoc]:
        if x is None:
            return None
        d = self.as_obj(x, where, ("file", "line"))
        caller = d.get("caller")
        if caller is not None and depth >= 16:
            raise self.fail(where, "callers nest deeper than 16")
        return SourceLoc(
            caller=None if caller is None else self.loc(caller, f"{where} > caller", depth + 1),
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
        if depth > MAX_DEPTH:
            raise self.fail(where, f"subgraphs nest deeper than {MAX_DEPTH} levels")
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
        if depth > MAX_DEPTH:
            raise self.fail(where, f"attribute values nest deeper than {MAX_DEPTH} levels")
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


_ATTR_KINDS = {"float": ModelReader._float, "tuple": ModelReader._tuple, "list": ModelReader._list,
               "dict": ModelReader._dict, "dtype": ModelReader._dtype, "type": ModelReader._type,
               "graph": ModelReader._graph, "array": ModelReader._array, "scalar": ModelReader._scalar}


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
                        f"{DTYPE_NAMES}") from None
    if len(shape) > MAX_RANK or any(d < 0 for d in shape):
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
