"""Reading Python lists, tuples and dicts with an index known only when the graph runs:
the items become one tensor (numbers: a constant; tensors of one type, or graph values
standing for numbers of one kind: a stack), read with Gather."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import ops
from ..common.tensor import Tensor
from ..ir.dtypes import int64 as dt_int64
from ..ir.errors import UnsupportedSyntaxError
from .joins import _KORDER, _WEAK_DEFAULT, _info, _kind
from .strings import RuntimeString
from .values import GraphTensor

if TYPE_CHECKING:
    from .builder import FunctionBuilder

__all__ = ["index_sequence", "index_dict"]


def index_sequence(b: FunctionBuilder, seq, key: GraphTensor):
    """seq[key] for a Python list/tuple and an int graph value: the items become a
    constant tensor (numbers) or a stack (tensors of one type), read with Gather."""
    if key.dtype.is_bool:          # a bool is an int: False picks item 0, True item 1
        key = ops.cast(key, dt_int64)
    if not key.dtype.is_integer:
        raise TypeError(f"list indices must be integers, not a {key.dtype} tensor")
    if not seq:
        raise IndexError("index into an empty list")
    if all(_kind(x) is not None for x in seq):
        kinds = {_kind(x) for x in seq}
        k = max(kinds, key=_KORDER.__getitem__)
        arr = np.asarray(seq, dtype=_WEAK_DEFAULT[k].np)
        out = ops.gather(Tensor._wrap(arr), key, 0)
        out.weak = True
        return out
    numbers = [_info(x) for x in seq]
    if all(i is not None and i[2] and i[1] == () for i in numbers):
        # Python numbers, some of them graph values standing for one (weak scalars)
        kinds = {"i" if i[3] == "u" else i[3] for i in numbers}
        if len(kinds) != 1:
            raise UnsupportedSyntaxError(
                f"indexing a Python {type(seq).__name__} of numbers of different kinds "
                f"({', '.join(sorted(kinds))}) with a tensor value: the item's Python type "
                f"would depend on the value", hint="make the items numbers of one kind")
        dtype = next((i[0] for i in numbers if i[0] is not None), None) or \
            _WEAK_DEFAULT[kinds.pop()]
        out = ops.gather(ops.stack([ops.cast(x, dtype) if isinstance(x, GraphTensor) else
                                    Tensor._wrap(np.asarray(x, dtype.np)) for x in seq], 0),
                         key, 0)
        out.weak = True
        return out
    if all(isinstance(x, (GraphTensor, Tensor)) for x in seq):
        types_ = {(x.dtype, _info(x)[1]) for x in seq}
        if len(types_) != 1:
            raise UnsupportedSyntaxError(
                "indexing a list of tensors of different types with a tensor value",
                hint="make the tensors one dtype and shape so they can be stacked")
        return ops.gather(ops.stack(list(seq), 0), key, 0)
    raise UnsupportedSyntaxError(
        f"indexing a Python {type(seq).__name__} of {type(seq[0]).__name__} items with a "
        f"tensor value", hint="index with a Python int, or keep the items in a tensor")


def index_dict(b: FunctionBuilder, d: dict, key: GraphTensor):
    """d[key] for Python int keys and an int graph value (a Python number a tensor
    condition changed): the position of the key, then index_sequence on the values."""
    keys = list(d)
    if not keys or not key.dtype.is_integer or not all(
            isinstance(k, int) and not isinstance(k, bool) for k in keys):
        raise UnsupportedSyntaxError(
            "indexing a dict with a tensor value (only int keys and an int value can be "
            "looked up when the graph runs)", hint="use a Python key, or a list")
    pos = None
    for i in reversed(range(len(keys))):
        hit = ops.equal(key, keys[i])
        pos = ops.where(hit, i, -1 if pos is None else pos)
    ops.functional.runtime_check(ops.greater_equal(pos, 0), KeyError,
                                 "a key the dict does not have")
    return index_sequence(b, [d[k] for k in keys], pos)


def index_dict_by_text(b: FunctionBuilder, d: dict, key: RuntimeString):
    """d[key] for a name given one string on each path of an If on a tensor condition
    (`k = "a" if n > 1 else "b"`): d["a"] or d["b"], chosen by the If as the name is."""
    p = key.pieces
    if len(p) == 1 and isinstance(p[0], tuple) and p[0][0] == "pick" and all(
            isinstance(s, str) for s in p[0][2]):
        a, c = p[0][2]
        missing = [k for k in (a, c) if k not in d]
        if not missing:
            return index_sequence(b, [d[a], d[c]], p[0][1])
        raise UnsupportedSyntaxError(
            f"indexing a dict with a string chosen by a tensor value, one of whose choices "
            f"({', '.join(map(repr, missing))}) the dict does not have",
            hint="give the name only keys the dict has")
    raise UnsupportedSyntaxError(
        "indexing a dict with a string made when the graph runs (only a name given one "
        "Python str on each path of an If can be looked up)",
        hint="index with a Python str, e.g. d['a'] if cond else d['b']")


def contains_text(container, key: RuntimeString):
    """`key in container` (a Python str, list, tuple, set or dict of constants) for a name
    given one Python str on each path of an If on a tensor condition: the If's choice
    decides, as it decides the name; other run-time strings are refused."""
    p = key.pieces
    if not (len(p) == 1 and isinstance(p[0], tuple) and p[0][0] == "pick" and all(
            isinstance(s, str) for s in p[0][2])) or not isinstance(
            container, (str, list, tuple, set, frozenset, dict)) or any(
            isinstance(v, (GraphTensor, Tensor, RuntimeString)) for v in container):
        raise UnsupportedSyntaxError(
            "`in` with a string made when the graph runs (only a name given one Python str "
            "on each path of an If, looked up in constants, is decided when it runs)",
            hint="test the condition that chose the string instead")
    which, (a, c) = p[0][1], p[0][2]
    in_a, in_c = a in container, c in container
    if in_a == in_c:
        return in_a
    picked_c = ops.not_equal(which, 0)          # the pick: 0 chooses a, 1 chooses c
    out = picked_c if in_c else ops.logical_not(picked_c)
    out.weak = True                             # stands for a Python bool
    return out
