"""MindSpore's `add_flags` and `core` decorators of `mindspore.ops.composite`: they mark
a function with compile flags (`_func_graph_flags`) for MindSpore's graph compiler.
graphjit's compiler reads none of them, so they change no value; the marks are kept."""
from __future__ import annotations

__all__ = ["add_flags", "core"]


def add_flags(fn=None, **flags):
    """Set `flags` on fn's `_func_graph_flags` dict and return fn; without fn, a
    decorator doing so (`@C.add_flags(has_effect=True)`)."""
    def deco(f):
        if not hasattr(f, "_func_graph_flags"):
            f._func_graph_flags = {}
        f._func_graph_flags.update(flags)
        return f
    return deco if fn is None else deco(fn)


def core(fn=None, **flags):
    """add_flags with core=True (MindSpore marks its own composite functions so)."""
    flags = {"core": True, **flags}
    return add_flags(fn, **flags)
