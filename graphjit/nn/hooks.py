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

__all__ = ["HookHandle", "CellHooks", "REGISTRY", "register", "call_hooked", "run_pre_hooks",
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
        self.version = 0     # changes at each register or remove (compiled graphs guard it)
        # set by call_hooked for the Cell.__call__ it makes, which clears it at once (so
        # that a call of the Cell inside its construct runs the hooks again)
        self.bypass = False

    def __bool__(self):
        return bool(self.pre or self.forward)

    def __deepcopy__(self, memo):     # a copied Cell keeps the same hooks, as a copy
        new = CellHooks()
        new.pre, new.forward = OrderedDict(self.pre), OrderedDict(self.forward)
        _changed(new)
        return new


def register(cell, kind: str, hook_fn, with_kwargs) -> HookHandle:
    """Add hook_fn to cell's pre ('pre') or forward ('forward') hooks."""
    what = "register_forward_pre_hook" if kind == "pre" else "register_forward_hook"
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
    table = hooks.pre if kind == "pre" else hooks.forward
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
    """Cell.__call__ with forward hooks: the pre-hooks, the call, the forward hooks."""
    args, kwargs = run_pre_hooks(cell, hooks, args, kwargs)
    hooks.bypass = True
    try:
        out = type(cell).__call__(cell, *args, **kwargs)
    finally:
        hooks.bypass = False
    return run_forward_hooks(cell, hooks, args, kwargs, out)


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
