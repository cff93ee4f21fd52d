"""MindSpore's `mindspore.ops.primitive`: Primitive, the base of the operator classes, and the
constexpr decorator."""
from __future__ import annotations

import functools

import numpy as np

__all__ = ["Primitive", "constexpr"]


class Primitive:
    """Base of primitive operator classes; instances are callables without state."""

    def __init__(self, *args, **kwargs):
        self.init_args = args
        self.init_kwargs = kwargs

    @property
    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"Prim[{self.name}]"

    def add_prim_attr(self, name, value):
        setattr(self, name, value)
        return self

    def del_prim_attr(self, name):
        if name in self.__dict__:
            delattr(self, name)
        return self

    # MindSpore's parallel and placement settings of a primitive: one process here, so
    # they are kept and change nothing computed; each returns the primitive, as there
    def shard(self, in_strategy=None, out_strategy=None, **kwargs):
        self.in_strategy, self.out_strategy = in_strategy, out_strategy
        return self

    def set_device(self, device_target):
        self.primitive_target = device_target
        return self

    def recompute(self, mode=True):
        self.recompute_mode = bool(mode)
        return self

    def set_stage(self, stage):
        self.stage = stage
        return self

    def set_prim_instance_name(self, instance_name):
        self.instance_name = instance_name
        return self

    def init_prim_io_names(self, inputs, outputs):
        self.input_names, self.output_names = list(inputs), list(outputs)


def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating))


def _prim(name, fn, arity, namespace, needs_tensor=False):
    """A primitive class without construction arguments that applies fn, defined in
    namespace (the globals() of the operations module that lists it in its __all__).
    needs_tensor: called on Python numbers only it raises MindSpore's TypeError."""
    def __call__(self, *args):
        if len(args) != arity:
            # MindSpore's words ("S_Prim_" is its name for a primitive called this way)
            raise TypeError(f"For 'S_Prim_{name}', the size of input should be {arity}, but "
                            f"got {len(args)} ({name}() takes {arity} input"
                            f"{'s' if arity > 1 else ''})")
        if needs_tensor and all(_is_number(a) for a in args):
            types = ", ".join(f"{k}={type(a).__name__}" for k, a in zip("xy", args))
            raise TypeError(f"Failed calling {name} with \"{name}()({types})\". For "
                            f"'{name}', the element of 'x' must be one of Tensor, but got "
                            f"Python numbers only: give at least one Tensor input")
        return fn(*args)
    namespace[name] = type(name, (Primitive,), {
        "__call__": __call__, "__doc__": f"{name}()({'x' if arity == 1 else 'x, y'}): "
                                         f"ops.{fn.__name__}",
        "__module__": namespace["__name__"]})


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """Mark a function whose results are computed while the graph is built, from Python
    constants (shapes, dtypes, ints): graphjit evaluates such calls as Python already,
    so the function is returned as it is. Works with or without arguments:
    `@constexpr` and `@constexpr(reuse_result=False)`."""
    def mark(f):
        if not callable(f):
            raise TypeError(f"constexpr decorates a function, got {type(f).__name__}")
        functools.update_wrapper(f, f)
        f.__graphjit_constexpr__ = True
        return f
    if fn is None:
        return mark
    if not callable(fn):
        raise TypeError(f"constexpr decorates a function, got {type(fn).__name__}")
    return mark(fn)
