"""Saving and loading graphs: exact round trips, and damaged files refused with
ModelFileError naming what is wrong."""
import io
import json
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import graphjit as ms
from graphjit import nn
from graphjit.ir import Graph, SourceLoc, TensorType, dtypes as dt, verify
from graphjit.ir.errors import ModelFileError
from graphjit.ir.registry import REQUIRED, register_op
from graphjit.ir.serialize import (FORMAT_VERSION, GRAPH_ENTRY, load_graph, load_model_file,
                                   save_graph)

# An op whose only job is to carry an arbitrary attribute, to test every attr kind.
register_op("SerializeTestCarry", ("x",), {"payload": REQUIRED, "extra": None},
            infer=lambda ts, attrs: ts[0], kernel=lambda x, payload, extra: x,
            family="elementwise", doc="x, carrying payload (tests only)", replace=True)


# -- models with If and Loop, compiled from source ---------------------------------------------
class Branchy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    def construct(self, x):
        if x.sum() > 0:
            y = x * 2 + self.w
        else:
            y = x - 1
        return y


class Counting(nn.Cell):
    def construct(self, x, n):
        i = ms.Tensor(0)
        while i < n:
            x = x * 1.5 + 1
            i = i + 1
        return x, i


class IfThenLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    def construct(self, x, n):
        y = x * 2
        if x.sum() > 0:
            y = y + self.w
        else:
            y = y - 1
        i = ms.Tensor(0)
        while i < n:
            y = y * 1.5
            i = i + 1
        return y, i


class NestedFlow(nn.Cell):
    def construct(self, x, n):
        i = ms.Tensor(0)
        acc = x
        while i < n:
            if acc.sum() > 10:
                acc = acc - 3
            else:
                acc = acc + i.astype(ms.float32)
            i = i + 1
        return acc


def _models():
    return [
        ms.compile(Branchy(), ms.Tensor(np.ones((2, 3), np.float32))),
        ms.compile(Counting(), ms.TensorSpec((None, 4), ms.float32), ms.Tensor(3)),
        ms.compile(NestedFlow(), ms.Tensor(np.ones(3, np.float32)), ms.Tensor(5)),
        ms.compile(IfThenLoop(), ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(2)),
    ]


def _roundtrip(graph, **kw):
    buf = io.BytesIO()
    save_graph(graph, buf, **kw)
    buf.seek(0)
    return load_graph(buf)


def _hand_built():
    """Unknown dims, unknown rank, constants of every dtype (0-d and empty too),
    names, source locations and every kind of attribute."""
    g = Graph("hand")
    x = g.add_param(TensorType(dt.float32, (2, None)), "x")
    u = g.add_param(TensorType(dt.int64, None), "u")
    g.add_param(TensorType(dt.bool_, ()), None)
    loc = SourceLoc("/some/dir/model.py", 12, 4, 12, 19, "construct", "    y = x + 1  # é")
    loc2 = SourceLoc("other.py", 3)
    results = [g.apply("Add", x, x, loc=loc, name="twice"), u]
    samples = {
        dt.bool_: np.array([True, False, True]),
        dt.int8: np.array([[-128, 127]], np.int8),
        dt.int16: np.array(-3, np.int16),
        dt.int32: np.arange(12, dtype=np.int32).reshape(3, 4),
        dt.int64: np.array([2 ** 62, -2 ** 62]),
        dt.uint8: np.array([0, 255], np.uint8),
        dt.float16: np.array([0.1, -65504.0, np.inf], np.float16),
        dt.float32: np.array(1.5, np.float32),
        dt.float64: np.array([np.nan, -0.0, 1e-300, np.pi]),
    }
    for d, v in samples.items():
        results.append(g.const(v, dtype=d, loc=loc2))
    results.append(g.const(np.zeros((0, 3), np.float32), name="empty"))
    results.append(g.const(np.asfortranarray(np.arange(6.0).reshape(2, 3))))
    payload = (1, -2 ** 70, 0.1, -0.0, float("nan"), float("inf"), -float("inf"), True, None,
               "text ✓", [1, (2, [3, ()])], (), [], {"a": 1, "b": (dt.int8,)},
               dt.float16, TensorType(dt.int32, (None, 2)), TensorType(dt.uint8, None),
               np.array([[1, 2]], np.int16), np.float32(2.5), np.int64(-7), np.bool_(True))
    results.append(g.apply("SerializeTestCarry", x, payload=payload, extra="e", loc=loc))
    g.set_results(results)
    verify(g)
    return g


def _same_attr(a, b):
    if isinstance(a, np.ndarray) or isinstance(a, np.generic):
        assert type(a) is type(b) and a.dtype == b.dtype and np.shape(a) == np.shape(b)
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same_attr(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same_attr(a[k], b[k])
    elif isinstance(a, Graph):
        _same_graph(a, b)
    elif isinstance(a, float) and a != a:
        assert isinstance(b, float) and b != b
    else:
        assert type(a) is type(b) and a == b, (a, b)
        if isinstance(a, float):
            assert np.copysign(1, a) == np.copysign(1, b)


def _same_graph(a, b):
    assert str(a) == str(b)
    assert a.name == b.name
    assert [(p.name, p.type) for p in a.params] == [(p.name, p.type) for p in b.params]
    assert len(a.nodes) == len(b.nodes)
    for m, n in zip(a.nodes, b.nodes):
        assert (m.op, m.loc) == (n.op, n.loc)
        assert [(o.name, o.type) for o in m.outputs] == [(o.name, o.type) for o in n.outputs]
        assert list(m.attrs) == list(n.attrs)
        for k in m.attrs:
            _same_attr(m.attrs[k], n.attrs[k])


# -- round trips -------------------------------------------------------------------------------
def test_hand_built_graph_round_trips_exactly():
    g = _hand_built()
    loaded, name = _roundtrip(g)
    assert name == "hand"
    _same_graph(g, loaded)
    assert loaded.params[1].type.shape is None
    assert loaded.params[0].type.shape == (2, None)
    assert loaded.nodes[-2].attrs["value"].flags.f_contiguous


def test_loaded_graph_is_rebuilt_and_verified():
    g = _hand_built()
    loaded, _ = _roundtrip(g)
    verify(loaded)
    for node in loaded.walk():
        assert node.graph is not None
        for v in node.inputs:
            assert node in v.users


@pytest.mark.parametrize("index", range(4))
def test_models_with_if_and_loop_round_trip(index, tmp_path):
    model = _models()[index]
    path = tmp_path / "m.gjm"
    save_graph(model.graph, path, name="renamed", metadata={"k": [1, "two"]})
    loaded = load_model_file(path)
    assert loaded.name == "renamed" and loaded.metadata == {"k": [1, "two"]}
    _same_graph(model.graph, loaded.graph)
    ops_seen = {n.op for n in loaded.graph.walk()}
    assert ops_seen & {"If", "Loop"}


def test_saving_is_deterministic_and_leaves_no_temporary_files(tmp_path):
    g = _hand_built()
    save_graph(g, tmp_path / "a.gjm")
    save_graph(g, tmp_path / "b.gjm")
    save_graph(g, tmp_path / "b.gjm")    # replacing an existing file
    assert (tmp_path / "a.gjm").read_bytes() == (tmp_path / "b.gjm").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gjm", "b.gjm"]


def test_the_file_is_a_zip_of_json_and_npy_without_pickles(tmp_path):
    save_graph(_models()[0].graph, tmp_path / "m.gjm")
    with zipfile.ZipFile(tmp_path / "m.gjm") as zf:
        names = zf.namelist()
        doc = json.loads(zf.read(GRAPH_ENTRY))
        assert doc["version"] == FORMAT_VERSION
        for n in names[1:]:
            assert n.endswith(".npy")
            arr = np.load(io.BytesIO(zf.read(n)), allow_pickle=False)
            assert arr.dtype != object
    assert names[0] == GRAPH_ENTRY


def test_saving_refuses_what_is_not_plain_data():
    for bad, match in [(object(), "not plain data"), ({1: 2}, "str keys"),
                       (np.array([1j]), "complex128")]:
        g = Graph("bad")
        x = g.add_param(TensorType(dt.float32, (2,)), "x")
        g.set_results([g.apply("SerializeTestCarry", x, payload=bad)])
        with pytest.raises(TypeError, match=match):
            _roundtrip(g)
    with pytest.raises(ValueError, match="plain JSON"):
        _roundtrip(_hand_built(), metadata={"x": object()})


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_graph(tmp_path / "nope.gjm")


# -- damaged files -----------------------------------------------------------------------------
def _export_bytes(graph=None) -> bytes:
    buf = io.BytesIO()
    save_graph(graph if graph is not None else _models()[3].graph, buf, name="net")
    return buf.getvalue()


def _entries(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: (zf.read(i), i.compress_type) for i in zf.infolist()}


def _rezip(entries: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, (raw, method) in entries.items():
            zf.writestr(zipfile.ZipInfo(name), raw, compress_type=method)
    return buf.getvalue()


def _with_doc(data: bytes, edit) -> bytes:
    """The export with graph.json changed by edit(doc) (which may return a new doc)."""
    entries = _entries(data)
    doc = json.loads(entries[GRAPH_ENTRY][0])
    doc = edit(doc) or doc
    raw = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    entries[GRAPH_ENTRY] = (raw, zipfile.ZIP_DEFLATED)
    return _rezip(entries)


def _load(data: bytes):
    return load_graph(io.BytesIO(data))


def _first_node(doc, op):
    return next(n for n in doc["graph"]["nodes"] if n["op"] == op)


def _npy(arr=None, header=None, body=b"", allow_pickle=False) -> bytes:
    buf = io.BytesIO()
    if header is None:
        np.lib.format.write_array(buf, arr, allow_pickle=allow_pickle)
        return buf.getvalue()
    text = repr(header).encode("latin1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + body


def _const_entry(doc):
    """The entry of a float32 constant, a scalar if there is one."""
    refs = [n["attrs"]["value"]["array"] for n in doc["graph"]["nodes"] if n["op"] == "Const"]
    refs = sorted((r for r in refs if r["dtype"] == "float32"), key=lambda r: len(r["shape"]))
    return refs[0]["entry"]


def _with_const(data: bytes, raw: bytes) -> bytes:
    entries = _entries(data)
    name = _const_entry(json.loads(entries[GRAPH_ENTRY][0]))
    entries[name] = (raw, zipfile.ZIP_STORED)
    return _rezip(entries)


def test_model_file_error_is_a_value_error_with_the_file_and_part():
    with pytest.raises(ValueError) as info:
        load_graph(io.BytesIO(b"not a zip"))
    err = info.value
    assert isinstance(err, ms.ModelFileError) and isinstance(err, ModelFileError)
    assert err.path == "<stream>"
    assert "not a readable zip archive" in str(err)


@pytest.mark.parametrize("cut", [0, 1, 10, 100, 1000, -200, -22, -1])
def test_truncated_files(cut):
    data = _export_bytes()
    with pytest.raises(ModelFileError, match="truncated|damaged"):
        _load(data[:cut])


def test_random_bytes():
    rng = np.random.default_rng(0)
    for n in (0, 4, 100, 5000):
        with pytest.raises(ModelFileError, match="not a readable zip"):
            _load(rng.bytes(n))
    with pytest.raises(ModelFileError):
        _load(b"PK\x05\x06" + bytes(18))     # an empty zip archive


def test_a_zip_without_graph_json():
    entries = _entries(_export_bytes())
    del entries[GRAPH_ENTRY]
    with pytest.raises(ModelFileError, match="no 'graph.json'.*not a graphjit model"):
        _load(_rezip(entries))


@pytest.mark.parametrize("raw, match", [
    (b'{"format": "graphjit-model", "version": 1, "graph": ', "not valid JSON"),
    (b'{"format": NaN}', "not valid JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b"[1, 2]", "not a graphjit model document"),
    (b'{"format": "onnx"}', "format 'onnx'"),
    (b"[" * 100000 + b"]" * 100000, "nests too deeply|not valid JSON"),
])
def test_graph_json_that_is_not_a_model_document(raw, match):
    with pytest.raises(ModelFileError, match=match) as info:
        _load(_with_doc(_export_bytes(), lambda doc: raw))
    assert info.value.part == GRAPH_ENTRY


@pytest.mark.parametrize("version, match", [
    (2, "format version 2 is not supported \\(written by a newer graphjit\\)"),
    (0, "format version 0 is not supported; this graphjit reads version 1"),
    ("1", "version must be an int"),
    (True, "version must be an int"),
])
def test_wrong_format_version(version, match):
    def edit(doc):
        doc["version"] = version
    with pytest.raises(ModelFileError, match=match):
        _load(_with_doc(_export_bytes(), edit))


def test_unknown_op_name():
    def edit(doc):
        _first_node(doc, "Greater")["op"] = "Mull"
    with pytest.raises(ModelFileError, match=r"node \d+ \(Mull\).*'Mull' is not registered.*"
                                             r"register_op"):
        _load(_with_doc(_export_bytes(), edit))


@pytest.mark.parametrize("ref, match", [
    (99, "refers to value 99, but only"),
    (-1, "refers to value -1"),
    ("0", "reference must be an integer, got str"),
    (True, "reference must be an integer, got bool"),
    (1.0, "reference must be an integer, got float"),
])
def test_node_input_referring_to_a_missing_value(ref, match):
    def edit(doc):
        _first_node(doc, "Greater")["inputs"][0] = ref
    with pytest.raises(ModelFileError,
                       match=r"graph 'IfThenLoop' > node \d+ \(Greater\) > input 0: .*" + match):
        _load(_with_doc(_export_bytes(), edit))


def test_result_referring_to_a_later_or_missing_value():
    def edit(doc):
        doc["graph"]["results"] = [1000]
    with pytest.raises(ModelFileError, match="result 0: refers to value 1000"):
        _load(_with_doc(_export_bytes(), edit))


def test_forward_reference_inside_a_subgraph():
    def edit(doc):
        loop = _first_node(doc, "Loop")
        body = loop["attrs"]["body"]["graph"]
        n = len(body["params"]) + sum(len(x["outputs"]) for x in body["nodes"])
        body["nodes"][0]["inputs"] = [n - 1] + body["nodes"][0]["inputs"][1:]
    with pytest.raises(ModelFileError, match=r"attribute 'body' > graph 'while_body' > "
                                             r"node 0 \(\w+\) > input 0: refers to value"):
        _load(_with_doc(_export_bytes(), edit))


@pytest.mark.parametrize("edit, match", [
    (lambda d: _first_node(d, "If")["attrs"].update(then_graph="nope"),
     r"\(If\): the operator rejects .*then_graph"),
    (lambda d: _first_node(d, "Loop")["attrs"].update(input_map={"tuple": [5]}),
     r"\(Loop\): the operator rejects"),
    (lambda d: _first_node(d, "Loop")["attrs"].update(condition_result={"list": []}),
     r"\(Loop\): the operator rejects"),
    (lambda d: _first_node(d, "Const")["attrs"].update(value=3),
     r"\(Const\): the operator rejects .*numpy array"),
    (lambda d: _first_node(d, "Const")["attrs"].update(value={"tuple": [1], "list": []}),
     "an object with one key"),
    (lambda d: _first_node(d, "Const")["attrs"].update(value={"pickle": "x"}),
     "unknown attribute kind 'pickle'"),
    (lambda d: _first_node(d, "Const")["attrs"].update(value={"float": "1e3"}),
     "'nan', 'inf' or '-inf'"),
    (lambda d: _first_node(d, "Const")["attrs"].update(value=[1, 2]),
     "an object with one key"),
    (lambda d: _first_node(d, "Const")["attrs"].update(bogus=1),
     r"no attribute\(s\) \['bogus'\]"),
    (lambda d: _first_node(d, "Const").update(attrs=[]), "attrs: expected a JSON object"),
    (lambda d: _first_node(d, "Const").pop("op") and None, r"missing the key\(s\) \['op'\]"),
    (lambda d: _first_node(d, "Const")["outputs"][0]["type"].update(dtype="int8"),
     "declares output 0 as i8.*inference gives"),
    (lambda d: _first_node(d, "Const")["outputs"].append(
        {"name": None, "type": {"dtype": "bool", "shape": []}}),
     r"declares 2 output\(s\)"),
    (lambda d: d["graph"]["params"][0]["type"].update(dtype="complex64"),
     "unknown dtype 'complex64'"),
    (lambda d: d["graph"]["params"][0]["type"].update(shape=[-1]), "dim 0 must be a non-neg"),
    (lambda d: d["graph"]["params"][0]["type"].update(shape=[2 ** 80]), "at most"),
    (lambda d: d["graph"]["params"][0]["type"].update(shape=[1] * 65), "rank 65"),
    (lambda d: d["graph"]["params"][0]["type"].update(shape="3"), "expected a JSON array"),
    (lambda d: _first_node(d, "Const")["loc"].update(line="12"),
     "loc > line: expected an integer"),
    (lambda d: d["graph"].update(name=7), "graph > name: expected a string"),
    (lambda d: d.update(metadata=[]), "metadata"),
])
def test_wrong_structure_or_attribute_types(edit, match):
    with pytest.raises(ModelFileError, match=match):
        _load(_with_doc(_export_bytes(), edit))


def test_deeply_nested_attributes_are_refused():
    def edit(doc):
        v = 1
        for _ in range(150):
            v = {"tuple": [v]}
        _first_node(doc, "Const")["attrs"]["value"] = v
    with pytest.raises(ModelFileError, match="nest deeper than"):
        _load(_with_doc(_export_bytes(), edit))


@pytest.mark.parametrize("make, match", [
    (lambda: _npy(np.array(2.0, np.float64)), "is float64, but graph.json declares float32"),
    (lambda: _npy(np.array([2.0], np.float32)), r"has shape \(1,\), but graph.json declares"),
    (lambda: _npy(np.array([{"a": 1}], dtype=object), allow_pickle=True), "Python objects"),
    (lambda: _npy(header={"descr": "|O", "fortran_order": False, "shape": ()}),
     "Python objects"),
    (lambda: _npy(header={"descr": "<f4", "fortran_order": False, "shape": (-1,)}),
     "invalid shape"),
    (lambda: _npy(header={"descr": "<f4", "fortran_order": False, "shape": (10 ** 12, 10 ** 9)}),
     "bytes of data"),
    (lambda: _npy(header={"descr": "<f4", "fortran_order": False, "shape": (4,)},
                  body=b"\0" * 8), r"\(16 bytes of data\), but the entry holds 8"),
    (lambda: _npy(header={"descr": "<c8", "fortran_order": False, "shape": ()}, body=b"\0" * 8),
     "not a graphjit dtype"),
    (lambda: _npy(header={"descr": [("a", "<f4")], "fortran_order": False, "shape": ()},
                  body=b"\0" * 4), "structured dtype"),
    (lambda: _npy(header={"descr": "<f4", "shape": ()}, body=b"\0" * 4), "not a valid .npy"),
    (lambda: _npy(header="__import__('os')", body=b""), "not a valid .npy"),
    (lambda: b"\x93NUMPY\x09\x00", "not a valid .npy|not supported"),
    (lambda: b"", "not a valid .npy"),
])
def test_damaged_constants(make, match):
    with pytest.raises(ModelFileError, match=match) as info:
        _load(_with_const(_export_bytes(), make()))
    assert "arrays/" in str(info.value)


def test_big_endian_constants_are_read_as_native():
    g = Graph("be")
    g.set_results([g.const(np.array([1.5, -2.0], np.float32))])
    data = _with_const(_export_bytes(g), _npy(np.array([1.5, -2.0], ">f4")))
    loaded, _ = _load(data)
    v = loaded.nodes[0].attrs["value"]
    assert v.dtype == np.float32 and v.tolist() == [1.5, -2.0]


def test_missing_or_compressed_constant_entries():
    data = _export_bytes()
    entries = _entries(data)
    name = _const_entry(json.loads(entries[GRAPH_ENTRY][0]))
    raw = entries.pop(name)[0]
    with pytest.raises(ModelFileError, match=f"the constant '{name}' is missing"):
        _load(_rezip(entries))
    entries[name] = (raw, zipfile.ZIP_DEFLATED)
    with pytest.raises(ModelFileError, match="stored uncompressed"):
        _load(_rezip(entries))


# -- fuzzing -----------------------------------------------------------------------------------
_VALID = _export_bytes()


def _load_or_refuse(data: bytes):
    """Only two outcomes are allowed: a verified graph, or a ModelFileError."""
    try:
        g, _ = _load(data)
    except ModelFileError as e:
        assert str(e)
        return None
    verify(g)
    assert str(g)
    return g


@settings(max_examples=300, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(_VALID) - 1), st.integers(0, 255)),
                min_size=1, max_size=6),
       st.integers(0, len(_VALID)))
def test_fuzz_corrupted_bytes(changes, keep):
    data = bytearray(_VALID)
    for pos, byte in changes:
        data[pos] = byte
    _load_or_refuse(bytes(data[:keep] if keep < 40 else data))


_POOL = [0, 1, -1, 2, 3, 2 ** 63, 1.5, float("nan"), "", "x", "float32", "Add", "Loop",
         None, True, False, [], {}, [0], [None], {"tuple": []}, {"list": [0]},
         {"dtype": "int8"}, {"float": "nan"}, {"graph": {}}, {"scalar": {}},
         {"array": {"entry": "arrays/0.npy", "dtype": "float32", "shape": []}},
         {"array": {"entry": "arrays/1.npy", "dtype": "int64", "shape": []}},
         {"type": {"dtype": "bool", "shape": None}}]


def _containers(x, out):
    if isinstance(x, (dict, list)):
        out.append(x)
        for v in (x.values() if isinstance(x, dict) else x):
            _containers(v, out)
    return out


def _mutate(doc, rng):
    for _ in range(int(rng.integers(1, 4))):
        target = _containers(doc, [])
        c = target[int(rng.integers(len(target)))]
        if not c:
            continue
        key = list(c)[int(rng.integers(len(c)))] if isinstance(c, dict) else \
            int(rng.integers(len(c)))
        action = int(rng.integers(4))
        if action == 0:
            del c[key]
        elif action == 1:
            c[key] = json.loads(json.dumps(_POOL[int(rng.integers(len(_POOL)))]))
        elif action == 2 and isinstance(c[key], int) and not isinstance(c[key], bool):
            c[key] += int(rng.choice([-1, 1, 7]))
        else:
            other = target[int(rng.integers(len(target)))]
            c[key] = json.loads(json.dumps(other))


def test_fuzz_structured_changes_to_graph_json():
    rng = np.random.default_rng(1234)
    base = json.loads(_entries(_VALID)[GRAPH_ENTRY][0])
    loaded = 0
    for _ in range(400):
        doc = json.loads(json.dumps(base))
        _mutate(doc, rng)
        if _load_or_refuse(_with_doc(_VALID, lambda d: doc)) is not None:
            loaded += 1
    assert loaded < 400


def test_fuzz_bytes_of_graph_json_and_constants_behind_valid_checksums():
    rng = np.random.default_rng(99)
    entries = _entries(_VALID)
    names = list(entries)
    for _ in range(300):
        changed = dict(entries)
        name = names[int(rng.integers(len(names)))]
        raw = bytearray(changed[name][0])
        for _ in range(int(rng.integers(1, 5))):
            if raw:
                raw[int(rng.integers(len(raw)))] = int(rng.integers(256))
        if rng.random() < 0.2:
            raw = raw[:int(rng.integers(len(raw) + 1))]
        changed[name] = (bytes(raw), changed[name][1])
        _load_or_refuse(_rezip(changed))
