"""Forward hooks of a Cell (MindSpore 2.10's Cell.register_forward_pre_hook and
register_forward_hook), and the handle that removes one.

A pre-hook runs before the Cell's construct: `hook_fn(cell, args)` (with_kwargs:
`hook_fn(cell, args, kwargs)`) returns None (the inputs stay), new positional args (a
non-tuple is one argument), or with_kwargs a tuple (new_args, new_kwargs). A forward hook
runs after it: `hook_fn(cell, args, output)` (with_kwargs: `hook_fn(cell, args, kwargs,
output)`) returns None (the output stays) or a new output; it sees the args the pre-hooks
gave. Hooks run in the order they were registered.

Eagerly (PYNATIVE) they run at every call. In graph mode they run too, with the same
meaning: around the compiled construct of the Cell that is called (as Python, at every
call), and inside a compiled construct, for a sub-Cell, built into the graph like any
function the construct calls (so a hook must be code graph mode can build: what it
cannot build is refused when the graph is built, at the hook's line). A graph is built
again when a hook is registered or removed. They are never skipped."""
from __future__ import annotations

import itertools
import types
from collections import OrderedDict

import numpy as np

from ..autodiff import tape as _tape
from ..common.tensor import Tensor

__all__ = ["HookHandle", "CellHooks", "REGISTRY", "register", "call_hooked", "refuse_backward_hooks", "run_pre_hooks",
           "run_forward_hooks"]

_ids = itertools.count(1)


class _Registry:
    """version changes whenever any Cell's forward hooks change: a compiled graph that
    calls a Cell guards it (one guard per graph, not one per Cell), so it is built
    again when a hook is registered or removed on any Cell."""
    version = 0


REGISTRY = _Registry()


def _changed(hooks):
    hooks.version = REGISTRY.version = next(_ids)


class HookHandle:
    """What register_forward_pre_hook / register_forward_hook return: remove() takes
    the hook off its Cell (a second remove does nothing)."""

    def __init__(self, hooks: "CellHooks", table: "OrderedDict", handle_id: int):
        self._hooks, self._table, self.handle_id = hooks, table, handle_id

    def remove(self):
        if self._table.pop(self.handle_id, None) is not None:
            _changed(self._hooks)


class CellHooks:
    """A Cell's forward hooks: handle id -> (hook_fn, with_kwargs), in order."""

    def __init__(self):
        self.pre = OrderedDict()
        self.forward = OrderedDict()
        self.backward = OrderedDict()
        self.version = 0     # changes at each register or remove (compiled graphs guard it)
        # set by call_hooked for the Cell.__call__ it makes, which clears it at once (so
        # that a call of the Cell inside its construct runs the hooks again)
        self.bypass = False

    def __bool__(self):
        return bool(self.pre or self.forward or self.backward)

    def __deepcopy__(self, memo):     # a copied Cell keeps the same hooks, as a copy
        new = CellHooks()
        new.pre, new.forward = OrderedDict(self.pre), OrderedDict(self.forward)
        new.backward = OrderedDict(self.backward)
        _changed(new)
        return new


def register(cell, kind: str, hook_fn, with_kwargs) -> HookHandle:
    """Add hook_fn to cell's pre ('pre') or forward ('forward') hooks."""
    what = {"pre": "register_forward_pre_hook", "forward": "register_forward_hook",
            "backward": "register_backward_hook"}[kind]
    if not isinstance(hook_fn, (types.FunctionType, types.MethodType)):
        raise TypeError(f"When using '{what}(hook_fn)', the type of 'hook_fn' must be python "
                        f"function, but got {type(hook_fn)}.")
    if not isinstance(with_kwargs, bool):
        raise TypeError(f"For '{what}', 'with_kwargs' must be a bool, but got "
                        f"{type(with_kwargs).__name__}.")
    hooks = cell.__dict__.get("_graphjit_hooks")
    if hooks is None:
        hooks = CellHooks()
        object.__setattr__(cell, "_graphjit_hooks", hooks)
    table = getattr(hooks, kind)
    handle_id = next(_ids)
    table[handle_id] = (hook_fn, with_kwargs)
    _changed(hooks)
    return HookHandle(hooks, table, handle_id)


def _pre_result(cell, hook_fn, with_kwargs, result, args, kwargs):
    if result is None:
        return args, kwargs
    if with_kwargs:
        if not (isinstance(result, tuple) and len(result) == 2 and
                isinstance(result[1], dict)):
            raise TypeError(f"forward pre-hook '{getattr(hook_fn, '__name__', hook_fn)}' of "
                            f"{type(cell).__name__} (with_kwargs=True) must return None or a "
                            f"tuple (new_args, new_kwargs), got {type(result).__name__}")
        new_args, new_kwargs = result
        return (tuple(new_args) if isinstance(new_args, (tuple, list)) else (new_args,),
                new_kwargs)
    return (result if isinstance(result, tuple) else (result,)), kwargs


def run_pre_hooks(cell, hooks: CellHooks, args, kwargs, call=None):
    """The (args, kwargs) construct runs on after the pre-hooks; `call(fn, *a)` calls a
    hook (the front-end builds it into the graph; default: a Python call)."""
    call = call or (lambda fn, *a: fn(*a))
    args = tuple(args)
    for hook_fn, with_kwargs in list(hooks.pre.values()):
        result = call(hook_fn, cell, args, dict(kwargs)) if with_kwargs else \
            call(hook_fn, cell, args)
        args, kwargs = _pre_result(cell, hook_fn, with_kwargs, result, args, kwargs)
    return args, kwargs


def call_hooked(cell, hooks: CellHooks, args, kwargs):
    """Cell.__call__ with hooks: the pre-hooks, the call, the forward hooks; while a
    PYNATIVE gradient is taken, the backward hooks at the Cell's boundary."""
    args, kwargs = run_pre_hooks(cell, hooks, args, kwargs)
    tape = _tape.current() if hooks.backward else None
    if tape is not None:
        args, state = _input_boundary(cell, hooks, tape, args)
    hooks.bypass = True
    try:
        out = type(cell).__call__(cell, *args, **kwargs)
    finally:
        hooks.bypass = False
    if tape is not None:
        out = _output_boundary(tape, out, state)
    return run_forward_hooks(cell, hooks, args, kwargs, out)


# -- backward hooks (PYNATIVE gradients only) -------------------------------------------------
def refuse_backward_hooks(cell) -> None:
    """Raise if cell has backward hooks: graph mode cannot run them."""
    hooks = cell.__dict__.get("_graphjit_hooks")
    if hooks is not None and hooks.backward:
        from ..ir.errors import UnsupportedSyntaxError
        names = ", ".join(f"'{getattr(f, '__name__', f)}'" for f, _ in hooks.backward.values())
        raise UnsupportedSyntaxError(
            f"Cell '{type(cell).__name__}' has backward hooks ({names}, "
            f"register_backward_hook): they run only in PYNATIVE_MODE, and a graph built "
            f"through this Cell would take gradients without them",
            hint="run in PYNATIVE_MODE (ms.set_context(mode=ms.PYNATIVE_MODE)), or take "
                 "the hooks off (handle.remove())")

def _differentiable(x) -> bool:
    return isinstance(x, Tensor) and x.has_data and x.dtype.is_differentiable


def _copy(x):
    return Tensor._wrap(np.array(x._data))


def _grads_as_tensors(grads, like):
    return tuple(Tensor._wrap(np.zeros_like(t._data) if g is None else g)
                 for g, t in zip(grads, like))


def _input_boundary(cell, hooks, tape, args):
    """New tensors for the Cell's tensor arguments, whose gradient (grad_input) the
    backward hooks see and may replace, with the gradient of the output (grad_output)."""
    at = [i for i, a in enumerate(args) if _differentiable(a)]
    inputs = [args[i] for i in at]
    copies = [_copy(x) for x in inputs]
    state = {"grad_output": ()}

    def backward(grads):
        grad_input = _grads_as_tensors(grads, copies)
        for hook_fn, _ in list(hooks.backward.values()):
            result = hook_fn(cell, grad_input, state["grad_output"])
            if result is None:
                continue
            result = result if isinstance(result, (tuple, list)) else (result,)
            if len(result) != len(grad_input) or not all(
                    isinstance(r, Tensor) for r in result):
                raise TypeError(
                    f"backward hook '{getattr(hook_fn, '__name__', hook_fn)}' of "
                    f"{type(cell).__name__} must return None or {len(grad_input)} "
                    f"Tensor(s), one per tensor input of the Cell, got {result!r}")
            grad_input = tuple(result)
        return [g._data for g in grad_input]
    if copies:
        tape.record_custom(inputs, copies, backward)
    args = list(args)
    for i, c in zip(at, copies):
        args[i] = c
    return tuple(args), state


def _output_boundary(tape, out, state):
    """The Cell's output again, through a record that keeps its gradient (grad_output)
    for the backward hooks."""
    leaves = [out] if isinstance(out, Tensor) else         list(out) if isinstance(out, (tuple, list)) else []
    at = [i for i, y in enumerate(leaves) if _differentiable(y) and tape.tracks(y)]
    outputs = [leaves[i] for i in at]
    copies = [_copy(y) for y in outputs]

    def backward(grads):
        state["grad_output"] = _grads_as_tensors(grads, copies)
        return list(grads)
    if not copies:
        return out
    tape.record_custom(outputs, copies, backward)
    for i, c in zip(at, copies):
        leaves[i] = c
    if isinstance(out, Tensor):
        return leaves[0]
    return type(out)(leaves) if type(out) in (tuple, list) else tuple(leaves)


def run_forward_hooks(cell, hooks: CellHooks, args, kwargs, output, call=None):
    """The output after the forward hooks (see run_pre_hooks for `call`)."""
    call = call or (lambda fn, *a: fn(*a))
    args = tuple(args)
    for hook_fn, with_kwargs in list(hooks.forward.values()):
        result = call(hook_fn, cell, args, dict(kwargs), output) if with_kwargs else \
            call(hook_fn, cell, args, output)
        if result is not None:
            output = result
    return output
