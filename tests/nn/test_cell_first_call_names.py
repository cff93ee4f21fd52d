"""MindSpore's first-call check (Cell._self_check -> check_names_and_refresh_name): sub-Cells
appended to a CellList after the list was set on its parent keep names without the parent's
prefix; when two Parameters end up with one name, the first call of the Cell (either mode)
renames every Parameter to its path, so checkpoints can be saved."""
from __future__ import annotations

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn


class TwoLists(nn.Cell):
    def __init__(self):
        super().__init__()
        self.enc = nn.CellList()
        self.dec = nn.CellList()
        self.enc.append(nn.Dense(2, 3))       # named "0.weight": the list was already set
        self.dec.append(nn.Dense(3, 2))       # also "0.weight"

    def construct(self, x):
        return self.dec[0](self.enc[0](x))


class OneList(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList()
        self.blocks.append(nn.Dense(2, 2))
        self.blocks.append(nn.Dense(2, 2))

    def construct(self, x):
        for b in self.blocks:
            x = b(x)
        return x


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_duplicate_names_refreshed_at_first_call(mode, tmp_path):
    ms.set_context(mode=mode)
    net = TwoLists()
    assert [p.name for p in net.get_parameters()] == ["0.weight", "0.bias"] * 2
    with pytest.raises(ValueError, match="appears twice"):
        ms.save_checkpoint(net, str(tmp_path / "before.ckpt"))
    net(ms.Tensor(np.ones((1, 2), np.float32)))
    assert [p.name for p in net.get_parameters()] == ["enc.0.weight", "enc.0.bias",
                                                      "dec.0.weight", "dec.0.bias"]
    path = str(tmp_path / "m.ckpt")
    ms.save_checkpoint(net, path)
    assert list(ms.load_checkpoint(path)) == ["enc.0.weight", "enc.0.bias", "dec.0.weight",
                                              "dec.0.bias"]


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_unique_names_are_kept(mode):
    ms.set_context(mode=mode)
    net = OneList()
    names = [p.name for p in net.get_parameters()]
    assert names == ["0.weight", "0.bias", "1.weight", "1.bias"]   # no parent prefix
    net(ms.Tensor(np.ones((1, 2), np.float32)))
    assert [p.name for p in net.get_parameters()] == names         # unique: not refreshed


def test_check_names_and_refresh_name_directly():
    net = TwoLists()
    net.check_names_and_refresh_name()
    assert net.enc[0].weight.name == "enc.0.weight"
    other = OneList()
    other.check_names_and_refresh_name()
    assert other.blocks[1].bias.name == "1.bias"
