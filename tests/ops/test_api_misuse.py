"""Calling graphjit.ops functions and Tensor methods with arguments of the wrong kind
gives a user-facing error (TypeError, ValueError, IndexError...), never an internal one
(AttributeError, KeyError, AssertionError... raised from graphjit's own code)."""
import inspect
import itertools
import traceback

import numpy as np
import pytest

import graphjit as ms
from graphjit import ops

INTERNAL = (AttributeError, KeyError, AssertionError, UnboundLocalError, NameError,
            ZeroDivisionError)


def _bad_values():
    return [None, "abc", [1, 2], (1.5,), 3.7, -1, True, object(),
            ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.array([1, 2], np.int32))]


def _internal(fn, args):
    """The internal error fn(*args) raises from graphjit's code, or None."""
    try:
        fn(*args)
    except INTERNAL as e:
        frames = traceback.extract_tb(e.__traceback__)
        if frames and "graphjit" in frames[-1].filename:
            return f"{type(e).__name__}: {e} at {frames[-1].filename}:{frames[-1].lineno}"
    except BaseException:       # noqa: BLE001 - any user-facing error is fine here
        pass
    return None


@pytest.fixture(autouse=True)
def pynative(capsys):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _functions():
    return [n for n in dir(ops) if not n.startswith("_") and n[0].islower()
            and callable(getattr(ops, n))]


def test_ops_functions_refuse_bad_arguments_with_user_errors():
    found = []
    for name in _functions():
        fn = getattr(ops, name)
        try:
            params = inspect.signature(fn).parameters.values()
            n = sum(1 for p in params if p.default is p.empty and
                    p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        except (TypeError, ValueError):
            n = 1
        good = ms.Tensor(np.random.default_rng(0).random((2, 3)).astype(np.float32))
        for args in itertools.islice(itertools.product(_bad_values() + [good],
                                                       repeat=min(max(n, 1), 2)), 60):
            err = _internal(fn, args)
            if err:
                found.append(f"ops.{name}{tuple(type(a).__name__ for a in args)}: {err}")
    assert not found, "\n".join(found[:20])


def test_tensor_methods_refuse_bad_arguments_with_user_errors():
    found = []
    base = ms.Tensor(np.random.default_rng(0).random((2, 3)).astype(np.float32))
    for name in [n for n in dir(base) if not n.startswith("_") and callable(getattr(base, n))]:
        for args in itertools.chain([()], ((b,) for b in _bad_values())):
            err = _internal(getattr(base.copy(), name), args)
            if err:
                found.append(f"Tensor.{name}{tuple(type(a).__name__ for a in args)}: {err}")
    assert not found, "\n".join(found[:20])


@pytest.mark.parametrize("call, error", [
    (lambda: ops.cross_entropy(3.7, [1, 2]), ValueError),
    (lambda: ops.nll_loss(3.7, ms.Tensor(np.array([1], np.int32))), ValueError),
    (lambda: ops.dtype(None), TypeError),
    (lambda: ops.getitem(None, 1), TypeError),
    (lambda: ms.Tensor(np.ones(3)).view_as(None), TypeError),
    (lambda: ms.Tensor(np.ones(3)).expand_as([1, 2]), TypeError),
])
def test_the_errors_named(call, error):
    with pytest.raises(error):
        call()


def test_mindspore_numpy_functions_refuse_bad_arguments_with_user_errors():
    import graphjit.numpy as mnp
    found = []
    for name in [n for n in dir(mnp) if not n.startswith("_") and n[0].islower()
                 and callable(getattr(mnp, n))]:
        for args in itertools.product(_bad_values() + [ms.Tensor(np.array(True))], repeat=1):
            err = _internal(getattr(mnp, name), args)
            if err:
                found.append(f"mnp.{name}{tuple(type(a).__name__ for a in args)}: {err}")
    assert not found, "\n".join(found[:20])


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_debug_ops_check_their_arguments_when_called(mode):
    ms.set_context(mode=mode)
    x = ms.Tensor(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="exception class"):
        ops.runtime_check(x > 0, "ValueError", "bad")
    with pytest.raises(TypeError, match="sep and end"):
        ops.runtime_print((x,), 3)
    with pytest.raises(TypeError, match="constexpr decorates a function"):
        ops.constexpr(3)
    with pytest.raises(TypeError, match="constexpr decorates a function"):
        ops.constexpr(reuse_result=False)("not a function")
