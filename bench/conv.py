"""Convolution and pooling layers, eager and compiled, against the same computation
hand-written over numpy (an explicit im2col copy and one matrix product), measured in
the same run: ratios of CPU time, best of N.

    python bench/conv.py
"""
from __future__ import annotations

import time

import numpy as np

import graphjit as ms
from graphjit import nn, ops


def im2col_conv(x, w, pad):
    """Hand-written numpy: pad, gather the patches into a (N*H*W, C*k*k) matrix, one
    matmul."""
    n, c, h, wd = x.shape
    o, _, k, _ = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - k + 1, wd + 2 * pad - k + 1
    cols = np.empty((n, oh, ow, c, k, k), x.dtype)
    for i in range(k):
        for j in range(k):
            cols[..., i, j] = xp[:, :, i:i + oh, j:j + ow].transpose(0, 2, 3, 1)
    out = cols.reshape(n * oh * ow, -1) @ w.reshape(o, -1).T
    return out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2)


class ConvBlock(nn.Cell):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, pad_mode="pad", padding=1)

    def construct(self, x):
        return self.conv(x)


def best(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def main():
    rng = np.random.default_rng(0)
    for n, c, hw in [(8, 32, 32), (2, 64, 56), (16, 16, 16)]:
        x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
        net = ConvBlock(c)
        w = net.conv.weight.asnumpy()
        xt = ms.Tensor(x)
        ref = im2col_conv(x, w, 1)
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(net(xt).asnumpy(), ref, rtol=1e-4, atol=1e-4)
        t_np = best(lambda: im2col_conv(x, w, 1))
        t_graph = best(lambda: net(xt))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        t_eager = best(lambda: ops.conv2d(xt, net.conv.weight, None, 1, "pad", 1))
        print(f"conv3x3 {n}x{c}x{hw}x{hw}: numpy {t_np * 1e3:7.2f} ms   "
              f"graph {t_graph / t_np:5.2f}x   eager {t_eager / t_np:5.2f}x")


if __name__ == "__main__":
    main()
