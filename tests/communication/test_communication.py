"""graphjit.communication and the collectives in one process (no mpirun): init's world
and errors, the ops in both modes and their gradients, the rule for collectives under
If/Loop, the parallel context, DistributedGradReducer's buckets, dataset shards,
checkpoints written by rank 0 only and atomically, and the refusals (ONNX, Dask)."""
from __future__ import annotations

import builtins
import os
import subprocess
import sys

import numpy as np
import pytest

import graphjit as ms
import graphjit.dataset as ds
from graphjit import communication as comm, nn, ops
from optional import require
from graphjit.ir.defs import collective
from graphjit.ir.defs.collective import SingleProcess
from graphjit.ir.registry import get_op

f32 = np.float32
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def world():
    comm.init()
    yield
    comm.release()


class FakeRank(SingleProcess):
    """A world of `size` processes seen from `rank`, all holding what this one holds."""

    def __init__(self, rank, size):
        self.rank, self.size = rank, size

    def all_reduce(self, x, op, where):
        return x * self.size if op == "sum" else x ** self.size if op == "prod" else x

    def all_gather(self, x, where):
        return np.concatenate([x] * self.size)

    def reduce_scatter(self, x, op, where):
        return np.split(x * self.size, self.size)[self.rank]


@pytest.fixture
def two_processes():
    collective.set_communicator(collective.WORLD_GROUP, FakeRank(1, 2))
    yield
    collective.set_communicator(collective.WORLD_GROUP, None)


# -- init and the world -----------------------------------------------------------------------
def test_importing_communication_does_not_import_mpi4py():
    code = "import graphjit.communication, sys; print('mpi4py' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_plain_run_is_a_one_process_world(world):
    assert (comm.get_rank(), comm.get_group_size()) == (0, 1)
    assert comm.get_local_rank() == 0 and comm.is_initialized()
    assert comm.get_process_group_ranks() == [0]


def test_ranks_before_init_are_an_error():
    with pytest.raises(RuntimeError, match=r"call graphjit.communication.init\(\) first"):
        comm.get_rank()


def test_a_backend_graphjit_lacks_is_a_clear_error():
    with pytest.raises(ValueError, match="'nccl' is not available.*over MPI"):
        comm.init("nccl")


def test_launched_by_mpirun_without_mpi4py_names_the_extra(monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    real_import = builtins.__import__

    def no_mpi4py(name, *a, **k):
        if name == "mpi4py" or name.startswith("mpi4py."):
            raise ImportError("No module named 'mpi4py'")
        return real_import(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_mpi4py)
    with pytest.raises(ImportError, match=r"extra 'mpi'.*pip install -e '\.\[mpi\]'.*"
                                          r"pip install 'graphjit\[mpi\]'"):
        comm.init()
    assert not comm.is_initialized()


def test_groups_of_a_one_process_world(world):
    comm.create_group("solo", [0])
    assert comm.get_group_size("solo") == 1
    assert comm.get_world_rank_from_group_rank("solo", 0) == 0
    with pytest.raises(ValueError, match="exists already"):
        comm.create_group("solo", [0])
    with pytest.raises(ValueError, match="distinct ranks of the world"):
        comm.create_group("two", [0, 1])
    with pytest.raises(ValueError, match="does not exist"):
        comm.get_rank("nobody")
    comm.destroy_group("solo")


# -- the ops ------------------------------------------------------------------------------
class AllOps(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ar = ops.AllReduce()
        self.mx = ops.AllReduce(op=ops.ReduceOp.MAX)
        self.ag = ops.AllGather()
        self.rs = ops.ReduceScatter()
        self.bc = ops.Broadcast(0)

    def construct(self, x):
        return self.ar(x), self.mx(x), self.ag(x), self.rs(x), self.bc((x,))[0]


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_collectives_over_two_processes_of_equal_data(two_processes, mode):
    ms.set_context(mode=mode)
    x = np.arange(8, dtype=f32).reshape(4, 2)
    s, m, g, r, b = AllOps()(ms.Tensor(x))
    np.testing.assert_array_equal(s.asnumpy(), 2 * x)
    np.testing.assert_array_equal(m.asnumpy(), x)
    np.testing.assert_array_equal(g.asnumpy(), np.concatenate([x, x]))
    np.testing.assert_array_equal(r.asnumpy(), (2 * x)[2:])
    np.testing.assert_array_equal(b.asnumpy(), x)
    assert (g.shape, r.shape) == ((8, 2), (2, 2))


def test_in_a_graph_collectives_are_chained_on_the_state_token(two_processes):
    model = ms.compile(AllOps(), ms.Tensor(np.ones((4, 2), f32)))
    nodes = [n for n in model.graph.nodes if n.op in collective.COLLECTIVE_OPS]
    assert [n.op for n in nodes] == ["AllReduce", "AllReduce", "AllGather", "ReduceScatter",
                                     "Broadcast"]
    for a, b in zip(nodes, nodes[1:]):
        assert b.inputs[-1] is a.outputs[-1]       # each takes the token the last gave
    assert all(get_op(n.op).effects == "collective" for n in nodes)


def test_bad_arguments_of_the_primitives():
    with pytest.raises(TypeError, match="ReduceOp.SUM"):
        ops.AllReduce(op="mean")
    with pytest.raises(TypeError, match="root_rank"):
        ops.Broadcast(-1)
    with pytest.raises(ValueError, match="divisible by the group size"):
        collective.set_communicator(collective.WORLD_GROUP, FakeRank(0, 2))
        try:
            ops.ReduceScatter()(ms.Tensor(np.ones(3, f32)))
        finally:
            collective.set_communicator(collective.WORLD_GROUP, None)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_gradients_of_the_collectives(two_processes, mode):
    ms.set_context(mode=mode)
    x = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], f32))

    def f(v):   # AllReduce(sum)'s adjoint is AllReduce(sum); AllGather's ReduceScatter
        return (ops.AllReduce()(v) * 3.0).sum() + (ops.AllGather()(v) ** 2).sum()
    g = ms.grad(f)(x).asnumpy()
    # d/dv of sum(2v * 3) -> AllReduce(3) = 6; of sum(concat(v, v)^2) -> ReduceScatter(2
    # concat(v, v)) = rank 1's block of 2 * 2 * concat(v, v)
    np.testing.assert_allclose(g, 6.0 + 4 * np.asarray(x.asnumpy()), rtol=1e-6)


# -- collectives under control flow ---------------------------------------------------------
class UnderIf(nn.Cell):
    def __init__(self, uniform):
        super().__init__()
        self.ar, self.uniform = ops.AllReduce(), uniform

    def construct(self, x):
        c = self.ar(x).sum() if self.uniform else x.sum()
        if c > 0:
            x = self.ar(x) * 2
        return x


class UnderLoop(nn.Cell):
    def __init__(self, uniform):
        super().__init__()
        self.ar, self.uniform = ops.AllReduce(), uniform

    def construct(self, x):
        n = 0
        while (self.ar(x).sum() if self.uniform else x.sum()) < 20:
            x = self.ar(x) + 1
            n += 1
        return x


@pytest.mark.parametrize("cell", [UnderIf, UnderLoop])
def test_a_collective_under_a_condition_of_this_process_is_refused(cell):
    with pytest.raises(comm.CollectiveControlError) as info:
        cell(False)(ms.Tensor(np.ones(2, f32)))
    text = str(info.value)
    assert "may differ between the processes" in text
    assert "x = self.ar(x)" in text and "the condition:" in text
    assert info.value.line is not None


@pytest.mark.parametrize("cell", [UnderIf, UnderLoop])
def test_a_collective_under_a_condition_from_a_collective_runs_in_both_modes(cell):
    x = np.ones(2, f32)
    out = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        out[mode] = cell(True)(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out[ms.GRAPH_MODE], out[ms.PYNATIVE_MODE])


def test_a_loop_bounded_by_constants_may_hold_collectives():
    @ms.jit
    def f(x):
        i = ops.zeros((), ms.int32)
        while i < 3:
            x = ops.AllReduce()(x) + 1.0
            i = i + 1
        return x
    np.testing.assert_array_equal(f(ms.Tensor(np.zeros(2, f32))).asnumpy(), [3.0, 3.0])


# -- the parallel context ------------------------------------------------------------------
def test_auto_parallel_context_round_trip_and_errors():
    assert ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.STAND_ALONE
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
    assert ms.get_auto_parallel_context("gradients_mean") is True
    assert ms.context.ParallelMode is ms.ParallelMode
    with pytest.raises(ValueError, match="not supported by graphjit"):
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
    with pytest.raises(ValueError, match="unknown option 'gradient_mean'"):
        ms.set_auto_parallel_context(gradient_mean=True)
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("gradients_mean") is False


def test_train_one_step_cell_reduces_only_in_data_parallel_mode(world):
    net = nn.Dense(3, 2)
    plain = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                nn.SGD(net.trainable_params(), 0.1))
    assert not plain.reducer_flag
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    dp = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                             nn.SGD(net.trainable_params(), 0.1))
    assert dp.reducer_flag and isinstance(dp.grad_reducer, nn.DistributedGradReducer)
    assert dp.grad_reducer.mean and dp.grad_reducer.degree == 1
    ms.set_auto_parallel_context(device_num=4)      # MindSpore's degree when it is set
    dp4 = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                              nn.SGD(net.trainable_params(), 0.1))
    assert dp4.grad_reducer.degree == 4


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_grad_reducer_averages_over_the_processes_in_buckets(two_processes, mode):
    ms.set_context(mode=mode)
    params = [ms.Parameter(ms.Tensor(np.zeros(s, f32)), name=f"p{i}")
              for i, s in enumerate([(2, 3), (3,), (5,)])]
    params.append(ms.Parameter(ms.Tensor(np.zeros(2, np.float64)), name="p3"))
    ms.set_auto_parallel_context(comm_fusion_threshold=40)     # bytes
    red = nn.DistributedGradReducer(params, mean=True, degree=2)
    assert red.buckets == ((0, 1), (2,), (3,))     # 36 bytes, then 20, then a new dtype
    grads = tuple(ms.Tensor(np.full(p.shape, 3.0, p.dtype.np)) for p in params)
    out = red(grads)
    for o, p in zip(out, params):
        assert o.shape == p.shape and o.dtype == p.dtype
        np.testing.assert_array_equal(o.asnumpy(), 3.0)    # (3 + 3) / 2
    summed = nn.DistributedGradReducer(params, mean=False, degree=2)(grads)
    np.testing.assert_array_equal(summed[0].asnumpy(), 6.0)


def test_buckets_of_threshold_zero_are_one_per_gradient():
    from graphjit.nn.wrap.grad_reducer import plan_buckets
    params = [ms.Parameter(ms.Tensor(np.zeros(3, f32)), name=f"q{i}") for i in range(3)]
    assert plan_buckets(params, 0) == ((0,), (1,), (2,))
    assert plan_buckets(params, 1 << 20) == ((0, 1, 2),)


# -- datasets, checkpoints -----------------------------------------------------------------
def test_shards_follow_mindsporeS_distributed_sampler():
    rows = lambda d: [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]  # noqa
    data = np.arange(10)
    shards = [rows(ds.NumpySlicesDataset(data, shuffle=False, num_shards=3, shard_id=k))
              for k in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    ds.config.set_seed(5)
    a = rows(ds.NumpySlicesDataset(data, shuffle=True, num_shards=2, shard_id=0))
    ds.config.set_seed(5)
    b = rows(ds.NumpySlicesDataset(data, shuffle=True, num_shards=2, shard_id=1))
    assert sorted(a + b) == list(range(10))          # one permutation, split
    with pytest.raises(ValueError, match="shard_id must be in"):
        ds.NumpySlicesDataset(data, num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="given together"):
        ds.NumpySlicesDataset(data, num_shards=2)
    with pytest.raises(ValueError, match="cannot be split into shards"):
        ds.GeneratorDataset(lambda: iter([(1,)]), ["a"], num_shards=2, shard_id=0)


def test_checkpoints_are_written_by_rank_0_only(tmp_path, two_processes):
    net = nn.Dense(2, 2)
    ms.save_checkpoint(net, str(tmp_path / "rank1"))
    assert os.listdir(tmp_path) == []     # this process is rank 1 of 2


def test_a_checkpoint_that_fails_to_write_leaves_nothing_behind(tmp_path, monkeypatch):
    net = nn.Dense(2, 2)
    path = tmp_path / "net.ckpt"
    ms.save_checkpoint(net, str(path))
    before = path.read_bytes()

    def disk_full(fd):      # the bytes are written, the flush to disk fails
        raise OSError("disk full")
    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="disk full"):
        ms.save_checkpoint(net, str(path))
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["net.ckpt"]


# -- refusals ------------------------------------------------------------------------------
@pytest.mark.extra("distributed")
def test_the_dask_batch_rule_refuses_collectives():
    require("dask.array", "distributed")
    require("distributed", "distributed")
    from graphjit.distributed import NotBatchwiseError, check_batchwise
    model = ms.compile(AllOps(), ms.TensorSpec((None, 2), ms.float32))
    with pytest.raises(NotBatchwiseError, match="collective"):
        check_batchwise(model)


def test_onnx_export_refuses_collectives(tmp_path):
    pytest.importorskip("onnx")
    import graphjit.onnx as gonnx
    with pytest.raises(Exception, match="collective operation across processes"):
        gonnx.export(AllOps(), str(tmp_path / "m.onnx"), ms.TensorSpec((4, 2), ms.float32))


class OverSteps(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ar = ops.AllReduce()

    def construct(self, xs):
        h = ops.zeros((2,), ms.float32)
        for x in xs:
            h = self.ar(h + x)
        return h


def test_a_loop_over_a_tensor_of_unknown_length_may_not_hold_collectives():
    net = OverSteps()
    xs = np.ones((3, 2), f32)
    np.testing.assert_array_equal(net(ms.Tensor(xs)).asnumpy(), [3.0, 3.0])  # length 3
    dyn = OverSteps()
    dyn.set_inputs(ms.Tensor(shape=[None, 2], dtype=ms.float32))
    with pytest.raises(comm.CollectiveControlError, match="inside a loop"):
        dyn(ms.Tensor(xs))
