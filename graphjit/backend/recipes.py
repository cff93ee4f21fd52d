"""How each elementwise op is computed into a preallocated buffer, exactly as its kernel.

A fused kernel cannot call an op's kernel (it allocates its result); it runs the
op's recipe instead: the input casts the kernel makes, then a few steps, each a
numpy ufunc writing into a buffer (`out=`). A recipe exists only where it computes
what the kernel computes bit for bit: the same casts, the same ufuncs on the same
dtypes, in the same order. `Mul(i32[n], f32[])` is the kernel

    np.multiply(np.asarray(a, np.float32), b)

and the recipe "cast input 0 to float32, then multiply(0, 1)". An op whose kernel
is not a ufunc, or whose ufunc would pick a loop of another dtype than the
inferred one, has no recipe and runs unfused (extern).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional, Tuple, Union

import numpy as np

from ..ir.defs.common import float_result, promote
from ..ir.defs.elementwise import BINARY, COMPARISONS, UNARY
from ..ir.defs.integer_pow import integer_exponent, integer_power

__all__ = ["Recipe", "Step", "recipe_for", "select_into", "select_zero_into", "CAST",
           "SELECT"]

CAST = "cast"       # step kind: copy the input into the buffer, C casting
SELECT = "select"   # step kind: where(c, x, y) into the buffer (select_into)

# an argument of a step: an input index, OUT (the buffer's current value) or a 0-d array
OUT = "out"
Arg = Union[int, str, np.ndarray]


@dataclass(frozen=True)
class Step:
    """buffer = fn(*args); fn is a ufunc, CAST, SELECT or a power_step."""
    fn: object
    args: Tuple[Arg, ...]


@dataclass(frozen=True)
class Recipe:
    """Attributes:
        casts: per input, the dtype it is cast to first (None: used as it is).
        steps: run in order into one buffer of dtype `out`; only the first step reads
            the inputs, later ones read OUT (so the buffer may be an input's).
        out: the result dtype.
        exact: every step is correctly rounded (or exact), so its result does not
            depend on how numpy loops over memory (strides, SIMD or not).
        shares: input positions whose buffer the result may overwrite.
    """
    casts: Tuple[Optional[np.dtype], ...]
    steps: Tuple[Step, ...]
    out: np.dtype
    exact: bool
    shares: Tuple[int, ...]

    @property
    def simple(self) -> bool:
        """One ufunc over the inputs as they are: `ufunc(*inputs, out)`."""
        s = self.steps
        return (len(s) == 1 and isinstance(s[0].fn, np.ufunc) and not any(self.casts)
                and s[0].args == tuple(range(len(self.casts))))


# ufuncs whose results are correctly rounded (IEEE) or exact, whatever the loop
_EXACT = {np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide,
          np.remainder, np.fmod, np.maximum, np.minimum, np.negative, np.absolute,
          np.sqrt, np.square, np.floor, np.ceil, np.trunc, np.rint, np.sign,
          np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
          np.logical_and, np.logical_or, np.logical_xor, np.logical_not, np.isnan,
          np.isinf, np.isfinite, np.invert, np.bitwise_and, np.bitwise_or,
          np.bitwise_xor}


def _loop_dtype(ufunc, dtypes) -> Optional[np.dtype]:
    """The dtype of the loop numpy picks for these input dtypes (None: no loop)."""
    if ufunc is CAST or ufunc is SELECT:
        return None
    try:
        with np.errstate(all="ignore"):
            r = ufunc(*[np.ones(1, d) for d in dtypes])
    except (TypeError, ValueError):
        return None
    return r.dtype if ufunc.nout == 1 else None


def _const(dtype, value) -> np.ndarray:
    return np.asarray(value, dtype=dtype)


def _binary(name, ins, out) -> Optional[Recipe]:
    ufunc, _doc, kw = BINARY.get(name) or (COMPARISONS[name] + ({},))
    cdt = promote(*ins)
    if kw.get("result") == "float":
        cdt = float_result(cdt)
    cnp = cdt.np
    casts = tuple(None if d.np == cnp else cnp for d in ins)
    steps = None
    if isinstance(ufunc, np.ufunc):
        steps = (Step(ufunc, (0, 1)),)
    elif name == "Pow" and cdt.is_floating:            # recipe_for picks _pow's case
        steps = (Step(np.power, (0, 1)),)
    elif name == "TruncateDiv" and cdt.is_floating:    # np.trunc(a / b)
        steps = (Step(np.true_divide, (0, 1)), Step(np.trunc, (OUT,)))
    if steps is None:
        return None
    return _checked(casts, steps, [cnp, cnp], out)


def _unary(name, ins, out) -> Optional[Recipe]:
    fn, _doc, kind, _accepts = UNARY[name]
    x = ins[0].np
    cast = out if kind == "float" and x != out else None
    xd = cast or x
    one = _const(xd, 1)
    if isinstance(fn, np.ufunc):
        steps = (Step(fn, (0,)),)
    elif name == "ReLU":        # np.maximum(x, x.dtype.type(0))
        steps = (Step(np.maximum, (0, _const(xd, 0))),)
    elif name == "Sigmoid" and xd.kind == "f":     # 1.0 / (1.0 + np.exp(-x))
        steps = (Step(np.negative, (0,)), Step(np.exp, (OUT,)), Step(np.add, (one, OUT)),
                 Step(np.true_divide, (one, OUT)))
    elif name == "Rsqrt" and xd.kind == "f":       # 1.0 / np.sqrt(x)
        steps = (Step(np.sqrt, (0,)), Step(np.true_divide, (one, OUT)))
    elif name == "Reciprocal" and xd.kind == "f":  # 1.0 / x
        steps = (Step(np.true_divide, (one, 0)),)
    elif name == "Sign" and xd.kind != "b":        # np.sign, except on bool
        steps = (Step(np.sign, (0,)),)
    elif name == "Round" and xd.kind == "f":       # ndarray.round(0) calls np.rint
        steps = (Step(np.rint, (0,)),)
    else:
        return None
    return _checked((cast,), steps, [xd], out)


def _checked(casts, steps, dtypes, out) -> Optional[Recipe]:
    """The recipe if every step's loop gives the dtype the next step (and the result)
    expects, else None."""
    cur = None
    for s in steps:
        ds = [dtypes[a] if isinstance(a, int) else cur if isinstance(a, str) else a.dtype
              for a in s.args]
        cur = _loop_dtype(s.fn, ds)
        if cur is None:
            return None
    if cur != out:
        return None
    exact = all(s.fn in _EXACT for s in steps)
    return Recipe(tuple(casts), tuple(steps), out, exact, tuple(range(len(casts))))


def _cast(ins, out) -> Optional[Recipe]:
    if ins[0].np == out:
        return None                      # the kernel returns its input: an alias
    return Recipe((None,), (Step(CAST, (0,)),), out, True, ())


def _select(ins, out) -> Optional[Recipe]:
    # np.where(c, x, y) with x, y of the result dtype, as select_into writes it; the
    # buffer may be x's or y's, never c's
    if ins[1].np != out or ins[2].np != out or ins[0].np != np.bool_:
        return None
    return Recipe((None, None, None), (Step(SELECT, (0, 1, 2)),), out, True, (1, 2))


_SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
# below this many elements np.where's branches cost less than the mask
SELECT_BITS_MIN = 2048


def select_into(out, c, x, y) -> None:
    """out[...] = np.where(c, x, y) bit for bit, for x and y of out's dtype; out may
    be x's or y's buffer.

    np.where copies each element with a branch on c, which a condition that changes
    at random (a ReLU's gradient) mispredicts half the time: 260 us for 256x256
    float32. For dtypes of 1, 2, 4 or 8 bytes this picks the bits without branches
    instead (17 us): with m all ones where c and zeros elsewhere, out = y ^ ((x ^ y)
    & m), or out = x ^ ((x ^ y) & ~m) when out is y's buffer; each element's bits
    are x's or y's exactly (NaN payloads and -0.0 included).
    """
    it = _SIGNED.get(out.dtype.itemsize)
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    if type(y) is not np.ndarray:
        y = np.asarray(y)
    if out.size < SELECT_BITS_MIN or it is None or out.dtype.kind not in "biuf" or \
            x.dtype != out.dtype or y.dtype != out.dtype:
        np.copyto(out, np.where(c, x, y))
        return
    on_x = out is x or np.may_share_memory(out, x)
    on_y = out is y or np.may_share_memory(out, y)
    if on_x and on_y:
        np.copyto(out, np.where(c, x, y))
        return
    ov, xv, yv = out.view(it), x.view(it), y.view(it)
    m = _mask(c, it)
    if on_y:
        np.subtract(m, _ONE, out=m, casting="unsafe")   # all ones where not c
        np.bitwise_xor(xv, yv, out=ov)
        np.bitwise_and(ov, m, out=ov)
        np.bitwise_xor(ov, xv, out=ov)
        return
    np.negative(m, out=m)                        # all ones where c
    np.bitwise_xor(xv, yv, out=ov)
    np.bitwise_and(ov, m, out=ov)
    np.bitwise_xor(ov, yv, out=ov)


def select_zero_into(out, c, x, y) -> None:
    """select_into for a y whose bits are all zero (+0.0, 0, False): x's bits where
    c, else zeros (out = x & m)."""
    it = _SIGNED.get(out.dtype.itemsize)
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    if out.size < SELECT_BITS_MIN or it is None or out.dtype.kind not in "biuf" or \
            x.dtype != out.dtype or np.may_share_memory(out, y):
        np.copyto(out, np.where(c, x, y))
        return
    m = _mask(c, it)
    np.negative(m, out=m)
    np.bitwise_and(x.view(it), m, out=out.view(it))


_ONE = np.int8(1)


def _mask(c, it):
    """c as 0 and 1 of the signed integer type it (an array, 0-d for a scalar)."""
    if type(c) is not np.ndarray:
        c = np.asarray(c)
    return c.astype(it)


def recipe_for(node) -> Optional[Recipe]:
    """The recipe of an elementwise node, or None if it must run its own kernel."""
    if len(node.outputs) != 1 or node.outputs[0].type.shape is None:
        return None
    if any(v.type.shape is None for v in node.inputs):
        return None
    recipe = _recipe(node.op, tuple(v.type.dtype for v in node.inputs),
                     node.outputs[0].type.dtype)
    if recipe is not None and node.op == "Pow":
        return _pow_case(node, recipe)
    return recipe


def _pow_case(node, recipe: Recipe) -> Optional[Recipe]:
    """The kernel's case of a float Pow, known before it runs only for an exponent of
    several elements (np.power) or a constant one: an integer value n (|n| <= 16) is
    integer_power(x, n), 0.5 is sqrt(x), as the kernel computes them; otherwise
    np.power."""
    x, e = node.inputs
    n = 1
    for d in e.type.shape:
        n = None if d is None or n is None else n * d
    if n is None:
        return None
    if n != 1 or len(e.type.shape) > len(x.type.shape):
        return recipe
    p = e.producer
    if p is None or p.op != "Const":
        return None                     # the case is known only when the graph runs
    value = np.asarray(p.attrs["value"]).astype(recipe.out).reshape(-1)[0]
    k = integer_exponent(value)
    if k == 2:
        steps = (Step(np.multiply, (0, 0)),)       # what integer_power computes
    elif k is not None:
        steps = (Step(power_step(k), (0,)),)
    elif value == 0.5:
        steps = (Step(np.sqrt, (0,)),)
    else:
        return recipe
    return Recipe(recipe.casts, steps, recipe.out, True, (0,))


@functools.lru_cache(maxsize=None)
def power_step(n: int):
    """The step writing x ** n (integer_power) into the buffer: `f(x, out)`."""
    def step(x, out):
        return integer_power(x, n, out)
    step.__name__ = f"integer_power_{n}" if n >= 0 else f"integer_power_m{-n}"
    step.exponent = n          # blocked kernels share the squares of x (backend.fusion)
    return step


@functools.lru_cache(maxsize=None)
def _recipe(op: str, ins, out_dtype) -> Optional[Recipe]:
    out = out_dtype.np
    if op in BINARY or op in COMPARISONS:
        return _binary(op, ins, out) if len(ins) == 2 else None
    if op in UNARY:
        return _unary(op, ins, out) if len(ins) == 1 else None
    if op == "Cast":
        return _cast(ins, out)
    if op == "Select":
        return _select(ins, out)
    return None
