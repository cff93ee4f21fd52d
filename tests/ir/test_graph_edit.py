"""Editing graphs: users as ordered sets, replace_all_uses_with, erase, rewrite, effects."""
import numpy as np
import pytest

from graphjit.ir import Graph, TensorType, dtypes as dt, register_op, verify
from graphjit.ir.builders import if_, loop
from graphjit.ir.errors import GraphVerificationError
from graphjit.ir.registry import EFFECTS, get_op

F32, BOOL = dt.float32, dt.bool_


def T(dtype, *shape):
    return TensorType(dtype, shape)


def _xy():
    g = Graph("f")
    x = g.add_param(T(F32, 3), "x")
    y = g.add_param(T(F32, 3), "y")
    return g, x, y


def test_users_are_an_ordered_set():
    g, x, y = _xy()
    a = g.apply("Add", x, x)
    b = g.apply("Mul", y, x)
    assert list(x.users) == [a.producer, b.producer]      # Add(x, x) listed once
    assert list(y.users) == [b.producer]


def test_replace_all_uses_with_moves_users_and_results():
    g, x, y = _xy()
    a = g.apply("Neg", x)
    b = g.apply("Add", a, a)
    g.set_results([a, b])
    g.replace_all_uses_with(a, y)
    assert b.producer.inputs == (y, y)
    assert g.results == [y, b]
    assert not a.users and b.producer in y.users
    verify(g)


def test_replace_all_uses_with_refuses_another_type_or_graph():
    g, x, y = _xy()
    s = g.apply("ReduceSum", x)
    n = g.apply("Neg", x)
    with pytest.raises(GraphVerificationError, match="types differ"):
        g.replace_all_uses_with(n, s)
    other = Graph("g")
    z = other.add_param(T(F32, 3), "z")
    with pytest.raises(GraphVerificationError, match="not a value of graph 'f'"):
        g.replace_all_uses_with(n, z)


def test_erase_node_refuses_a_used_node():
    g, x, y = _xy()
    a = g.apply("Neg", x)
    b = g.apply("Abs", a)
    g.set_results([y])
    with pytest.raises(GraphVerificationError, match="still read by Abs"):
        g.erase_node(a.producer)
    g.erase_node(b.producer)
    g.erase_node(a.producer)
    assert g.nodes == [] and not x.users
    g.set_results([g.apply("Neg", x)])
    with pytest.raises(GraphVerificationError, match="is a result"):
        g.erase_node(g.nodes[0])


def test_erase_nodes_takes_a_dead_chain_at_once():
    g, x, y = _xy()
    a = g.apply("Neg", x)
    b = g.apply("Abs", a)
    c = g.apply("Exp", y)
    g.set_results([c])
    with pytest.raises(GraphVerificationError, match="still read by Abs"):
        g.erase_nodes([a.producer])
    g.erase_nodes([b.producer, a.producer])
    assert [n.op for n in g.nodes] == ["Exp"] and not x.users
    verify(g)


def test_rewrite_node_keeps_position_and_outputs():
    g, x, y = _xy()
    two = g.const(np.float32(2))
    p = g.apply("Pow", x, two)
    r = g.apply("Neg", p)
    g.set_results([r])
    g.rewrite_node(p.producer, "Mul", (x, x))
    assert [n.op for n in g.nodes] == ["Const", "Mul", "Neg"]
    assert p.producer.op == "Mul" and r.producer.inputs == (p,)
    assert not two.users and p.producer in x.users
    verify(g)
    with pytest.raises(GraphVerificationError, match="instead of"):
        g.rewrite_node(p.producer, "ReduceSum", (x,))


def test_set_inputs_and_inserting_before():
    g, x, y = _xy()
    a = g.apply("Neg", x)
    g.set_results([a])
    with g.inserting_before(a.producer):
        b = g.apply("Abs", y)
    g.set_inputs(a.producer, (b,))
    assert [n.op for n in g.nodes] == ["Abs", "Neg"]
    assert not x.users and a.producer in b.users
    verify(g)


def test_truncate_keeps_users_right():
    g, x, y = _xy()
    g.apply("Neg", x)
    g.apply("Add", x, y)
    g.truncate(1)
    assert [u.op for u in x.users] == ["Neg"] and not y.users


def test_remove_param_renumbers():
    g, x, y = _xy()
    z = g.add_param(T(F32, 3), "z")
    g.set_results([g.apply("Neg", z)])
    g.remove_param(y)
    assert g.params == [x, z] and z.index == 1
    with pytest.raises(GraphVerificationError, match="still read"):
        g.remove_param(z)


def test_effects_are_declared_on_the_op():
    assert get_op("Print").effects == "io"
    assert {get_op(n).effects for n in ("Assert", "Check", "CheckBound", "CheckNonZero")} \
        == {"check"}
    assert get_op("Add").effects is None
    with pytest.raises(ValueError, match="unknown effects value"):
        register_op("BadEffects", ("x",), infer=lambda ts, a: ts[0], effects="sometimes")
    assert set(EFFECTS) >= {"io", "check", "read", "write", "random"}


def test_if_and_loop_have_the_effects_of_their_bodies():
    g, x, y = _xy()
    c = g.add_param(T(BOOL), "c")

    def printing(b, v):
        b.add_node("Print", [v], {"template": ("v", 0)})
        return v
    (pure,) = if_(g, c, lambda b, v: b.apply("Neg", v), lambda b, v: v, [x])
    (loud,) = if_(g, c, printing, lambda b, v: v, [x])

    def body(b, i, carried, sliced, invariant):
        (h,) = carried
        b.add_node("Assert", [b.apply("IsFinite", b.apply("ReduceSum", h))], {})
        return True, [b.apply("Neg", h)], []
    (h,) = loop(g, body, trip_count=2, carried=[y])
    g.set_results([pure, loud, h])
    assert pure.producer.effects() == frozenset()
    assert loud.producer.effects() == {"io"}
    assert h.producer.effects() == {"check"}
    assert g.has_effects()
    assert not pure.producer.attrs["then_graph"].has_effects()
