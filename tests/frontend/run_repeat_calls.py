"""The random-program generators' seeds with every graph-mode call made three times, by hand:

    python tests/frontend/run_repeat_calls.py fuzzgen2 9100000 200
    python tests/frontend/run_repeat_calls.py fuzzgen2 9100000 200 --cell

(--cell: each program is called from the construct of an nn.Cell, compiled as a Cell.)

The first call of a compiled function builds and runs its graph; the second and later
calls of the same signature take the cache entry's generated fast call (jit/entry.py).
Each seed runs through the same check as run_seeds.py (graph mode against eager mode),
with the compiled function wrapped so that every call is repeated twice more on the same
arguments: the repeats must give the same values, dtypes, shapes and Python types as the
first call (which the check compares with eager mode), or raise the same error, and a
result must not change when an earlier call's result is written to.
"""
import importlib.util
import inspect
import os
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))       # the worktree's graphjit
sys.path[:0] = [HERE, os.path.dirname(HERE), ROOT]

import graphjit as ms                      # noqa: E402
from graphjit.jit.api import compare_results  # noqa: E402
import run_seeds                           # noqa: E402

_jit = ms.jit


def _scribble(result, inputs):
    """Write to the tensors of a result (a user may) but those sharing memory with an
    argument: later calls must not see it."""
    for tensor in (result,) if isinstance(result, ms.Tensor) else \
            (result if isinstance(result, (tuple, list)) else ()):
        if isinstance(tensor, (tuple, list)):
            _scribble(tensor, inputs)
        elif isinstance(tensor, ms.Tensor) and tensor.size and not any(
                np.shares_memory(tensor._data, a) for a in inputs):
            tensor[...] = 77        # in place, through the Tensor (asnumpy() is a copy)


_TMP = []          # the directory of the Cells' source files, made on first use
_count = [0]


def as_cell(fn):
    """An nn.Cell whose construct calls fn with its parameters (fn is compiled as a
    function the construct calls)."""
    names = ", ".join(inspect.signature(fn).parameters)
    _count[0] += 1
    if not _TMP:
        _TMP.append(tempfile.mkdtemp(prefix="repeat_cells_"))
    path = os.path.join(_TMP[0], f"cell_{_count[0]}.py")
    with open(path, "w") as f:
        f.write("from graphjit import nn\n\n\ndef make(fn):\n"
                "    class Net(nn.Cell):\n"
                f"        def construct(self, {names}):\n"
                f"            return fn({names})\n"
                "    return Net()\n")
    spec = importlib.util.spec_from_file_location(f"cell_{_count[0]}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.make(fn)


def repeating_jit(fn, *a, **k):
    compiled = as_cell(fn) if CELL else _jit(fn, *a, **k)

    def call(*args):
        outcomes = []
        for _ in range(3):
            try:
                with np.errstate(all="ignore"):
                    outcomes.append((compiled(*args), None))
            except Exception as e:          # noqa: BLE001 - compared below
                outcomes.append((None, e))
        first, error = outcomes[0]
        for i, (got, e) in enumerate(outcomes[1:], 2):
            if (error is None) != (e is None) or (
                    error is not None and (type(e) is not type(error) or str(e) != str(error))):
                raise AssertionError(f"call {i} of the compiled function: {got!r} / {e!r}, "
                                     f"call 1: {first!r} / {error!r}")
            if error is None:
                problem = compare_results(got, first)
                if problem:
                    raise AssertionError(f"call {i} differs from call 1: {problem}\n"
                                         f"call {i}={got!r}\ncall 1={first!r}")
        if error is not None:
            raise error
        # one more call after writing to the results of calls 2 and 3 (but for those
        # that are an argument's array, as eager mode's `return x` is the argument)
        inputs = [a._data for a in args if isinstance(a, ms.Tensor)]
        _scribble(outcomes[1][0], inputs)
        _scribble(outcomes[2][0], inputs)
        with np.errstate(all="ignore"):
            again = compiled(*args)
        problem = compare_results(again, first)
        if problem:
            raise AssertionError(f"call 4 (after writing to earlier results) differs: "
                                 f"{problem}\ncall 4={again!r}\ncall 1={first!r}")
        return first
    return call


CELL = False


def main(argv):
    global CELL
    CELL = "--cell" in argv
    argv = [a for a in argv if a != "--cell"]
    ms.jit = repeating_jit
    return run_seeds.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
