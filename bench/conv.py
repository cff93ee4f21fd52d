"""Convolution and pooling layers in graph mode and eager mode against the same
computation hand-written over numpy, measured in the same run (CPU-time ratios, one
thread for every library, bench/timing.py).

    python bench/conv.py

The numpy references are what a person writes for speed: a full convolution as an
explicit im2col copy and one matrix product, a 1x1 convolution as a matrix product, a
depthwise convolution and a max-pool as a loop over the window's taps.
"""
from __future__ import annotations

import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np   # noqa: E402

import graphjit as ms   # noqa: E402
from graphjit import nn   # noqa: E402

from timing import cpu_time_per_call   # noqa: E402


def im2col_conv(x, w, stride, pad):
    """Pad, gather the patches into a (N*oh*ow, C*k*k) matrix, one matmul."""
    n, c, h, wd = x.shape
    o, _, k, _ = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
    cols = np.empty((n, oh, ow, c, k, k), x.dtype)
    for i in range(k):
        for j in range(k):
            cols[..., i, j] = xp[:, :, i:i + stride * (oh - 1) + 1:stride,
                                 j:j + stride * (ow - 1) + 1:stride].transpose(0, 2, 3, 1)
    out = cols.reshape(n * oh * ow, -1) @ w.reshape(o, -1).T
    return out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2)


def pointwise_conv(x, w, stride, pad):
    n, c, h, wd = x.shape
    return (w.reshape(w.shape[0], c) @ x.reshape(n, c, h * wd)).reshape(n, -1, h, wd)


def depthwise_conv(x, w, stride, pad):
    n, c, h, wd = x.shape
    k = w.shape[-1]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros_like(x)
    for i in range(k):
        for j in range(k):
            out += xp[:, :, i:i + h, j:j + wd] * w[:, 0, i, j, None, None]
    return out


def max_pool(x, k, stride, pad):
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=-np.inf)
    oh, ow = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
    out = None
    for i in range(k):
        for j in range(k):
            tap = xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            out = tap.copy() if out is None else np.maximum(out, tap, out=out)
    return out


class Layer(nn.Cell):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x):
        return self.layer(x)


# (title, input shape, the layer, its numpy reference over (x, weight))
CASES = [
    ("conv3x3 8x32x32x32", (8, 32, 32, 32),
     lambda: nn.Conv2d(32, 32, 3, pad_mode="pad", padding=1), lambda x, w: im2col_conv(x, w, 1, 1)),
    ("conv3x3 2x64x56x56", (2, 64, 56, 56),
     lambda: nn.Conv2d(64, 64, 3, pad_mode="pad", padding=1), lambda x, w: im2col_conv(x, w, 1, 1)),
    ("conv3x3 16x16x16x16", (16, 16, 16, 16),
     lambda: nn.Conv2d(16, 16, 3, pad_mode="pad", padding=1), lambda x, w: im2col_conv(x, w, 1, 1)),
    ("conv7x7/2 stem 2x3x112x112", (2, 3, 112, 112),
     lambda: nn.Conv2d(3, 64, 7, stride=2, pad_mode="pad", padding=3),
     lambda x, w: im2col_conv(x, w, 2, 3)),
    ("conv3x3/2 8x64x28x28 -> 128", (8, 64, 28, 28),
     lambda: nn.Conv2d(64, 128, 3, stride=2, pad_mode="pad", padding=1),
     lambda x, w: im2col_conv(x, w, 2, 1)),
    ("conv1x1 8x64x28x28 -> 256", (8, 64, 28, 28),
     lambda: nn.Conv2d(64, 256, 1), lambda x, w: pointwise_conv(x, w, 1, 0)),
    ("depthwise3x3 8x96x28x28", (8, 96, 28, 28),
     lambda: nn.Conv2d(96, 96, 3, pad_mode="pad", padding=1, group=96),
     lambda x, w: depthwise_conv(x, w, 1, 1)),
    ("maxpool3x3/2 8x64x56x56", (8, 64, 56, 56),
     lambda: nn.MaxPool2d(3, 2, pad_mode="pad", padding=1), lambda x, w: max_pool(x, 3, 2, 1)),
]


def main():
    rng = np.random.default_rng(0)
    print(f"graphjit {ms.__version__}, numpy {np.__version__}; CPU-time ratios against "
          f"hand-written numpy (lower is better)\n")
    print(f"{'layer':32s} {'numpy':>9s} {'graph':>7s} {'eager':>7s}")
    for title, shape, make, ref in CASES:
        x = rng.standard_normal(shape).astype(np.float32)
        layer = make()
        w = layer.weight.asnumpy() if hasattr(layer, "weight") else None
        net, xt = Layer(layer), ms.Tensor(x)
        expected = ref(x, w)
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(net(xt).asnumpy(), expected, rtol=1e-4, atol=1e-4)
        t_np = cpu_time_per_call(lambda: ref(x, w))
        t_graph = cpu_time_per_call(lambda: net(xt))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(net(xt).asnumpy(), expected, rtol=1e-4, atol=1e-4)
        t_eager = cpu_time_per_call(lambda: net(xt))
        ms.set_context(mode=ms.GRAPH_MODE)
        print(f"{title:32s} {t_np * 1e3:7.2f}ms {t_graph / t_np:6.2f}x {t_eager / t_np:6.2f}x")


if __name__ == "__main__":
    main()
