"""ShapeJoin (ir/join.py): the eight rows of MindSpore's table (seed 002, "ShapeJoin
Rules"), the error it raises, and properties over random shapes."""
import pytest
from hypothesis import given, settings, strategies as st

import graphjit as ms
from graphjit.ir import TensorType, dtypes as D
from graphjit.ir.join import join_shapes, join_types

U = None            # unknown_shape: one dim of unknown length
UNKNOWN_RANK = None  # a shape of None: unknown_rank
FAIL = "fail"

# The table of the seed, row by row: shape1, shape2, join result.
SEED_TABLE = [
    ((3, 4), (3, 4), (3, 4)),
    ((3, 5), (3, 4), FAIL),
    ((3, 4), (3, 4, 1), FAIL),
    ((3, U), (3, 4), (3, U)),
    (UNKNOWN_RANK, (3, 4), UNKNOWN_RANK),
    ((3, U), (3, U, U), UNKNOWN_RANK),
    ((3, U), (4, U, U), FAIL),
    ((3, U), (3, 4, U), FAIL),
]


@pytest.mark.parametrize("s1,s2,expected", SEED_TABLE)
def test_seed_table(s1, s2, expected):
    if expected == FAIL:
        with pytest.raises(ms.ShapeJoinError):
            join_shapes(s1, s2)
        with pytest.raises(ms.ShapeJoinError):
            join_shapes(s2, s1)
    else:
        assert join_shapes(s1, s2) == expected
        assert join_shapes(s2, s1) == expected


def test_failed_join_message_is_mindspores():
    with pytest.raises(ValueError) as info:          # ShapeJoinError is a ValueError
        join_shapes((), (2,))
    assert isinstance(info.value, ms.ShapeJoinError)
    assert "Shape Join Failed: shape1 = (), shape2 = (2)." in str(info.value)
    assert "Cannot join the return values of different branches" in str(info.value)


@pytest.mark.parametrize("s1,s2,clash", [
    ((3, 5), (3, 4), "dim 1 is 5 on one side and 4"),
    ((3, U), (4, U, U), "dim 0 is 3 against 4"),
    ((3, U), (3, 4, U), "dim 1 is unknown against 4"),
    ((3, 4), (3, 4, 1), "dim 2 of the longer shape is 1"),
])
def test_failed_join_detail_names_the_dims(s1, s2, clash):
    with pytest.raises(ms.ShapeJoinError) as info:
        join_shapes(s1, s2)
    assert clash in info.value.detail
    assert clash in str(info.value)


def test_join_types():
    a = TensorType(D.float32, (3, 4))
    assert join_types(a, TensorType(D.float32, (3, None))) == TensorType(D.float32, (3, None))
    assert join_types(a, a) is a
    with pytest.raises(ms.TypeJoinError, match="dtype1 = float32, dtype2 = int32"):
        join_types(a, TensorType(D.int32, (3, 4)))


# -- properties ----------------------------------------------------------------------------
dims = st.one_of(st.none(), st.integers(0, 4))
shapes = st.one_of(st.none(), st.lists(dims, max_size=4).map(tuple))


def _join(a, b):
    try:
        return join_shapes(a, b)
    except ms.ShapeJoinError as e:
        return ("error", e)


@settings(max_examples=100, deadline=None)
@given(shapes, shapes)
def test_join_is_symmetric(a, b):
    r1, r2 = _join(a, b), _join(b, a)
    if isinstance(r1, tuple) and r1 and r1[0] == "error":
        assert isinstance(r2, tuple) and r2 and r2[0] == "error"
    else:
        assert r1 == r2


@settings(max_examples=100, deadline=None)
@given(shapes)
def test_join_is_idempotent(a):
    assert join_shapes(a, a) == a


@settings(max_examples=100, deadline=None)
@given(shapes)
def test_unknown_rank_absorbs(a):
    assert join_shapes(None, a) is None
    assert join_shapes(a, None) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(dims, max_size=4).map(tuple), st.lists(dims, max_size=4).map(tuple))
def test_join_result_covers_both_sides(a, b):
    """A successful join never invents a dim: every known dim of the result is known
    and equal on both sides, and a result of known rank has both sides' rank."""
    r = _join(a, b)
    if isinstance(r, tuple) and r and r[0] == "error":
        err = r[1]
        assert err.detail and "dim" in err.detail
        assert err.shapes == (a, b)
        return
    if r is None:
        assert len(a) != len(b)
        return
    assert len(r) == len(a) == len(b)
    for x, y, z in zip(a, b, r):
        if z is not None:
            assert x == y == z
        else:
            assert x is None or y is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple), st.data())
def test_same_rank_clash_names_the_dim(a, data):
    i = data.draw(st.integers(0, len(a) - 1))
    b = a[:i] + (a[i] + 1,) + a[i + 1:]
    with pytest.raises(ms.ShapeJoinError) as info:
        join_shapes(a, b)
    assert f"dim {i} is {a[i]} on one side and {a[i] + 1}" in info.value.detail
