"""Reading an ONNX file without trusting it: the protobuf, the opsets, the tensors
(inline or external data, sizes checked before any array is made), the value types
and the attributes. Every failure is a ModelFileError naming the part of the file
that is wrong, or an OnnxImportError for a sound model graphjit cannot take."""
from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, numpy_helper

from ..ir import dtypes as D
from ..ir.errors import GraphJitError, ModelFileError
from ..ir.model_format import MAX_RANK
from ..ir.types import TensorType
from .common import FROM_ONNX

__all__ = ["OnnxImportError", "UnsupportedOnnxOpError", "NeedsConstantError", "Where", "read_proto",
           "tensor_array", "value_type", "Attrs", "DEFAULT_DOMAINS", "MAX_ELEMENTS"]

#: The domains of the standard operator set.
DEFAULT_DOMAINS = ("", "ai.onnx")
#: The largest tensor (in elements) a file may declare or ask for.
MAX_ELEMENTS = 1 << 31
#: The largest model file read (protobuf's own limit is 2 GiB).
_MAX_BYTES = (1 << 31) - 1
_MIN_OPSET = 1


class OnnxImportError(GraphJitError, ValueError):
    """A sound ONNX model that graphjit cannot express (a dtype or type it has not, an
    attribute value its op lacks, a value that must be a constant and is not)."""


class UnsupportedOnnxOpError(OnnxImportError, NotImplementedError):
    """ONNX ops graphjit has no translation for; lists every one in the file.

    Attributes:
        ops: {op type: [node names]} of every unsupported node, nested bodies included.
    """

    def __init__(self, ops: Dict[str, List[str]], path=None):
        self.ops = ops
        lines = []
        for op in sorted(ops):
            names = ops[op]
            shown = ", ".join(repr(n) for n in names[:8]) + (", ..." if len(names) > 8 else "")
            lines.append(f"  {op}: {len(names)} node(s) ({shown})")
        where = f" in '{path}'" if path else ""
        total = sum(len(v) for v in ops.values())
        super().__init__(
            f"the ONNX model{where} uses {len(ops)} op type(s) graphjit cannot express "
            f"({total} node(s)):", detail="\n".join(lines),
            hint="replace these ops before export, or register graphjit ops for them")


class NeedsConstantError(OnnxImportError):
    """A node input graphjit needs while it builds (axes, a shape, pads) is computed
    when the graph runs, or is a graph input.

    Attributes:
        input_name: the ONNX name of that value.
    """

    def __init__(self, message: str, input_name: str, hint: str = ""):
        self.input_name = input_name
        super().__init__(message, hint=hint)


class Where:
    """A path through the file for messages: `graph 'main' > node 3 'loop' (Loop)`."""

    def __init__(self, label: str, parts: Tuple[str, ...] = ()):
        self.label = label
        self.parts = parts

    def __truediv__(self, part: str) -> "Where":
        return Where(self.label, self.parts + (part,))

    def __str__(self) -> str:
        return " > ".join(self.parts)

    def damaged(self, msg: str) -> ModelFileError:
        return ModelFileError(msg, path=self.label, part=str(self) or None)

    def cannot(self, msg: str, hint: str = "") -> OnnxImportError:
        prefix = f"{self}: " if self.parts else ""
        return OnnxImportError(f"cannot import the ONNX model '{self.label}': {prefix}{msg}",
                               hint=hint)


# -- the file ---------------------------------------------------------------------------------
def read_proto(model) -> Tuple[onnx.ModelProto, str, Optional[str]]:
    """The ModelProto of a path, bytes or ModelProto, its label for messages and the
    directory external data is read from (None: external data is refused).

    Raises:
        ModelFileError: not an ONNX model (damaged, truncated, another protobuf).
        OSError: the file cannot be read.
        TypeError: `model` is none of the three.
    """
    base_dir = None
    if isinstance(model, onnx.ModelProto):
        label, proto = "<ModelProto>", model
    else:
        if isinstance(model, (bytes, bytearray, memoryview)):
            label, data = "<bytes>", bytes(model)
        elif isinstance(model, (str, os.PathLike)):
            label = os.fspath(model)
            if os.path.getsize(label) > _MAX_BYTES:
                raise ModelFileError("the file is larger than the 2 GiB an ONNX protobuf may "
                                     "have", path=label)
            with open(label, "rb") as f:
                data = f.read()
            base_dir = os.path.dirname(os.path.abspath(label))
        else:
            raise TypeError(f"import_model takes a path, bytes or an onnx.ModelProto, got "
                            f"{type(model).__name__}")
        proto = onnx.ModelProto()
        try:
            proto.ParseFromString(data)
        except Exception as e:  # protobuf's DecodeError, or RuntimeWarning-like C errors
            raise ModelFileError(f"it is not an ONNX model: the protobuf does not parse "
                                 f"({type(e).__name__}: {e}); the file is truncated, "
                                 f"damaged, or not ONNX", path=label) from None
    where = Where(label)
    if not proto.HasField("graph") or proto.ir_version <= 0:
        raise where.damaged("it is not an ONNX model: no graph or no IR version (the bytes "
                            "parse as a protobuf of another kind)")
    return proto, label, base_dir


def opset_version(proto: onnx.ModelProto, where: Where) -> int:
    """The version of the default operator set; other domains are refused by op
    (see the unsupported-op listing), unknown entries named here."""
    versions = {}
    for entry in proto.opset_import:
        if entry.domain in versions:
            raise where.damaged(f"opset_import lists the domain '{entry.domain}' twice")
        versions[entry.domain] = entry.version
    v = versions.get("", versions.get("ai.onnx"))
    if v is None:
        if proto.opset_import and not _uses_default_domain(proto.graph):
            # a model of other domains' ops only (ai.onnx.preview.training's optimizers)
            return onnx.defs.onnx_opset_version()
        if proto.ir_version >= 3 or proto.opset_import:
            raise where.damaged("opset_import has no entry for the default ONNX domain")
        v = 1
    if v < _MIN_OPSET:
        raise where.cannot(f"opset {v} is older than graphjit reads (at least "
                           f"{_MIN_OPSET})", hint="convert the model with "
                           "onnx.version_converter first")
    if v > onnx.defs.onnx_opset_version():
        raise where.damaged(f"opset {v} is newer than the installed onnx package knows "
                            f"({onnx.defs.onnx_opset_version()})")
    return v


def _uses_default_domain(graph, depth: int = 0) -> bool:
    """Whether a node of the graph, or of a graph nested in it, is of the default domain."""
    if depth > 64:
        return True
    for n in graph.node:
        if n.domain in DEFAULT_DOMAINS:
            return True
        for a in n.attribute:
            subs = [a.g] if a.type == AttributeProto.GRAPH else list(a.graphs)
            if any(_uses_default_domain(g, depth + 1) for g in subs):
                return True
    return False


# -- tensors ------------------------------------------------------------------------------------
_TYPED_FIELDS = {
    TensorProto.FLOAT: "float_data", TensorProto.DOUBLE: "double_data",
    TensorProto.INT64: "int64_data", TensorProto.INT32: "int32_data",
    TensorProto.INT16: "int32_data", TensorProto.INT8: "int32_data",
    TensorProto.UINT8: "int32_data", TensorProto.BOOL: "int32_data",
    TensorProto.FLOAT16: "int32_data", TensorProto.BFLOAT16: "int32_data",
    TensorProto.UINT16: "int32_data", TensorProto.UINT32: "uint64_data",
    TensorProto.UINT64: "uint64_data",
}


def elem_dtype(code: int, where: Where) -> D.DType:
    """graphjit's dtype for an ONNX element type."""
    if code in FROM_ONNX:
        return FROM_ONNX[code]
    try:
        name = TensorProto.DataType.Name(code)
    except ValueError:
        raise where.damaged(f"element type {code} is not an ONNX data type") from None
    hint = "install ml_dtypes (part of the onnx extra: pip install -e '.[onnx]')" \
        if code == TensorProto.BFLOAT16 else ""
    raise where.cannot(f"element type {name} has no graphjit dtype; graphjit has "
                       f"{', '.join(d.name for d in D.ALL_DTYPES + D.EXTRA_DTYPES)}", hint)


def _check_dims(dims, where: Where) -> Tuple[int, ...]:
    if len(dims) > MAX_RANK:
        raise where.damaged(f"rank {len(dims)} is more than the {MAX_RANK} numpy allows")
    if any(d < 0 for d in dims):
        raise where.damaged(f"negative dim in {list(dims)}")
    n = math.prod(dims)
    if n > MAX_ELEMENTS:
        raise where.damaged(f"dims {list(dims)} claim {n} elements, more than the "
                            f"{MAX_ELEMENTS} graphjit reads")
    return tuple(int(d) for d in dims)


def tensor_array(t: TensorProto, where: Where, base_dir: Optional[str]) -> np.ndarray:
    """The numpy array a TensorProto holds, its size checked against its dims first."""
    dtype = elem_dtype(t.data_type, where)
    dims = _check_dims(t.dims, where)
    n = math.prod(dims)
    if t.HasField("segment"):
        raise where.cannot("segmented tensors are not supported")
    if t.data_location == TensorProto.EXTERNAL:
        t = _with_external_data(t, where, base_dir, n * dtype.np.itemsize)
    if t.HasField("raw_data"):
        if len(t.raw_data) != n * dtype.np.itemsize:
            raise where.damaged(f"raw_data holds {len(t.raw_data)} bytes, but dims "
                                f"{list(dims)} of {dtype} need {n * dtype.np.itemsize}")
    else:
        field = _TYPED_FIELDS[t.data_type]
        have = len(getattr(t, field))
        if have != n:
            raise where.damaged(f"{field} holds {have} value(s), but dims {list(dims)} need "
                                f"{n}")
        for other in set(_TYPED_FIELDS.values()) - {field}:
            if len(getattr(t, other)):
                raise where.damaged(f"a {dtype} tensor holds values in {other}")
    try:
        arr = numpy_helper.to_array(t)
    except Exception as e:  # onnx's converter meets data it cannot take
        raise where.damaged(f"the tensor's data cannot be read ({type(e).__name__}: "
                            f"{e})") from None
    arr = np.asarray(arr)
    if arr.dtype != dtype.np or arr.shape != dims:
        raise where.damaged(f"the tensor reads as {arr.dtype}{list(arr.shape)}, not "
                            f"{dtype}{list(dims)}")
    return np.array(arr, order="C", copy=True)   # ascontiguousarray makes a 0-d array 1-D


def _with_external_data(t: TensorProto, where: Where, base_dir: Optional[str],
                        nbytes: int) -> TensorProto:
    """A copy of t with its external data read into raw_data; the location must be a
    file inside the model's directory."""
    if base_dir is None:
        raise where.cannot("the tensor's data is in an external file, which only a model "
                           "read from a path can have", hint="pass the file's path")
    info = {e.key: e.value for e in t.external_data}
    loc = info.get("location", "")
    if not loc or os.path.isabs(loc) or "\x00" in loc:
        raise where.damaged(f"external data location {loc!r} must be a relative path")
    full = os.path.realpath(os.path.join(base_dir, loc))
    root = os.path.realpath(base_dir)
    if os.path.commonpath([full, root]) != root:
        raise where.damaged(f"external data location {loc!r} points outside the model's "
                            f"directory")
    try:
        offset = int(info.get("offset", "0"))
        length = int(info.get("length", str(nbytes)))
    except ValueError:
        raise where.damaged("external data offset and length must be integers") from None
    if offset < 0 or length != nbytes:
        raise where.damaged(f"external data offset {offset} and length {length} do not fit "
                            f"the tensor's {nbytes} bytes")
    if not os.path.isfile(full):
        raise where.damaged(f"external data file {loc!r} does not exist")
    if os.path.getsize(full) < offset + length:
        raise where.damaged(f"external data file {loc!r} holds {os.path.getsize(full)} "
                            f"bytes, fewer than offset {offset} + length {length}")
    with open(full, "rb") as f:
        f.seek(offset)
        raw = f.read(length)
    copy = TensorProto()
    copy.CopyFrom(t)
    copy.data_location = TensorProto.DEFAULT
    del copy.external_data[:]
    copy.raw_data = raw
    return copy


# -- value types --------------------------------------------------------------------------------
def value_type(vi: onnx.ValueInfoProto, where: Where) -> TensorType:
    """The TensorType of a graph input or output: symbolic or missing dims are unknown,
    a missing shape an unknown rank."""
    if not vi.HasField("type"):
        raise where.damaged(f"value '{vi.name}' has no type")
    kind = vi.type.WhichOneof("value")
    if kind != "tensor_type":
        what = {"sequence_type": "a sequence", "optional_type": "an optional",
                "map_type": "a map", "sparse_tensor_type": "a sparse tensor"}.get(kind, kind)
        raise where.cannot(f"value '{vi.name}' is {what}; graphjit has tensors only")
    tt = vi.type.tensor_type
    dtype = elem_dtype(tt.elem_type, where / f"value '{vi.name}'")
    if not tt.HasField("shape"):
        return TensorType(dtype, None)
    dims = []
    for d in tt.shape.dim:
        if d.WhichOneof("value") == "dim_value":
            if d.dim_value < 0 or d.dim_value > MAX_ELEMENTS:
                raise where.damaged(f"value '{vi.name}' claims dim {d.dim_value}")
            dims.append(int(d.dim_value))
        else:
            dims.append(None)
    if len(dims) > MAX_RANK:
        raise where.damaged(f"value '{vi.name}' has rank {len(dims)}, more than {MAX_RANK}")
    return TensorType(dtype, tuple(dims))


# -- attributes ---------------------------------------------------------------------------------
_KIND_NAMES = {AttributeProto.FLOAT: "float", AttributeProto.INT: "int",
               AttributeProto.STRING: "string", AttributeProto.TENSOR: "tensor",
               AttributeProto.GRAPH: "graph", AttributeProto.FLOATS: "floats",
               AttributeProto.INTS: "ints", AttributeProto.STRINGS: "strings",
               AttributeProto.TENSORS: "tensors", AttributeProto.GRAPHS: "graphs",
               AttributeProto.SPARSE_TENSOR: "sparse tensor",
               AttributeProto.SPARSE_TENSORS: "sparse tensors",
               AttributeProto.TYPE_PROTO: "type", AttributeProto.TYPE_PROTOS: "types"}
_REQUIRED = object()


class Attrs:
    """A node's attributes, each read with the kind the op expects."""

    def __init__(self, node: onnx.NodeProto, where: Where, base_dir: Optional[str]):
        self.where = where
        self.base_dir = base_dir
        self.items: Dict[str, AttributeProto] = {}
        for a in node.attribute:
            if a.name in self.items:
                raise where.damaged(f"attribute '{a.name}' is given twice")
            if a.ref_attr_name:
                raise where.damaged(f"attribute '{a.name}' refers to a function attribute "
                                    f"outside a function")
            self.items[a.name] = a

    def _get(self, name: str, kind: int, default):
        a = self.items.get(name)
        if a is None:
            if default is _REQUIRED:
                raise self.where.damaged(f"the required attribute '{name}' is missing")
            return None
        if a.type != kind:
            got = _KIND_NAMES.get(a.type, f"type {a.type}")
            raise self.where.damaged(f"attribute '{name}' must be {_KIND_NAMES[kind]}, got "
                                     f"{got}")
        return a

    def has(self, name: str) -> bool:
        return name in self.items

    def int(self, name: str, default: Any = _REQUIRED) -> Any:
        a = self._get(name, AttributeProto.INT, default)
        return default if a is None else int(a.i)

    def float(self, name: str, default: Any = _REQUIRED) -> Any:
        a = self._get(name, AttributeProto.FLOAT, default)
        return default if a is None else float(a.f)

    def string(self, name: str, default: Any = _REQUIRED) -> Any:
        a = self._get(name, AttributeProto.STRING, default)
        if a is None:
            return default
        try:
            return a.s.decode("utf-8")
        except UnicodeDecodeError:
            raise self.where.damaged(f"attribute '{name}' is not UTF-8 text") from None

    def ints(self, name: str, default: Any = _REQUIRED) -> Any:
        a = self._get(name, AttributeProto.INTS, default)
        return default if a is None else tuple(int(i) for i in a.ints)

    def floats(self, name: str, default: Any = _REQUIRED) -> Any:
        a = self._get(name, AttributeProto.FLOATS, default)
        return default if a is None else tuple(float(f) for f in a.floats)

    def strings(self, name: str, default: Any = _REQUIRED) -> Any:
        a = self._get(name, AttributeProto.STRINGS, default)
        if a is None:
            return default
        try:
            return tuple(s.decode("utf-8") for s in a.strings)
        except UnicodeDecodeError:
            raise self.where.damaged(f"attribute '{name}' is not UTF-8 text") from None

    def tensor(self, name: str, default: Any = _REQUIRED) -> Any:
        a = self._get(name, AttributeProto.TENSOR, default)
        if a is None:
            return default
        return tensor_array(a.t, self.where / f"attribute '{name}'", self.base_dir)

    def graph(self, name: str) -> onnx.GraphProto:
        return self._get(name, AttributeProto.GRAPH, _REQUIRED).g

    def check_known(self, known) -> None:
        """Attributes the op does not have are a damaged node."""
        extra = sorted(set(self.items) - set(known))
        if extra:
            raise self.where.damaged(f"unknown attribute(s) {', '.join(map(repr, extra))}")
