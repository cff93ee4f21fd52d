"""Simplifies arithmetic where the result is bit for bit the same in floating point.

    %y = Mul(%x, 1.0)            ->   %x
    %y = Add(%x, -0.0)           ->   %x       (x + 0.0 stays: -0.0 + 0.0 is +0.0)
    %y = Sub(%x, 0.0)            ->   %x
    %y = RealDiv(%x, 1.0)        ->   %x
    %y = Pow(%x, 2.0)            ->   %y = Mul(%x, %x)
    %y = Pow(%x, 0.5)            ->   %y = Sqrt(%x)      (floats)
    %y = Pow(%n, 3)              ->   Mul(Mul(%n, %n), %n)  (integers: exact mod 2**bits)
    %y = Neg(Neg(%x))            ->   %x       (and Invert, LogicalNot)
    %y = Cast(%x) dtype=<x's>    ->   %x       (and Identity)
    %y = Select(true, %x, %z)    ->   %x       (a constant condition)
    %y = LogicalAnd(%b, true)    ->   %b       (LogicalOr(%b, false) too)

A rewrite applies only where the output type (dtype and shape) is unchanged, so
promotion and broadcasting are exactly as before. A result of the graph is replaced
only by a value that is an array of its own (x * 1 returned stays a new array, not an
alias of the input x that a caller could write through). The Pow rules match the Pow
kernel, which computes a scalar exponent 2 as x * x and 0.5 as sqrt(x) (numpy's
`**` does the same), so eager and graph mode agree. Other floating-point powers
stay Pow: the kernel forms x ** 3 in a wider dtype and rounds once, where
Mul(Mul(x, x), x) would round twice (graph mode's fused kernels call that kernel's
function, ir.defs.integer_pow).
(x * 1 and x + -0.0 return x itself where the hardware would quiet a signaling NaN;
numpy never makes one.)
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..ir.graph import Graph, Node, Value
from ..ir.registry import get_op
from .common import const_value, each_graph

__all__ = ["simplify_algebra", "simplify_node"]

_INT_POWERS = (2, 3, 4)       # integer exponents rewritten as products (exact for ints)


def simplify_algebra(graph: Graph) -> Graph:
    """Apply the rewrites of the module docstring everywhere in the graph."""
    def run(g: Graph) -> None:
        for node in list(g.nodes):
            if node.graph is g and any(o.users or _is_result(g, o) for o in node.outputs):
                simplify_node(g, node)
    each_graph(graph, run)
    return graph


def _is_result(g: Graph, v: Value) -> bool:
    return any(r is v for r in g.results)


def simplify_node(g: Graph, node: Node) -> bool:
    """Rewrite one node if a rule applies; returns whether it did. A node replaced by
    one of its inputs is left unused (eliminate_dead_values removes it)."""
    rule = _RULES.get(node.op)
    if rule is None or len(node.outputs) != 1:
        return False
    out = node.outputs[0]
    same = rule(g, node)
    if same is None:
        return False
    if same is out:          # rewritten in place
        return True
    if same.type != out.type:
        return False
    if _is_result(g, out) and (_is_result(g, same) or not _fresh(same)):
        # returned, it must not share its array with an input or another result, as
        # it does not in eager mode (a caller could write through one into the other)
        return False
    g.replace_all_uses_with(out, same)
    return True


# ops whose kernels may return their input or a view of it
_MAY_ALIAS = frozenset({"Identity", "Cast", "If", "Loop"})


def _fresh(v: Value) -> bool:
    """v is an array of its own: made by a node whose kernel returns a new array (or
    a read-only constant), not a parameter or a possible view of one."""
    p = v.producer
    if p is None or p.op in _MAY_ALIAS:
        return False
    return p.op == "Const" or get_op(p.op).family in ("elementwise", "reduction")


def _all_equal(v: Value, x) -> bool:
    a = const_value(v)
    if a is None or a.size == 0:
        return False
    if a.size == 1:
        return a.reshape(-1)[0].item() == x
    return bool(np.all(a == x))


def _all_bits(v: Value, x) -> bool:
    """Every element of the constant v has exactly the bits of x in v's dtype (tells
    -0.0 from 0.0)."""
    a = const_value(v)
    if a is None or a.size == 0:
        return False
    want = np.asarray(x, dtype=a.dtype).tobytes()
    if a.size == 1:
        return a.tobytes() == want
    got = np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.size, -1)
    return bool(np.all(got == np.frombuffer(want, np.uint8)))


def _zero_for_add(v: Value) -> bool:
    """x + v == x for every x: integer or bool zero, or floating -0.0."""
    a = const_value(v)
    if a is None:
        return False
    if a.dtype.kind == "f":
        return _all_bits(v, -0.0)
    return _all_equal(v, 0)


def _zero_for_sub(v: Value) -> bool:
    """x - v == x for every x: integer zero, or floating +0.0."""
    a = const_value(v)
    if a is None or a.dtype.kind == "b":
        return False
    if a.dtype.kind == "f":
        return _all_bits(v, 0.0)
    return _all_equal(v, 0)


def _same_dtype(node: Node) -> bool:
    """Every input already has the output's dtype (the kernel casts nothing)."""
    d = node.outputs[0].type.dtype
    return all(v.type.dtype is d for v in node.inputs)


def _add(g, node) -> Optional[Value]:
    if not _same_dtype(node):
        return None
    x, y = node.inputs
    if _zero_for_add(y):
        return x
    if _zero_for_add(x):
        return y
    return None


def _sub(g, node) -> Optional[Value]:
    x, y = node.inputs
    return x if _same_dtype(node) and _zero_for_sub(y) else None


def _mul(g, node) -> Optional[Value]:
    if not _same_dtype(node):
        return None
    x, y = node.inputs
    if _all_equal(y, 1):
        return x
    if _all_equal(x, 1):
        return y
    return None


def _div(g, node) -> Optional[Value]:
    x, y = node.inputs
    return x if _same_dtype(node) and _all_equal(y, 1) else None


def _pow(g, node) -> Optional[Value]:
    x, y = node.inputs
    out = node.outputs[0]
    a = const_value(y)
    if a is None or a.size != 1 or not _same_dtype(node) or x.type != out.type:
        return None
    e = a.reshape(-1)[0].item()
    if e == 2:
        g.rewrite_node(node, "Mul", (x, x))
        return out
    if e == 0.5 and x.type.dtype.is_floating:
        g.rewrite_node(node, "Sqrt", (x,))
        return out
    if x.type.dtype.is_integer and e in _INT_POWERS:
        square = g.add_node("Mul", (x, x), loc=node.loc, before=node).outputs[0]
        g.rewrite_node(node, "Mul", (square, square) if e == 4 else (square, x))
        return out
    return None


def _involution(op):
    """f(f(x)) == x for f = op: negation, bitwise not, logical not of a bool."""
    def rule(g, node) -> Optional[Value]:
        p = node.inputs[0].producer
        if p is not None and p.op == op:
            return p.inputs[0]
        return None
    return rule


def _identity(g, node) -> Optional[Value]:
    return node.inputs[0]


def _cast(g, node) -> Optional[Value]:
    x = node.inputs[0]
    return x if x.type.dtype is node.outputs[0].type.dtype else None


def _select(g, node) -> Optional[Value]:
    c, x, y = node.inputs
    if _all_equal(c, True):
        return x
    if _all_equal(c, False):
        return y
    return y if x is y else None


def _logical(identity):
    """LogicalAnd(b, true) is b; LogicalOr(b, false) is b (b bool, shapes kept)."""
    def rule(g, node) -> Optional[Value]:
        x, y = node.inputs
        if not _same_dtype(node):
            return None
        if _all_equal(y, identity):
            return x
        if _all_equal(x, identity):
            return y
        return x if x is y else None
    return rule


_RULES = {
    "Add": _add, "Sub": _sub, "Mul": _mul, "RealDiv": _div, "Pow": _pow,
    "Neg": _involution("Neg"), "Invert": _involution("Invert"),
    "LogicalNot": _involution("LogicalNot"),
    "Identity": _identity, "Cast": _cast, "Select": _select,
    "LogicalAnd": _logical(True), "LogicalOr": _logical(False),
}
