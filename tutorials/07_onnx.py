"""ONNX export: run a graphjit model on ONNX Runtime (optional extra: pip install -e '.[onnx]').

The model halves its input until it is small: how many times depends on the data, so
the graph holds a Loop (and an If inside it). graphjit.onnx.export writes it as an
ONNX Loop; ONNX Runtime runs the file and gives what graphjit gives.
"""
import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

import graphjit as ms
import graphjit.onnx
from graphjit import nn, ops


class Halve(nn.Cell):
    """A while on a tensor: runs until the sum of |x| is at most `limit`."""

    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(ms.Tensor(np.array([1.0, 0.5, 2.0], np.float32)),
                                  name="scale")

    def construct(self, x, limit):
        x = x * self.scale                 # a Parameter: an initializer in the ONNX file
        steps = 0
        while ops.abs(x).sum() > limit:    # the data decides: a Loop
            if x.max() > 1.0:              # an If inside the Loop body
                x = x * 0.5
            else:
                x = x * 0.9
            steps += 1
        return x, steps


def main():
    x = np.array([[4.0, -3.0, 8.0], [1.0, 2.0, -6.0]], np.float32)
    limit = np.array(2.0, np.float32)

    # unknown dims stay symbolic: one file takes any number of rows
    spec = ms.TensorSpec((None, 3), ms.float32)
    model = ms.compile(Halve(), spec, ms.Tensor(limit))
    print("The graphjit IR:\n")
    print(model.graph)

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "halve.onnx")
        graphjit.onnx.export(model, path)
        proto = onnx.load(path)
        print(f"\nwrote {os.path.basename(path)}: opset {proto.opset_import[0].version}, "
              f"inputs {[i.name for i in proto.graph.input]}, "
              f"outputs {[o.name for o in proto.graph.output]}, "
              f"initializers {[i.name for i in proto.graph.initializer]}")
        print("ONNX nodes:", sorted({n.op_type for n in proto.graph.node}))

        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        for rows in (x, x[:1] * 10, np.zeros((0, 3), np.float32)):
            want = model.run_arrays([rows, limit])
            got = session.run(None, {"x": rows, "limit": limit})
            print(f"\n{rows.shape[0]} row(s):")
            print("  graphjit     :", want[0].tolist(), "after", int(want[1]), "steps")
            print("  ONNX Runtime :", got[0].tolist(), "after", int(got[1]), "steps")
            assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
            assert np.allclose(got[0], want[0], rtol=1e-6) and got[1] == want[1]
    print("\nONNX Runtime and graphjit agree")


if __name__ == "__main__":
    main()
