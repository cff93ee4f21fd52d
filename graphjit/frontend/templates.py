"""What a built function returned, as a template: the returned structure with an Out
for each graph result, so result arrays (or graph values) can be put back into it;
and the names graph parameters get from argument paths."""
from __future__ import annotations

from ..ir.errors import UnsupportedSyntaxError
from ..common.tensor import Tensor
from .strings import RuntimeString, encode
from .values import DynamicList, GraphContext, GraphTensor, LocalFunction, Switch

__all__ = ["Out", "TextOut", "Same", "WithWrites", "ArgRef"]


class Out:
    """A place in the returned structure filled by graph result `i`: a tensor, a Python
    number (`weak`, of dtype kind `kind`), or a list of run-time length (`is_list`:
    the rows of the result)."""

    __slots__ = ("i", "weak", "kind", "is_list")

    def __init__(self, i, weak, kind, is_list=False):
        self.i, self.weak, self.kind, self.is_list = i, weak, kind, is_list


class TextOut:
    """A place in the returned structure filled by a string made from graph results
    first .. first + len(dtypes) - 1 (graphjit.ir.text's tree over them)."""

    __slots__ = ("tree", "first", "dtypes")

    def __init__(self, tree, first, dtypes):
        self.tree, self.first, self.dtypes = tree, first, tuple(dtypes)


class Same:
    """A list, dict or tuple from outside the function (a global, a closure's, an attribute's),
    returned as it is: each call returns that very object, as eager Python does."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


class ArgRef:
    """A list or dict the caller passed, returned as it is: each call hands back the
    caller's own object at `path` (the argument's index or keyword, then the keys down
    to it), after its writes, as eager Python returns that very object; `contents` the
    template of what it holds."""

    __slots__ = ("path", "contents")

    def __init__(self, path, contents):
        self.path, self.contents = path, contents


class WithWrites:
    """The returned structure `main`, and the lists and dicts passed in that the program
    changed: (path, template of the final contents) each, the path an argument index
    (or keyword) then the keys down to the container; after each run the caller's own
    container is given those contents (jit.cache.apply_writes), as eager Python
    changes it in place."""

    __slots__ = ("main", "writes", "attrs", "refs", "ext")

    def __init__(self, main, writes, attrs=(), refs=False, ext=()):
        # attrs: (weakref to object, attribute, template) of `obj.attr = x` statements;
        # refs: main holds an ArgRef (the caller's object is put in its place);
        # ext: (list or dict from outside, template of its final contents) of those the
        # program changes (a global's, a closure's, an attribute's)
        self.main, self.writes, self.attrs = main, writes, list(attrs)
        self.refs, self.ext = refs, list(ext)


def _plain(x) -> bool:
    """x holds no graph value (at any depth): it means the same at every call."""
    if isinstance(x, (GraphTensor, DynamicList, RuntimeString, LocalFunction, Switch)):
        return False
    if type(x) in (list, tuple):
        return all(_plain(v) for v in x)
    if type(x) is dict:
        return all(_plain(v) for v in x.values())
    return True


def _template(x, results: list, ctx: GraphContext, loc=None, external=None, passed=None,
              written=()):
    """passed: id -> path of the lists and dicts the caller passed (returned as ArgRef);
    written: ids of the lists and dicts from outside the program changes (returned
    themselves, their contents set after each run)."""
    if external and type(x) in (list, dict, tuple) and id(x) in external and (
            _plain(x) or id(x) in written):
        return Same(x)      # the program cannot change it, or its contents are set
    if passed and type(x) in (list, dict) and id(x) in passed:
        sub = (lambda v: _template(v, results, ctx, loc, external, passed, written))
        inner = {k: sub(v) for k, v in x.items()} if type(x) is dict else [sub(v) for v in x]
        return ArgRef(passed[id(x)], inner)
    if isinstance(x, GraphTensor):
        results.append(ctx.lift(x.value))
        return Out(len(results) - 1, x.weak, x.dtype.kind)
    if isinstance(x, DynamicList):
        s = x.stacked(0)
        results.append(ctx.lift(s.value))
        return Out(len(results) - 1, False, s.dtype.kind, is_list=True)
    if isinstance(x, (LocalFunction, Switch)):
        raise UnsupportedSyntaxError(
            "the compiled function returns a function "
            + ("defined inside it" if isinstance(x, LocalFunction) else
               "chosen by a tensor value") + "; graph mode returns tensors, numbers and "
            "tuples, lists and dicts of them", loc=loc,
            hint="call the function inside and return its result")
    if isinstance(x, RuntimeString):
        # str(x), f"{x}"...: its tensors are results, the text is made after each run
        inputs: list = []
        tree = encode(x, inputs)
        first = len(results)
        for v in inputs:
            results.append(ctx.lift(v.value) if isinstance(v, GraphTensor) else
                           ctx.value_of(v))
        return TextOut(tree, first, [v.dtype for v in inputs])
    if isinstance(x, tuple):
        return tuple(_template(v, results, ctx, loc, external, passed, written) for v in x)
    if isinstance(x, list):
        return [_template(v, results, ctx, loc, external, passed, written) for v in x]
    if isinstance(x, dict):
        return {k: _template(v, results, ctx, loc, external, passed, written)
                for k, v in x.items()}
    return x


def contents_key(x):
    """What a list or dict from outside holds, to compare at a later call (a graph built
    from these contents is used only while they are the same): numbers, strings and
    None by type and value, tensors by identity and data, other objects by identity."""
    if type(x) in (list, tuple):
        return (type(x).__name__, tuple(contents_key(v) for v in x))
    if type(x) is dict:
        return ("dict", tuple((contents_key(k), contents_key(v)) for k, v in x.items()))
    if x is None or type(x) in (bool, int, float, str):
        return (type(x).__name__, x)
    data = getattr(x, "_data", None) if isinstance(x, Tensor) else None
    return ("id", id(x), id(data))


def _param_name(path: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in path).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    return out or "arg"
