"""MindSpore's nn.GraphCell: a Cell running a graph read from a file by `ms.load`."""
from __future__ import annotations

import numpy as np

from ..common.tensor import Tensor
from .cell import Cell

__all__ = ["GraphCell"]


class GraphCell(Cell):
    """Run the model `ms.load` read (a CompiledModel): `GraphCell(ms.load(path))(x)`.

    Args:
        graph: what `ms.load` returned.
        params_init: {parameter name: Tensor or array}: new values for the model's
            Parameters (their dtype and shape must match).

    Raises:
        TypeError: graph is not a loaded model.
        ValueError: params_init names a Parameter the model does not have, or a value of
            another shape.
    """

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        # a CompiledModel (nn sits below the compiler: known by what it has)
        if not (callable(graph) and hasattr(graph, "export") and hasattr(graph, "_state")):
            raise TypeError(f"For 'GraphCell', the argument 'graph' must be a model loaded "
                            f"by mindspore.load, but got {type(graph).__name__}.")
        self.graph = graph
        if params_init:
            self._init_params(params_init)

    def _init_params(self, params_init):
        state = self.graph._state
        names = list(state.names) if state is not None else []
        variables = self.graph._variables() if state is not None else []
        by_name = dict(zip(names, variables))
        for name, value in params_init.items():
            var = by_name.get(name)
            if var is None:
                raise ValueError(f"For 'GraphCell', the parameter {name!r} in 'params_init' "
                                 f"is not a parameter of the graph (it has {names}).")
            arr = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
            if arr.shape != var._data.shape:
                raise ValueError(f"For 'GraphCell', the parameter {name!r} has shape "
                                 f"{var._data.shape}, but 'params_init' gives {arr.shape}.")
            new = np.array(arr, dtype=var._data.dtype)
            new.flags.writeable = False
            var._data = new

    def construct(self, *inputs):
        return self.graph(*inputs)

    def __call__(self, *inputs):
        return self.graph(*inputs)
