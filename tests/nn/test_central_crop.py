"""nn.CentralCrop (graphjit/nn/layer/image.py), as UNet's skip connections use it."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


class Skip(nn.Cell):
    def __init__(self):
        super().__init__()
        self.crop = nn.CentralCrop(central_fraction=56.0 / 64.0)

    def construct(self, x1, x2):
        return ops.concat((x1, self.crop(x2)), 1)


def test_central_crop_shapes_and_values():
    img = np.random.rand(4, 3, 4, 4).astype(np.float32)
    out = nn.CentralCrop(0.5)(ms.Tensor(img))
    assert out.shape == (4, 3, 2, 2)
    np.testing.assert_array_equal(out.asnumpy(), img[:, :, 1:3, 1:3])
    chw = nn.CentralCrop(0.6)(ms.Tensor(img[0]))   # margins int((5 - 5*0.6)/2) = 0
    assert chw.shape == (3, 4, 4)
    same = ms.Tensor(img)
    np.testing.assert_array_equal(nn.CentralCrop(1.0)(same).asnumpy(), img)
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        try:
            y = Skip()(ms.Tensor(np.ones((1, 2, 56, 56), np.float32)),
                       ms.Tensor(np.arange(64 * 64, dtype=np.float32).reshape(1, 1, 64, 64)))
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        assert y.shape == (1, 3, 56, 56)
        assert float(y.asnumpy()[0, 2, 0, 0]) == 4 * 64 + 4


def test_central_crop_argument_checks():
    with pytest.raises(TypeError):
        nn.CentralCrop(1)
    with pytest.raises(ValueError):
        nn.CentralCrop(0.0)
