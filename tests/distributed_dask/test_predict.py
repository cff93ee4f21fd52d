"""graphjit.distributed.predict on Dask's local threaded scheduler (no cluster): lazy
dask arrays with declared dtypes and chunks, equal to one in-process call; inputs
checked before anything runs."""
import numpy as np
import pytest

from optional import require

da = require("dask.array", "distributed")

import graphjit as ms
import graphjit.distributed as gd
from graphjit.distributed import worker
from dask_models import Centered, branch_model, data, decay_model, rnn_model


def test_predict_is_lazy_with_declared_dtypes_and_chunks():
    model = decay_model()
    x = data(50, 6)
    h, y = gd.predict(model, da.from_array(x, chunks=(16, 6)))
    assert isinstance(h, da.Array) and isinstance(y, da.Array)
    assert h.chunks == ((16, 16, 16, 2),) and y.dtype == np.float32
    want = model.run_arrays([x])
    got = da.compute(h, y)
    for w, g in zip(want, got):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_the_outputs_of_a_block_share_one_run():
    h, y = gd.predict(decay_model(), da.from_array(data(50, 6), chunks=(10, 6)))
    graph = dict(da.Array.__dask_graph__(h))
    graph.update(dict(y.__dask_graph__()))
    runs = [k for k in graph if isinstance(k, tuple) and "-run-" in k[0]]
    assert len(runs) == 5


def test_an_if_model_and_unknown_feature_dims():
    model = branch_model()
    x = data(30, 5)
    y = gd.predict(model, da.from_array(x, chunks=(7, 5)))
    assert y.shape == (30, 3)            # the feature dim, unknown in the type, from 0 rows
    np.testing.assert_array_equal(y.compute(), model.run_arrays([x])[0])


def test_a_path_to_an_exported_model(tmp_path):
    model = rnn_model()
    path = tmp_path / "rnn.gjm"
    model.export(path)
    x = data(40, 5, 4)
    y = gd.predict(str(path), da.from_array(x, chunks=(12, 5, 4)))
    np.testing.assert_allclose(y.compute(), model.run_arrays([x])[0], rtol=1e-6, atol=1e-6)


def test_an_empty_block_gives_no_rows():
    x = data(8, 6)
    for model in (decay_model(), branch_model()):
        outs = gd.predict(model, da.from_array(x, chunks=((3, 0, 5), (6,))))
        outs = outs if isinstance(outs, tuple) else (outs,)
        for want, got in zip(model.run_arrays([x]), da.compute(*outs)):
            np.testing.assert_array_equal(got, want)


def test_several_inputs_with_other_chunks_are_aligned():
    @ms.jit
    def f(a, b):
        return a * 2.0 + b[:, :1]
    model = ms.compile(f, ms.TensorSpec((None, 3), ms.float32),
                       ms.TensorSpec((None, 2), ms.float32))
    a, b = data(20, 3), data(20, 2, seed=1)
    y = gd.predict(model, da.from_array(a, chunks=(5, 3)), da.from_array(b, chunks=(8, 2)))
    np.testing.assert_array_equal(y.compute(), model.run_arrays([a, b])[0])


def test_a_fixed_batch_size_needs_chunks_of_that_size():
    model = ms.compile(_Scale(), ms.Tensor(np.zeros((4, 3), np.float32)))
    x = data(12, 3)
    np.testing.assert_array_equal(
        gd.predict(model, da.from_array(x, chunks=(4, 3))).compute(), x * 3.0)
    with pytest.raises(ValueError, match=r"compiled for batches of exactly 4 rows.*"
                                         r"\(5, 5, 2\)"):
        gd.predict(model, da.from_array(x, chunks=(5, 3)))


class _Scale(ms.nn.Cell):
    def construct(self, x):
        return x * 3.0


def test_progress_shows_the_local_progress_bar(capsys):
    model = decay_model()
    x = data(20, 4)
    h, y = gd.predict(model, da.from_array(x, chunks=(5, 4)), progress=True)
    assert "Completed" in capsys.readouterr().out
    np.testing.assert_array_equal(h.compute(), model.run_arrays([x])[0])


def test_the_model_is_imported_once_per_process():
    model = decay_model()
    h, _ = gd.predict(model, da.from_array(data(40, 3), chunks=(4, 3)))
    h.compute()
    h.compute()
    assert set(worker.cached_models().values()) == {1}


def test_refusals_come_before_anything_runs():
    model = decay_model()
    x = da.from_array(data(20, 4), chunks=(5, 2))
    with pytest.raises(ValueError, match=r"chunked along axis 1 .*only axis 0, the batch "
                                         r"axis, may be split.*rechunk\(\{1: -1\}\)"):
        gd.predict(model, x)
    with pytest.raises(TypeError, match=r"must have dtype float32, got float64"):
        gd.predict(model, da.zeros((10, 4), chunks=(5, 4)))
    with pytest.raises(TypeError, match=r"must be a dask array, got ndarray"):
        gd.predict(model, data(10, 4))
    with pytest.raises(TypeError, match=r"takes 1 input\(s\) \(x: f32\[\?,\?\]\), got 2"):
        gd.predict(model, x, x)
    with pytest.raises(ValueError, match=r"must have shape \[\?,\?\]"):
        gd.predict(model, da.zeros((10,), chunks=5, dtype=np.float32))
    with pytest.raises(TypeError, match=r"CompiledModel or the path"):
        gd.predict(Centered(), x)
    centered = ms.compile(Centered(), ms.TensorSpec((None, 4), ms.float32))
    with pytest.raises(gd.NotBatchwiseError, match=r"reduces over axis 0, the batch axis"):
        gd.predict(centered, da.from_array(data(20, 4), chunks=(5, 4)))


def test_unknown_chunk_sizes_are_refused():
    x = da.from_array(data(20, 4), chunks=(5, 4))
    x = x[x[:, 0] > 0]
    with pytest.raises(ValueError, match=r"unknown chunk sizes.*compute_chunk_sizes"):
        gd.predict(decay_model(), x)


def test_a_client_must_be_a_distributed_client():
    require("distributed", "distributed")
    from graphjit.distributed.scoring import _client
    with pytest.raises(TypeError, match="distributed.Client"):
        _client("tcp://127.0.0.1:8786")


def test_a_block_of_another_shape_than_declared_raises():
    """The workers' guard against a wrong analysis: never an array of another shape."""
    import hashlib
    import io
    model = branch_model()
    buf = io.BytesIO()
    model.export(buf)
    data_ = buf.getvalue()
    digest = hashlib.sha256(data_).hexdigest()
    block = data(4, 5)
    (out,) = worker.run_block(digest, data_, ((3,),), block)[0]
    np.testing.assert_array_equal(out, model.run_arrays([block])[0])
    with pytest.raises(RuntimeError, match=r"has shape \(4, 3\) for a block of 4 rows, but "
                                           r"\(4, 5\) was declared"):
        worker.run_block(digest, data_, ((5,),), block)
