"""MindSpore's `.ckpt` file format: the protobuf wire format of its checkpoint.proto,
read and written by hand (no protobuf dependency, nothing executed on load).

    message Checkpoint {
        message Value { required string tag = 1; required TensorProto tensor = 2; }
        repeated Value value = 1;
    }
    message TensorProto {
        repeated int64 dims = 1;           // [0] for a 0-d tensor
        required string tensor_type = 2;   // "Float32", "Int32", "UInt8", "Bool", ...
        required bytes tensor_content = 3; // the raw little-endian C-order elements
    }

MindSpore writes one serialized Checkpoint per Parameter, one after the other (which
protobuf reads as one message: its values concatenate), splits a tensor past 512 MiB
into several Values of one tag (their contents join), writes strings (append_dict) as
tensor_type "str" holding numpy 'U' (UTF-32) bytes, and with crc_check=True appends
b"crc_num" and the CRC-32 of everything before as 10 big-endian bytes.
"""
from __future__ import annotations

import binascii
from collections import OrderedDict
from typing import Dict, List, Tuple, Union

import numpy as np

from ..ir.errors import ModelFileError

__all__ = ["encode_checkpoint", "decode_checkpoint", "TENSOR_TYPES", "CRC_MARK"]

# MindSpore's tensor_type strings (str(mindspore dtype)) and the numpy dtype of the bytes
TENSOR_TYPES = {
    "Bool": np.dtype(np.bool_), "Int8": np.dtype(np.int8), "UInt8": np.dtype(np.uint8),
    "Int16": np.dtype(np.int16), "UInt16": np.dtype(np.uint16), "Int32": np.dtype(np.int32),
    "UInt32": np.dtype(np.uint32), "Int64": np.dtype(np.int64),
    "UInt64": np.dtype(np.uint64), "Float16": np.dtype(np.float16),
    "Float32": np.dtype(np.float32), "Float64": np.dtype(np.float64),
}
_TYPE_OF = {d: name for name, d in TENSOR_TYPES.items()}
# read but never written: bfloat16 comes back as float32 (exactly: its bits are the high
# half of a float32's); MindSpore 1.x spelled the unsigned types "Uint8"...
_READ_ONLY = {"BFloat16": np.dtype("<u2"), "Uint8": np.dtype(np.uint8),
              "Uint16": np.dtype(np.uint16), "Uint32": np.dtype(np.uint32),
              "Uint64": np.dtype(np.uint64)}
CRC_MARK = b"crc_num"
_MAX_DIMS = 64


# -- writing ------------------------------------------------------------------------------------
def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64                  # int64: ten bytes of two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _tensor_proto(arr: Union[np.ndarray, str]) -> bytes:
    if isinstance(arr, str):
        content = np.array(arr).tobytes()         # numpy 'U': UTF-32, as MindSpore
        return _varint(1 << 3) + _varint(0) + _field(2, b"str") + _field(3, content)
    name = _TYPE_OF.get(arr.dtype.newbyteorder("<"))
    if name is None:
        raise TypeError(f"save_checkpoint: a {arr.dtype} array has no MindSpore tensor type")
    dims = arr.shape if arr.ndim else (0,)
    body = b"".join(_varint(1 << 3) + _varint(int(d)) for d in dims)
    content = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return body + _field(2, name.encode()) + _field(3, content)


def encode_checkpoint(items: "OrderedDict[str, Union[np.ndarray, str]]",
                      crc_check: bool = False) -> bytes:
    """The bytes MindSpore's save_checkpoint writes for name -> array (or str) items: one
    Checkpoint message per item, concatenated; with crc_check the CRC trailer."""
    parts = []
    for tag, arr in items.items():
        value = _field(1, tag.encode("utf-8")) + _field(2, _tensor_proto(arr))
        parts.append(_field(1, value))
    data = b"".join(parts)
    if crc_check:
        data += CRC_MARK + binascii.crc32(data).to_bytes(10, "big")
    return data


# -- reading ------------------------------------------------------------------------------------
class _Reader:
    """Fields of one protobuf message in buf[start:end]."""

    def __init__(self, buf: memoryview, start: int, end: int, what: str):
        self.buf, self.pos, self.end, self.what = buf, start, end, what

    def fail(self, why: str) -> ModelFileError:
        return ModelFileError(f"the checkpoint is damaged or not a MindSpore checkpoint: {why} "
                              f"(in {self.what}, at byte {self.pos})")

    def varint(self) -> int:
        n = shift = 0
        while True:
            if self.pos >= self.end:
                raise self.fail("a number runs past the end")
            b = self.buf[self.pos]
            self.pos += 1
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7
            if shift >= 70:
                raise self.fail("a number longer than ten bytes")

    def fields(self):
        """(field number, wire type, value): an int for varints, (start, end) for
        length-delimited fields; fixed-size fields are skipped."""
        while self.pos < self.end:
            key = self.varint()
            number, wire = key >> 3, key & 7
            if number == 0:
                raise self.fail("a field numbered 0")
            if wire == 0:
                yield number, wire, self.varint()
            elif wire == 2:
                n = self.varint()
                if n > self.end - self.pos:
                    raise self.fail(f"a field of {n} bytes runs past the end")
                yield number, wire, (self.pos, self.pos + n)
                self.pos += n
            elif wire in (1, 5):
                self.pos += 8 if wire == 1 else 4
                if self.pos > self.end:
                    raise self.fail("a fixed-size field runs past the end")
            else:
                raise self.fail(f"wire type {wire} (groups are not used by checkpoints)")


def _int64(n: int) -> int:
    return n - (1 << 64) if n >= 1 << 63 else n


def _parse_tensor(buf, start, end, tag) -> Tuple[List[int], str, Tuple[int, int]]:
    r = _Reader(buf, start, end, f"the tensor of '{tag}'")
    dims, ttype, content = [], None, None
    for number, wire, v in r.fields():
        if number == 1 and wire == 0:
            dims.append(_int64(v))
        elif number == 1 and wire == 2:               # packed dims
            p = _Reader(buf, v[0], v[1], f"the dims of '{tag}'")
            while p.pos < p.end:
                dims.append(_int64(p.varint()))
        elif number == 2 and wire == 2:
            try:
                ttype = bytes(buf[v[0]:v[1]]).decode("ascii")
            except UnicodeDecodeError:
                raise r.fail("a tensor type that is not text") from None
        elif number == 3 and wire == 2:
            content = v
        if len(dims) > _MAX_DIMS:
            raise r.fail(f"more than {_MAX_DIMS} dims")
    if ttype is None or content is None:
        raise r.fail("a tensor without its tensor_type or tensor_content")
    return dims, ttype, content


def _parse_value(buf, start, end):
    r = _Reader(buf, start, end, "a Value")
    tag = tensor = None
    for number, wire, v in r.fields():
        if number == 1 and wire == 2:
            try:
                tag = bytes(buf[v[0]:v[1]]).decode("utf-8")
            except UnicodeDecodeError:
                raise r.fail("a name that is not UTF-8") from None
        elif number == 2 and wire == 2:
            tensor = v
    if tag is None:
        raise r.fail("a Value without its tag (the Parameter's name)")
    if tensor is None:
        raise ModelFileError(f"the checkpoint's entry '{tag}' holds no tensor (a MindSpore "
                             f"MapParameter?): graphjit reads tensors only")
    return tag, tensor


def _array(tag: str, dims: List[int], ttype: str, data: bytes):
    if ttype == "str":
        if len(data) % 4:
            raise ModelFileError(f"the checkpoint's string '{tag}' has {len(data)} bytes, not "
                                 f"a whole number of UTF-32 characters")
        n = len(data) // 4
        try:
            return str(np.frombuffer(data, f"<U{n}")[0]) if n else ""
        except (ValueError, UnicodeDecodeError) as e:
            raise ModelFileError(f"the checkpoint's string '{tag}' is damaged: {e}") from None
    dtype = TENSOR_TYPES.get(ttype) or _READ_ONLY.get(ttype)
    if dtype is None:
        raise ModelFileError(
            f"the checkpoint's entry '{tag}' has tensor type {ttype!r}, which graphjit does "
            f"not read (it reads {', '.join(list(TENSOR_TYPES) + ['BFloat16', 'str'])})")
    if dims == [0]:
        dims = []
    if any(d < 0 for d in dims):
        raise ModelFileError(f"the checkpoint's entry '{tag}' has a negative dim: {dims}")
    count = 1
    for d in dims:
        count *= d
    if count * dtype.itemsize != len(data):
        raise ModelFileError(
            f"the checkpoint's entry '{tag}' declares shape {tuple(dims)} of {ttype} "
            f"({count * dtype.itemsize} bytes) but holds {len(data)} bytes")
    arr = np.frombuffer(data, dtype.newbyteorder("<")).reshape(dims)
    if ttype == "BFloat16":
        return (arr.astype(np.uint32) << 16).view(np.float32)
    return arr.astype(dtype, copy=True)


def decode_checkpoint(data: bytes, crc_check: bool = False
                      ) -> "OrderedDict[str, Union[np.ndarray, str]]":
    """name -> array (or str) of a MindSpore .ckpt file's bytes, in file order; the
    slices of one tag joined.

    Raises:
        ModelFileError: the bytes are not a well-formed checkpoint (or crc_check and the
            CRC trailer does not match).
    """
    if len(data) >= 17 and data[-17:-10] == CRC_MARK:
        want = int.from_bytes(data[-10:], "big")
        data = data[:-17]
        if crc_check and binascii.crc32(data) != want:
            raise ModelFileError("the checkpoint's CRC does not match its content: the file "
                                 "is damaged")
    elif crc_check:
        raise ModelFileError("crc_check=True but the checkpoint has no CRC (saved without "
                             "crc_check)")
    buf = memoryview(data)
    top = _Reader(buf, 0, len(buf), "the checkpoint")
    pieces: Dict[str, list] = OrderedDict()
    last = None
    for number, wire, v in top.fields():
        if number != 1 or wire != 2:
            continue
        tag, (ts, te) = _parse_value(buf, *v)
        dims, ttype, (cs, ce) = _parse_tensor(buf, ts, te, tag)
        if tag in pieces and tag != last:
            raise ModelFileError(f"the checkpoint holds '{tag}' twice")
        entry = pieces.setdefault(tag, [dims, ttype, []])
        if entry[1] != ttype:
            raise ModelFileError(f"the slices of '{tag}' have tensor types {entry[1]} and "
                                 f"{ttype}")
        entry[2].append(bytes(buf[cs:ce]))
        last = tag
    out: "OrderedDict[str, Union[np.ndarray, str]]" = OrderedDict()
    for tag, (dims, ttype, chunks) in pieces.items():
        out[tag] = _array(tag, dims, ttype, b"".join(chunks))
    return out
