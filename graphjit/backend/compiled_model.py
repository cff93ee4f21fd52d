"""The compiled model (OpenVINO's ExecutableNetwork): compile once, run through any
number of infer requests, synchronously or asynchronously, export and import."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, List, Optional, Sequence

import numpy as np


from ..ir.graph import Graph
from .executor import compile_graph

__all__ = ["CompiledModel", "InferRequest", "compile", "import_model"]


class CompiledModel:
    """A graph compiled for the numpy executor.

    Args:
        graph: the IR graph (its params are the model's tensor inputs).
        name: the network's name (metric NETWORK_NAME).
        runner: optional callable turning user inputs into outputs, used when the
            model was compiled from a Cell or function (it handles constants and
            output structure); plain graphs take and give arrays.
        config: configuration it was compiled with.
    """

    def __init__(self, graph: Graph, name: Optional[str] = None, runner: Callable = None,
                 config: Optional[dict] = None, source=None):
        self.graph = graph
        self.name = name or graph.name
        self._plan = compile_graph(graph)
        self._runner = runner
        self._config = {"NUM_STREAMS": 2, "PERFORMANCE_HINT": "LATENCY"}
        self._config.update(config or {})
        self._pool: Optional[ThreadPoolExecutor] = None
        self._pool_lock = threading.Lock()
        self._requests = 0
        self.source = source

    # -- running -------------------------------------------------------------------------
    def run_arrays(self, arrays: Sequence[np.ndarray]) -> tuple:
        """Run the graph on numpy arrays; returns the tuple of output arrays."""
        if len(arrays) != len(self.graph.params):
            raise TypeError(f"model '{self.name}' takes {len(self.graph.params)} input(s), got "
                            f"{len(arrays)}")
        checked = []
        for p, a in zip(self.graph.params, arrays):
            a = np.asarray(a)
            t = p.type
            if a.dtype != t.dtype.np:
                raise TypeError(f"input '{p.name}' must be {t.dtype}, got {a.dtype}")
            if t.shape is not None and (a.ndim != len(t.shape) or any(
                    d is not None and d != s for d, s in zip(t.shape, a.shape))):
                raise ValueError(f"input '{p.name}' must have shape {t}, got {a.shape}")
            checked.append(a)
        return self._plan(*checked)

    def __call__(self, *inputs):
        if self._runner is not None:
            return self._runner(*inputs)
        from ..tensor import Tensor
        outs = self.run_arrays([np.asarray(x) for x in inputs])
        outs = tuple(Tensor._wrap(np.asarray(o)) for o in outs)
        return outs[0] if len(outs) == 1 else outs

    def create_infer_request(self) -> "InferRequest":
        with self._pool_lock:
            self._requests += 1
            rid = self._requests
        return InferRequest(self, rid)

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=int(self._config.get("NUM_STREAMS", 2)),
                    thread_name_prefix=f"graphjit-{self.name}")
            return self._pool

    # -- information ------------------------------------------------------------------------
    def get_metric(self, name: str) -> Any:
        metrics = {
            "NETWORK_NAME": self.name,
            "OPTIMAL_NUMBER_OF_INFER_REQUESTS": int(self._config.get("NUM_STREAMS", 2)),
            "SUPPORTED_METRICS": ["NETWORK_NAME", "OPTIMAL_NUMBER_OF_INFER_REQUESTS",
                                  "SUPPORTED_METRICS", "SUPPORTED_CONFIG_KEYS",
                                  "NUMBER_OF_NODES", "INPUTS", "OUTPUTS"],
            "SUPPORTED_CONFIG_KEYS": sorted(self._config),
            "NUMBER_OF_NODES": sum(1 for _ in self.graph.walk()),
            "INPUTS": [(p.name, str(p.type)) for p in self.graph.params],
            "OUTPUTS": [str(r.type) for r in self.graph.results],
        }
        try:
            return metrics[name]
        except KeyError:
            raise ValueError(f"unknown metric '{name}'; the metrics are "
                             f"{', '.join(metrics['SUPPORTED_METRICS'])}") from None

    def get_config(self, key: str) -> Any:
        try:
            return self._config[key]
        except KeyError:
            raise ValueError(f"unknown config key '{key}'; the keys are "
                             f"{', '.join(sorted(self._config))}") from None

    # -- export ----------------------------------------------------------------------------
    def export(self, path: str) -> None:
        """Write the graph and its constants to `path` (JSON plus npz; no pickle)."""
        from ..ir.serialize import save_graph
        save_graph(self.graph, path, name=self.name)

    def explain(self, *inputs):
        from ..frontend.api import explain
        if self.source is None:
            raise ValueError("this model was not compiled from a Cell or function")
        return explain(self.source, *inputs)

    def __repr__(self):
        return f"<CompiledModel {self.name}: {len(self.graph.params)} inputs>"


class InferRequest:
    """One inference at a time over a shared, immutable compiled plan."""

    def __init__(self, model: CompiledModel, rid: int):
        self.model = model
        self.id = rid
        self._future = None
        self._callback = None
        self._outputs = None

    def infer(self, inputs=()) -> List[np.ndarray]:
        """Run synchronously; returns the list of output arrays."""
        if isinstance(inputs, dict):
            names = [p.name for p in self.model.graph.params]
            try:
                inputs = [inputs[n] for n in names]
            except KeyError as e:
                raise ValueError(f"missing input {e}; the inputs are {names}") from None
        self._outputs = [np.asarray(o) for o in self.model.run_arrays(list(inputs))]
        return self._outputs

    def start_async(self, inputs=()) -> None:
        if self._future is not None and not self._future.done():
            raise RuntimeError(f"infer request {self.id} is busy; wait() for it first")

        def job():
            outs = self.infer(inputs)
            if self._callback is not None:
                self._callback(self)
            return outs
        self._future = self.model._executor().submit(job)

    def wait(self, timeout: Optional[float] = None) -> List[np.ndarray]:
        if self._future is None:
            raise RuntimeError(f"infer request {self.id} was never started")
        return self._future.result(timeout)

    def set_callback(self, fn: Callable) -> None:
        self._callback = fn

    @property
    def outputs(self):
        return self._outputs


def compile(net_or_function, *example_inputs, name: Optional[str] = None) -> CompiledModel:
    """Compile a Cell or function for these example inputs (Tensors or TensorSpecs).

    Raises:
        the build errors of graphjit (ShapeJoinError, ...) at the user's line.
    """
    from ..frontend.api import compile_for_model
    return compile_for_model(net_or_function, example_inputs, name)


def import_model(path: str) -> CompiledModel:
    """Load a model written by CompiledModel.export.

    Raises:
        ModelFileError: the file is damaged or not a graphjit model.
    """
    from ..ir.serialize import load_graph
    graph, name = load_graph(path)
    return CompiledModel(graph, name=name)


