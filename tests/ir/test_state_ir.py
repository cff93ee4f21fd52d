"""State in the IR: ref and state types, the state ops' kinds, the verifier's state
rules (one linear token chain per graph), printing and serialization."""
from __future__ import annotations

import io

import numpy as np
import pytest

from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, GraphVerificationError, ShapeInferenceError, TypeJoinError, verify
from graphjit.ir import dtypes as dt
from graphjit.ir.defs.state import Variable
from graphjit.ir.join import join_types
from graphjit.ir.registry import register_op
from graphjit.ir.serialize import load_model_file, save_graph
from graphjit.ir.types import STATE, TensorType, ref_type

F3 = TensorType(dt.float32, (3,))


def counter_graph():
    """w += x; return w (read after the update), the token."""
    g = Graph("step")
    x = g.add_param(F3, "x")
    w = g.add_param(ref_type(F3), "w")
    s = g.add_param(STATE, "state")
    s1 = g.apply("AssignAdd", w, x, s)
    v, s2 = g.apply("Load", w, s1)
    g.set_results([v, s2])
    return g


def test_types_print_and_compare_by_kind():
    assert str(ref_type(F3)) == "ref<f32[3]>" and str(STATE) == "state"
    assert ref_type(F3) != F3 and ref_type(F3).value_type() == F3
    with pytest.raises(TypeJoinError, match="Cannot join a ref"):
        join_types(ref_type(F3), F3)
    assert join_types(STATE, STATE) == STATE


def test_a_graph_with_state_prints_its_chain_and_runs():
    g = counter_graph()
    verify(g)
    assert str(g).splitlines() == [
        "graph step(%x: f32[3], %w: ref<f32[3]>, %state: state) {",
        "  %0: state = AssignAdd(%w, %x, %state)",
        "  %1: f32[3], %2: state = Load(%w, %0)",
        "  return %1, %2",
        "}"]
    var = Variable(np.zeros(3, np.float32))
    run = compile_graph(g)
    for k in (1, 2):
        out, _ = run(np.ones(3, np.float32), var, np.True_)
        assert out.tolist() == [k] * 3 and not out.flags.writeable


def test_refs_and_tokens_go_only_to_inputs_that_declare_them():
    g = Graph("g")
    x = g.add_param(F3, "x")
    w = g.add_param(ref_type(F3), "w")
    s = g.add_param(STATE, "state")
    with pytest.raises(ShapeInferenceError, match=r"'Add' input 0 \(x\) must be a tensor, got "
                                                  r"ref<f32\[3\]>"):
        g.apply("Add", w, x)
    with pytest.raises(ShapeInferenceError, match="input 0 .* must be a ref to a Parameter"):
        g.apply("Load", x, s)
    with pytest.raises(ShapeInferenceError, match="must be the state token"):
        g.apply("Load", w, x)
    with pytest.raises(ShapeInferenceError, match=r"If. input 0 \(condition\) must be a tensor"):
        g.apply("If", s, then_graph=Graph("t"), else_graph=Graph("e"))


def test_register_op_reads_resource_annotations_as_the_seed_writes_them():
    op = register_op("ToyResourceOp", ("var: resource", "lr", "state: state"),
                     infer=lambda ts, a: STATE, replace=True)
    assert op.inputs == ("var", "lr", "state")
    assert op.input_kinds == ("ref", "tensor", "state")
    with pytest.raises(ValueError, match="unknown kind 'pointer'"):
        register_op("ToyBadKind", ("var: pointer",), replace=True)


@pytest.mark.parametrize("breakage", ["token twice", "no token returned", "two tokens",
                                      "ref returned", "ref sliced"])
def test_the_verifier_enforces_one_linear_chain(breakage):
    g = Graph("g")
    x = g.add_param(F3, "x")
    w = g.add_param(ref_type(F3), "w")
    s = g.add_param(STATE, "state")
    if breakage == "token twice":
        a = g.apply("Assign", w, x, s)
        b = g.apply("Assign", w, x, s)         # a second op on the same token: unordered
        g.set_results([a, b])
        match = "used twice"
    elif breakage == "no token returned":
        g.apply("Assign", w, x, s)             # the update could be dropped
        g.set_results([x])
        match = "returns 0 tokens"
    elif breakage == "two tokens":
        g.add_param(STATE, "other")
        g.set_results([s])
        match = "2 state-token parameters"
    elif breakage == "ref returned":
        g.set_results([w, s])
        match = "returns a ref"
    else:
        body = Graph("body")
        body.add_param(TensorType(dt.int64, ()), "i")
        p = body.add_param(ref_type(TensorType(dt.float32, (1,))), "w")
        body.set_results([body.const(True)])
        n = g.const(np.asarray(3, np.int64))
        c = g.const(True)
        g.set_results([s])
        with pytest.raises(GraphVerificationError, match="only tensors can be sliced"):
            g.apply("Loop", n, c, w, body=body, input_map=((2, 1, 0),), output_map=(),
                    back_edges=(), current_iteration=0, condition_result=0)
        return
    with pytest.raises(GraphVerificationError, match=match):
        verify(g)


def test_a_loop_carries_the_token_on_a_back_edge():
    body = Graph("body")
    body.add_param(TensorType(dt.int64, ()), "i")
    t = body.add_param(STATE, "state")
    w = body.add_param(ref_type(F3), "w")
    x = body.add_param(F3, "x")
    t1 = body.apply("AssignAdd", w, x, t)
    body.set_results([body.const(True), t1])
    g = Graph("g")
    gx = g.add_param(F3, "x")
    gw = g.add_param(ref_type(F3), "w")
    gs = g.add_param(STATE, "state")
    out = g.apply("Loop", g.const(np.asarray(4, np.int64)), g.const(True), gs, gw, gx,
                  body=body, input_map=((2, 1, None), (3, 2, None), (4, 3, None)),
                  output_map=((1, None),), back_edges=((1, 1),), current_iteration=0,
                  condition_result=0)
    g.set_results([out])
    verify(g)
    var = Variable(np.zeros(3, np.float32))
    compile_graph(g)(np.full(3, 0.5, np.float32), var, np.True_)
    assert var._data.tolist() == [2.0] * 3


def test_state_round_trips_through_a_model_file():
    g = counter_graph()
    buf = io.BytesIO()
    save_graph(g, buf, state=[("w", np.arange(3, dtype=np.float32))])
    buf.seek(0)
    loaded = load_model_file(buf)
    assert str(loaded.graph) == str(g)
    assert loaded.state[0][0] == "w" and loaded.state[0][1].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="reads 1 Parameter"):
        save_graph(g, io.BytesIO())
    with pytest.raises(ValueError, match="reads it as ref<f32\\[3\\]>"):
        save_graph(g, io.BytesIO(), state=[("w", np.zeros(4, np.float32))])
