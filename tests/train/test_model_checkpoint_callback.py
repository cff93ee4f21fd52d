"""ModelCheckpoint and CheckpointConfig (graphjit/train/checkpoint_callback.py) with
Model.train, as the model zoo's train.py scripts use them."""
import os

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn
from graphjit.train.callback import CheckpointConfig, LossMonitor, ModelCheckpoint


def _batches(n):
    rng = np.random.default_rng(0)
    return [(ms.Tensor(rng.random((4, 3), dtype=np.float32)),
             ms.Tensor(rng.random((4, 2), dtype=np.float32))) for _ in range(n)]


def test_saves_every_n_steps_keeps_the_last_files_and_names_them_as_mindspore(tmp_path):
    net = nn.Dense(3, 2)
    model = ms.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2)
    ckpt = ModelCheckpoint(prefix="dense", directory=str(tmp_path), config=config)
    model.train(2, _batches(3), callbacks=[ckpt, LossMonitor(0)])
    # steps 2, 4, 6 of 3 per epoch: dense-1_2, dense-2_1, dense-2_3; the last 2 kept
    assert sorted(os.listdir(tmp_path)) == ["dense-2_1.ckpt", "dense-2_3.ckpt"]
    assert ckpt.latest_ckpt_file_name == os.path.join(str(tmp_path), "dense-2_3.ckpt")
    saved = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    assert {"weight", "bias", "learning_rate", "momentum", "moments.weight"} <= set(saved)
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())
    # a second callback with the same prefix in that directory writes dense_1-...
    again = ModelCheckpoint(prefix="dense", directory=str(tmp_path), config=config)
    model.train(1, _batches(1), callbacks=[again])
    assert os.path.basename(again.latest_ckpt_file_name) == "dense_1-1_1.ckpt"


def test_end_of_training_saves_the_last_step_and_append_info(tmp_path):
    net = nn.Dense(3, 2)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    config = CheckpointConfig(save_checkpoint_steps=10, append_info=["epoch_num", "step_num"],
                              saved_network=net)
    ckpt = ModelCheckpoint(prefix="p", directory=str(tmp_path / "sub"), config=config)
    model.train(1, _batches(3), callbacks=[ckpt])
    assert os.listdir(tmp_path / "sub") == ["p-1_3.ckpt"]
    saved = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    assert set(saved) == {"weight", "bias", "epoch_num", "step_num"}
    assert int(saved["step_num"].asnumpy()) == 3


def test_config_checks():
    with pytest.raises(ValueError):
        CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0)
    with pytest.raises(ValueError):
        CheckpointConfig(keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=0)
    with pytest.raises(TypeError):
        CheckpointConfig(save_checkpoint_steps=1.5)
    with pytest.raises(TypeError):
        ModelCheckpoint(config={"save_checkpoint_steps": 1})
    with pytest.raises(ValueError):
        ModelCheckpoint(prefix="a/b")
    c = CheckpointConfig(save_checkpoint_steps=5, save_checkpoint_seconds=7)
    assert c.save_checkpoint_steps == 5 and c.save_checkpoint_seconds is None
    assert ms.ModelCheckpoint is ModelCheckpoint and ms.train.CheckpointConfig is CheckpointConfig


def test_summary_collector_and_export_under_mindspore_paths(tmp_path):
    """SummaryCollector / SummaryRecord record nothing (graphjit writes no summaries) but
    make their directory and let Model.train run; train.serialization.export is
    mindspore.export."""
    from graphjit.train.callback import SummaryCollector
    from graphjit.train.summary import SummaryRecord
    from graphjit.train.serialization import export
    assert export is ms.export and ms.train.export is ms.export
    net = nn.Dense(3, 2)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    collector = SummaryCollector(summary_dir=str(tmp_path / "summary"), collect_freq=1)
    model.train(1, _batches(2), callbacks=[collector])
    assert os.path.isdir(tmp_path / "summary")
    with SummaryRecord(str(tmp_path / "rec")) as rec:
        rec.add_value("scalar", "loss", ms.Tensor(1.0))
        assert rec.record(1)
    assert rec.closed
    with pytest.raises(ValueError):
        SummaryCollector(str(tmp_path), collect_freq=0)
