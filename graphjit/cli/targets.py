"""What the command line takes: `FILE.py:NAME` targets, input specs and `.npy` files,
exported model files, and the mistakes a user can make with them.

    target = load_target("net.py:Net")              # a Cell class, instance or function
    inputs = [parse_input("float32[None,4]"), parse_input("steps.npy")]
    model = target.compile(inputs)                  # a CompiledModel, as ms.compile
    arrays = [i.array_or_random(rng, dim=4) for i in inputs]
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from ..context import PYNATIVE_MODE, get_context, set_context
from ..extras import install_hint
from ..ir.dtypes import ALL_DTYPES, DType, as_dtype, from_numpy
from ..ir.errors import GraphJitError, ModelFileError
from ..ir.types import TensorType
from ..jit.api import JitFunction, jit
from ..jit.compiled_model import CompiledModel, compile as compile_model, import_model
from ..nn import Cell
from ..common.tensor import Tensor, TensorSpec
from ..tracebacks import user_facing

__all__ = ["UsageError", "UserCodeError", "InputArg", "Target", "parse_input", "load_target",
           "load_model_file", "is_model_file", "format_user_error", "onnx_module", "needs_onnx",
           "describe_inputs", "describe_outputs", "state_note", "updated_parameters", "array_type", "MODEL_SUFFIXES", "DEFAULT_INT_RANGE",
           "parse_int_range"]

MODEL_SUFFIXES = (".gjm", ".onnx")


class UsageError(Exception):
    """A mistake in the command's arguments: argparse's usage line, this one-line
    message, exit code 2."""


class UserCodeError(Exception):
    """The user's code failed (a build error, an exception in their file or at run
    time): printed as Python prints it, exit code 1.

    Args:
        error: the exception, as the public entry point raised it.
        text: what to print instead of the exception's own report, if given.
    """

    def __init__(self, error: BaseException, text: Optional[str] = None):
        super().__init__(str(error))
        self.error = error
        self.text = text

    def report(self) -> str:
        return self.text if self.text is not None else format_user_error(self.error)


def format_user_error(e: BaseException) -> str:
    """An error of the user's code as Python shows it. A graphjit error carries the
    user's line (and a fix) in its message, so it is its class and message; anything
    else is its traceback with graphjit's own frames left out."""
    e = user_facing(e)
    if isinstance(e, GraphJitError):
        cls = type(e)
        return f"{cls.__module__}.{cls.__qualname__}: {e}\n"
    return "".join(traceback.format_exception(type(e), e, e.__traceback__))


# -- inputs -----------------------------------------------------------------------------------------
_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]\s*(?:@(.*))?$")
#: the integers random inputs are drawn from, both ends included (`--int-range`): small,
#: so that they are valid indices of small tables (an nn.Embedding of 3 words) and
#: small counts; 0 included
DEFAULT_INT_RANGE = (0, 2)
_RANGE = re.compile(r"^\s*(-?\d+)\s*(?:\.\.|,)\s*(-?\d+)\s*$")


def parse_int_range(text: str, what: str = "--int-range") -> tuple:
    """`LOW,HIGH` or `LOW..HIGH` (both included) as (low, high).

    Raises:
        UsageError: not two integers, or LOW above HIGH.
    """
    m = _RANGE.match(text)
    if m is None:
        raise UsageError(f"{what} '{text}' is not LOW,HIGH (two integers, both included: "
                         f"'0,2')")
    low, high = int(m.group(1)), int(m.group(2))
    if low > high:
        raise UsageError(f"{what} '{text}': LOW ({low}) is above HIGH ({high})")
    return low, high
_DTYPES = ", ".join(d.name for d in ALL_DTYPES)


@dataclass
class InputArg:
    """One `--input`: a spec (`float32[None,4]`) or the array of a `.npy` file.

    Attributes:
        text: what the user wrote.
        spec: the dtype and shape (None dims unknown; shape None: unknown rank).
        array: the file's array, or None for a spec.
    """
    text: str
    spec: TensorSpec
    array: Optional[np.ndarray] = None
    int_range: Optional[tuple] = None     # (low, high) inclusive, from `spec@LOW..HIGH`

    def example(self):
        """What ms.compile takes for this input: a TensorSpec, or the file's Tensor."""
        return self.spec if self.array is None else Tensor(self.array)

    def array_or_random(self, rng: np.random.Generator, dim: int,
                        int_range: tuple = DEFAULT_INT_RANGE) -> np.ndarray:
        """The file's array, or random data of the spec (unknown dims of size `dim`,
        an unknown rank as one dim): normal floats, integers from LOW to HIGH
        inclusive (this input's `@LOW..HIGH`, else int_range), bools."""
        if self.array is not None:
            return self.array
        shape = (dim,) if self.spec.shape is None else tuple(
            dim if d is None else d for d in self.spec.shape)
        d: DType = self.spec.dtype
        if d.is_floating:
            return rng.standard_normal(shape).astype(d.np)
        if d.is_integer:
            low, high = self.int_range or int_range
            info = np.iinfo(d.np)
            if low < info.min or high > info.max:
                raise UsageError(f"input '{self.text}': the integer range {low}..{high} does "
                                 f"not fit {d.name} ({info.min}..{info.max})")
            return rng.integers(low, high, size=shape, endpoint=True).astype(d.np)
        return rng.random(shape) < 0.5

    def describe(self) -> str:
        t = self.spec.type
        return f"{t} from {self.text}" if self.array is not None else str(t)


def parse_input(text: str) -> InputArg:
    """An input spec (`float32[3,4]`, `int64[]`, `float32[None,4]` or `float32[?,4]`,
    `float32[*]` for an unknown rank) or a `.npy` file.

    Raises:
        UsageError: a malformed spec, an unknown dtype, or an unreadable file.
    """
    if text.endswith(".npy"):
        return _load_npy(text)
    m = _SPEC.match(text)
    if m is None:
        hint = " (a file must end in .npy)" if os.path.exists(text) else ""
        raise UsageError(f"input '{text}' is not a spec like 'float32[3,4]' ('None' or '?' "
                         f"for an unknown dim, 'float32[]' for a scalar) nor a .npy file{hint}")
    name, body = m.group(1), m.group(2).strip()
    try:
        dtype = as_dtype(name)
    except TypeError:
        raise UsageError(f"input '{text}': unknown dtype '{name}'; the dtypes are "
                         f"{_DTYPES}") from None
    int_range = None
    if m.group(3) is not None:
        if not dtype.is_integer:
            raise UsageError(f"input '{text}': a range @LOW..HIGH is for integer inputs; "
                             f"this one is {dtype.name}")
        int_range = parse_int_range(m.group(3), f"input '{text}': the range")
    if body == "*":
        return InputArg(text, TensorSpec(None, dtype), int_range=int_range)
    dims: List[Optional[int]] = []
    for part in ([] if body == "" else body.split(",")):
        p = part.strip()
        if p in ("None", "?", "-1"):
            dims.append(None)
        elif p.isdigit():
            dims.append(int(p))
        else:
            raise UsageError(f"input '{text}': dim '{p}' is not a size; write a number, "
                             f"'None' or '?'")
    return InputArg(text, TensorSpec(tuple(dims), dtype), int_range=int_range)


def _load_npy(path: str) -> InputArg:
    if not os.path.isfile(path):
        raise UsageError(f"input file not found: {path}")
    try:
        a = np.load(path, allow_pickle=False)
    except Exception as e:   # numpy's message says what is wrong with the file
        raise UsageError(f"cannot read {path} as a .npy array: {_one_line(e)}") from None
    if not isinstance(a, np.ndarray):
        raise UsageError(f"cannot read {path} as a .npy array: it holds {type(a).__name__}")
    try:
        d = from_numpy(a.dtype)
    except TypeError:
        raise UsageError(f"{path} holds {a.dtype} data; graphjit takes {_DTYPES}") from None
    return InputArg(path, TensorSpec(a.shape, d), a)


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


# -- targets ------------------------------------------------------------------------------------------
def _unwrap(fn):
    """The user's function under any number of @jit wrappers."""
    while getattr(fn, "_graphjit_jit_of", None) is not None:
        fn = fn._graphjit_jit_of
    return fn


@dataclass
class Target:
    """The model a `FILE.py:NAME` names.

    Attributes:
        label: `FILE.py:NAME` as given.
        name: NAME.
        obj: the Cell instance (a Cell class is built with no arguments) or the
            function (an @ms.jit function, or a plain one wrapped as ms.jit does).
        kind: "Cell" or "function".
    """
    label: str
    name: str
    obj: Any
    kind: str

    def _function(self) -> Callable:
        """The Python the target runs eagerly, with its arguments after self."""
        if self.kind == "Cell":
            return _unwrap(type(self.obj).construct)
        return _unwrap(self.obj)

    def arg_names(self) -> List[str]:
        try:
            names = list(inspect.signature(self._function()).parameters)
        except (TypeError, ValueError):
            return []
        return names[1:] if self.kind == "Cell" else names

    def input_names(self, n: int) -> List[str]:
        """Names for n inputs: the parameters', then `input3`, ... past them."""
        names = self.arg_names()[:n]
        return names + [f"input{k}" for k in range(len(names), n)]

    def check_arity(self, inputs: Sequence[InputArg]) -> None:
        """Raises UsageError when the inputs do not fit the signature."""
        fn = self._function()
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            return
        args = ([None] if self.kind == "Cell" else []) + [None] * len(inputs)
        try:
            sig.bind(*args)
        except TypeError as e:
            names = ", ".join(self.arg_names()) or "none"
            raise UsageError(f"{self.name} takes the inputs ({names}); got {len(inputs)} "
                             f"--input ({e})") from None

    def compile(self, inputs: Sequence[InputArg]) -> CompiledModel:
        """ms.compile for the inputs' specs.

        Raises:
            UsageError: the inputs do not fit the signature.
            UserCodeError: the build failed (ShapeJoinError, ...).
        """
        self.check_arity(inputs)
        try:
            return compile_model(self.obj, *[i.example() for i in inputs], name=None)
        except Exception as e:   # the build error, at the user's line
            raise UserCodeError(e) from None

    def run_eager(self, tensors: Sequence[Tensor]):
        """Run the target in PYNATIVE_MODE (what graph mode must equal)."""
        fn = self._function()
        args = ([self.obj] if self.kind == "Cell" else []) + list(tensors)
        old = get_context("mode")
        set_context(mode=PYNATIVE_MODE)
        try:
            return fn(*args)
        finally:
            set_context(mode=old)


def _module_name(path: str) -> str:
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]) or "model"
    if stem[0].isdigit():
        stem = "_" + stem
    name, i = stem, 1
    while name in sys.modules:
        i += 1
        name = f"{stem}_{i}"
    return name


def _load_module(path: str):
    """Import FILE as a module of its own name (not `__main__`, so its
    `if __name__ == "__main__":` block does not run), its folder first on sys.path
    as when Python runs it."""
    if not os.path.exists(path):
        raise UsageError(f"file not found: {path}")
    if not os.path.isfile(path):
        raise UsageError(f"not a file: {path}")
    if not path.endswith(".py"):
        raise UsageError(f"{path} is not a Python file (.py); models exported with "
                         f"`graphjit export` are .gjm files")
    full = os.path.abspath(path)
    name = _module_name(full)
    spec = importlib.util.spec_from_file_location(name, full)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = os.path.dirname(full)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise UserCodeError(e, "".join(traceback.format_exception_only(type(e), e))) from None
    except (Exception, SystemExit) as e:   # the user's file failed while loading
        raise UserCodeError(e, f"{path} failed while loading:\n" + _user_traceback(e)) from None
    return module


def _user_traceback(e: BaseException) -> str:
    """The traceback without the frames of the import machinery and of graphjit."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if "importlib" not in f.filename and not _is_graphjit_frame(f.filename)]
    text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
    return text + "".join(traceback.format_exception_only(type(e), e))


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_graphjit_frame(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE + os.sep)


def _kind(obj) -> str:
    if isinstance(obj, type) and issubclass(obj, Cell):
        return "Cell class"
    if isinstance(obj, Cell):
        return "Cell instance"
    if isinstance(obj, JitFunction) or inspect.isfunction(obj) or inspect.ismethod(obj):
        return "function"
    return ""


def _defined_here(module) -> List[str]:
    """`Net (Cell class), f (function)`: what FILE defines that NAME may name."""
    out = []
    for k, v in vars(module).items():
        kind = _kind(v)
        if not kind or k.startswith("_"):
            continue
        home = getattr(_unwrap(v) if kind == "function" else v, "__module__", None)
        if kind == "Cell instance" or home == module.__name__:
            out.append(f"{k} ({kind})")
    return out


def load_target(text: str) -> Target:
    """The model of `FILE.py:NAME`: a Cell class (built with no arguments), a Cell
    instance or a function defined in FILE.

    Raises:
        UsageError: not FILE.py:NAME, no such file, no such NAME, NAME of another
            kind, or a Cell class that needs arguments.
        UserCodeError: FILE or the Cell's __init__ failed.
    """
    path, sep, name = text.rpartition(":")
    if not sep or not path or not name:
        raise UsageError(f"'{text}' is not FILE.py:NAME (NAME: a Cell class, a Cell instance "
                         f"or a function in FILE)")
    module = _load_module(path)
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            found = _defined_here(module)
            listing = ", ".join(found) if found else "no Cell or function"
            raise UsageError(f"{path} has no '{name}'; it defines {listing}")
        obj = getattr(obj, part)
    kind = _kind(obj)
    if not kind:
        raise UsageError(f"'{name}' in {path} is of type {type(obj).__name__}, not a Cell "
                         f"class, a Cell instance or a function")
    if kind == "Cell class":
        obj = _build_cell(obj, name, path)
        return Target(text, name, obj, "Cell")
    if kind == "Cell instance":
        return Target(text, name, obj, "Cell")
    if not isinstance(obj, JitFunction):
        obj = jit(obj)    # compiled as ms.jit compiles it; one cache for all sub-commands
    return Target(text, name, obj, "function")


def _build_cell(cls, name: str, path: str):
    try:
        inspect.signature(cls).bind()
    except TypeError as e:
        raise UsageError(f"the Cell class {name} cannot be built with no arguments ({e}); "
                         f"build one in {path} (net = {name}(...)) and name that "
                         f"instance") from None
    except ValueError:
        pass
    try:
        return cls()
    except Exception as e:   # the user's __init__ failed
        raise UserCodeError(e, f"{name}() failed:\n" + _user_traceback(e)) from None


# -- model files --------------------------------------------------------------------------------------
def is_model_file(text: str) -> bool:
    return text.lower().endswith(MODEL_SUFFIXES)


def load_model_file(path: str) -> CompiledModel:
    """An exported model (`.gjm`, or `.onnx` through graphjit.onnx).

    Raises:
        UsageError: no such file, a damaged file, or ONNX without its support.
    """
    if not os.path.isfile(path):
        raise UsageError(f"model file not found: {path}")
    if path.lower().endswith(".onnx"):
        onnx = onnx_module("reading an ONNX model")
        try:
            return onnx.import_model(path)
        except ImportError as e:
            raise UsageError(needs_onnx("reading an ONNX model", e)) from None
        except (GraphJitError, ValueError, OSError) as e:   # damaged, or ops graphjit lacks
            raise UsageError(f"cannot load {path}: {_joined(e)}") from None
    try:
        return import_model(path)
    except ModelFileError as e:
        raise UsageError(_one_line(e)) from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None


def onnx_module(what: str):
    """graphjit.onnx, or a UsageError saying why it cannot be used."""
    if importlib.util.find_spec("graphjit.onnx") is None:
        raise UsageError(f"{what} is not available: this graphjit has no ONNX support "
                         f"(graphjit.onnx)")
    try:
        return importlib.import_module("graphjit.onnx")
    except ImportError as e:
        raise UsageError(needs_onnx(what, e)) from None


def needs_onnx(what: str, e: ImportError) -> str:
    """The message for an ImportError of the onnx packages; any other ImportError
    (graphjit's own) is raised again: it is a bug, not a missing extra."""
    cause: Optional[BaseException] = e
    while cause is not None:
        if isinstance(cause, ImportError) and \
                (cause.name or "").split(".")[0] in ("onnx", "onnxruntime"):
            return f"{what} needs the optional extra 'onnx': {install_hint('onnx')}"
        cause = cause.__cause__ or cause.__context__
    raise e


def _joined(e: BaseException) -> str:
    """The whole message on one line."""
    return " ".join(line.strip() for line in str(e).splitlines() if line.strip()) or \
        type(e).__name__


def describe_inputs(model: CompiledModel) -> str:
    """`x: f32[?,4], steps: i64[]`: the model's inputs."""
    return ", ".join(f"{n}: {t}" for n, t in model.get_metric("INPUTS")) or "none"


def describe_outputs(graph) -> str:
    """`f32[?,3]`: the model's outputs, the state token left out (it is no value the
    user gets: see state_note)."""
    return ", ".join(str(r.type) for r in graph.results if r.type.kind != "state") or "none"


def updated_parameters(graph) -> List[str]:
    """The names of the Parameters the graph updates (ref parameters that a node of it,
    or of an If branch or Loop body fed with them, writes), in parameter order."""
    return [p.name or "?" for p in graph.params
            if p.type.kind == "ref" and _written(graph, p)]


def _written(graph, ref) -> bool:
    from ..ir.registry import get_op
    for node in graph.nodes:
        if get_op(node.op).effects == "write" and node.inputs and node.inputs[0] is ref:
            return True
        for k, x in enumerate(node.inputs):
            if x is not ref:
                continue
            if node.op == "If":
                for attr in ("then_graph", "else_graph"):
                    sub = node.attrs.get(attr)
                    if sub is not None and k >= 1 and _written(sub, sub.params[k - 1]):
                        return True
            elif node.op == "Loop":
                body = node.attrs["body"]
                for li, bp, _ in node.attrs.get("input_map", ()):
                    if li == k and _written(body, body.params[bp]):
                        return True
    return False


def state_note(graph) -> Optional[str]:
    """`updates the Parameters total, w when it runs`, for a graph that writes state."""
    if not any(r.type.kind == "state" for r in graph.results):
        return None
    names = updated_parameters(graph)
    if not names:
        return None
    return (f"updates the Parameter{'s' if len(names) > 1 else ''} {', '.join(names)} "
            f"when it runs")


def array_type(a: np.ndarray) -> str:
    """`f32[3,4]`: an array's dtype and shape as the IR prints them."""
    return str(TensorType(from_numpy(a.dtype), tuple(a.shape)))
