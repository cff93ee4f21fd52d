"""bench/run.py's workloads on a peer measured in the same process: each graph exported
with graphjit.onnx.export and run by ONNX Runtime (one thread, all graph optimizations),
beside graphjit's graph mode; CPU-time ratios against the same hand-written numpy.

    python bench/peers.py [W1 ... X4]

Needs the 'onnx' extra (onnx, onnxruntime). A workload whose export fails says why on
its line. JAX, PyTorch and MindSpore are not installed on the machines this runs on;
their figures in the issues come from elsewhere.
"""
from __future__ import annotations

import os
import sys
import tempfile

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np   # noqa: E402

import graphjit as ms   # noqa: E402

from timing import cpu_time_per_call   # noqa: E402
from workloads import all_workloads   # noqa: E402


def ort_session(net, arrays, path):
    import onnxruntime as ort
    from graphjit import onnx as gonnx
    gonnx.export(net, path, *(ms.Tensor(a) for a in arrays))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return sess, dict(zip(names, arrays))


def main(keys):
    try:
        import onnxruntime
    except ImportError:
        sys.exit("bench/peers.py needs the 'onnx' extra: pip install graphjit[onnx]")
    print(f"graphjit {ms.__version__}, onnxruntime {onnxruntime.__version__}, numpy "
          f"{np.__version__}; CPU-time ratios against hand-written numpy (lower is better)\n")
    print(f"{'':4s}{'workload':44s} {'numpy':>9s} {'graph':>7s} {'ORT':>7s}")
    ms.set_context(mode=ms.GRAPH_MODE)
    with tempfile.TemporaryDirectory() as tmp:
        for w in all_workloads():
            if keys and w.key not in keys:
                continue
            net = w.make_net()
            tensors = [ms.Tensor(a) for a in w.arrays]
            expected = w.numpy_fn(*w.arrays)
            t_np = cpu_time_per_call(lambda: w.numpy_fn(*w.arrays))
            t_graph = cpu_time_per_call(lambda: net(*tensors))
            try:
                sess, feed = ort_session(w.make_net(), w.arrays, os.path.join(tmp, w.key + ".onnx"))
                got = sess.run(None, feed)[0]
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
                ort_col = f"{cpu_time_per_call(lambda: sess.run(None, feed)) / t_np:6.2f}x"
            except Exception as e:          # noqa: BLE001 - a peer's failure is a result
                ort_col = f"  ({type(e).__name__}: {str(e).splitlines()[0][:60]})"
            print(f"{w.key:4s}{w.title:44s} {t_np * 1e6:7.1f}us {t_graph / t_np:6.2f}x {ort_col}")


if __name__ == "__main__":
    main(sys.argv[1:])
