"""mindspore.export / mindspore.load / nn.GraphCell: a network written for inference
(graphjit's model format as FILE.mindir, ONNX as FILE.onnx) and run back, with
MindSpore's argument errors."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        y = self.drop(self.bn(self.fc(x)))
        if y.sum() > 0:
            y = y * 2
        return y


def test_export_then_load_runs_the_network_in_inference_mode(tmp_path):
    net = Net()
    net.set_train(True)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    ms.export(net, x, file_name=str(tmp_path / "net"), file_format="MINDIR")
    assert net.training                          # restored after the export
    assert (tmp_path / "net.mindir").exists()
    graph = ms.load(str(tmp_path / "net.mindir"))
    out = nn.GraphCell(graph)(x)
    net.set_train(False)
    np.testing.assert_array_equal(out.asnumpy(), net(x).asnumpy())


def test_params_init_replaces_weights(tmp_path):
    net = nn.Dense(2, 1, has_bias=False)
    x = ms.Tensor(np.ones((1, 2), np.float32))
    ms.export(net, x, file_name=str(tmp_path / "d.mindir"))
    name = net.weight.name
    cell = nn.GraphCell(ms.load(str(tmp_path / "d.mindir")),
                        params_init={name: ms.Tensor(np.array([[2.0, 3.0]], np.float32))})
    assert cell(x).asnumpy().tolist() == [[5.0]]
    with pytest.raises(ValueError, match="is not a parameter of the graph"):
        nn.GraphCell(ms.load(str(tmp_path / "d.mindir")), params_init={"nope": x})
    with pytest.raises(ValueError, match="has shape"):
        nn.GraphCell(ms.load(str(tmp_path / "d.mindir")), params_init={name: np.ones(3)})


def test_mindspores_argument_errors(tmp_path):
    net, x = nn.Dense(2, 1), ms.Tensor(np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="'file_format' must be one of"):
        ms.export(net, x, file_name=str(tmp_path / "n"), file_format="PB")
    with pytest.raises(ValueError, match="AIR"):
        ms.export(net, x, file_name=str(tmp_path / "n"), file_format="AIR")
    with pytest.raises(TypeError, match="file_name"):
        ms.export(net, x, file_name=3)
    with pytest.raises(ValueError, match="should end with '.mindir'"):
        ms.load(str(tmp_path / "n.onnx"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "missing.mindir"))
    (tmp_path / "bad.mindir").write_bytes(b"\x08\x01 not a graphjit model")
    with pytest.raises(ValueError, match="not MindSpore's MindIR protobufs"):
        ms.load(str(tmp_path / "bad.mindir"))
    with pytest.raises(TypeError, match="loaded by mindspore.load"):
        nn.GraphCell(net)


@pytest.mark.extra("onnx")
def test_export_onnx_writes_a_model_onnxruntime_runs(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    net = Net()
    net.set_train(False)
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "net"), file_format="ONNX")
    sess = ort.InferenceSession(str(tmp_path / "net.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, net(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)
