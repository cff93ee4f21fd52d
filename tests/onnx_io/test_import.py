"""graphjit.onnx.import_model: names and dims, outer-scope values at any depth, Loop and
Scan port maps, opset forms, and the errors (every unsupported op listed, damaged or
hostile files refused with graphjit's error classes, a bounded fuzz of the bytes)."""
import os

import numpy as np
import pytest

from optional import require
onnx = require("onnx", "onnx")
ort = require("onnxruntime", "onnx")

from onnx import TensorProto as T, helper as h, numpy_helper  # noqa: E402

from graphjit.ir.errors import GraphJitError, ModelFileError  # noqa: E402
from graphjit.onnx import import_model  # noqa: E402
from graphjit.onnx.importer import OnnxImportError, UnsupportedOnnxOpError  # noqa: E402


def vi(name, dtype=T.FLOAT, shape=None):
    return h.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, opset=17, inits=()):
    g = h.make_graph(nodes, "main", inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def ort_run(m, feeds):
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


def check_against_ort(m, feeds):
    got = import_model(m).run_arrays(list(feeds.values()))
    want = ort_run(m, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6)
    return got


def init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


# -- names, dims, constants -----------------------------------------------------------------------
def test_inputs_keep_their_names_and_symbolic_dims_are_unknown():
    m = model([h.make_node("Add", ["in.x", "w"], ["y"])], [vi("in.x", shape=["batch", 3])],
              [vi("y", shape=["batch", 3])], inits=[init("w", np.ones(3, np.float32))])
    cm = import_model(m.SerializeToString())
    assert cm.get_metric("INPUTS") == [("in.x", "f32[?,3]")]
    out = cm.create_infer_request().infer({"in.x": np.zeros((2, 3), np.float32)})
    np.testing.assert_array_equal(out[0], np.ones((2, 3), np.float32))


def test_an_initializer_listed_as_an_input_is_a_constant(tmp_path):
    m = model([h.make_node("Mul", ["x", "w"], ["y"])], [vi("x", shape=[2]), vi("w", shape=[2])],
              [vi("y", shape=[2])], inits=[init("w", np.array([2, 3], np.float32))])
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    cm = import_model(str(path))
    assert [n for n, _ in cm._inputs] == ["x"]
    np.testing.assert_array_equal(cm.run_arrays([np.ones(2, np.float32)])[0], [2, 3])


# -- outer-scope values ---------------------------------------------------------------------------
def _nested_model():
    """A Loop whose body holds an If whose branches read `w` and `x` from the main graph
    (two levels up) and `acc` from the body (one level up)."""
    then_g = h.make_graph([h.make_node("Add", ["acc", "w"], ["r1"])], "t", [], [vi("r1")])
    else_g = h.make_graph([h.make_node("Sub", ["acc", "x"], ["r2"])], "e", [], [vi("r2")])
    body = h.make_graph([
        h.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
        h.make_node("Greater", ["fi", "half"], ["big"]),
        h.make_node("If", ["big"], ["acc2"], then_branch=then_g, else_branch=else_g),
        h.make_node("Mul", ["acc2", "fi"], ["step"]),
        h.make_node("Identity", ["c"], ["c2"]),
    ], "body", [vi("i", T.INT64, []), vi("c", T.BOOL, []), vi("acc", shape=[3])],
        [vi("c2", T.BOOL, []), vi("acc2", shape=[3]), vi("step", shape=[3])])
    return model([h.make_node("Loop", ["M", "", "x"], ["final", "steps"], body=body)],
                 [vi("M", T.INT64, []), vi("x", shape=[3]), vi("w", shape=[3])],
                 [vi("final", shape=[3]), vi("steps", shape=None)],
                 inits=[init("half", np.float32(0.5))])


def test_values_read_from_two_levels_up_become_explicit_operands():
    m = _nested_model()
    x, w = np.array([1, 2, 3], np.float32), np.array([0.5, -1, 2], np.float32)
    for trips in (0, 1, 4):
        got = check_against_ort(m, {"M": np.array(trips), "x": x, "w": w})
        assert got[1].shape == (trips, 3)
    g = import_model(m).graph
    loop = next(n for n in g.nodes if n.op == "Loop")
    # cond (the body reads it), carried x, invariants x and w
    assert [v.name for v in loop.inputs[3:]] == ["x", "x", "w"]
    body = loop.attrs["body"]
    iff = next(n for n in body.nodes if n.op == "If")
    # the branches take acc (the body's), w and x (the main graph's, through the body)
    assert len(iff.inputs) == 4 and all(v.graph is body for v in iff.inputs)
    for branch in (iff.attrs["then_graph"], iff.attrs["else_graph"]):
        assert len(branch.params) == 3


def test_loop_without_trip_count_runs_on_its_condition():
    body = h.make_graph([
        h.make_node("Add", ["v", "one"], ["v2"]),
        h.make_node("Less", ["v2", "limit"], ["c2"]),
        h.make_node("Identity", ["v2"], ["out"]),
    ], "b", [vi("i", T.INT64, []), vi("c", T.BOOL, []), vi("v", T.INT64, [])],
        [vi("c2", T.BOOL, []), vi("v2", T.INT64, []), vi("out", T.INT64, [])])
    m = model([h.make_node("Loop", ["", "go", "v0"], ["vf", "all"], body=body)],
              [vi("go", T.BOOL, []), vi("v0", T.INT64, []), vi("limit", T.INT64, [])],
              [vi("vf", T.INT64, []), vi("all", T.INT64, [None])],
              inits=[init("one", np.int64(1))])
    for go, v0, limit in ((True, 0, 5), (False, 0, 5), (True, 7, 5)):
        got = check_against_ort(m, {"go": np.array(go), "v0": np.array(v0),
                                    "limit": np.array(limit)})
        assert got[1].dtype == np.int64
    body_g = import_model(m).graph.nodes[-1].attrs["body"]
    assert not any(p.name == "i" for p in body_g.params)    # the iteration is never read


def test_loop_reads_its_condition_input():
    body = h.make_graph([
        h.make_node("Not", ["c"], ["c2"]),
        h.make_node("Cast", ["c"], ["ci"], to=T.INT64),
        h.make_node("Add", ["v", "ci"], ["v2"]),
    ], "b", [vi("i", T.INT64, []), vi("c", T.BOOL, []), vi("v", T.INT64, [])],
        [vi("c2", T.BOOL, []), vi("v2", T.INT64, [])])
    m = model([h.make_node("Loop", ["M", "", "v0"], ["vf"], body=body)],
              [vi("M", T.INT64, []), vi("v0", T.INT64, [])], [vi("vf", T.INT64, [])])
    for trips in (0, 1, 3):
        check_against_ort(m, {"M": np.array(trips), "v0": np.array(10)})


def test_scan_with_reverse_directions_and_axes():
    body = h.make_graph([
        h.make_node("Add", ["s", "xt"], ["s2"]),
        h.make_node("Mul", ["s2", "xt"], ["y"]),
    ], "b", [vi("s", shape=[2]), vi("xt", shape=[2])], [vi("s2", shape=[2]), vi("y", shape=[2])])
    node = h.make_node("Scan", ["s0", "xs"], ["sf", "ys"], body=body, num_scan_inputs=1,
                       scan_input_axes=[1], scan_input_directions=[1],
                       scan_output_axes=[1], scan_output_directions=[1])
    m = model([node], [vi("s0", shape=[2]), vi("xs", shape=[2, 4])],
              [vi("sf", shape=[2]), vi("ys", shape=[2, 4])])
    check_against_ort(m, {"s0": np.zeros(2, np.float32),
                          "xs": np.arange(8, dtype=np.float32).reshape(2, 4)})


# -- opsets: attribute forms and input forms give one graph ---------------------------------------
@pytest.mark.parametrize("op, old, new, data, want", [
    ("Squeeze", 11, 13, np.ones((1, 3, 1), np.float32), lambda x: x.squeeze(0)),
    ("Unsqueeze", 11, 13, np.ones((3,), np.float32), lambda x: x[None]),
    ("ReduceSum", 11, 13, np.arange(6, dtype=np.float32).reshape(2, 3),
     lambda x: x.sum(0, keepdims=True)),
    ("ReduceMean", 17, 18, np.arange(6, dtype=np.float32).reshape(2, 3),
     lambda x: x.mean(0, keepdims=True)),
    ("ReduceMax", 17, 18, np.arange(6, dtype=np.float32).reshape(2, 3),
     lambda x: x.max(0, keepdims=True)),
])
def test_axes_as_attribute_and_as_input(op, old, new, data, want):
    shape = list(data.shape)
    old_m = model([h.make_node(op, ["x"], ["y"], axes=[0])], [vi("x", shape=shape)],
                  [vi("y")], opset=old)
    new_m = model([h.make_node(op, ["x", "axes"], ["y"])], [vi("x", shape=shape)], [vi("y")],
                  opset=new, inits=[init("axes", np.array([0], np.int64))])
    for m in (old_m, new_m):
        got = import_model(m).run_arrays([data])[0]
        np.testing.assert_allclose(got, want(data))
        check_against_ort(m, {"x": data})


def test_split_clip_and_pad_across_opsets():
    x = np.arange(6, dtype=np.float32)
    split11 = model([h.make_node("Split", ["x"], ["a", "b"], axis=0, split=[2, 4])],
                    [vi("x", shape=[6])], [vi("a"), vi("b")], opset=11)
    split13 = model([h.make_node("Split", ["x", "s"], ["a", "b"], axis=0)],
                    [vi("x", shape=[6])], [vi("a"), vi("b")], opset=13,
                    inits=[init("s", np.array([2, 4], np.int64))])
    split18 = model([h.make_node("Split", ["x"], ["a", "b"], axis=0, num_outputs=2)],
                    [vi("x", shape=[6])], [vi("a"), vi("b")], opset=18)
    for m in (split11, split13, split18):
        check_against_ort(m, {"x": x})
    clip6 = model([h.make_node("Clip", ["x"], ["y"], min=1.0, max=4.0)], [vi("x", shape=[6])],
                  [vi("y")], opset=6)
    clip11 = model([h.make_node("Clip", ["x", "lo", "hi"], ["y"])], [vi("x", shape=[6])],
                   [vi("y")], opset=11,
                   inits=[init("lo", np.float32(1)), init("hi", np.float32(4))])
    for m in (clip6, clip11):
        np.testing.assert_array_equal(import_model(m).run_arrays([x])[0], np.clip(x, 1, 4))
    pad2 = model([h.make_node("Pad", ["x"], ["y"], pads=[1, 2], value=9.0)],
                 [vi("x", shape=[6])], [vi("y")], opset=2)
    pad11 = model([h.make_node("Pad", ["x", "p", "v"], ["y"])], [vi("x", shape=[6])],
                  [vi("y")], opset=11,
                  inits=[init("p", np.array([1, 2], np.int64)), init("v", np.float32(9))])
    for m in (pad2, pad11):
        np.testing.assert_array_equal(import_model(m).run_arrays([x])[0],
                                      np.pad(x, (1, 2), constant_values=9))


# -- errors ---------------------------------------------------------------------------------------
def test_every_unsupported_op_is_listed_with_counts_and_names():
    body = h.make_graph([h.make_node("Bernoulli", ["a"], ["d"], name="rand_in_body"),
                         h.make_node("Identity", ["c"], ["c2"])],
                        "b", [vi("i", T.INT64, []), vi("c", T.BOOL, [])], [vi("c2", T.BOOL, [])])
    m = model([h.make_node("Bernoulli", ["x"], ["d1"], name="rand1"),
               h.make_node("ImageDecoder", ["x"], ["nz"], name="nz"),
               h.make_node("Loop", ["M", ""], [], body=body, name="loop"),
               h.make_node("FusedThing", ["x"], ["f"], domain="com.example", name="custom")],
              [vi("x", shape=[2, 2]), vi("a", shape=[2, 2]), vi("M", T.INT64, [])],
              [vi("d1"), vi("nz", T.INT64), vi("f")])
    m.opset_import.append(h.make_opsetid("com.example", 1))
    with pytest.raises(UnsupportedOnnxOpError) as e:
        import_model(m)
    text = str(e.value)
    assert "3 op type(s)" in text and "4 node(s)" in text
    assert "Bernoulli: 2 node(s) ('rand1', 'rand_in_body')" in text
    assert "ImageDecoder: 1 node(s) ('nz')" in text
    assert "com.example.FusedThing: 1 node(s) ('custom')" in text
    assert e.value.ops["Bernoulli"] == ["rand1", "rand_in_body"]


def test_a_dtype_graphjit_lacks_and_a_sequence_are_named():
    m = model([h.make_node("Identity", ["x"], ["y"])], [vi("x", T.FLOAT8E4M3FN, [2])],
              [vi("y", T.FLOAT8E4M3FN, [2])])
    with pytest.raises(OnnxImportError, match=r"input 'x'.*FLOAT8E4M3FN has no graphjit dtype"):
        import_model(m)
    seq = h.make_tensor_sequence_value_info("s", T.FLOAT, [2])
    m = model([h.make_node("Identity", ["s"], ["y"])], [seq], [seq])
    with pytest.raises(OnnxImportError, match="is a sequence; graphjit has tensors only"):
        import_model(m)


def _valid():
    return _nested_model()


def _damaged_models():
    ok = _valid()
    raw = ok.SerializeToString()
    yield "truncated", raw[: len(raw) // 2], "does not parse|no graph"
    yield "random bytes", np.random.default_rng(0).bytes(300), "not an ONNX model"
    yield "another protobuf", numpy_helper.from_array(np.ones(3)).SerializeToString(), \
        "not an ONNX model"
    m = model([h.make_node("Add", ["x", "nope"], ["y"])], [vi("x", shape=[2])], [vi("y")])
    yield "undefined value", m, r"reads 'nope', which no node, input or initializer defines"
    m = model([h.make_node("Add", ["x", "b"], ["a"]), h.make_node("Neg", ["a"], ["b"])],
              [vi("x", shape=[2])], [vi("a")])
    yield "cycle", m, "a cycle"
    m = model([h.make_node("Concat", ["x", "x"], ["y"], axis="zero")], [vi("x", shape=[2])],
              [vi("y")])
    yield "wrong attribute type", m, "attribute 'axis' must be int, got string"
    m = model([h.make_node("Concat", ["x", "x"], ["y"])], [vi("x", shape=[2])], [vi("y")])
    yield "missing attribute", m, "the required attribute 'axis' is missing"
    body = h.make_graph([h.make_node("Identity", ["c"], ["c2"])], "b",
                        [vi("c", T.BOOL, [])], [vi("c2", T.BOOL, [])])
    m = model([h.make_node("Loop", ["M", ""], [], body=body)], [vi("M", T.INT64, [])],
              [vi("M", T.INT64, [])])
    yield "loop body inputs", m, "the body takes 1 inputs; a Loop with 0 carried"
    m = model([h.make_node("Identity", ["x"], ["y"])], [vi("x", shape=[1 << 40, 3])],
              [vi("y")])
    yield "huge input dim", m, "claims dim 1099511627776"
    yield "huge initializer dims", model([h.make_node("Identity", ["w"], ["y"])], [], [vi("y")],
                             inits=[_huge_tensor()]), "claim .* elements"
    m = model([h.make_node("Identity", ["w"], ["y"])], [], [vi("y")], inits=[_external("../x")])
    yield "external data outside", m, "must be a relative path|points outside"
    m = model([h.make_node("Identity", ["w"], ["y"])], [], [vi("y")],
              inits=[_external("/etc/passwd")])
    yield "external data absolute", m, "must be a relative path"
    m = model([h.make_node("Relu", ["x"], ["y"], domain="ai.onnx.ml")], [vi("x", shape=[2])],
              [vi("y")])
    m.opset_import.append(h.make_opsetid("ai.onnx.ml", 3))
    yield "unsupported domain", m, r"ai\.onnx\.ml\.Relu"
    m = model([h.make_node("Reshape", ["x", "s"], ["y"])], [vi("x", shape=[4])], [vi("y")],
              inits=[init("s", np.array([3], np.int64))])
    yield "bad reshape", m, "cannot reshape"
    m = model([h.make_node("Add", ["x", "x"], ["x"])], [vi("x", shape=[2])], [vi("x")])
    yield "redefined input", m, "redefines 'x'"


def _huge_tensor():
    t = onnx.TensorProto()
    t.name, t.data_type = "w", T.FLOAT
    t.dims.extend([1 << 20, 1 << 20])
    return t


def _external(location):
    t = onnx.TensorProto()
    t.name, t.data_type = "w", T.FLOAT
    t.dims.append(4)
    t.data_location = T.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", location
    return t


@pytest.mark.parametrize("label, data, pattern", list(_damaged_models()),
                         ids=[c[0] for c in _damaged_models()])
def test_damaged_and_hostile_files_get_clear_errors(label, data, pattern, tmp_path):
    path = tmp_path / "sub" / "m.onnx"
    path.parent.mkdir()
    (tmp_path / "x").write_bytes(b"\0" * 16)
    path.write_bytes(data if isinstance(data, bytes) else data.SerializeToString())
    with pytest.raises(GraphJitError, match=pattern) as e:
        import_model(str(path))
    assert isinstance(e.value, (ModelFileError, OnnxImportError)) or \
        type(e.value).__module__.startswith("graphjit")


def test_external_data_inside_the_directory_is_read(tmp_path):
    (tmp_path / "w.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    t = _external("w.bin")
    m = model([h.make_node("Identity", ["w"], ["y"])], [], [vi("y")], inits=[t])
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    np.testing.assert_array_equal(import_model(str(path)).run_arrays([])[0], np.arange(4))
    with pytest.raises(OnnxImportError, match="only a model read from a path"):
        import_model(m.SerializeToString())


def test_mutated_bytes_give_only_graphjit_errors():
    """A fuzz of a valid model's bytes (flips, truncations, splices; 1000 cases): each
    imports, or fails with one of graphjit's error classes."""
    rng = np.random.default_rng(1234)
    raw = bytearray(_valid().SerializeToString())
    outcomes = {"imported": 0, "refused": 0}
    for _ in range(1000):
        data = bytearray(raw)
        kind = rng.integers(3)
        if kind == 0:
            for _ in range(rng.integers(1, 4)):
                data[rng.integers(len(data))] = rng.integers(256)
        elif kind == 1:
            data = data[: rng.integers(1, len(data))]
        else:
            a, b = sorted(rng.integers(len(data), size=2))
            data = data[:a] + data[b:] + data[a:b]
        try:
            import_model(bytes(data))
            outcomes["imported"] += 1
        except GraphJitError:
            outcomes["refused"] += 1
    assert outcomes["refused"] > 300, outcomes


# -- Scan of opset 8: a batch axis (issue 23, item 8) ---------------------------------------------
def _scan8(batch, directions=(0,), seq_lens=None):
    body = h.make_graph(
        [h.make_node("Add", ["s_in", "x_t"], ["s_out"]),
         h.make_node("Mul", ["s_out", "x_t"], ["y_t"])], "body",
        [vi("s_in", shape=[2]), vi("x_t", shape=[2])],
        [vi("s_out", shape=[2]), vi("y_t", shape=[2])])
    inits = []
    if seq_lens is not None:
        inits.append(init("lens", np.asarray(seq_lens, np.int64)))
    node = h.make_node("Scan", ["lens" if seq_lens is not None else "", "s0", "x"],
                       ["s", "ys"], num_scan_inputs=1, body=body, directions=list(directions))
    return model([node], [vi("s0", shape=[batch, 2]), vi("x", shape=[batch, 3, 2])],
                 [vi("s", shape=[batch, 2]), vi("ys", shape=[batch, 3, 2])], opset=8,
                 inits=inits)


@pytest.mark.parametrize("directions", [(0,), (1,)])
def test_scan8_runs_each_batch_row(directions):
    rng = np.random.default_rng(0)
    feeds = {"s0": rng.standard_normal((2, 2)).astype(np.float32),
             "x": rng.standard_normal((2, 3, 2)).astype(np.float32)}
    got = check_against_ort(_scan8(2, directions), feeds)
    s, xs = feeds["s0"][1].copy(), feeds["x"][1][::-1] if directions[0] else feeds["x"][1]
    ys = []
    for x in xs:
        s = s + x
        ys.append(s * x)
    np.testing.assert_allclose(got[0][1], s, rtol=1e-6)
    np.testing.assert_allclose(got[1][1], np.stack(ys), rtol=1e-6)


def test_scan8_with_full_sequence_lens_and_its_refusals():
    feeds = {"s0": np.ones((2, 2), np.float32), "x": np.ones((2, 3, 2), np.float32)}
    check_against_ort(_scan8(2, seq_lens=[3, 3]), feeds)
    with pytest.raises(OnnxImportError, match="sequence_lens shorter than the sequences"):
        import_model(_scan8(2, seq_lens=[3, 1]))
    with pytest.raises(OnnxImportError, match="batch size .* must be one number known"):
        import_model(_scan8("b"))


def test_bfloat16_comes_from_ml_dtypes():
    """Issue 23, item 8: with ml_dtypes (in the onnx extra) graphjit has bfloat16."""
    ml_dtypes = require("ml_dtypes", "onnx")
    from graphjit.ir import dtypes as D
    assert D.bfloat16 is not None and D.bfloat16.is_floating
    assert D.as_dtype("bfloat16") is D.bfloat16 is D.from_numpy(ml_dtypes.bfloat16)
    bf = np.dtype(ml_dtypes.bfloat16)
    m = model([h.make_node("Add", ["x", "w"], ["y"]), h.make_node("Ceil", ["y"], ["z"])],
              [vi("x", T.BFLOAT16, [3])], [vi("z", T.BFLOAT16, [3])],
              inits=[numpy_helper.from_array(np.array([0.5, 1.25, -2.0], bf), "w")])
    cm = import_model(m.SerializeToString())
    assert "bf16[3]" in str(cm.graph)
    x = np.array([1.0, 2.5, 3.0], bf)
    (z,) = cm.run_arrays([x])
    assert z.dtype == bf
    np.testing.assert_array_equal(z.astype(np.float32), [2.0, 4.0, 1.0])
