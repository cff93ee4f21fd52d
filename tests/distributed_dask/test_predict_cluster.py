"""graphjit.distributed.predict on a LocalCluster of 2 worker processes: results equal one
in-process call on the whole array (a data-dependent Loop, an If, an RNN from an
exported file), the model reaches each worker once, a killed worker loses nothing."""
import logging
import os

import numpy as np
import pytest

from optional import require

da = require("dask.array", "distributed")
distributed = require("distributed", "distributed")
import dask

import graphjit.distributed as gd
from graphjit.distributed import worker
from dask_models import branch_model, data, decay_model, die_once, rnn_model


def _cluster():
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=":0", silence_logs=logging.CRITICAL)


@pytest.fixture(scope="module")
def client():
    """One cluster for the module (starting one costs seconds); the current client."""
    with _cluster() as cluster, distributed.Client(cluster) as c:
        yield c


def test_a_data_dependent_loop_over_the_cluster(client):
    model = decay_model()
    x = data(3000, 7)
    h, y = gd.predict(model, da.from_array(x, chunks=(250, 7)))
    got = dask.compute(h, y)
    for want, g in zip(model.run_arrays([x]), got):
        assert g.dtype == want.dtype and g.shape == want.shape
        np.testing.assert_array_equal(g, want)


def test_an_if_over_the_cluster(client):
    model = branch_model()
    x = data(2000, 5)
    y = gd.predict(model, da.from_array(x, chunks=(300, 5)), client=client)
    np.testing.assert_array_equal(client.compute(y, sync=True), model.run_arrays([x])[0])


def test_an_exported_file_over_the_cluster(client, tmp_path):
    model = rnn_model()
    path = tmp_path / "rnn.gjm"
    model.export(path)
    x = data(1200, 6, 4)
    y = gd.predict(path, da.from_array(x, chunks=(200, 6, 4)))
    np.testing.assert_allclose(y.compute(), model.run_arrays([x])[0], rtol=1e-6, atol=1e-6)


def test_the_model_reaches_every_worker_once(client):
    model = decay_model()
    h, _ = gd.predict(model, da.from_array(data(2000, 3), chunks=(100, 3)))
    held = client.has_what()                   # scattered to every worker up front
    assert all(any(str(k).startswith("bytes-") for k in keys) for keys in held.values())
    h.compute()
    h.compute()
    imports = client.run(worker.cached_models)
    assert imports and all(set(counts.values()) <= {1} for counts in imports.values())
    assert any(counts for counts in imports.values())


def test_progress_shows_the_distributed_progress_bar(client, capsys):
    model = decay_model()
    x = data(1000, 4)
    h, _ = gd.predict(model, da.from_array(x, chunks=(250, 4)), progress=True)
    assert "100% Completed" in capsys.readouterr().out
    np.testing.assert_array_equal(h.compute(), model.run_arrays([x])[0])


def test_a_killed_worker_loses_no_result(tmp_path):
    flag = str(tmp_path / "died")
    model = decay_model()
    x = data(4000, 6)
    with _cluster() as cluster, distributed.Client(cluster) as c:
        pids = set(c.run(os.getpid).values())
        rows = da.from_array(x, chunks=(250, 6)).map_blocks(die_once, flag, 9,
                                                             dtype=np.float32)
        h, y = gd.predict(model, rows)
        got = dask.compute(h, y)
        assert os.path.exists(flag)            # a worker process did die mid-run
        assert set(c.run(os.getpid).values()) != pids
    for want, g in zip(model.run_arrays([x]), got):
        np.testing.assert_array_equal(g, want)
