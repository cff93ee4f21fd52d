"""Bad inputs to operators give clear errors of the builtin classes MindSpore raises, in
both modes, with the user's line in graph mode; never a KeyError, AttributeError or
AssertionError from inside graphjit."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


def X(*shape, dtype=np.float32):
    return ms.Tensor(np.ones(shape, dtype))


def test_wrong_dtype_name():
    with pytest.raises(TypeError, match="unknown dtype name 'flot32'.*Did you mean 'float32'"):
        ms.Tensor(1, dtype="flot32")
    with pytest.raises(TypeError, match="'float33'"):
        X(2).astype("float33")
    with pytest.raises(TypeError, match="'xx'"):
        ops.ones((2,), "xx")
    with pytest.raises(TypeError, match="got None"):
        ops.cast(X(2), None)


def matmul_mismatch(x, y):
    h = x * 2
    return ops.matmul(h, y)


def reshape_impossible(x):
    return x.reshape(4, 2)


class TwoInputs(nn.Cell):
    def construct(self, x, y):
        return x + y


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["eager", "graph"])
def test_matmul_shape_mismatch(mode):
    ms.set_context(mode=mode)
    fn = matmul_mismatch if mode == ms.PYNATIVE_MODE else ms.jit(matmul_mismatch)
    with pytest.raises(ValueError, match=r"MatMul: shapes f32\[2,3\] and f32\[2,3\] do not "
                                         r"fit: the contracted dims are 3 and 2") as info:
        fn(X(2, 3), X(2, 3))
    assert "Fix: " in str(info.value)
    if mode == ms.GRAPH_MODE:
        assert info.value.loc is not None and "ops.matmul(h, y)" in str(info.value)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["eager", "graph"])
def test_reshape_to_an_impossible_shape(mode):
    ms.set_context(mode=mode)
    fn = reshape_impossible if mode == ms.PYNATIVE_MODE else ms.jit(reshape_impossible)
    with pytest.raises(ValueError, match=r"cannot reshape f32\[2,3\] \(6 elements\) to "
                                         r"\(4, 2\) \(8 elements\)") as info:
        fn(X(2, 3))
    assert "must hold 6 elements" in str(info.value)
    if mode == ms.GRAPH_MODE:
        assert "x.reshape(4, 2)" in str(info.value)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["eager", "graph"])
@pytest.mark.parametrize("args,kwargs,message", [
    ((1,), {}, "missing"),
    ((1, 2, 3), {}, "positional argument"),
    ((1,), {"z": 2}, "unexpected keyword argument 'z'"),
], ids=["too-few", "too-many", "bad-keyword"])
def test_cell_called_with_the_wrong_arguments(mode, args, kwargs, message):
    ms.set_context(mode=mode)
    tensors = [X(2) for _ in args]
    with pytest.raises(TypeError, match=message):
        TwoInputs()(*tensors, **{k: X(2) for k in kwargs})


# Calls with bad arguments, eager: each must raise one of the builtin error classes a user
# expects (TypeError, ValueError and subclasses), never an internal one.
BAD_CALLS = {
    "sum axis str": lambda: ops.sum(X(2, 3), "a"),
    "sum axis float": lambda: ops.sum(X(2, 3), 1.5),
    "sum axis out of range": lambda: ops.sum(X(2, 3), 5),
    "mean axis twice": lambda: ops.mean(X(2, 3), (1, -1)),
    "sum axis tensor": lambda: ops.sum(X(2, 3), X(1, dtype=np.int64)),
    "reshape str": lambda: ops.reshape(X(2, 3), "ab"),
    "reshape None": lambda: ops.reshape(X(2, 3), None),
    "reshape -2": lambda: ops.reshape(X(2, 3), (-2, 3)),
    "reshape two -1": lambda: X(2, 3).reshape(-1, -1),
    "transpose repeated": lambda: ops.transpose(X(2, 3), (0, 0)),
    "transpose out of range": lambda: ops.transpose(X(2, 3), (0, 5)),
    "expand out of range": lambda: ops.expand_dims(X(2, 3), 5),
    "expand str": lambda: ops.expand_dims(X(2, 3), "0"),
    "squeeze size 3": lambda: ops.squeeze(X(2, 3), 1),
    "concat empty": lambda: ops.concat([]),
    "concat one tensor": lambda: ops.concat(X(2, 3)),
    "concat ranks": lambda: ops.concat([X(2, 3), X(3)]),
    "stack shapes": lambda: ops.stack([X(2, 3), X(3, 2)]),
    "add string": lambda: ops.add(X(2), "a"),
    "add None": lambda: ops.add(X(2), None),
    "add no broadcast": lambda: X(2, 3) + X(4),
    "matmul 0-d": lambda: ops.matmul(X(2, 3), X()),
    "matmul bool": lambda: ops.matmul(X(2, 2, dtype=bool), X(2, 2, dtype=bool)),
    "zeros negative": lambda: ops.zeros((-1, 2)),
    "zeros str": lambda: ops.zeros("ab"),
    "full tensor value": lambda: ops.full((2,), X(1)),
    "softmax axis": lambda: ops.softmax(X(2, 3), 3),
    "argmax axis": lambda: ops.argmax(X(2, 3), 4),
    "argmax tuple axis": lambda: ops.argmax(X(2, 3), (0, 1)),
    "gather float indices": lambda: ops.gather(X(2, 3), X(2), 0),
    "index float": lambda: X(2, 3)[1.5],
    "index str": lambda: X(2, 3)["a"],
    "index two ellipses": lambda: X(2, 3)[..., ...],
    "slice step 0": lambda: X(4)[::0],
    "tensor from str": lambda: ms.Tensor("abc"),
    "tensor ragged": lambda: ms.Tensor([[1, 2], [3]]),
    "tensor complex": lambda: ms.Tensor(np.ones(2, complex)),
    "tile str": lambda: ops.tile(X(2), "a"),
    "broadcast_to": lambda: ops.broadcast_to(X(2, 3), (3, 3)),
    "one_hot floats": lambda: ops.one_hot(X(3), 3),
    "split sections": lambda: ops.split(X(2, 3), [1, 1], 1),
    "split size 0": lambda: ops.split(X(2, 3), 0, 1),
    "clamp without bounds": lambda: ops.clamp(X(2)),
    "cumsum axis": lambda: ops.cumsum(X(2, 3), 2),
    "cumsum axis None": lambda: ops.cumsum(X(2, 3), None),
    "flatten range": lambda: ops.flatten(X(2, 3, 4), start_dim=2, end_dim=1),
    "flatten order": lambda: ops.flatten(X(2, 3), "F"),
    "div rounding": lambda: ops.div(X(2), X(2), rounding_mode="up"),
    "amax where without initial": lambda: ops.amax(X(2), where=X(2, dtype=bool)),
    "neg bool": lambda: -X(2, dtype=bool),
    "invert float": lambda: ~X(2),
    "bool - bool": lambda: X(2, dtype=bool) - X(2, dtype=bool),
    "len of 0-d": lambda: len(X()),
    "bool of many": lambda: bool(X(2)),
    "arange tensor": lambda: ops.arange(X(dtype=np.int64)),
    "gelu mode": lambda: ops.gelu(X(2), "fast"),
    "Split uneven": lambda: ops.Split(1, 2)(X(2, 3)),
    "set_seed negative": lambda: ms.set_seed(-1),
    "Dense init shape": lambda: nn.Dense(2, 3, weight_init=np.ones((2, 2))),
    "Dense input": lambda: nn.Dense(4, 3)(X(2, 3)),
    "register taken name": lambda: ops.register_op("Add"),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_calls_raise_clear_errors(name):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(Exception) as info:
        BAD_CALLS[name]()
    err = info.value
    assert isinstance(err, (TypeError, ValueError, NotImplementedError)) or (
        isinstance(err, IndexError) and name.startswith("index")), \
        f"{name}: {type(err).__name__}: {err}"
    assert not isinstance(err, (KeyError, AttributeError, AssertionError))
    assert str(err), f"{name}: an error without a message"


def index_out_of_range(x):
    return x[5]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["eager", "graph"])
def test_index_out_of_range_is_an_index_error(mode):
    ms.set_context(mode=mode)
    fn = index_out_of_range if mode == ms.PYNATIVE_MODE else ms.jit(index_out_of_range)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dim 0 of size 2"):
        fn(X(2, 3))
