"""The compiled model (OpenVINO's ExecutableNetwork): compile once, run through any
number of infer requests, synchronously or asynchronously, export and import.

    model = ms.compile(net, ms.TensorSpec((None, 3), ms.float32))
    print(model.graph)
    req = model.create_infer_request()
    outs = req.infer([x])                    # a list of numpy arrays
    req.set_callback(lambda r: print(r.outputs))
    req.start_async([x])
    outs = req.wait()
    model.export("net.gjm")
    again = ms.import_model("net.gjm")

What is shared: the graph, the plan (the generated function and its kernels) and
the graph's constants belong to the model and are never written after compile.
Each run keeps its values in its own frame of the generated function, and each
request keeps its own outputs: an output that would alias a constant, an input or
another output is copied, so writing into an output never changes the model or
another result.
"""
from __future__ import annotations

import itertools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..backend.executor import compile_graph
from ..backend.lowering import result_is_fresh as _allocates
from ..ir.errors import ModelFileError, UnsupportedSyntaxError
from ..ir.defs.state import Variable
from ..ir.graph import Graph
from ..ir.serialize import load_model_file, save_graph
from ..ir.types import TensorType, format_shape, is_static
from ..autodiff import current_tape
from ..common.tensor import Tensor, TensorSpec
from ..tracebacks import user_facing
from .api import compile_for_model, explain
from .cache import _fast_key, _fill
from ..frontend.templates import WithWrites
from .entry import MISS, make_call
from .bindings import StateBinding

__all__ = ["CompiledModel", "InferRequest", "compile", "import_model"]


# -- configuration and metrics (tables, one entry per key) -------------------------------------
def _check_streams(v):
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise ValueError(f"NUM_STREAMS must be a positive int, got {v!r}")
    return v


def _check_hint(v):
    if v not in ("LATENCY", "THROUGHPUT"):
        raise ValueError(f"PERFORMANCE_HINT must be 'LATENCY' or 'THROUGHPUT', got {v!r}")
    return v


# key -> (default, check): NUM_STREAMS is the number of threads that run async requests.
_CONFIG: Dict[str, tuple] = {
    "NUM_STREAMS": (lambda: max(1, os.cpu_count() or 1), _check_streams),
    "PERFORMANCE_HINT": (lambda: "LATENCY", _check_hint),
}

_METRICS: Dict[str, Callable[["CompiledModel"], Any]] = {
    "NETWORK_NAME": lambda m: m.name,
    "OPTIMAL_NUMBER_OF_INFER_REQUESTS": lambda m: m._config["NUM_STREAMS"],
    "SUPPORTED_METRICS": lambda m: list(_METRICS),
    "SUPPORTED_CONFIG_KEYS": lambda m: list(_CONFIG),
    "NUMBER_OF_NODES": lambda m: sum(1 for _ in m.graph.walk()),
    "INPUTS": lambda m: [(name, str(t)) for name, t in m._inputs],
    "OUTPUTS": lambda m: [str(r.type) for r in m.graph.results if r.type.is_tensor],
    "PARAMETERS": lambda m: [(n, str(t)) for n, t in zip(m._state.names, m._state.types)]
    if m._state is not None else [],
}


def _make_config(config: Optional[dict]) -> Dict[str, Any]:
    """Defaults overridden by `config`, every value checked."""
    if config is not None and not isinstance(config, dict):
        raise TypeError(f"config must be a dict, got {type(config).__name__}")
    out = {k: default() for k, (default, _) in _CONFIG.items()}
    for k, v in (config or {}).items():
        if k not in _CONFIG:
            raise ValueError(f"unknown config key {k!r}; the keys are {', '.join(_CONFIG)}")
        out[k] = _CONFIG[k][1](v)
    return out


def _shared_ids(graph: Graph) -> frozenset:
    """ids of the constant arrays of a graph (and of the arrays they view)."""
    ids = set()
    for node in graph.walk():
        if node.op == "Const":
            v = node.attrs["value"]
            ids.add(id(v))
            if v.base is not None:
                ids.add(id(v.base))
    return frozenset(ids)


class CompiledModel:
    """A graph compiled for the numpy executor.

    Args:
        graph: the IR graph (its tensor params are the model's inputs).
        name: the network's name (metric NETWORK_NAME); defaults to the graph's.
        runner: optional callable turning user inputs into outputs, used by
            `model(...)` when the model was compiled from a Cell or function (it
            handles Python-constant arguments and the output structure). Infer
            requests and imported models take and give arrays, one per graph
            tensor parameter and result.
        config: configuration keys (see SUPPORTED_CONFIG_KEYS) overriding the defaults.
        source: the Cell or function it was compiled from, if any.
        plan: the graph's compiled plan, if it was compiled already.
        variables: for a graph that reads or updates Parameters (ref parameters), the
            variables to bind them to, one per ref in parameter order: a list, or a
            callable giving the list at each run (the Cell's Parameters). Every
            request of the model shares them: an update one request makes, the next
            one reads.

    Raises:
        ValueError / TypeError: an unknown config key or a bad value, or a graph with
            ref parameters and no variables.
    """

    def __init__(self, graph: Graph, name: Optional[str] = None, runner: Callable = None,
                 config: Optional[dict] = None, source=None, plan=None,
                 variables=None):
        self.graph = graph
        self.name = name or graph.name
        self.source = source
        self._user_config = dict(config or {})
        self._config = _make_config(config)
        self._runner = runner
        self._plan = plan if plan is not None else compile_graph(graph)
        self._state = StateBinding(graph) if any(
            not p.type.is_tensor for p in graph.params) else None
        if self._state is not None:
            if variables is None:
                raise ValueError(f"model '{self.name}' reads {len(self._state.types)} "
                                 f"Parameter(s); give their variables")
            self._variables = variables if callable(variables) else \
                (lambda fixed=list(variables): fixed)
        params = graph.params if self._state is None else self._state.tensor_params(graph)
        self._inputs = tuple((p.name or f"input{i}", p.type) for i, p in enumerate(params))
        self._const_ids = _shared_ids(graph)
        # the per-call fast paths: the cache entry a Cell's model runs and the call
        # signatures (dtypes, shapes, constants) already checked once; the exact
        # dtype and static shape of each input; the outputs that may share memory
        self._entry = None
        self._fast_call = None           # jit.entry.make_call's, once a call was checked
        self._checked: Dict[tuple, bool] = {}
        self._exact = tuple((t.dtype.np, t.shape if is_static(t.shape) else None)
                            for _, t in self._inputs)
        self._unchecked_outputs = _fresh_results(self._plan.program)
        if self._state is not None and self._state.returns_token:
            self._unchecked_outputs = self._unchecked_outputs[:-1]   # the state token
        self._pool: Optional[ThreadPoolExecutor] = None
        self._pool_lock = threading.Lock()
        self._request_ids = itertools.count(1)

    # -- running -------------------------------------------------------------------------------
    def _prepare(self, inputs) -> List[np.ndarray]:
        """The checked input arrays, in parameter order.

        Raises:
            TypeError: wrong number of inputs, or a wrong dtype.
            ValueError: a wrong shape, or dict keys that name no input.
        """
        if type(inputs) in (list, tuple) and len(inputs) == len(self._exact):
            for x, (d, shape) in zip(inputs, self._exact):   # arrays exactly as declared
                if type(x) is not np.ndarray or x.dtype != d or x.shape != shape:
                    break
            else:
                return inputs
        if isinstance(inputs, dict):
            names = [n for n, _ in self._inputs]
            unknown = sorted(set(map(str, inputs)) - set(names))
            missing = [n for n in names if n not in inputs]
            if unknown or missing:
                raise ValueError(f"model '{self.name}' has the inputs {names}; "
                                 + (f"missing {missing}" if missing else "")
                                 + ("; " if missing and unknown else "")
                                 + (f"unknown {unknown}" if unknown else ""))
            inputs = [inputs[n] for n in names]
        elif not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        if len(inputs) != len(self._inputs):
            want = ", ".join(f"{n}: {t}" for n, t in self._inputs) or "none"
            raise TypeError(f"model '{self.name}' takes {len(self._inputs)} input(s) ({want}), "
                            f"got {len(inputs)}")
        arrays = []
        for i, ((name, t), x) in enumerate(zip(self._inputs, inputs)):
            arrays.append(_check_input(i, name, t, x))
        return arrays

    def _execute(self, arrays: List[np.ndarray]) -> List[np.ndarray]:
        """Run the plan; the outputs never alias a constant, an input or each other."""
        if self._state is None:
            outs = self._plan(*arrays)
        else:
            outs = self._plan(*self._state.arguments(arrays, self._variables()))
            if self._state.returns_token:
                outs = outs[:-1]
        fresh = self._unchecked_outputs
        if all(fresh):      # each a new array of the plan's own (or a new scalar)
            return [o if type(o) is np.ndarray else np.asarray(o) for o in outs]
        consts, shared = self._const_ids, set()
        for a in arrays:
            shared.add(id(a))
            if a.base is not None:
                shared.add(id(a.base))
        owned = []
        for o, new in zip(outs, fresh):
            if type(o) is not np.ndarray:       # a numpy scalar: a new array of its own
                a, new = np.asarray(o), True
            else:
                a = o
            if not new:
                base = id(a.base) if a.base is not None else None
                if id(a) in shared or id(a) in consts or base in shared or base in consts \
                        or not a.flags.writeable:
                    a = a.copy()
            shared.add(id(a))
            if a.base is not None:
                shared.add(id(a.base))
            owned.append(a)
        return owned

    def run_arrays(self, arrays: Sequence[np.ndarray]) -> tuple:
        """Run the graph on numpy arrays, one per parameter.

        Returns:
            The tuple of output arrays (owned by the caller).

        Raises:
            TypeError / ValueError: see `_prepare`; GraphRuntimeError: a kernel failed.
        """
        return tuple(self._execute(self._prepare(list(arrays))))

    def __call__(self, *inputs):
        """Run the model. Compiled from a Cell or function, it takes what the Cell
        takes and returns what it returns; otherwise it takes one array or Tensor per
        input and returns a Tensor (or a tuple of Tensors)."""
        tape = current_tape()
        if tape is not None and any(tape.tracks(x) for x in inputs):
            # a PYNATIVE gradient flows through this call: the source runs on the tape
            if self.source is None:
                raise NotImplementedError(
                    "a gradient through a model imported from a file (no source to run "
                    "eagerly) is not supported; differentiate the Cell it was made from")
            src = self.source
            return (type(src).construct(src, *inputs) if hasattr(src, "construct")
                    else getattr(src, "fn", src)(*inputs))
        fast = self._fast_call
        if fast is not None:
            out = fast(inputs)
            if out is not MISS:
                return out
        entry = self._entry
        if entry is not None:
            fast = _fast_key(inputs)
            if fast is not None and fast[0] in self._checked:
                return self._own_tree(entry.run_arrays(fast[1]))
        if self._runner is not None:
            out = self._own_tree(self._runner(*inputs))
            if entry is not None and fast is not None:
                self._checked[fast[0]] = True    # these checks passed; next time skip them
                if self._fast_call is None:      # and the entry's own call takes them
                    self._fast_call = make_call(
                        entry, inputs, _fill, own=self._own_tree,
                        fresh=self._unchecked_outputs, const_ids=self._const_ids)
            return out
        outs = [Tensor._wrap(o) for o in self._execute(self._prepare(list(inputs)))]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _own_tree(self, x):
        if type(x) is Tensor:
            a = x._data
            if id(a) in self._const_ids or (a.base is not None and id(a.base) in
                                            self._const_ids):
                return Tensor._wrap(a.copy())
            return x
        if isinstance(x, Tensor):
            a = np.asarray(x)
            if id(a) in self._const_ids or (a.base is not None and id(a.base) in
                                            self._const_ids):
                return Tensor._wrap(a.copy())
            return x
        if isinstance(x, (tuple, list)):
            return type(x)(self._own_tree(v) for v in x)
        if isinstance(x, dict):
            return {k: self._own_tree(v) for k, v in x.items()}
        return x

    def create_infer_request(self) -> "InferRequest":
        """A new request; any number may exist and run at once."""
        return InferRequest(self, next(self._request_ids))

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._config["NUM_STREAMS"],
                                                thread_name_prefix=f"graphjit-{self.name}")
            return self._pool

    # -- information ---------------------------------------------------------------------------
    @property
    def lowered(self):
        """The lowered program the model runs: its kernels (fused elementwise chains,
        extern ops, If/Loop with their bodies) and where each value is freed;
        `print(model.lowered)` shows it."""
        return self._plan.program

    def get_metric(self, name: str) -> Any:
        """A static fact about the model: NETWORK_NAME, OPTIMAL_NUMBER_OF_INFER_REQUESTS,
        SUPPORTED_METRICS, SUPPORTED_CONFIG_KEYS, NUMBER_OF_NODES, INPUTS, OUTPUTS.

        Raises:
            ValueError: no metric of that name.
        """
        fn = _METRICS.get(name)
        if fn is None:
            raise ValueError(f"unknown metric {name!r}; the metrics are {', '.join(_METRICS)}")
        return fn(self)

    def get_config(self, key: str) -> Any:
        """The value of a configuration key the model was compiled with.

        Raises:
            ValueError: no such key.
        """
        if key not in self._config:
            raise ValueError(f"unknown config key {key!r}; the keys are {', '.join(_CONFIG)}")
        return self._config[key]

    # -- export --------------------------------------------------------------------------------
    def export(self, path) -> None:
        """Write the graph, its constants, the current values of the Parameters it reads
        (the weights), the name and the explicitly set config to one file (a zip of JSON
        and .npy entries; no pickle).

        Args:
            path: a file path or a writable binary file object.

        Raises:
            TypeError: the graph holds an attribute that is not plain data.
        """
        state = ()
        if self._state is not None:
            state = [(n, np.asarray(v._data)) for n, v in
                     zip(self._state.names, self._variables())]
        save_graph(self.graph, path, name=self.name,
                   metadata={"config": dict(self._user_config)}, state=state)

    def explain(self, *inputs):
        """The compiler's report for these inputs (models compiled from source only)."""
        if self.source is None:
            raise ValueError("this model was not compiled from a Cell or function")
        return explain(self.source, *inputs)

    def __repr__(self):
        ins = ", ".join(f"{n}: {t}" for n, t in self._inputs)
        return f"<CompiledModel {self.name}({ins})>"


def _fresh_results(program) -> Tuple[bool, ...]:
    """Per graph result: whether the plan always returns it as a new array (or a numpy
    scalar) that nothing else holds: computed by a kernel that allocates its result,
    and returned once."""
    counts: Dict[int, int] = {}
    roots = [program.root(r) for r in program.graph.results]
    for r in roots:
        counts[id(r)] = counts.get(id(r), 0) + 1
    made = {id(v): k for k in program.kernels for v in k.stores}
    return tuple(counts[id(r)] == 1 and id(r) in made and _allocates(made[id(r)], r)
                 for r in roots)


def _check_input(i: int, name: str, t: TensorType, x) -> np.ndarray:
    if isinstance(x, TensorSpec) or (isinstance(x, Tensor) and not x.has_data):
        raise ValueError(f"input {i} '{name}' is a tensor without data; pass an array")
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    if a.dtype != t.dtype.np:
        raise TypeError(f"input {i} '{name}' must be {t.dtype} ({t}), got {a.dtype}; convert "
                        f"it with np.asarray(value, dtype=np.{t.dtype.np.name})")
    if t.shape is not None and (a.ndim != len(t.shape) or any(
            d is not None and d != s for d, s in zip(t.shape, a.shape))):
        raise ValueError(f"input {i} '{name}' must have shape {format_shape(t.shape)} ('?' is "
                         f"any size), got {format_shape(a.shape)}")
    return a


class InferRequest:
    """One inference at a time over the model's shared, immutable plan.

    `infer` runs on the calling thread; `start_async` runs on the model's pool of
    NUM_STREAMS threads, then calls the callback (if set) with the request, then
    lets `wait` return. Inputs given to `start_async` must not be written until
    the request is done.
    """

    def __init__(self, model: CompiledModel, rid: int):
        self.model = model
        self.id = rid
        self._running = threading.Lock()     # held while an inference runs
        self._done = threading.Event()
        self._done.set()
        self._started = False
        self._callback: Optional[Callable] = None
        self._callback_thread: Optional[int] = None
        self._outputs: Optional[List[np.ndarray]] = None
        self._error: Optional[BaseException] = None

    def _claim(self) -> None:
        if not self._running.acquire(blocking=False):
            raise RuntimeError(f"infer request {self.id} is busy with an inference started "
                               f"by start_async(); call wait() first, or use another "
                               f"request")

    def _release(self) -> None:
        self._running.release()

    def infer(self, inputs=()) -> List[np.ndarray]:
        """Run synchronously.

        Args:
            inputs: one array (or Tensor) per model input, as a list or tuple, a dict
                by input name, or a single array for a one-input model.

        Returns:
            The list of output arrays (owned by this request's caller).

        Raises:
            TypeError / ValueError: wrong inputs (count, dtype, shape).
            RuntimeError: the request is busy with an async inference.
            GraphRuntimeError: a kernel failed.
        """
        arrays = self.model._prepare(inputs)
        self._claim()
        try:
            self._outputs, self._error = None, None
            self._outputs = self.model._execute(arrays)
            return list(self._outputs)
        finally:
            self._release()

    def start_async(self, inputs=()) -> None:
        """Start an inference on the model's thread pool and return at once.

        Raises:
            TypeError / ValueError: wrong inputs (checked before starting).
            RuntimeError: the request is still busy.
        """
        arrays = self.model._prepare(inputs)
        self._claim()
        self._started = True
        self._outputs, self._error = None, None
        self._done.clear()
        try:
            self.model._executor().submit(self._run_async, arrays, self._callback)
        except BaseException:
            self._release()
            self._done.set()
            raise

    def _run_async(self, arrays, callback) -> None:
        try:
            try:
                self._outputs = self.model._execute(arrays)
            except BaseException as e:  # reported by wait(), on the caller's thread
                self._error = e
            if callback is not None:
                self._callback_thread = threading.get_ident()
                try:
                    callback(self)
                except BaseException as e:
                    if self._error is None:
                        self._error = e
                finally:
                    self._callback_thread = None
        finally:
            self._release()
            self._done.set()

    def wait(self, timeout: Optional[float] = None) -> List[np.ndarray]:
        """Wait for the inference started by start_async (and its callback).

        Args:
            timeout: seconds to wait at most; None waits as long as it takes.

        Returns:
            The list of output arrays.

        Raises:
            RuntimeError: start_async was never called.
            TimeoutError: the timeout passed first.
            The inference's own error (GraphRuntimeError...), or the callback's.
        """
        if not self._started:
            raise RuntimeError(f"infer request {self.id} was never started; call "
                               f"start_async(inputs) first")
        if self._callback_thread != threading.get_ident():   # in its own callback it is done
            if not self._done.wait(timeout):
                raise TimeoutError(f"infer request {self.id} did not finish within "
                                   f"{timeout} s")
        if self._error is not None:
            raise self._error
        return list(self._outputs)

    def set_callback(self, fn: Optional[Callable]) -> None:
        """Call fn(request) when each later start_async inference finishes (also when
        it failed: `request.wait()` inside the callback returns or raises at once).

        Raises:
            TypeError: fn is not callable.
        """
        if fn is not None and not callable(fn):
            raise TypeError(f"the callback must be callable, got {type(fn).__name__}")
        self._callback = fn

    @property
    def outputs(self) -> Optional[List[np.ndarray]]:
        """The outputs of the last finished inference, or None."""
        return None if self._outputs is None else list(self._outputs)

    def __repr__(self):
        state = "busy" if self._running.locked() else "idle"
        return f"<InferRequest {self.id} of {self.model.name}: {state}>"


def compile(net_or_function, *example_inputs, name: Optional[str] = None,
            config: Optional[dict] = None) -> CompiledModel:
    """Compile a Cell or function for these example inputs (Tensors or TensorSpecs).

    Args:
        net_or_function: an nn.Cell, a function, or an @ms.jit function.
        *example_inputs: Tensors (their dtypes and shapes are the signature), TensorSpecs
            (None dims are unknown), and Python constants.
        name: the model's name (defaults to the Cell's class or the function's name).
        config: configuration keys (see SUPPORTED_CONFIG_KEYS).

    Returns:
        The CompiledModel.

    Raises:
        the build errors of graphjit (ShapeJoinError, ...) at the user's line;
        ValueError: an unknown config key or a bad value.
    """
    settings = _make_config(config)
    try:
        graph, label, runner, entry, variables = compile_for_model(
            net_or_function, example_inputs, name)
    except Exception as e:   # raised from here: the one graphjit frame users see
        raise user_facing(e)
    if type(entry.template) is WithWrites:
        t = entry.template
        what = ("changes a list or dict from outside it (a global's, a closure's or an "
                "attribute's)" if t.ext else
                "changes a list or dict passed to it" if t.writes or t.attrs or not t.refs
                else "returns a list or dict passed to it (the caller's own object)")
        raise user_facing(UnsupportedSyntaxError(
            f"the function {what}; a compiled model takes tensors and returns new "
            f"results without changing its inputs",
            hint="build a new list (or dict) inside and return it"))
    model = CompiledModel(graph, name=label, runner=runner, source=net_or_function,
                          plan=entry.plan, variables=variables)
    model._entry = entry
    if config:
        model._user_config, model._config = dict(config), settings
    if model._runner is not None:
        model._runner = _guard_constants(model._runner, example_inputs)
    return model


_TENSOR = object()   # a tensor argument in the skeleton of a call


def _skeleton(x):
    """The Python-constant part of an argument: what a compiled graph has folded in."""
    if isinstance(x, (Tensor, TensorSpec, np.ndarray)):
        return _TENSOR
    if isinstance(x, (tuple, list)):
        return ("seq", type(x), tuple(_skeleton(v) for v in x))
    if isinstance(x, dict):
        return ("dict", tuple(x), tuple(_skeleton(v) for v in x.values()))
    return ("const", type(x), x)


def _agree(e, g) -> bool:
    """Whether two skeletons fold to the same graph. A tensor against anything is left
    to the front-end's check of the tensor inputs."""
    if e is _TENSOR or g is _TENSOR:
        return True
    if e[0] != g[0]:
        return False
    if e[0] == "const":
        if e[1] is g[1] and isinstance(e[2], (float, np.floating)) and e[2] == 0 == g[2]:
            return math.copysign(1.0, e[2]) == math.copysign(1.0, g[2])  # x / -0.0 is -inf
        try:
            return e[1] is g[1] and bool(e[2] == g[2])
        except Exception:  # a constant whose == is not a plain truth value
            return e[2] is g[2]
    return e[1] == g[1] and len(e[2]) == len(g[2]) and all(
        _agree(a, b) for a, b in zip(e[2], g[2]))


def _guard_constants(runner: Callable, example_inputs) -> Callable:
    """The runner, refusing calls whose Python constants differ from the example's:
    their values were folded into the graph, so the graph would silently ignore them."""
    expected = [_skeleton(x) for x in example_inputs]
    shown = [_show(x) for x in example_inputs]

    def run(*inputs):
        if len(inputs) != len(expected):
            raise TypeError(f"the model was compiled for {len(expected)} argument(s) "
                            f"({', '.join(shown) or 'none'}), got {len(inputs)}")
        for i, (e, x) in enumerate(zip(expected, inputs)):
            if not _agree(e, _skeleton(x)):
                raise ValueError(
                    f"argument {i} of the compiled model was {shown[i]} when it was "
                    f"compiled and is {_show(x)} now; Python constants are folded into "
                    f"the graph, so compile again with ms.compile(...) for other values")
        return runner(*inputs)
    return run


def _show(x) -> str:
    if isinstance(x, (Tensor, TensorSpec)):
        return "a tensor"
    text = repr(x)
    return f"{text[:60]}..." if len(text) > 60 else text


def import_model(path, config: Optional[dict] = None) -> CompiledModel:
    """Load a model written by CompiledModel.export. Nothing in the file is executed.

    Args:
        path: a file path or a readable binary file object.
        config: configuration keys overriding those saved in the file.

    Returns:
        A CompiledModel that takes and gives arrays (one per graph input and output);
        the Parameters it reads start from the saved values and belong to the model
        (its requests update them).

    Raises:
        ModelFileError: the file is damaged or not a graphjit model.
        OSError: the file cannot be opened.
        ValueError / TypeError: `config` has an unknown key or a bad value.
    """
    graph, name, metadata, state = load_model_file(path)
    label = str(getattr(path, "name", "<stream>")) if hasattr(path, "read") else os.fspath(path)
    saved = metadata.get("config", {})
    try:
        if not isinstance(saved, dict):
            raise TypeError(f"must be an object, got {type(saved).__name__}")
        saved = {k: v for k, v in saved.items() if k in _CONFIG}
        _make_config(saved)
    except (TypeError, ValueError) as e:
        raise ModelFileError(f"the saved config is not valid: {e}", path=label,
                             part="graph.json > metadata > config") from None
    merged = {**saved, **(config or {})}
    _make_config(merged)
    variables = [Variable(arr, n) for n, arr in state]
    try:
        return CompiledModel(graph, name=name, config=merged, variables=variables)
    except Exception as e:  # the plan is built from data in the file
        raise ModelFileError(f"the graph loads but cannot be planned for execution: "
                             f"{type(e).__name__}: {e}", path=label, part="graph") from e
