"""MindSpore's .ckpt format: a file built byte by byte from checkpoint.proto's message
layout reads back with its names, dtypes, shapes and values; graphjit's files are the
bytes the protobuf library writes for those messages (checked with google.protobuf when
it is installed); round trips, the CRC trailer, the legacy .npz files; damaged files give
ModelFileError and nothing else (fuzzed)."""
from __future__ import annotations

import binascii
import random
import struct
from collections import OrderedDict

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from graphjit.train.ckpt_format import decode_checkpoint, encode_checkpoint


# -- an independent encoder of the documented layout -----------------------------------------
def varint(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def ld(field, payload):                # a length-delimited field
    return bytes([field << 3 | 2]) + varint(len(payload)) + payload


def tensor(dims, ttype, content, packed=False):
    if packed:
        d = ld(1, b"".join(varint(x) for x in dims))
    else:
        d = b"".join(bytes([1 << 3 | 0]) + varint(x) for x in dims)
    return d + ld(2, ttype.encode()) + ld(3, content)


def value(tag, t):
    return ld(1, ld(1, tag.encode()) + ld(2, t))      # Checkpoint.value = 1


def test_a_file_built_from_the_message_layout():
    w = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    big = np.arange(10, dtype=np.int32)
    data = b"".join([
        value("conv.weight", tensor([2, 3], "Float32", w.tobytes())),
        value("bn.moving_mean", tensor([3], "Float32", struct.pack("<3f", 0.5, -1.0, 2.0),
                                       packed=True)),
        value("global_step", tensor([0], "Int32", struct.pack("<i", 7))),     # 0-d
        value("mask", tensor([2], "Bool", b"\x01\x00")),
        value("half", tensor([2], "Float16", np.array([1.5, -2], np.float16).tobytes())),
        value("count", tensor([1], "Int64", struct.pack("<q", -3))),
        value("u8", tensor([2], "UInt8", b"\xff\x01")),
        # a tensor split in two Values of one tag (MindSpore slices past 512 MiB)
        value("split", tensor([10], "Int32", big[:4].tobytes())),
        value("split", tensor([10], "Int32", big[4:].tobytes())),
        value("bf", tensor([2], "BFloat16", struct.pack("<2H", 0x3FC0, 0xC000))),
        value("epoch_note", tensor([0], "str", np.array("ok").tobytes())),
    ])
    # an unknown field (a future MindSpore's) is skipped
    data += bytes([9 << 3 | 0]) + varint(5)
    got = decode_checkpoint(data)
    assert list(got) == ["conv.weight", "bn.moving_mean", "global_step", "mask", "half",
                         "count", "u8", "split", "bf", "epoch_note"]
    np.testing.assert_array_equal(got["conv.weight"], w)
    assert got["conv.weight"].dtype == np.float32
    assert got["bn.moving_mean"].tolist() == [0.5, -1.0, 2.0]
    assert got["global_step"].shape == () and got["global_step"].dtype == np.int32
    assert int(got["global_step"]) == 7
    assert got["mask"].tolist() == [True, False] and got["mask"].dtype == np.bool_
    assert got["half"].dtype == np.float16 and got["half"].tolist() == [1.5, -2.0]
    assert got["count"].tolist() == [-3] and got["count"].dtype == np.int64
    assert got["u8"].tolist() == [255, 1]
    np.testing.assert_array_equal(got["split"], big)
    assert got["bf"].dtype == np.float32 and got["bf"].tolist() == [1.5, -2.0]
    assert got["epoch_note"] == "ok"


def test_load_checkpoint_reads_such_a_file_into_a_net(tmp_path):
    net = nn.Dense(3, 2)
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([0.5, -0.5], np.float32)
    path = tmp_path / "mindspore.ckpt"
    path.write_bytes(value("weight", tensor([2, 3], "Float32", w.tobytes())) +
                     value("bias", tensor([2], "Float32", b.tobytes())) +
                     value("epoch_num", tensor([0], "Int64", struct.pack("<q", 5))))
    params = ms.load_checkpoint(str(path))
    assert isinstance(params["weight"], ms.Parameter) and params["weight"].name == "weight"
    assert params["weight"].dtype == ms.float32 and params["epoch_num"].dtype == ms.int64
    assert ms.load_param_into_net(net, params) == ([], ["epoch_num"])
    np.testing.assert_array_equal(net.weight.asnumpy(), w)
    np.testing.assert_array_equal(net.bias.asnumpy(), b)


def test_graphjits_bytes_are_the_documented_layout():
    items = OrderedDict([("a.weight", np.arange(4, dtype=np.float32).reshape(2, 2)),
                         ("step", np.asarray(3, np.int32)), ("flag", np.array([True])),
                         ("note", "hi")])
    want = (value("a.weight", tensor([2, 2], "Float32", items["a.weight"].tobytes())) +
            value("step", tensor([0], "Int32", struct.pack("<i", 3))) +
            value("flag", tensor([1], "Bool", b"\x01")) +
            value("note", tensor([0], "str", np.array("hi").tobytes())))
    assert encode_checkpoint(items) == want
    with_crc = encode_checkpoint(items, crc_check=True)
    assert with_crc == want + b"crc_num" + binascii.crc32(want).to_bytes(10, "big")


def _protobuf_classes():
    # protobuf comes with the onnx extra (onnx needs it)
    pb = pytest.importorskip("google.protobuf",
                             reason="needs protobuf, which the onnx extra installs: "
                                    "pip install -e '.[onnx]'")
    from google.protobuf import descriptor_pb2, descriptor_pool
    try:
        from google.protobuf.message_factory import GetMessageClass
    except ImportError:            # older protobuf
        GetMessageClass = None
    f = descriptor_pb2.FileDescriptorProto(name="checkpoint_test.proto", syntax="proto2")
    ckpt = f.message_type.add(name="Checkpoint")
    val = ckpt.nested_type.add(name="Value")
    L = descriptor_pb2.FieldDescriptorProto
    val.field.add(name="tag", number=1, type=L.TYPE_STRING, label=L.LABEL_REQUIRED)
    val.field.add(name="tensor", number=2, type=L.TYPE_MESSAGE, label=L.LABEL_REQUIRED,
                  type_name=".TensorProto")
    ckpt.field.add(name="value", number=1, type=L.TYPE_MESSAGE, label=L.LABEL_REPEATED,
                   type_name=".Checkpoint.Value")
    tp = f.message_type.add(name="TensorProto")
    tp.field.add(name="dims", number=1, type=L.TYPE_INT64, label=L.LABEL_REPEATED)
    tp.field.add(name="tensor_type", number=2, type=L.TYPE_STRING, label=L.LABEL_REQUIRED)
    tp.field.add(name="tensor_content", number=3, type=L.TYPE_BYTES, label=L.LABEL_REQUIRED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    desc = pool.FindMessageTypeByName("Checkpoint")
    if GetMessageClass is None:
        from google.protobuf import message_factory
        return message_factory.MessageFactory(pool).GetPrototype(desc), pb
    return GetMessageClass(desc), pb


@pytest.mark.extra("onnx")
def test_the_protobuf_library_agrees():
    Checkpoint, _ = _protobuf_classes()
    arrays = OrderedDict([("fc.weight", np.random.default_rng(0).normal(size=(3, 4))
                           .astype(np.float32)), ("s", np.asarray(2.5, np.float64)),
                          ("i", np.array([1, -2], np.int64))])
    # MindSpore's writer: one Checkpoint message per entry, serialized and concatenated
    want = b""
    for tag, arr in arrays.items():
        m = Checkpoint()
        v = m.value.add()
        v.tag = tag
        v.tensor.dims.extend(arr.shape if arr.ndim else [0])
        v.tensor.tensor_type = {"float32": "Float32", "float64": "Float64",
                                "int64": "Int64"}[arr.dtype.name]
        v.tensor.tensor_content = arr.tobytes()
        want += m.SerializeToString()
    assert encode_checkpoint(arrays) == want
    parsed = Checkpoint()
    parsed.ParseFromString(encode_checkpoint(arrays))
    assert [v.tag for v in parsed.value] == list(arrays)
    got = decode_checkpoint(want)
    for k in arrays:
        np.testing.assert_array_equal(got[k], arrays[k])
        assert got[k].dtype == arrays[k].dtype and got[k].shape == arrays[k].shape


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.out = nn.Dense(4, 2)

    def construct(self, x):
        return self.out(self.bn(self.fc(x)))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_round_trip_with_crc_and_append_dict(tmp_path, mode):
    ms.set_context(mode=mode)
    try:
        ms.set_seed(3)
        net = Net()
        x = ms.Tensor(np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32))
        want = net(x).asnumpy()
        path = str(tmp_path / "net")
        ms.save_checkpoint(net, path, append_dict={"epoch_num": 4, "lr": 0.5, "tag": "v1"},
                           crc_check=True)
        params = ms.load_checkpoint(path + ".ckpt", crc_check=True)
        assert list(params)[:6] == ["fc.weight", "fc.bias", "bn.moving_mean",
                                    "bn.moving_variance", "bn.gamma", "bn.beta"]
        assert params["epoch_num"].dtype == ms.int64 and params["lr"].dtype == ms.float32
        assert params["tag"] == "v1"
        ms.set_seed(4)
        fresh = Net()
        not_loaded, unused = ms.load_param_into_net(fresh, params)
        assert not_loaded == [] and unused == ["epoch_num", "lr", "tag"]
        np.testing.assert_array_equal(fresh(x).asnumpy(), want)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def test_names_not_matched_and_a_shared_prefix(tmp_path):
    class Wrapped(nn.Cell):
        def __init__(self):
            super().__init__()
            self.backbone = Net()

    src = Wrapped()
    ms.save_checkpoint(src, str(tmp_path / "w.ckpt"))
    params = ms.load_checkpoint(str(tmp_path / "w.ckpt"))
    assert "backbone.fc.weight" in params
    net = Net()
    # without strict_load, the prefix the checkpoint's names share is dropped (MindSpore)
    assert ms.load_param_into_net(net, params) == ([], [])
    np.testing.assert_array_equal(net.fc.weight.asnumpy(), src.backbone.fc.weight.asnumpy())
    not_loaded, unused = ms.load_param_into_net(Net(), params, strict_load=True)
    assert len(not_loaded) == 8 and len(unused) == 8


def test_legacy_npz_checkpoints_still_load_and_pickles_are_refused(tmp_path):
    path = tmp_path / "old.ckpt"
    with open(path, "wb") as f:
        np.savez(f, **{"fc.weight": np.ones((4, 3), np.float32)})
    params = ms.load_checkpoint(str(path))
    assert params["fc.weight"].shape == (4, 3)
    evil = tmp_path / "evil.ckpt"
    with open(evil, "wb") as f:
        np.savez(f, x=np.array([object()], dtype=object))
    with pytest.raises(ms.ModelFileError, match="damaged"):
        ms.load_checkpoint(str(evil))


def test_crc_mismatch_and_unknown_types_are_clear_errors(tmp_path):
    data = bytearray(encode_checkpoint(OrderedDict(w=np.ones(3, np.float32)), crc_check=True))
    data[20] ^= 0x01
    path = tmp_path / "c.ckpt"
    path.write_bytes(bytes(data))
    with pytest.raises(ms.ModelFileError, match="CRC"):
        ms.load_checkpoint(str(path), crc_check=True)
    path.write_bytes(value("q", tensor([2], "Int4", b"\x12")))
    with pytest.raises(ms.ModelFileError, match="'q' has tensor type 'Int4'"):
        ms.load_checkpoint(str(path))
    path.write_bytes(value("w", tensor([2, 3], "Float32", b"\x00" * 8)))
    with pytest.raises(ms.ModelFileError, match=r"shape \(2, 3\).*24 bytes.*holds 8"):
        ms.load_checkpoint(str(path))


def test_damaged_files_give_model_file_errors_only():
    items = OrderedDict([("layer.weight", np.arange(12, dtype=np.float32).reshape(3, 4)),
                         ("step", np.asarray(9, np.int64)), ("note", "abc")])
    good = encode_checkpoint(items)
    rng = random.Random(0)
    outcomes = {"ok": 0, "error": 0}
    for trial in range(1500):
        data = bytearray(good)
        kind = trial % 3
        if kind == 0:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 1:
            data = data[:rng.randrange(len(data))]
        else:
            i = rng.randrange(len(data))
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
        try:
            decode_checkpoint(bytes(data))
            outcomes["ok"] += 1
        except ms.ModelFileError:
            outcomes["error"] += 1
    assert outcomes["error"] > 500 and outcomes["ok"] > 0
