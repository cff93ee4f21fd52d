"""The states of graphjit.distributed.batchwise and the rule of each op: how the
batch axis of a value's inputs becomes the batch axis of its outputs (or is lost).

A rule takes the node and its input states and returns the output state (one for
every output) or a tuple of them. Ops are found by name, then by family
(elementwise ops broadcast, reductions drop axes).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

from ..ir.graph import Node, Value
from ..ir.types import format_shape

__all__ = ["Invariant", "Rows", "ShapeOf", "Mixed", "INVARIANT", "join", "mixed",
           "axis_index", "RULES", "FAMILY_RULES"]


# -- the states ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Invariant:
    def __str__(self):
        return "the same for every block"


@dataclass(frozen=True)
class Rows:
    axis: int

    def __str__(self):
        return f"one entry per row along axis {self.axis}"


@dataclass(frozen=True)
class ShapeOf:
    axis: int

    def __str__(self):
        return f"the shape of a batched value (entry {self.axis} is the block size)"


@dataclass(frozen=True, eq=False)
class Mixed:
    """Depends on how the batch is cut into blocks: `why` at node `node`."""
    why: str
    node: Optional[Node] = None

    def __eq__(self, other):
        return isinstance(other, Mixed)

    def __hash__(self):
        return hash(Mixed)

    def __str__(self):
        return "depends on how the batch is cut into blocks"


INVARIANT = Invariant()
State = object   # Invariant | Rows | ShapeOf | Mixed


def mixed(node: Node, why: str) -> Mixed:
    """A Mixed state caused by `node`."""
    return Mixed(f"{node.op}: {why}", node)


def join(a, b, node: Node, what: str):
    """The state of a value that is `a` on one path and `b` on another."""
    if isinstance(a, Mixed):
        return a
    if isinstance(b, Mixed):
        return b
    if a == b:
        return a
    return mixed(node, f"{what} is {a} on one path and {b} on another")


# -- helpers -------------------------------------------------------------------------------
def _rank(v: Value) -> Optional[int]:
    return v.type.rank


def axis_index(axis: int, rank: int) -> int:
    """A possibly negative axis as an index into a shape of this rank."""
    return axis + rank if axis < 0 else axis


def _is_full_slice(item) -> bool:
    return isinstance(item, tuple) and item[1] in (None, 0) and item[2] is None and \
        item[3] in (None, 1)


def _expand_index(items, rank: int) -> list:
    """The index with `...` and the implicit trailing `:` spelled out."""
    consumed = sum(1 for i in items if i is not None and i != "...")
    full = ("slice", None, None, None)
    out = []
    for i in items:
        if i == "...":
            out.extend([full] * (rank - consumed))
        else:
            out.append(i)
    if "..." not in items:
        out.extend([full] * (rank - consumed))
    return out


def _single_rows(node: Node, states) -> Tuple[Optional[int], Optional[Mixed]]:
    """For ops of one tensor input: its Rows axis, or None when it is Invariant,
    or a Mixed state to return."""
    s = states[0]
    if isinstance(s, Mixed):
        return None, s
    if isinstance(s, ShapeOf):
        return None, mixed(node, "computes with the shape of a batched value, whose "
                                  "first entry is the block size")
    return (s.axis if isinstance(s, Rows) else None), None


# -- rules: (node, input states) -> output states ----------------------------------------
def _elementwise(node: Node, states):
    out_rank = node.outputs[0].type.rank
    axis = None
    for v, s in zip(node.inputs, states):
        if isinstance(s, Rows):
            a = s.axis + out_rank - _rank(v)
            if axis is not None and a != axis:
                return mixed(node, "combines rows of the batch along different axes "
                                    f"(axes {axis} and {a} of the result)")
            axis = a
        elif isinstance(s, ShapeOf):
            return mixed(node, "computes with the shape of a batched value, whose first "
                                "entry is the block size")
    if axis is None:
        return INVARIANT
    for v, s in zip(node.inputs, states):
        if s is INVARIANT:
            k = axis - (out_rank - _rank(v))
            if k >= 0 and v.type.shape[k] != 1:
                return mixed(node, f"broadcasts a value that is the same for every block "
                                    f"({v.type}) along the batch axis; its dim "
                                    f"{'?' if v.type.shape[k] is None else v.type.shape[k]} "
                                    f"there would have to match the block size")
    return Rows(axis)


def _reduction(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    if "axis" not in node.attrs or "keep_dims" not in node.attrs:
        return mixed(node, "is a reduction without the attributes axis and keep_dims, so "
                           "the batch axis cannot be followed through it")
    rank = _rank(node.inputs[0])
    axis = node.attrs["axis"]
    if axis is None or axis == ():
        axes = set(range(rank))
    else:
        axes = {axis_index(int(x), rank) for x in (axis if isinstance(axis, (tuple, list))
                                               else (axis,))}
    if a in axes:
        return mixed(node, f"reduces over axis {a}, the batch axis: each row of the result "
                            f"would depend on every row of the block")
    if node.attrs["keep_dims"]:
        return Rows(a)
    return Rows(a - sum(1 for x in axes if x < a))


def _along_axis(attr: str):
    """Ops that combine entries along one axis (attribute `attr`) and keep the shape."""
    def rule(node: Node, states):
        a, bad = _single_rows(node, states)
        if bad is not None or a is None:
            return bad or INVARIANT
        rank = _rank(node.inputs[0])
        axes = node.attrs[attr]
        axes = axes if isinstance(axes, (tuple, list)) else (axes,)
        if a in {axis_index(int(x), rank) for x in axes}:
            return mixed(node, f"combines the entries along axis {a}, the batch axis")
        return Rows(a)
    return rule


def _shape(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None:
        return bad
    return INVARIANT if a is None else ShapeOf(a)


def _index(node: Node, states):
    s = states[0]
    items = node.attrs["index"]
    if isinstance(s, ShapeOf):        # x.shape[k]: the block size only for k == s.axis
        (n,) = node.inputs[0].type.shape
        picked = [i for i in _expand_index(items, 1) if i is not None]
        if len(picked) != 1 or n is None:
            return mixed(node, "takes entries of a batched value's shape")
        i = picked[0]
        chosen = range(n)[slice(*i[1:])] if isinstance(i, tuple) else [axis_index(i, n)]
        if s.axis in chosen:
            return mixed(node, f"reads the size of the batch axis (the shape's entry "
                                f"{s.axis}), which is the block size, not the batch size")
        return INVARIANT
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    dim, out_axis = 0, 0
    for i in _expand_index(items, _rank(node.inputs[0])):
        if i is None:
            out_axis += 1
            continue
        if dim == a:
            if _is_full_slice(i):
                return Rows(out_axis)
            return mixed(node, "selects some rows of the batch (the index on the batch "
                                "axis must be ':')")
        dim += 1
        if isinstance(i, tuple):
            out_axis += 1
    return mixed(node, "indexes past the batch axis")


def _reshape(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    src, dst = node.inputs[0].type.shape, node.outputs[0].type.shape
    if dst is None or any(d is None for i, d in enumerate(src) if i != a) or \
            sum(d is None for d in dst) > 1:
        return mixed(node, f"cannot follow the batch axis from {format_shape(src)} to "
                            f"{format_shape(dst)} (dims other than the batch dim unknown)")
    before, after = _prod(src[:a]), _prod(src[a + 1:])
    for j, d in enumerate(dst):
        if (d is None or d == src[a]) and None not in dst[:j] + dst[j + 1:] and \
                _prod(dst[:j]) == before and _prod(dst[j + 1:]) == after:
            return Rows(j)
    return mixed(node, f"mixes the batch axis with other dims: {format_shape(src)} "
                        f"becomes {format_shape(dst)}")


def _prod(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _flatten(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    shape = node.inputs[0].type.shape
    start, end = (axis_index(node.attrs[k], len(shape)) for k in ("start_dim", "end_dim"))
    if a < start:
        return Rows(a)
    if a > end:
        return Rows(a - (end - start))
    if all(shape[i] == 1 for i in range(start, end + 1) if i != a):
        return Rows(start)
    return mixed(node, f"merges the batch axis with other dims of {node.inputs[0].type}")


def _transpose(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    rank = _rank(node.inputs[0])
    perm = node.attrs["perm"]
    perm = tuple(reversed(range(rank))) if perm is None else tuple(p % rank for p in perm)
    return Rows(perm.index(a))


def _expand_dims(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    new = axis_index(node.attrs["axis"], _rank(node.inputs[0]) + 1)
    return Rows(a + 1 if new <= a else a)


def _squeeze(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    shape = node.inputs[0].type.shape
    axis = node.attrs["axis"]
    if axis is None or axis == ():
        if any(d is None for i, d in enumerate(shape) if i != a):
            return mixed(node, "squeezes dims of unknown size")
        axes = {i for i, d in enumerate(shape) if d == 1}
    else:
        axes = {axis_index(int(x), len(shape)) for x in (axis if isinstance(axis, (tuple, list))
                                                     else (axis,))}
    if a in axes:
        return mixed(node, "removes the batch axis")
    return Rows(a - sum(1 for x in axes if x < a))


def _join_rows(node: Node, states, what: str):
    """The common Rows axis of ops that lay several inputs side by side; Invariant
    inputs beside batched ones would need the block size as a dim."""
    axes = set()
    for s in states:
        if isinstance(s, Mixed):
            return None, s
        if isinstance(s, ShapeOf):
            return None, mixed(node, f"{what} a batched value's shape")
        if isinstance(s, Rows):
            axes.add(s.axis)
    if not axes:
        return None, None
    if len(axes) > 1 or any(s is INVARIANT for s in states):
        return None, mixed(node, f"{what} values that are not batched along one axis "
                                  f"(states: {', '.join(str(s) for s in states)})")
    return axes.pop(), None


def _concat(node: Node, states):
    a, bad = _join_rows(node, states, "joins")
    if bad is not None or a is None:
        return bad or INVARIANT
    if axis_index(node.attrs["axis"], _rank(node.inputs[0])) == a:
        return mixed(node, "concatenates along the batch axis")
    return Rows(a)


def _stack(node: Node, states):
    a, bad = _join_rows(node, states, "stacks")
    if bad is not None or a is None:
        return bad or INVARIANT
    new = axis_index(node.attrs["axis"], _rank(node.inputs[0]) + 1)
    return Rows(a + 1 if new <= a else a)


def _broadcast_to(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    x = node.inputs[0].type.shape
    target = tuple(node.attrs["shape"])
    b = a + len(target) - len(x)
    if target[b] == -1 or (x[a] is not None and target[b] == x[a]):
        return Rows(b)
    return mixed(node, f"broadcasts the batch axis to the fixed size {target[b]}")


def _tile(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    reps = tuple(node.attrs["multiples"])
    rank = _rank(node.inputs[0])
    out_rank = max(len(reps), rank)
    b = a + out_rank - rank
    k = b - (out_rank - len(reps))          # reps are aligned to the right, like the dims
    if k >= 0 and reps[k] != 1:
        return mixed(node, "repeats the batch axis")
    return Rows(b)


def _gather(node: Node, states):
    (xs, isx), (x, idx) = states, node.inputs
    axis = axis_index(node.attrs["axis"], _rank(x))
    for s in states:
        if isinstance(s, (Mixed, ShapeOf)):
            return s if isinstance(s, Mixed) else mixed(node, "gathers with a shape")
    if isinstance(xs, Rows) and isinstance(isx, Rows):
        return mixed(node, "gathers batched values with batched indices")
    if isinstance(isx, Rows):            # a table (embedding) looked up by batched indices
        return Rows(axis + isx.axis)
    if isinstance(xs, Rows):
        if xs.axis == axis:
            return mixed(node, "picks rows of the batch by index")
        return Rows(xs.axis if xs.axis < axis else xs.axis - 1 + _rank(idx))
    return INVARIANT


def _matmul(node: Node, states):
    (sa, sb), (va, vb) = states, node.inputs
    for s in states:
        if isinstance(s, Mixed):
            return s
        if isinstance(s, ShapeOf):
            return mixed(node, "multiplies a batched value's shape")
    if sa is INVARIANT and sb is INVARIANT:
        return INVARIANT
    ra, rb = _rank(va), _rank(vb)
    out_rank = node.outputs[0].type.rank
    nb = out_rank - (ra >= 2) - (rb >= 2)          # leading (broadcast) batch dims

    def place(s, rank, transposed, is_a):
        """Output axis of this operand's Rows axis, or None when it is contracted."""
        if not isinstance(s, Rows):
            return -1
        a = s.axis
        if rank >= 2 and transposed and a >= rank - 2:
            a = (2 * rank - 3) - a                  # swap the last two axes
        contracted = (rank - 1) if is_a else (rank - 2 if rank >= 2 else 0)
        if a == contracted:
            return None
        if a < rank - 2:
            return a + nb - (rank - 2)
        return nb if is_a else nb + (ra >= 2)
    pa = place(sa, ra, node.attrs["transpose_a"], True)
    pb = place(sb, rb, node.attrs["transpose_b"], False)
    if pa is None or pb is None:
        return mixed(node, "contracts over the batch axis (a sum over the rows of the block)")
    if pa >= 0 and pb >= 0 and pa != pb:
        return mixed(node, "pairs every row of one operand with every row of the other")
    axis = max(pa, pb)
    for s, v, rank in ((sa, va, ra), (sb, vb, rb)):
        k = axis - (nb - (rank - 2))
        if s is INVARIANT and axis < nb and 0 <= k < rank - 2 and v.type.shape[k] != 1:
            return mixed(node, f"broadcasts a value that is the same for every block "
                                f"({v.type}) along the batch axis")
    return Rows(axis)


def _one_hot(node: Node, states):
    a, bad = _single_rows(node, states)
    if bad is not None or a is None:
        return bad or INVARIANT
    new = axis_index(node.attrs["axis"], _rank(node.inputs[0]) + 1)
    return Rows(a + 1 if new <= a else a)


def _index_update(node: Node, states):
    (xs, vs), (x, v) = states, node.inputs
    for s in states:
        if isinstance(s, Mixed):
            return s
        if isinstance(s, ShapeOf):
            return mixed(node, "updates a batched value's shape")
    if xs is INVARIANT and vs is INVARIANT:
        return INVARIANT
    if not isinstance(xs, Rows):
        return mixed(node, "writes batched values into a value that has no batch axis")
    items = _expand_index(node.attrs["index"], _rank(x))
    dim, sub_axis, sub_rank = 0, None, 0
    for i in items:
        if i is None:
            sub_rank += 1
            continue
        if dim == xs.axis:
            if not _is_full_slice(i):
                return mixed(node, "writes into some rows of the batch only")
            sub_axis = sub_rank
        dim += 1
        if isinstance(i, tuple):
            sub_rank += 1
    k = sub_axis - (sub_rank - _rank(v))
    if isinstance(vs, Rows):
        if vs.axis != k:
            return mixed(node, "writes rows of the batch into other rows")
    elif k >= 0 and v.type.shape[k] != 1:
        return mixed(node, f"writes a value that is the same for every block ({v.type}) "
                            f"along the batch axis")
    return Rows(xs.axis)


def _params_invariant(node: Node, states, what: str):
    """For ops of one data input and parameter inputs (weights, statistics): the data
    input's Rows axis, or a state to return (parameters computed from the rows are
    Mixed: a block would use its own)."""
    if any(s is not INVARIANT for s in states[1:]):
        first = next((s for s in states[1:] if isinstance(s, Mixed)), None)
        return None, first or mixed(node, f"its {what} are computed from the rows of the "
                                          f"batch")
    return _single_rows(node, states[:1])


def _windows(node: Node, states):
    """Conv2D (N, C, H, W) with an Invariant weight, MaxPool and AvgPool ((N,) C, H, W):
    windows over the last two axes, channels mixed by Conv2D."""
    a, bad = _params_invariant(node, states, "weights")
    if bad is not None or a is None:
        return bad or INVARIANT
    rank = _rank(node.inputs[0])
    mixed_axes = (1, 2, 3) if node.op == "Conv2D" else (rank - 2, rank - 1)
    if a in mixed_axes:
        return mixed(node, f"combines entries along axis {a}, the batch axis")
    return Rows(a)


def _batch_norm(node: Node, states):
    a, bad = _params_invariant(node, states, "scale, bias, mean or variance")
    if bad is not None or a is None:
        return bad or INVARIANT
    if node.attrs["is_training"]:
        return mixed(node, "uses the statistics of the batch (is_training=True): each block "
                           "would be normalized with its own")
    if a == 1:
        return mixed(node, "normalizes per channel along axis 1, the batch axis")
    return (Rows(a), INVARIANT, INVARIANT)       # the mean and variance it was given


def _layer_norm(node: Node, states):
    a, bad = _params_invariant(node, states, "gamma or beta")
    if bad is not None or a is None:
        return bad or INVARIANT
    if a >= axis_index(node.attrs["begin_norm_axis"], _rank(node.inputs[0])):
        return mixed(node, f"normalizes over axis {a}, the batch axis")
    return Rows(a)


def _gather_d(node: Node, states):
    (xs, isx), (x, _) = states, node.inputs
    for s in states:
        if isinstance(s, (Mixed, ShapeOf)):
            return s if isinstance(s, Mixed) else mixed(node, "gathers with a shape")
    if xs is INVARIANT and isx is INVARIANT:
        return INVARIANT
    dim = axis_index(node.attrs["dim"], _rank(x))
    if isinstance(xs, Rows) and xs == isx and xs.axis != dim:
        return Rows(xs.axis)
    return mixed(node, "reads entries of other rows of the batch (input and index must both "
                       "be batched along one axis, not the gathered one)")


def _random(node: Node, states):
    return mixed(node, "draws random numbers: blocks scored by several workers cannot draw "
                       "the numbers one call draws (score with the model in inference mode)")


def _like(node: Node, states):
    s = states[0]
    return s if isinstance(s, (Rows, Mixed)) else INVARIANT


def _same(node: Node, states):          # CheckNonZero: x itself
    return states[0]


def _no_outputs(node: Node, states):
    return ()


RULES: Dict[str, Callable] = {
    "Shape": _shape, "Index": _index, "Reshape": _reshape, "Flatten": _flatten,
    "Transpose": _transpose, "ExpandDims": _expand_dims, "Squeeze": _squeeze,
    "Concat": _concat, "Stack": _stack, "BroadcastTo": _broadcast_to, "Tile": _tile,
    "Gather": _gather, "MatMul": _matmul, "OneHot": _one_hot, "IndexUpdate": _index_update,
    "Softmax": _along_axis("axis"), "LogSoftmax": _along_axis("axis"),
    "CumSum": _along_axis("axis"), "CumProd": _along_axis("axis"),
    "Sort": _along_axis("axis"), "TopK": _along_axis("axis"), "GatherD": _gather_d,
    "Conv2D": _windows, "MaxPool": _windows, "AvgPool": _windows,
    "BatchNorm": _batch_norm, "LayerNorm": _layer_norm, "Dropout": _random,
    "ZerosLike": _like, "OnesLike": _like, "CheckNonZero": _same, "CheckIntOverflow": _same,
    "Print": _no_outputs, "Assert": _no_outputs, "Check": _no_outputs,
    "CheckBound": _no_outputs, "Raise": _no_outputs,
}
FAMILY_RULES: Dict[str, Callable] = {"elementwise": _elementwise, "reduction": _reduction}
