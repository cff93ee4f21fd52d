"""The compiled model of API.md: compile, run, infer requests (sync, async, concurrent),
metrics and config, export and import."""
import io
import threading

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from graphjit.jit.compiled_model import CompiledModel, InferRequest
from graphjit.ir import Graph, TensorType, dtypes as dt
from graphjit.ir.registry import register_op

W = np.arange(6, dtype=np.float32).reshape(2, 3)

register_op("CompiledModelTestFail", ("x",), {}, infer=lambda ts, attrs: ts[0],
            kernel=lambda x: (_ for _ in ()).throw(ArithmeticError("kernel exploded")),
            family="extern", doc="fails at run time (tests only)", replace=True)


class IfThenLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Tensor(W)

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


def expected(x, n):
    y = x * 2 + W if x.sum() > 0 else x * 2 - 1
    for _ in range(max(int(n), 0)):
        y = (y * np.float32(1.5)).astype(np.float32)
    return [y.astype(np.float32), np.array(max(int(n), 0))]


class Dense(nn.Cell):
    """Weights bigger than the printer shows, so only a value check proves they survive."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(7)
        self.w = ms.Tensor(rng.standard_normal((4, 16)).astype(np.float32))
        self.b = ms.Tensor(rng.standard_normal(16).astype(np.float32))

    def construct(self, x):
        h = ms.ops.matmul(x, self.w) + self.b
        if h.sum() > 0:
            h = ms.ops.relu(h)
        return h


class Rows(nn.Cell):
    def construct(self, x, limit):
        total = x[0] * 0
        k = ms.Tensor(0)
        while k < limit:
            total = total + x[k]
            k = k + 1
        return total


class ConstBranch(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            y = ms.Tensor(np.array([1.0, 2.0], np.float32))
        else:
            y = x
        return y


class Scale(nn.Cell):
    def construct(self, x, k):
        return x * k


def _model(**kw):
    return ms.compile(IfThenLoop(), ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(2), **kw)


def _inputs(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    return [x, np.array(int(rng.integers(0, 5)))]


def _check(outs, x, n):
    want = expected(x, n)
    assert len(outs) == 2
    for o, w in zip(outs, want):
        assert isinstance(o, np.ndarray) and o.dtype == w.dtype and o.shape == w.shape
        np.testing.assert_allclose(o, w, rtol=1e-6)


# -- compile and run ---------------------------------------------------------------------------
def test_compile_gives_a_model_whose_graph_prints():
    model = _model()
    assert isinstance(model, ms.CompiledModel)
    text = str(model.graph)
    assert text.startswith("graph IfThenLoop(%x: f32[2,3], %n: i64[])")
    assert "If(" in text and "Loop(" in text


def test_calling_the_model_matches_eager_mode():
    model = _model()
    net = IfThenLoop()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for sign in (1, -1):
        for n in (0, 1, 3):
            x = ms.Tensor(sign * np.ones((2, 3), np.float32))
            got, want = model(x, ms.Tensor(n)), net(x, ms.Tensor(n))
            for g, w in zip(got, want):
                assert g.dtype == w.dtype
                np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_infer_takes_lists_dicts_tensors_and_one_array():
    model = _model()
    req = model.create_infer_request()
    assert isinstance(req, InferRequest)
    x = np.full((2, 3), -0.5, np.float32)
    _check(req.infer([x, np.array(2)]), x, 2)
    _check(req.infer((ms.Tensor(x), ms.Tensor(3))), x, 3)
    _check(req.infer({"n": np.array(1), "x": x}), x, 1)
    _check(req.outputs, x, 1)
    one = ms.compile(Dense(), ms.Tensor(np.ones((1, 4), np.float32)))
    a = np.ones((1, 4), np.float32)
    np.testing.assert_array_equal(one.create_infer_request().infer(a)[0],
                                  one(ms.Tensor(a)).asnumpy())


def test_unknown_dims_accept_any_size():
    model = ms.compile(Rows(), ms.TensorSpec((None, 3), ms.float32), ms.Tensor(2))
    req = model.create_infer_request()
    for rows in (1, 4, 7):
        x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        (out,) = req.infer([x, np.array(rows)])
        np.testing.assert_array_equal(out, x.sum(axis=0))
    with pytest.raises(ValueError, match=r"input 0 'x' must have shape \[\?,3\].*got \[4,2\]"):
        req.infer([np.ones((4, 2), np.float32), np.array(1)])


@pytest.mark.parametrize("inputs, error, match", [
    ([np.ones((2, 3), np.float32)], TypeError,
     r"takes 2 input\(s\) \(x: f32\[2,3\], n: i64\[\]\), got 1"),
    ([np.ones((2, 3)), np.array(1)], TypeError, r"input 0 'x' must be float32 .*got float64"),
    ([np.ones((2, 3), np.float32), np.array(1, np.int32)], TypeError,
     "input 1 'n' must be int64"),
    ([np.ones((3, 2), np.float32), np.array(1)], ValueError,
     r"input 0 'x' must have shape \[2,3\].*got \[3,2\]"),
    ([np.ones((2, 3, 1), np.float32), np.array(1)], ValueError, "must have shape"),
    ({"x": np.ones((2, 3), np.float32)}, ValueError, r"missing \['n'\]"),
    ({"x": np.ones((2, 3), np.float32), "n": np.array(1), "m": 1}, ValueError,
     r"unknown \['m'\]"),
    ([ms.TensorSpec((2, 3), ms.float32), np.array(1)], ValueError, "without data"),
])
def test_wrong_inputs_are_refused_clearly(inputs, error, match):
    req = _model().create_infer_request()
    with pytest.raises(error, match=match):
        req.infer(inputs)
    with pytest.raises(error, match=match):
        req.start_async(inputs)
    ok = _inputs(np.random.default_rng(0))
    _check(req.infer(ok), *ok)      # a refused call leaves the request usable


def test_calling_the_model_with_wrong_tensors_is_refused():
    model = _model()
    with pytest.raises(TypeError, match="x must be float32"):
        model(ms.Tensor(np.ones((2, 3))), ms.Tensor(1))
    with pytest.raises(ValueError, match=r"x must have shape \[2,3\]"):
        model(ms.Tensor(np.ones((3, 3), np.float32)), ms.Tensor(1))


def test_calling_with_other_python_constants_is_refused():
    model = ms.compile(Scale(), ms.Tensor(np.ones(2, np.float32)), 3)
    x = ms.Tensor(np.ones(2, np.float32))
    np.testing.assert_array_equal(model(x, 3).asnumpy(), [3, 3])
    for other in (5, 3.0, "3"):
        with pytest.raises(ValueError, match="was 3 when it was compiled.*compile again"):
            model(x, other)
    with pytest.raises(TypeError, match=r"compiled for 2 argument\(s\) \(a tensor, 3\), got 1"):
        model(x)
    with pytest.raises(TypeError, match="got 3"):
        model(x, 3, 4)


def test_negative_zero_is_another_constant_than_zero():
    """-0.0 == 0.0, but x / q folds to -inf for one and inf for the other."""
    class Divide(nn.Cell):
        def construct(self, x, q):
            return x / q

    x = ms.Tensor(np.ones(2, np.float32))
    model = ms.compile(Divide(), x, 0.0)
    np.testing.assert_array_equal(model(x, 0.0).asnumpy(), [np.inf, np.inf])
    with pytest.raises(ValueError, match="was 0.0 when it was compiled and is -0.0 now"):
        model(x, -0.0)


def test_runtime_failures_name_the_node():
    g = Graph("failing")
    x = g.add_param(TensorType(dt.float32, (2,)), "x")
    g.set_results([g.apply("CompiledModelTestFail", x)])
    model = CompiledModel(g)
    req = model.create_infer_request()
    with pytest.raises(ms.GraphRuntimeError, match="CompiledModelTestFail.*kernel exploded"):
        req.infer([np.ones(2, np.float32)])
    req.start_async([np.ones(2, np.float32)])
    with pytest.raises(ms.GraphRuntimeError, match="kernel exploded"):
        req.wait()
    assert req.outputs is None


# -- outputs belong to the caller --------------------------------------------------------------
def test_writing_into_outputs_never_changes_the_model():
    model = ms.compile(ConstBranch(), ms.Tensor(np.ones(2, np.float32)))
    req = model.create_infer_request()
    x = np.ones(2, np.float32)
    first = req.infer([x])[0]
    first[:] = 100
    assert req.infer([x])[0].tolist() == [1.0, 2.0]
    out = model(ms.Tensor(x))
    out[0] = 100
    assert model(ms.Tensor(x)).asnumpy().tolist() == [1.0, 2.0]
    neg = -np.ones(2, np.float32)
    (same,) = req.infer([neg])           # the else branch returns the input itself
    assert same is not neg and not np.shares_memory(same, neg)
    same[:] = 7
    assert neg.tolist() == [-1.0, -1.0]


# -- async requests ----------------------------------------------------------------------------
def test_start_async_wait_and_callback():
    model = _model()
    req = model.create_infer_request()
    seen = []
    req.set_callback(lambda r: seen.append((r, r.wait(), threading.current_thread().name)))
    x = np.full((2, 3), 0.25, np.float32)
    req.start_async([x, np.array(2)])
    outs = req.wait()
    _check(outs, x, 2)
    assert len(seen) == 1 and seen[0][0] is req
    _check(seen[0][1], x, 2)
    assert seen[0][2] != threading.current_thread().name
    req.set_callback(None)
    req.start_async([x, np.array(0)])
    _check(req.wait(), x, 0)
    assert len(seen) == 1
    with pytest.raises(TypeError, match="callable"):
        req.set_callback(42)


def test_wait_before_start_and_errors_of_the_callback():
    req = _model().create_infer_request()
    with pytest.raises(RuntimeError, match="never started"):
        req.wait()

    def callback(r):
        raise KeyError("from the callback")
    req.set_callback(callback)
    req.start_async(_inputs(np.random.default_rng(1)))
    with pytest.raises(KeyError, match="from the callback"):
        req.wait()


def test_a_busy_request_refuses_new_work_until_done():
    req = _model().create_infer_request()
    entered, release = threading.Event(), threading.Event()

    def callback(r):
        entered.set()
        release.wait()
    req.set_callback(callback)
    ins = _inputs(np.random.default_rng(2))
    req.start_async(ins)
    assert entered.wait(60)
    with pytest.raises(RuntimeError, match="busy"):
        req.infer(ins)
    with pytest.raises(RuntimeError, match="busy"):
        req.start_async(ins)
    with pytest.raises(TimeoutError):
        req.wait(timeout=0)
    other = req.model.create_infer_request()     # other requests are not blocked
    _check(other.infer(ins), *ins)
    release.set()
    _check(req.wait(), *ins)
    _check(req.infer(ins), *ins)


def test_many_async_requests_at_once():
    model = _model(config={"NUM_STREAMS": 3})
    rng = np.random.default_rng(3)
    jobs = []
    for _ in range(24):
        req = model.create_infer_request()
        ins = _inputs(rng)
        req.start_async(ins)
        jobs.append((req, ins))
    for req, ins in jobs:
        _check(req.wait(), *ins)
    assert len({req.id for req, _ in jobs}) == 24


def test_concurrent_requests_from_threads_each_get_their_own_results():
    """Many threads run many requests over one model at the same time; every result
    must be exactly that request's answer (no shared mutable state in the executor)."""
    model = ms.compile(IfThenLoop(), ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(1))
    consts_before = [n.attrs["value"].copy() for n in model.graph.walk() if n.op == "Const"]
    n_threads, rounds = 8, 40
    barrier = threading.Barrier(n_threads)
    failures = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        req = model.create_infer_request()
        barrier.wait()
        try:
            for r in range(rounds):
                ins = _inputs(rng)
                if r % 3 == 0:
                    req.start_async(ins)
                    outs = req.wait()
                elif r % 3 == 1:
                    outs = req.infer(ins)
                else:
                    outs = [t.asnumpy() for t in model(ms.Tensor(ins[0]), ms.Tensor(ins[1]))]
                _check(outs, *ins)
                outs[0][...] = np.nan        # scribbling on a result must harm nobody
        except Exception as e:  # reported on the main thread
            failures.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[0]
    consts_after = [n.attrs["value"] for n in model.graph.walk() if n.op == "Const"]
    for a, b in zip(consts_before, consts_after):
        np.testing.assert_array_equal(a, b)


# -- metrics and config ------------------------------------------------------------------------
def test_metrics():
    model = _model(name="my_net")
    assert model.get_metric("NETWORK_NAME") == "my_net"
    assert model.get_metric("OPTIMAL_NUMBER_OF_INFER_REQUESTS") == model.get_config("NUM_STREAMS")
    supported = model.get_metric("SUPPORTED_METRICS")
    assert {"NETWORK_NAME", "OPTIMAL_NUMBER_OF_INFER_REQUESTS", "SUPPORTED_METRICS",
            "SUPPORTED_CONFIG_KEYS"} <= set(supported)
    for name in supported:
        model.get_metric(name)
    assert model.get_metric("INPUTS") == [("x", "f32[2,3]"), ("n", "i64[]")]
    assert model.get_metric("OUTPUTS") == ["f32[2,3]", "i64[]"]
    assert model.get_metric("NUMBER_OF_NODES") == sum(1 for _ in model.graph.walk())
    with pytest.raises(ValueError, match="unknown metric 'LATENCY'.*NETWORK_NAME"):
        model.get_metric("LATENCY")


def test_config():
    model = _model(config={"NUM_STREAMS": 3, "PERFORMANCE_HINT": "THROUGHPUT"})
    assert model.get_config("NUM_STREAMS") == 3
    assert model.get_metric("OPTIMAL_NUMBER_OF_INFER_REQUESTS") == 3
    assert model.get_config("PERFORMANCE_HINT") == "THROUGHPUT"
    for key in model.get_metric("SUPPORTED_CONFIG_KEYS"):
        model.get_config(key)
    assert _model().get_config("NUM_STREAMS") >= 1
    with pytest.raises(ValueError, match="unknown config key 'STREAMS'"):
        model.get_config("STREAMS")
    with pytest.raises(ValueError, match="NUM_STREAMS must be a positive int"):
        _model(config={"NUM_STREAMS": 0})
    with pytest.raises(ValueError, match="unknown config key 'BOGUS'"):
        _model(config={"BOGUS": 1})


# -- export and import -------------------------------------------------------------------------
@pytest.mark.parametrize("make, example, feeds", [
    (IfThenLoop, (ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(2)),
     [[np.full((2, 3), s, np.float32), np.array(n)] for s in (1, -1) for n in (0, 2)]),
    (Dense, (ms.Tensor(np.ones((3, 4), np.float32)),),
     [[np.random.default_rng(s).standard_normal((3, 4)).astype(np.float32)] for s in range(4)]),
    (Rows, (ms.TensorSpec((None, 3), ms.float32), ms.Tensor(1)),
     [[np.arange(3 * r, dtype=np.float32).reshape(r, 3), np.array(r)] for r in (1, 3)]),
])
def test_export_import_round_trips_graph_and_weights(make, example, feeds, tmp_path):
    model = ms.compile(make(), *example, config={"NUM_STREAMS": 2})
    path = tmp_path / "model.gjm"
    model.export(path)
    again = ms.import_model(path)
    assert isinstance(again, ms.CompiledModel)
    assert str(again.graph) == str(model.graph)
    assert again.get_metric("NETWORK_NAME") == model.get_metric("NETWORK_NAME")
    assert again.get_config("NUM_STREAMS") == 2
    req, req2 = model.create_infer_request(), again.create_infer_request()
    for ins in feeds:
        for a, b in zip(req.infer(ins), req2.infer(ins)):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
    out = again(*feeds[0])
    first = out[0] if isinstance(out, tuple) else out
    assert isinstance(first, ms.Tensor)
    np.testing.assert_array_equal(first.asnumpy(), req.infer(feeds[0])[0])


def test_import_from_a_stream_with_config_override():
    buf = io.BytesIO()
    _model(name="streamed").export(buf)
    buf.seek(0)
    again = ms.import_model(buf, config={"NUM_STREAMS": 1})
    assert again.get_metric("NETWORK_NAME") == "streamed"
    assert again.get_config("NUM_STREAMS") == 1
    ins = _inputs(np.random.default_rng(5))
    again.create_infer_request().start_async(ins)
    req = again.create_infer_request()
    req.start_async(ins)
    _check(req.wait(), *ins)


def test_import_refuses_damaged_files(tmp_path):
    path = tmp_path / "model.gjm"
    _model().export(path)
    data = path.read_bytes()
    (tmp_path / "cut.gjm").write_bytes(data[: len(data) // 2])
    with pytest.raises(ms.ModelFileError, match="cut.gjm.*truncated, damaged"):
        ms.import_model(tmp_path / "cut.gjm")
    with pytest.raises(FileNotFoundError):
        ms.import_model(tmp_path / "missing.gjm")


def test_import_refuses_a_bad_saved_config():
    import json
    import zipfile
    buf = io.BytesIO()
    _model().export(buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        entries = {i.filename: (zf.read(i), i.compress_type) for i in zf.infolist()}
    doc = json.loads(entries["graph.json"][0])
    doc["metadata"]["config"] = {"NUM_STREAMS": -4}
    entries["graph.json"] = (json.dumps(doc).encode(), zipfile.ZIP_DEFLATED)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, (raw, method) in entries.items():
            zf.writestr(zipfile.ZipInfo(name), raw, compress_type=method)
    out.seek(0)
    with pytest.raises(ms.ModelFileError, match="config.*NUM_STREAMS must be a positive int"):
        ms.import_model(out)
