"""Groups of fused elementwise kernels written as one numba loop (the compiled tier).

With set_context(numba_kernels=True), the emitter looks for runs of consecutive
fused kernels of one static shape (and a full ReduceMax/ReduceMin right after them,
over one of their results) whose every op is exactly rounded: float add, subtract,
multiply, divide, negative, absolute, sqrt, square, maximum, minimum, comparisons,
select, logical ops, casts between floats and from ints or bools, integer add,
subtract, multiply (wrapping), and integer powers as integer_power forms them. Each
such run becomes one generated loop; Newton's `while` body (`xn = 0.5 * (x + a / x)`
then `abs(xn - x).max()`: six numpy passes) is

    def kernel(a0, a1, o0, o1):
        ...shape checks...
        m = np.float64(-np.inf); bad = False
        for i0 in range(n0):
            x0 = a0[i0]; x1 = a1[i0]
            t2 = (x0 / x1)
            t3 = (x1 + t2)
            t4 = (c1 * t3)
            t5 = (t4 - x1)
            t6 = abs(t5)
            o0[i0] = t4; o1[i0] = t6
            bad |= t4 != t4
            bad |= t6 != t6
            m = t6 if t6 > m else m
        ...
        return m

Every step is one IEEE operation on the dtypes numpy's ufunc loop uses (the casts of
`ufunc.resolve_dtypes` written out), so each element gets numpy's bits; fastmath is
off (no FMA contraction, no reordering). A value is written to memory only where
something outside the group reads it. A float max/min whose result is zero or NaN
(where numpy's reduction order decides the sign of a zero or which NaN) is
recomputed by numpy from the written input. LLVM keeps values but not always which
NaN comes out (it folds `-x + y` into `y - x`), so the loop also says whether a
float result it wrote is NaN, and the group's numpy code then runs instead (the
loop never writes into its inputs, so numpy can start again from them).

Not fused (numpy keeps them): exp, log, sin, tanh, pow by libm (numba's libm is not
numpy's SIMD code), sums and means (numpy's pairwise order), float16, complex,
broadcasting other than scalar constants, integer division, float-to-integer casts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..ir.defs.integer_pow import wide_dtype
from ..ir.types import is_static
from .lowering import EXTERN, FUSED, Kernel, Program, loaders
from .numba_tier import KERNEL_NAME, load_kernel, require_numba
from .recipes import CAST, OUT, SELECT

__all__ = ["Group", "plan_groups", "emit_group", "Refused"]

_TYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float32, np.float64)
_NAME = {np.dtype(t): "np." + t.__name__ for t in _TYPES}
_MAX_RANK = 4


class Refused(Exception):
    """The kernels cannot be one numba loop with numpy's bits (numpy keeps them)."""


Scalar = Tuple[str, np.dtype]          # a variable of the loop body and its dtype


class _Code:
    def __init__(self):
        self.pre: List[str] = []       # before the loop (constants)
        self.body: List[str] = []      # per element
        self.n = 0

    def temp(self, expr: str, dtype, pre: bool = False) -> Scalar:
        name = f"t{self.n}"
        self.n += 1
        (self.pre if pre else self.body).append(f"{name} = {expr}")
        return name, np.dtype(dtype)


def _dtype_name(dtype) -> str:
    try:
        return _NAME[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise Refused(f"dtype {dtype}") from None


def literal(code: _Code, value) -> Scalar:
    """A constant as a typed variable set before the loop (its exact value)."""
    a = np.asarray(value)
    if a.size != 1:
        raise Refused("a constant of several elements")
    d = a.dtype
    name = _dtype_name(d)
    v = a.reshape(-1)[0]
    if d.kind == "b":
        text = "True" if v else "False"
        return code.temp(text, d, pre=True)
    if d.kind in "iu":
        iv = int(v)
        if not -2 ** 63 <= iv < 2 ** 63:
            raise Refused("an integer constant beyond int64")
        return code.temp(f"{name}({iv})", d, pre=True)
    fv = float(v)
    if np.isnan(fv):
        if a.reshape(-1)[:1].tobytes() != np.array([np.nan], d).tobytes():
            raise Refused("a NaN constant with a sign or payload")
        text = "np.nan"
    elif np.isinf(fv):
        text = "np.inf" if fv > 0 else "-np.inf"
    else:
        text = repr(fv)            # exact: a float32 value is a float64 one
    return code.temp(f"{name}({text})", d, pre=True)


def cast(code: _Code, x: Scalar, dst) -> Scalar:
    """x converted as numpy's C casts convert it (only the correctly rounded ones)."""
    name, src = x
    dst = np.dtype(dst)
    if src == dst:
        return x
    t = _dtype_name(dst)
    _dtype_name(src)
    if dst.kind == "b":
        return code.temp(f"({name} != 0)", dst)
    if src.kind == "b":
        return code.temp(f"{t}(1 if {name} else 0)", dst)
    if src.kind == "f" and dst.kind != "f":
        raise Refused("a float-to-integer cast")
    if src == np.uint64 and dst.kind == "f":
        raise Refused("a uint64-to-float cast")
    return code.temp(f"{t}({name})", dst)


_ARITH = {np.add: "({0} + {1})", np.subtract: "({0} - {1})", np.multiply: "({0} * {1})",
          np.negative: "(-{0})", np.absolute: "abs({0})", np.square: "({0} * {0})"}
_FLOAT_ONLY = {np.true_divide: "({0} / {1})", np.sqrt: "np.sqrt({0})",
               np.isnan: "({0} != {0})", np.isinf: "(abs({0}) == np.inf)",
               np.isfinite: "(abs({0}) < np.inf)"}
_COMPARE = {np.less: "({0} < {1})", np.less_equal: "({0} <= {1})",
            np.greater: "({0} > {1})", np.greater_equal: "({0} >= {1})",
            np.equal: "({0} == {1})", np.not_equal: "({0} != {1})"}
_LOGICAL = {np.logical_and: "({0} and {1})", np.logical_or: "({0} or {1})",
            np.logical_xor: "({0} != {1})", np.logical_not: "(not {0})"}
# np.maximum(a, b) is a where a > b or a is NaN, else b (b on ties: maximum(-0.0, 0.0)
# is 0.0, maximum(0.0, -0.0) is -0.0; the first NaN of two); minimum likewise
_MINMAX = {np.maximum: ("({0} if ({0} > {1} or {0} != {0}) else {1})",
                        "({0} if {0} > {1} else {1})"),
           np.minimum: ("({0} if ({0} < {1} or {0} != {0}) else {1})",
                        "({0} if {0} < {1} else {1})")}


def ufunc_step(code: _Code, fn, operands: List[Scalar]) -> Scalar:
    """fn over the operands as numpy's loop for their dtypes computes it."""
    try:
        loop = fn.resolve_dtypes(tuple(d for _, d in operands) + (None,) * fn.nout)
    except (TypeError, ValueError, AttributeError):
        raise Refused(f"no loop of {fn}") from None
    if fn.nout != 1:
        raise Refused(f"{fn} has several outputs")
    ins, out = loop[:fn.nin], np.dtype(loop[fn.nin])
    for d in ins + (out,):
        _dtype_name(d)              # float16, complex...: refused
    kind = ins[0].kind
    if fn in _LOGICAL:
        ops = [cast(code, o, np.bool_)[0] for o in operands]
        return code.temp(_LOGICAL[fn].format(*ops), out)
    ops = [cast(code, o, d)[0] for o, d in zip(operands, ins)]
    if any(d.kind not in "biuf" for d in ins):
        raise Refused("dtype")
    if fn in _COMPARE:
        if kind == "b" and fn not in (np.equal, np.not_equal):
            raise Refused("an order comparison of bools")
        return code.temp(_COMPARE[fn].format(*ops), out)
    if kind == "b":
        raise Refused(f"{fn.__name__} of bools")
    if fn in _MINMAX:
        return code.temp(_MINMAX[fn][kind != "f"].format(*ops), out)
    if fn in _FLOAT_ONLY and kind == "f":
        return code.temp(_FLOAT_ONLY[fn].format(*ops), out)
    if fn in _ARITH:
        expr = _ARITH[fn].format(*ops)
        if kind in "iu":           # numba computes in a wider int: wrap as numpy does
            expr = f"{_dtype_name(out)}({expr})"
        return code.temp(expr, out)
    raise Refused(f"{getattr(fn, '__name__', fn)} is not exactly rounded here")


def power(code: _Code, x: Scalar, n: int, out) -> Scalar:
    """x ** n as integer_power forms it (in the wide dtype, then rounded once)."""
    name, d = x
    out = np.dtype(out)
    t = _dtype_name(out)
    if d != out or out.kind != "f":
        raise Refused("a power")
    if n == 0:
        return literal(code, out.type(1))
    if n == 1:
        return x
    if n == 2:
        return code.temp(f"({name} * {name})", out)
    if n == -1:
        one = literal(code, out.type(1))[0]
        return code.temp(f"({one} / {name})", out)
    wide = wide_dtype(out)
    if wide is None or np.dtype(wide) not in _NAME:
        raise Refused("a power formed in long double")
    base = cast(code, x, wide)[0]
    m, acc = abs(n), None
    while True:
        if m & 1:
            acc = base if acc is None else code.temp(f"({acc} * {base})", wide)[0]
        m >>= 1
        if not m:
            break
        base = code.temp(f"({base} * {base})", wide)[0]
    if n < 0:
        one = literal(code, np.dtype(wide).type(1))[0]
        acc = code.temp(f"({one} / {acc})", wide)[0]
    return code.temp(f"{t}({acc})", out)


def node_code(code: _Code, recipe, inputs: List[Scalar]) -> Scalar:
    """The lines computing one node from its recipe (graphjit.backend.recipes)."""
    ins = [x if c is None else cast(code, x, c) for x, c in zip(inputs, recipe.casts)]
    cur: Optional[Scalar] = None
    for step in recipe.steps:
        ops = [ins[a] if isinstance(a, int) else cur if isinstance(a, str) and a == OUT
               else literal(code, a) for a in step.args]
        if step.fn is CAST:
            cur = cast(code, ops[0], recipe.out)
        elif step.fn is SELECT:
            (c, cd), (x, xd), (y, yd) = ops
            if cd.kind != "b" or xd != yd:
                raise Refused("a select")
            cur = code.temp(f"({x} if {c} else {y})", xd)
        elif isinstance(step.fn, np.ufunc):
            cur = ufunc_step(code, step.fn, ops)
        elif getattr(step.fn, "exponent", None) is not None:
            cur = power(code, ops[0], step.fn.exponent, recipe.out)
        else:
            raise Refused(f"step {step.fn}")
    if cur is None or cur[1] != np.dtype(recipe.out):
        raise Refused("the result dtype")
    return cur


# -- groups -----------------------------------------------------------------------------
@dataclass
class Group:
    """Kernels run as one numba loop.

    Attributes:
        kernels: the fused kernels, consecutive in the program.
        reduce: a full ReduceMax/ReduceMin right after them over one of their results.
        written: (value, its kernel) for each result stored to memory.
        loads: the arrays the loop reads (each of the group's shape).
        dispatcher: the compiled kernel.
        nan_flag: whether the kernel tells when a NaN came out (it returns True, or a
            NaN for a max/min): numpy then computes the group again, for NaN's bits.
    """
    kernels: List[Kernel]
    reduce: Optional[Kernel]
    written: List[Tuple[object, Kernel]]
    loads: List[object]
    dispatcher: object
    nan_flag: bool


def _shape(k: Kernel):
    return k.stores[0].type.shape


def _fusable(em, k: Kernel) -> bool:
    if k.kind != FUSED or any(id(n) in em.skip or id(n) in em.instead for n in k.nodes):
        return False
    s = _shape(k)
    if not s or len(s) > _MAX_RANK or not is_static(s):
        return False
    if any(n.outputs[0].type.shape != s for n in k.nodes):
        return False
    if any(np.dtype(v.type.dtype.np) not in _NAME for v in k.loads) or \
            any(np.dtype(n.outputs[0].type.dtype.np) not in _NAME for n in k.nodes):
        return False
    for v in k.loads:
        if v.type.shape != s and not (id(v) in em.consts and np.ndim(em.consts[id(v)]) == 0):
            return False                 # broadcasting, or a scalar only known at run time
    try:
        _translate(em, [k], None, [], [k.stores[0]])
    except Refused:
        return False
    return True


def _reduction(em, k: Kernel, stores) -> bool:
    """A ReduceMax/Min over every element of one of `stores`, to a scalar of its dtype."""
    if k.kind != EXTERN or k.node.op not in ("ReduceMax", "ReduceMin") or \
            id(k.node) in em.skip or id(k.node) in em.instead or len(k.node.inputs) != 1:
        return False
    x, o = k.node.inputs[0], k.node.outputs[0]
    src = k.loads[0] if k.loads else None
    if src is None or not any(s is src for s in stores) or o.type.shape != () or \
            x.type.dtype is not o.type.dtype or o.type.dtype.np.kind not in "iuf" or \
            np.dtype(o.type.dtype.np) not in _NAME:
        return False
    axis, rank = k.node.attrs.get("axis"), len(x.type.shape)
    if axis not in (None, ()):
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        if sorted(int(a) % rank for a in axes) != list(range(rank)):
            return False
    return not k.node.attrs.get("keep_dims") and all(d > 0 for d in x.type.shape)


def plan_groups(em, prog: Program) -> Dict[int, Group]:
    """id of each kernel of prog run inside a group -> its Group."""
    kernels = prog.kernels
    reading = loaders(prog)
    results = {id(prog.root(r)) for r in prog.graph.results}
    out: Dict[int, Group] = {}
    i = 0
    while i < len(kernels):
        run = []
        while i < len(kernels) and _fusable(em, kernels[i]) and \
                (not run or _shape(kernels[i]) == _shape(run[0])):
            run.append(kernels[i])
            i += 1
        if not run:
            i += 1
            continue
        red = None
        if i < len(kernels) and _reduction(em, kernels[i], [k.stores[0] for k in run]):
            red = kernels[i]
        if sum(len(k.nodes) for k in run) + (red is not None) < 2:
            continue                       # one ufunc call is as quick
        g = _build(em, run, red, reading, results)
        if g is not None:
            for k in run + ([g.reduce] if g.reduce is not None else []):
                out[id(k)] = g
            i += g.reduce is not None
    return out


def _build(em, run, red, reading, results) -> Optional[Group]:
    members = {id(k) for k in run}
    written = []
    for k in run:
        s = k.stores[0]
        outside = any(id(r) not in members for r in reading.get(id(s), []))
        if outside or id(s) in results or id(s) in em.into or id(s) in em.names:
            written.append((s, k))
    inner = {id(k.stores[0]) for k in run}
    loads = []
    for k in run:
        for v in k.loads:
            if id(v) not in inner and not (id(v) in em.consts and
                                          np.ndim(em.consts[id(v)]) == 0) and \
                    all(u is not v for u in loads):
                loads.append(v)
    if not written:
        return None          # results nothing reads (no pass removed them)
    load_names = {em.names.get(id(v)) for v in loads} - {None}
    if any(em.into.get(id(s)) in load_names for s, _ in written):
        return None          # a row written in place: numpy could not redo the group
    if red is not None and red.loads[0].type.dtype.np.kind != "f" and \
            any(s.type.dtype.np.kind == "f" for s, _ in written):
        red = None           # (an integer max cannot also say that a NaN came out)
    if sum(len(k.nodes) for k in run) + (red is not None) < 2:
        return None
    try:
        source = _source(em, run, red, loads, [s for s, _ in written])
    except Refused:
        return None
    numba = require_numba()
    rank = len(_shape(run[0]))
    argtypes = [numba.types.Array(numba.from_dtype(v.type.dtype.np), rank, "C")
                for v in loads + [s for s, _ in written]]
    disp = load_kernel(source, argtypes)
    if disp is None:
        return None
    nan_flag = red is not None or any(s.type.dtype.np.kind == "f" for s, _ in written)
    return Group(run, red, written, loads, disp, nan_flag)


def _translate(em, run, red, loads, stores) -> Tuple[_Code, Dict[int, Scalar]]:
    code = _Code()
    scalars: Dict[int, Scalar] = {}
    for j, v in enumerate(loads):
        scalars[id(v)] = (f"x{j}", np.dtype(v.type.dtype.np))
    for k in run:
        for v in k.loads:
            if id(v) not in scalars and id(v) in em.consts:
                scalars[id(v)] = literal(code, np.asarray(em.consts[id(v)],
                                                          v.type.dtype.np))
            elif id(v) not in scalars:
                scalars[id(v)] = (f"x{len(scalars)}", np.dtype(v.type.dtype.np))  # dry run
        for node, recipe, args in zip(k.nodes, k.recipes, k.args):
            if recipe is None:
                raise Refused("a node without a recipe")
            ins = [scalars[id(v)] for v in args]
            scalars[id(node.outputs[0])] = node_code(code, recipe, ins)
            if scalars[id(node.outputs[0])][1] != np.dtype(node.outputs[0].type.dtype.np):
                raise Refused("a dtype")
    return code, scalars


def _source(em, run, red, loads, stores) -> str:
    """The module defining KERNEL_NAME(a0.., o0..) -> the reduction's value or None."""
    code, scalars = _translate(em, run, red, loads, stores)
    rank = len(_shape(run[0]))
    idx = ", ".join(f"i{d}" for d in range(rank))
    args = [f"a{j}" for j in range(len(loads))] + [f"o{j}" for j in range(len(stores))]
    lines = ["import numpy as np", "", "", f"def {KERNEL_NAME}({', '.join(args)}):"]
    ref = args[len(loads)]
    lines.append(f"    {''.join(f'n{d}, ' for d in range(rank))}= {ref}.shape")
    for a in args:
        if a != ref:
            lines.append(f"    if {a}.shape != {ref}.shape:")
            lines.append("        raise ValueError('graphjit numba kernel: operand shapes "
                         "differ')")
    lines += ["    " + t for t in code.pre]
    floats = [scalars[id(s)][0] for s in stores if s.type.dtype.np.kind == "f"]
    update: List[str] = [f"bad |= {v} != {v}" for v in floats]
    post = []
    if floats or red is not None:
        lines.append("    bad = False")
    if red is not None:
        v, d = scalars[id(red.loads[0])]
        t = _dtype_name(d)
        big = red.node.op == "ReduceMax"
        if d.kind == "f":
            lines.append(f"    m = {t}({'-' if big else ''}np.inf)")
            # a select and a flag, no branch (a branch per element costs half again)
            update += [f"m = {v} if {v} {'>' if big else '<'} m else m"]
            if v not in floats:
                update.append(f"bad |= {v} != {v}")
            post = ["    if bad:", f"        return {t}(np.nan)"]
        else:
            info = np.iinfo(d)
            lines.append(f"    m = {t}({info.min if big else info.max})")
            update += [f"m = {v} if {v} {'>' if big else '<'} m else m"]
        post.append("    return m")
    elif floats:
        post.append("    return bad")
    pad = "    " * (rank + 1)
    for d in range(rank):
        lines.append("    " * (d + 1) + f"for i{d} in range(n{d}):")
    lines += [pad + f"x{j} = a{j}[{idx}]" for j in range(len(loads))]
    lines += [pad + t for t in code.body]
    lines += [pad + f"o{j}[{idx}] = {scalars[id(s)][0]}" for j, s in enumerate(stores)]
    lines += [pad + t for t in update]
    lines += post
    return "\n".join(lines) + "\n"


def emit_group(em, g: Group, depth: int) -> None:
    """Write the call of the group's kernel (at its first kernel's place) and, where
    it says a NaN came out, the group's numpy code (em.kernel) to run instead: LLVM
    may fold `-x + y` into `y - x`, which keeps another NaN's sign."""
    node = g.kernels[-1].node
    for s, _ in g.written:
        if id(s) in em.before:
            em.line(depth, em.before[id(s)], node)
    bufs = []
    for s, k in g.written:       # never a load's buffer: numpy may need the loads again
        buf = em.into.get(id(s))
        if buf is None:
            buf = em.fresh()
            em.line(depth, f"{buf} = np.empty({s.type.shape!r}, "
                           f"{em.glob(s.type.dtype.np, '_dtype')})", node)
        bufs.append(buf)
    call = f"{em.glob(g.dispatcher, '_nb')}({', '.join([em.name(v) for v in g.loads] + bufs)})"
    renames = []
    for (s, _), buf in zip(g.written, bufs):
        wanted = em.names.get(id(s))
        if wanted is None:
            em.bind(s, buf)
        elif wanted != buf:
            renames.append(f"{wanted} = {buf}")
    for k in g.kernels:           # values only the loop held: nothing to free
        if all(s is not k.stores[0] for s, _ in g.written):
            n = em.fresh("none")
            em.bind(k.stores[0], n)
            em.pinned.add(n)
    m = em.fresh("m")
    if g.reduce is not None:
        em.line(depth, f"{m} = {call}", node)
        test = f"{m} != {m}"
    elif g.nan_flag:
        test = call
    else:
        em.line(depth, call, node)
        test = None
    if test is not None and g.nan_flag:
        em.line(depth, f"if {test}:", node)
        for k in g.kernels:
            em.kernel(k, depth + 1)
        if renames:
            em.line(depth, "else:", node)
    for text in renames:
        em.line(depth + (test is not None and g.nan_flag), text, node)
    if g.reduce is not None:
        r = g.reduce.node.outputs[0]
        d = np.dtype(r.type.dtype.np)
        as_d = em.glob(d.type, "_as")
        if d.kind == "f":
            ufunc = np.maximum if g.reduce.node.op == "ReduceMax" else np.minimum
            # zero or NaN: numpy's order decides the zero's sign, or which NaN
            em.line(depth, f"{em.name(r)} = {as_d}({m}) if {m} != 0 and {m} == {m} else "
                           f"{em.ref(ufunc.reduce, ufunc.__name__ + '_reduce')}"
                           f"({em.name(g.reduce.loads[0])}, None)", g.reduce.node)
        else:
            em.line(depth, f"{em.name(r)} = {as_d}({m})", g.reduce.node)
