"""A minimal `Model` (mindspore.Model) for inference: predict runs the network."""
from __future__ import annotations

__all__ = ["Model"]


class Model:
    """Wraps a Cell; `predict(*inputs)` calls it in the current mode."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 **kwargs):
        from .nn import Cell
        if not isinstance(network, Cell):
            raise TypeError(f"Model needs an nn.Cell, got {type(network).__name__}")
        if loss_fn is not None or optimizer is not None:
            raise NotImplementedError("graphjit's Model does inference only (predict); "
                                      "training needs gradients, which graphjit has not")
        self.network = network

    def predict(self, *inputs):
        return self.network(*inputs)

    def __call__(self, *inputs):
        return self.predict(*inputs)
