"""Text made when a graph runs: tensor values formatted into strings (f-strings, `%`,
`str.format`, `str()`/`repr()`) and exceptions built from them, as eager Python would
make them from eager Tensors.

The front end describes such a string as plain data (an op attribute): a tree whose
leaves are constants or indices of the op's tensor inputs.

    ("t", k)            the k-th input, shown as an eager Tensor would be
    ("w", k)            the k-th input standing for a Python number (a scalar)
    ("c", v)            a constant: str, int, float, bool or None
    ("obj", r, s)       another constant, by its repr and str
    ("tuple", items) / ("list", items) / ("dict", ((key, value), ...))
    ("str", pieces)     a string: each piece a str, or
                        ("fmt", tree, conversion, spec)       f"{x!r:>5}"
                        ("%", template, tree)                 "..." % x
                        ("format", template, args, kwargs)    "...".format(...)
                        ("pick", index, (a, b))               a or b by the index
"""
from __future__ import annotations

import builtins

import numpy as np

__all__ = ["ShownTensor", "decode", "exception_class", "build_exception", "sketch"]


class ShownTensor:
    """An array that formats, converts and prints as an eager Tensor of its dtype does
    (graphjit.Tensor's __str__, __repr__, __format__, __int__, __float__, __index__)."""

    __slots__ = ("a", "dtype")

    def __init__(self, a, dtype):
        self.a, self.dtype = np.asarray(a), dtype

    def __str__(self):
        return str(self.a)

    def __repr__(self):
        body = np.array2string(self.a, separator=", ", prefix="Tensor(")
        return f"Tensor({body}, dtype={self.dtype})"

    def __format__(self, spec):
        if self.a.size == 1 and spec:
            return format(self.a.reshape(-1)[0].item(), spec)
        return format(str(self), spec)

    def _one(self):
        if self.a.size != 1:
            raise ValueError(f"only one-element tensors can be converted to Python scalars "
                             f"(this one has shape {self.a.shape})")
        return self.a.reshape(-1)[0]

    def __int__(self):
        return int(self._one())

    def __float__(self):
        return float(self._one())

    def __index__(self):
        if self.a.dtype.kind not in "iub":
            raise TypeError(f"only integer tensors can be used as an index, not {self.dtype}")
        return int(self._one())

    def __bool__(self):
        if self.a.size != 1:
            raise ValueError(f"The truth value of a Tensor with {self.a.size} elements is "
                             f"ambiguous; use .any() or .all()")
        return bool(self.a.reshape(-1)[0])


class _Rendered:
    """A constant known only by its repr and str (an object of the user's)."""

    __slots__ = ("r", "s")

    def __init__(self, r, s):
        self.r, self.s = r, s

    def __repr__(self):
        return self.r

    def __str__(self):
        return self.s

    def __format__(self, spec):
        return format(self.s, spec)


def _convert(v, conversion):
    if conversion == "r":
        return repr(v)
    if conversion == "s":
        return str(v)
    if conversion == "a":
        return ascii(v)
    return v


def decode(tree, xs, dtypes):
    """The Python value a tree describes, given the op's inputs (arrays) and their
    dtypes."""
    kind = tree[0]
    if kind == "t":
        return ShownTensor(xs[tree[1]], dtypes[tree[1]])
    if kind == "w":
        return np.asarray(xs[tree[1]]).reshape(()).item()
    if kind == "c":
        return tree[1]
    if kind == "obj":
        return _Rendered(tree[1], tree[2])
    if kind == "tuple":
        return tuple(decode(t, xs, dtypes) for t in tree[1])
    if kind == "list":
        return [decode(t, xs, dtypes) for t in tree[1]]
    if kind == "dict":
        return {decode(k, xs, dtypes): decode(v, xs, dtypes) for k, v in tree[1]}
    if kind == "str":
        out = []
        for p in tree[1]:
            if isinstance(p, str):
                out.append(p)
            elif p[0] == "fmt":
                out.append(format(_convert(decode(p[1], xs, dtypes), p[2]), p[3]))
            elif p[0] == "%":
                out.append(p[1] % decode(p[2], xs, dtypes))
            elif p[0] == "pick":
                out.append(decode(p[2][int(decode(p[1], xs, dtypes))], xs, dtypes))
            else:
                out.append(p[1].format(*decode(p[2], xs, dtypes), **decode(p[3], xs, dtypes)))
        return "".join(out)
    raise ValueError(f"not a run-time text tree: {tree!r}")


def exception_class(name: str):
    """The built-in exception class of that name, or None."""
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, BaseException):
        return cls
    return None


def build_exception(spec, xs, dtypes):
    """The exception a `raise` describes: spec is (class name, args tree) or None."""
    if spec is None:
        return None
    cls = exception_class(spec[0])
    return cls(*decode(spec[1], xs, dtypes))


def sketch(tree) -> str:
    """The text a tree describes with its run-time parts as `{...}` (for messages that
    cannot hold the values: an exported model's)."""
    kind = tree[0]
    if kind in ("t", "w"):
        return "{...}"
    if kind == "c":
        return str(tree[1])
    if kind == "obj":
        return tree[2]
    if kind == "str":
        return "".join(p if isinstance(p, str) else "{...}" if p[0] in ("fmt", "pick")
                       else p[1] for p in tree[1])
    if kind == "dict":
        return "{" + ", ".join(f"{sketch(k)}: {sketch(v)}" for k, v in tree[1]) + "}"
    inner = ", ".join(sketch(t) for t in tree[1])
    return f"({inner})" if kind == "tuple" else f"[{inner}]"
