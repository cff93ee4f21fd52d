"""Fused elementwise kernels written as Python: inline over whole arrays, or a helper
function that runs the nodes over cache-sized blocks.

Small kernels (results under MIN_BLOCKED_BYTES, or MIN_BLOCKED_POWER_BYTES with a
widened integer power; shapes known only at run time that turn out small) run
inline, node after node as unfused code would, except that a node writes into the
buffer of an input that dies at it (`out=`) instead of allocating: for the unrolled
`x = x * 0.9 + i`,

    v3 = v1 * c2            # Mul: the first result is a new array
    u4(v3, c5, v3)          # Add, into it
    u6(v3, c2, v3)          # Mul, into it ... 256 nodes, one allocation

Large kernels run as a helper function over blocks of about BLOCK_BYTES per operand,
each node writing into a scratch buffer of one block (W3 below, names shortened):

    def fused7(a0):
        bk = _blocking((a0,), ((),), 32768, 131072)
        if bk is None:                  # small after all, or a layout blocks cannot keep
            ...the inline form...
        x0, = bk.views
        o = np.empty(bk.shape, f32); ov = bk.flat(o)
        s0, s1 = _scratch(bk.block, (f32, f32))     # staggered in the page
        n = bk.n; st = bk.step
        for b in range(0, n, st):
            e = b + st
            if e > n:
                s0 = s0[:n - b]; s1 = s1[:n - b]
            y0 = x0[b:e]; ob = ov[b:e]
            abs_(y0, s0); neg(s0, s0); exp(s0, s0); mul(s0, c3, s0)
            sin(y0, s1); mul(s1, y0, s1); add(s0, s1, s0); sub(s0, c8, ob)
        return o

Every node runs its recipe (graphjit.backend.recipes): the casts and ufuncs its own
kernel runs, in the same order, on the same dtypes, so each element gets the bits
the unfused code gives it. In a block, the integer powers of one x that
integer_power forms in a wider dtype (x ** 3 and x ** 4 of float32) share x widened
and its squares, each multiplication as integer_power does it. Blocks split the
leading axis (or the flattened array when every operand is whole or one element),
and operands that broadcast are views of the whole output shape; an operand whose
layout would make numpy pick another inner loop for an inexact op (not C-contiguous,
or an unknown dim that broadcasts) sends the call down the inline path. An exact op
that broadcasts over rows of 256 to 8191 elements runs with a ufunc buffer of one
row (_row_buffer).
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..ir.defs.integer_pow import integer_power, wide_dtype
from ..ir.fp_errors import FP_STATE, ignored_with_buffer
from ..ir.types import is_static, num_elements
from .kernels import call_text
from .lowering import Kernel
from .recipes import CAST, OUT, SELECT, select_into, select_zero_into

__all__ = ["emit_fused", "blocking", "Blocks", "scratch_buffers", "BLOCK_BYTES",
           "MIN_BLOCKED_BYTES"]

# Bytes per operand block. On W3 (4M float32, 8 nodes; numpy = 1.00) blocks of 16,
# 32, 64, 128, 256 and 512 KiB took 0.71, 0.64, 0.61, 0.60, 0.60 and 0.61, the whole
# arrays 0.92: small blocks pay a ufunc call per node per block, large ones leave the
# 512 KiB L2.
BLOCK_BYTES = 128 * 1024
# Results smaller than this run inline, over whole arrays. Measured on [rows, 1024]
# float32 chains (blocked / whole time): 8 nodes with exp and sin 1.04 at 512 KiB,
# 0.93-1.10 at 2 MiB, 0.50 at 4 MiB; 4 cheap nodes 1.57 at 256 KiB, 1.22 at 2 MiB,
# 1.09-1.21 at 4 MiB, 0.47 at 16 MiB. Arrays of a few MiB stay in the 32 MiB L3, so
# blocks pay off from about 4 MiB (heavy nodes gain far more than cheap ones lose).
MIN_BLOCKED_BYTES = 4 << 20
# The same for kernels with a power that integer_power widens (x ** 3 of float32 is
# formed in float64), whose blocks share the squares of x (_power_lines). The
# polynomial x**3 - 2*x**2 + x**4*0.25 on float32 (numpy's `x*x*x - ...` = 1.00),
# inline and blocked: 32K elements 1.9-2.3 and 1.2-1.4, 64K 2.0 and 1.7, 1M 1.15
# and 0.75.
MIN_BLOCKED_POWER_BYTES = 128 << 10
# Rows at least this long run an exact op with a broadcast operand with a ufunc buffer
# of one row (_row_buffer)
ROW_BUFFER_MIN = 256


class Blocks:
    """How one call of a fused kernel is split into blocks.

    Attributes:
        shape: the output shape.
        work: the shape the blocks split along its first axis (the output shape, or
            its flattened size).
        views: each operand as an array of shape `work` (broadcast views), or as it
            is for a scalar operand.
        n, step: the length of the split axis and the block length along it.
        block: the shape of a full block.
    """
    __slots__ = ("shape", "work", "views", "n", "step", "block")

    def flat(self, a: np.ndarray) -> np.ndarray:
        return a.reshape(self.work)


def blocking(loads, unknown, block: int, min_elems: int, fixed=()) -> Optional[Blocks]:
    """The blocks for these operands, or None to run the kernel inline.

    Args:
        loads: the operand arrays (numpy scalars for rank-0 operands).
        unknown: per operand, the dims its static type leaves unknown; each must be
            the output's dim (not broadcast), as lowering assumed.
        block: elements per block (of the flattened output).
        min_elems: outputs with fewer elements run inline.
        fixed: the shapes of the constants the kernel reads as they are (not sliced
            by block: they must broadcast along the split axis, and a constant of
            several elements keeps the output's layout, unflattened).
    """
    try:
        shape = np.broadcast_shapes(*[np.shape(a) for a in loads])
    except ValueError:
        return None                      # the inline path raises it at its node
    size = math.prod(shape)
    if size < min_elems:
        return None
    rank = len(shape)
    flat = True
    for s in fixed:
        if len(s) > rank or (len(s) == rank and s[0] != 1):
            return None                  # it varies along the split axis
        if math.prod(s) != 1:
            flat = False
    for a, unk in zip(loads, unknown):
        s = np.shape(a)
        off = rank - len(s)
        if any(s[d] != shape[d + off] for d in unk):
            return None
        if s == shape:
            if not a.flags.c_contiguous:
                return None
        elif math.prod(s) != 1:
            flat = False
    work = (size,) if flat else shape
    if work[0] <= 1:
        return None
    step = max(1, block // max(1, math.prod(work[1:])))
    if step >= work[0]:
        return None
    bk = Blocks()
    bk.shape, bk.work, bk.n, bk.step = shape, work, work[0], step
    bk.block = (step,) + work[1:]
    # a scalar operand broadcasts as it is; the others are sliced by block
    bk.views = tuple(a if len(np.shape(a)) == 0 else
                     a.reshape(work) if np.shape(a) == shape else
                     np.broadcast_to(np.reshape(a, (1,)) if flat else a, work)
                     for a in loads)
    return bk


# Scratch buffers start this many bytes apart modulo 4 KiB: buffers at one offset
# within the page make the loads of one ufunc wait on the stores of the last (4K
# aliasing). Measured in one process, switching only this (ratios to numpy): X3's
# polynomial on 1M float32 0.93 with buffers 16 bytes apart (separate allocations of
# 128 KiB and more are), 0.74 at 320, 1024 or 2048 bytes, whatever the input's offset;
# on 64K elements 2.00 and 1.62; W3 (4M float32) 0.65 and 0.61.
SCRATCH_STAGGER = 320


def scratch_buffers(shape, dtypes) -> List[np.ndarray]:
    """One uninitialised array of `shape` per dtype, from one allocation, the k-th
    starting at k * SCRATCH_STAGGER bytes modulo 4096 (64-byte aligned)."""
    n = math.prod(shape)
    sizes = [n * d.itemsize for d in dtypes]
    raw = np.empty(sum(sizes) + 4096 * len(sizes) + 64, np.uint8)
    addr, pos, out = raw.ctypes.data, 0, []
    for k, (size, d) in enumerate(zip(sizes, dtypes)):
        pos += (k * SCRATCH_STAGGER - (addr + pos)) % 4096
        out.append(raw[pos:pos + size].view(d).reshape(shape))
        pos += size
    return out


def _full(v) -> bool:
    """A value whose type gives every dim, rank >= 1 (so its buffer can be reused)."""
    s = v.type.shape
    return s is not None and len(s) >= 1 and is_static(s)


def _same_shape_as_result(v, args) -> bool:
    """Whether v's array has the shape of the node's result whatever the run-time dims:
    its type gives every dim, or every other operand is a scalar."""
    return _full(v) or all(a is v or a.type.shape == () for a in args)


class _Names:
    """The text of each operand of a kernel: loads, constants, intermediate values."""

    def __init__(self, em, loads: Dict[int, str], arrays: bool):
        self.em, self.map, self.arrays = em, dict(loads), arrays

    def __call__(self, v) -> str:
        n = self.map.get(id(v))
        if n is not None:
            return n
        c = self.em.const_array(v) if self.arrays else None
        return c if c is not None else self.em.name(v)

    def is_const(self, v) -> bool:
        return id(v) in self.em.consts


def _last_reads(kernel: Kernel) -> Dict[int, int]:
    last = {}
    for i, args in enumerate(kernel.args):
        for v in args:
            last[id(v)] = i
    return last


def emit_plain(em, kernel: Kernel, names: _Names, depth: int,
               result: Optional[str] = None, dest: Optional[str] = None) -> str:
    """Emit the kernel's nodes one after another over whole arrays; a node whose input
    dies at it and owns a buffer of the node's type writes into it. Returns the
    name holding the result (`result` if given).

    `dest` names a buffer of the result's type the result must end in (a Loop's
    plan gives it): a load held in it may be overwritten where it dies, a node of
    the result's type writes into it while it holds no live value, and it is
    preferred over other buffers; a result that ends elsewhere is copied into it."""
    inner = {id(n.outputs[0]) for n in kernel.nodes}
    reusable = {id(v) for v in kernel.reusable}
    store = kernel.stores[0]
    holder = None                     # the value dest holds now (None: free)
    if dest is not None:
        for v in kernel.loads:
            if names(v) == dest:
                reusable.add(id(v))
                holder = id(v)
    load_names = {names(v) for v in kernel.loads}      # freed by the program, not here
    last = _last_reads(kernel)
    for i, (node, recipe, args) in enumerate(zip(kernel.nodes, kernel.recipes, kernel.args)):
        out = node.outputs[0]
        texts = [names(v) for v in args]
        if names.arrays and out.type.shape and is_static(out.type.shape):
            for pos, v in enumerate(args):
                full = em.const_broadcast(v, out.type.shape)
                if full is not None:
                    texts[pos] = full
        target = None
        if not any(recipe.casts) and out.type.shape:
            shares = sorted(recipe.shares, key=lambda pos: texts[pos] != dest)
            for pos in shares:
                v = args[pos]
                if ((id(v) in inner or id(v) in reusable) and last[id(v)] == i and
                        v.type == out.type and not names.is_const(v) and
                        _same_shape_as_result(v, args)):
                    target = texts[pos]
                    break
        if (dest is not None and holder is None and target != dest and
                not any(recipe.casts) and out.type == store.type):
            target = dest
        final = i == len(kernel.nodes) - 1
        rows = _row_buffer(em, node, recipe, args, texts)
        if rows is not None:
            token = em.fresh("t")
            em.line(depth, f"{token} = _fp.set({rows})", node)
        if target is not None:
            for text in _step_lines(em, recipe.steps, texts, target):
                em.line(depth, text, node)
            if final and result is not None and dest is None:
                em.line(depth, f"{result} = {target}", node)
                target = result
        else:
            target = result if final and result is not None and dest is None else em.fresh()
            n = _power_exponent(recipe)
            if n is not None:           # the kernel's own call, without its dispatch
                text = f"{em.ref(integer_power)}({texts[0]}, {n})"
            else:
                text = call_text(em, node, texts)
            em.line(depth, f"{target} = {text}", node)
        if rows is not None:
            em.line(depth, f"_fp.reset({token})", node)
        names.map[id(out)] = target
        if dest is not None:
            if target == dest:
                holder = id(out)
            elif holder is not None and last.get(holder) == i:
                holder = None         # what it held died here
        dead = {names.map[id(v)] for v in args if id(v) in inner and last[id(v)] == i and
                v.type.shape != ()}
        dead -= load_names | {target, dest}
        if dead:
            em.line(depth, "del " + ", ".join(sorted(dead)))
    final = names.map[id(store)]
    if dest is None:
        return final
    if final != dest:
        em.line(depth, f"_copyto({dest}, {final})", kernel.node)
    if result is not None and result != dest:
        em.line(depth, f"{result} = {dest}", kernel.node)
    return result or dest


def _row_buffer(em, node, recipe, args, texts) -> Optional[str]:
    """For an exact node over rows of 256 to 8191 elements with an operand that
    broadcasts (x - max(x, -1, keepdims), x + bias) and is not a constant expanded
    ahead of time: the global holding numpy's error state with a ufunc buffer of at
    most one row, else None. numpy's default buffer of 8192 elements spans several
    rows, and to fill it copies the broadcast operand element by element: x - m on
    [256, 1000] float32 took 97 us, 43 us with a buffer of 992 (x + bias 75 and 68;
    rows of 64 lose: 110 and 144). The values are the same (every step is correctly
    rounded, whatever the loop), only the copying goes."""
    shape = node.outputs[0].type.shape
    if not recipe.exact or not shape or len(shape) < 2 or not is_static(shape):
        return None
    d = shape[-1]
    if not ROW_BUFFER_MIN <= d < np.getbufsize():
        return None

    def broadcasts(v, text):
        arr = em.env.get(text)          # a constant's global (expanded ahead, or not)
        s = arr.shape if isinstance(arr, np.ndarray) else v.type.shape
        return s is not None and tuple(s) != tuple(shape) and (num_elements(s) or 0) > 1
    if not any(broadcasts(v, t) for v, t in zip(args, texts)):
        return None
    state = ignored_with_buffer(d // 16 * 16)
    if state is None:
        return None
    em.env.setdefault("_fp", FP_STATE)
    return em.glob(state, "_rows")


def emit_fused(em, kernel: Kernel, depth: int) -> None:
    """Emit a fused kernel into the Emitter `em`: inline if it is small, else as a
    call of a blocked helper function."""
    store = kernel.stores[0]
    shape = store.type.shape
    n = num_elements(shape)
    if len(shape) == 0 or (n is not None and n * store.type.dtype.np.itemsize <
                           _min_blocked_bytes(kernel)):
        names = _Names(em, {}, arrays=len(shape) > 0)
        # a name given to the result beforehand (an If output, a Loop's condition)
        wanted = em.names.get(id(store))
        em.bind(store, emit_plain(em, kernel, names, depth, wanted, em.into.get(id(store))))
        return
    loads = [v for v in kernel.loads if id(v) not in em.consts]
    fname = _blocked_function(em, kernel, loads)
    em.line(depth, f"{em.name(store)} = {fname}({', '.join(em.name(v) for v in loads)})",
             kernel.node)


def _min_blocked_bytes(kernel: Kernel) -> int:
    """Results of at least this size run over blocks."""
    return MIN_BLOCKED_POWER_BYTES if _widened_powers(kernel) else MIN_BLOCKED_BYTES


class _Scratch:
    """Block-sized scratch buffers by dtype, reused once their value is dead."""

    def __init__(self, em):
        self.em = em
        self.free: Dict[np.dtype, List[str]] = {}
        self.all: List[Tuple[str, np.dtype]] = []

    def take(self, dtype) -> str:
        pool = self.free.get(dtype)
        if pool:
            return pool.pop()
        name = self.em.fresh("s")
        self.all.append((name, dtype))
        return name

    def give(self, name: str, dtype) -> None:
        self.free.setdefault(dtype, []).append(name)


# ufuncs that deprecate a positional output argument
_OUT_KEYWORD = {np.maximum, np.minimum, np.fmax, np.fmin}


def _step_lines(em, steps, texts: List[str], target: str) -> List[str]:
    out = []
    for s in steps:
        args = [texts[a] if isinstance(a, int) else target if a == OUT else
                em.glob(a, "c") for a in s.args]
        if s.fn is CAST:
            out.append(f"_copyto({target}, {args[0]}, casting='unsafe')")
        elif s.fn is SELECT:
            y = em.env.get(args[2])            # a constant's global: its array
            fn = select_zero_into if isinstance(y, (np.ndarray, np.generic)) and \
                y.dtype.kind in "biuf" and not any(np.asarray(y).tobytes()) \
                else select_into
            out.append(f"{em.ref(fn)}({target}, {args[0]}, {args[1]}, {args[2]})")
        elif s.fn in _OUT_KEYWORD:
            out.append(f"{em.ref(s.fn)}({', '.join(args)}, out={target})")
        else:
            out.append(f"{em.ref(s.fn)}({', '.join(args)}, {target})")
    return out


def _blocked_function(em, kernel: Kernel, loads) -> str:
    """Write the helper function running a large fused kernel over blocks; returns
    its name. Its arguments are the kernel's loads other than constants."""
    em.env.setdefault("_blocking", blocking)
    saved, em.lines = em.lines, []
    fname = em.fresh("fused")
    params = [em.fresh("a") for _ in loads]
    store = kernel.stores[0]
    em.line(0, f"def {fname}({', '.join(params)}):")

    unknown = tuple(tuple(i for i, d in enumerate(v.type.shape) if d is None) for v in loads)
    values = list(loads) + [n.outputs[0] for n in kernel.nodes]
    itemsize = max([v.type.dtype.np.itemsize for v in values] +
                   [wide.itemsize for _, wide in _widened_powers(kernel).values()])
    block = max(1, BLOCK_BYTES // itemsize)
    min_elems = -(-_min_blocked_bytes(kernel) // store.type.dtype.np.itemsize)
    # the result has at most as many elements as the operands' product: a cheap test
    # that sends small calls inline before _blocking looks at the shapes
    sizes = " * ".join(f"{p}.size" for p, v in zip(params, loads) if len(v.type.shape))
    small = f"None if {sizes} < {min_elems} else " if sizes else ""
    ids = {id(v) for v in values}
    fixed = tuple({tuple(v.type.shape): None for args in kernel.args for v in args
                   if id(v) not in ids})       # constants, read whole by every block
    em.line(1, f"bk = {small}_blocking(({''.join(p + ', ' for p in params)}), {unknown!r}, "
               f"{block}, {min_elems}{', ' + repr(fixed) if fixed else ''})", kernel.node)
    em.line(1, "if bk is None:", kernel.node)
    names = _Names(em, {id(v): p for v, p in zip(loads, params)}, arrays=True)
    em.line(2, f"return {emit_plain(em, kernel, names, 2)}")

    # the blocked path: views of the operands, the output, scratch buffers
    xs = [em.fresh("x") for _ in loads]
    if xs:
        em.line(1, f"{''.join(x + ', ' for x in xs)}= bk.views", kernel.node)
    reuse = _output_reuse(kernel, loads)
    if reuse is not None:
        em.line(1, f"o = {params[reuse]}; ov = bk.flat(o)", kernel.node)
    else:
        em.line(1, f"o = np.empty(bk.shape, {em.glob(store.type.dtype.np, '_dtype')}); "
                   f"ov = bk.flat(o)", kernel.node)
    body, scratch = _block_body(em, kernel, loads, xs)
    if scratch.all:
        em.env.setdefault("_scratch", scratch_buffers)
        dtypes = em.glob(tuple(np.dtype(d) for _, d in scratch.all), "_dtypes")
        em.line(1, f"{', '.join(n for n, _ in scratch.all)}, = _scratch(bk.block, {dtypes})",
                kernel.node)
    em.line(1, "n = bk.n; st = bk.step")
    em.line(1, "for b in range(0, n, st):")
    em.line(2, "e = b + st")
    if scratch.all:
        em.line(2, "if e > n:")
        em.line(3, "; ".join(f"{s} = {s}[:n - b]" for s, _ in scratch.all))
    sliced = [f"y{x[1:]} = {x}[b:e]" for x, v in zip(xs, loads) if len(v.type.shape)]
    em.line(2, "; ".join(sliced + ["ob = ov[b:e]"]))
    for text, node in body:
        em.line(2, text, node)
    em.line(1, "return o")
    em.helpers.extend(em.lines)
    em.lines = saved
    return fname


def _output_reuse(kernel: Kernel, loads) -> Optional[int]:
    """The position (among `loads`) of a dying load whose buffer the output may take:
    the output's type, and read by the last node only where its recipe allows."""
    store = kernel.stores[0]
    node_args, recipe = kernel.args[-1], kernel.recipes[-1]
    for v in kernel.reusable:
        if not (_full(v) and v.type == store.type):
            continue
        if any(a is v and recipe.casts[pos] is None and pos not in recipe.shares
               for pos, a in enumerate(node_args)):
            continue
        for i, u in enumerate(loads):
            if u is v:
                return i
    return None


def _block_body(em, kernel: Kernel, loads, xs):
    """The lines of one block: every node's casts and steps into scratch buffers (the
    last node into the output block `ob`)."""
    scratch = _Scratch(em)
    powers = _widened_powers(kernel)
    last_power = {id(kernel.args[i][0]): i for i in powers}
    chains: Dict[int, List[str]] = {}
    text_of = {}
    for v, x in zip(loads, xs):
        text_of[id(v)] = f"y{x[1:]}" if len(v.type.shape) else x
    inner = {id(n.outputs[0]) for n in kernel.nodes}
    last = _last_reads(kernel)
    buf_dtype = {}
    lines = []
    final = len(kernel.nodes) - 1
    for i, (node, recipe, args) in enumerate(zip(kernel.nodes, kernel.recipes, kernel.args)):
        texts = [text_of[id(v)] if id(v) in text_of else em.const_array(v) for v in args]
        temps = []
        for pos, c in enumerate(recipe.casts):
            if c is not None:
                t = scratch.take(c)
                temps.append((t, c))
                lines.append((f"_copyto({t}, {texts[pos]}, casting='unsafe')", node))
                texts[pos] = t
        out = node.outputs[0]
        odt = out.type.dtype.np
        target = "ob" if i == final else None
        if target is None:
            for pos in recipe.shares:
                v = args[pos]
                if (id(v) in inner and last[id(v)] == i and recipe.casts[pos] is None and
                        buf_dtype[id(v)] == odt):
                    target = text_of[id(v)]
                    break
        if target is None:
            target = scratch.take(odt)
        if i in powers:
            n, wide = powers[i]
            for text in _power_lines(em, scratch, chains, args[0], texts[0], n, wide, target):
                lines.append((text, node))
            if last_power[id(args[0])] == i:
                for b in chains.pop(id(args[0])):
                    scratch.give(b, wide)
        else:
            rows = _row_buffer(em, node, recipe, args, texts)
            if rows is not None:
                token = em.fresh("t")
                lines.append((f"{token} = _fp.set({rows})", node))
            for text in _step_lines(em, recipe.steps, texts, target):
                lines.append((text, node))
            if rows is not None:
                lines.append((f"_fp.reset({token})", node))
        text_of[id(out)] = target
        buf_dtype[id(out)] = odt
        for v in {id(v): v for v in args}.values():
            if id(v) in inner and last[id(v)] == i and text_of[id(v)] != target:
                scratch.give(text_of[id(v)], buf_dtype[id(v)])
        for t, c in temps:
            scratch.give(t, c)
    return lines, scratch


def _power_exponent(recipe) -> Optional[int]:
    """n for a recipe that is integer_power(x, n) of its input as it is."""
    steps = recipe.steps
    if len(steps) != 1 or recipe.casts[0] is not None:
        return None
    return getattr(steps[0].fn, "exponent", None)


def _widened_powers(kernel: Kernel) -> Dict[int, Tuple[int, np.dtype]]:
    """{node index: (n, wide dtype)} for the kernel's powers x ** n that integer_power
    forms in a wider dtype (every n but 0, 1, 2 and -1), x used as it is."""
    found = {}
    for i, recipe in enumerate(kernel.recipes):
        n = _power_exponent(recipe)
        wide = wide_dtype(recipe.out)
        if n not in (None, 0, 1, 2, -1) and wide is not None:
            found[i] = (n, wide)
    return found


def _power_lines(em, scratch: _Scratch, chains, v, x: str, n: int, wide, target: str):
    """The lines writing x ** n into target as integer_power forms it: binary
    exponentiation in the wide dtype (the product of the squares x ** 2 ** j for the
    set bits j of |n|, lowest first; for n < 0 one over it), rounded once to target's
    dtype. The squares of x live in `chains` for the block: every power of x in the
    kernel reads them, so x ** 3 and x ** 4 of one x widen x and square it once."""
    mul = em.ref(np.multiply)
    lines = []
    chain = chains.get(id(v))
    if chain is None:
        chain = chains[id(v)] = [scratch.take(wide)]
        lines.append(f"_copyto({chain[0]}, {x})")
    m = abs(n)
    bits = [j for j in range(m.bit_length()) if m >> j & 1]
    while len(chain) <= bits[-1]:
        chain.append(scratch.take(wide))
        lines.append(f"{mul}({chain[-2]}, {chain[-2]}, {chain[-1]})")
    acc = chain[bits[0]]
    if len(bits) > 1 or n < 0:
        t = scratch.take(wide)
        if len(bits) > 1:
            lines.append(f"{mul}({acc}, {chain[bits[1]]}, {t})")
            lines += [f"{mul}({t}, {chain[j]}, {t})" for j in bits[2:]]
            acc = t
        if n < 0:
            lines.append(f"{em.ref(np.true_divide)}({em.glob(wide.type(1), 'c')}, {acc}, {t})")
        acc = t
        scratch.give(t, wide)
    lines.append(f"_copyto({target}, {acc}, casting='unsafe')")
    return lines
