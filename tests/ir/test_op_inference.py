"""Shape and dtype inference of every built-in op on graphs built directly, with
unknown dims (None) and unknown ranks (a shape of None); and the agreement of each
kernel with its inference function, for every dtype."""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from graphjit.ir import Graph, TensorType, dtypes as D, format_shape
from graphjit.ir.errors import ShapeInferenceError
from graphjit.ir.defs.elementwise import BINARY, COMPARISONS, UNARY
from graphjit.ir.defs.shape import encode_index
from graphjit.ir.registry import get_op

DT = {d.short: d for d in D.ALL_DTYPES}
U = None       # an unknown dim
RANK = "*"     # an unknown rank


def t(spec):
    """'f32[?,3]' -> TensorType; '[*]' is an unknown rank."""
    dtype, rest = spec.split("[")
    body = rest.rstrip("]")
    if body == "*":
        return TensorType(DT[dtype], None)
    dims = [] if not body else [None if d == "?" else int(d) for d in body.split(",")]
    return TensorType(DT[dtype], tuple(dims))


def infer(op, inputs, **attrs):
    g = Graph("g")
    params = [g.add_param(t(s)) for s in inputs]
    out = g.apply(op, *params, **attrs)
    return out.type if not isinstance(out, tuple) else tuple(o.type for o in out)


# op, input types, attrs, expected output type (as text)
CASES = [
    # broadcasting elementwise ops, unknown dims and ranks
    ("Add", ["f32[?,3]", "f32[3]"], {}, "f32[?,3]"),
    ("Add", ["f32[?,1]", "f32[1,4]"], {}, "f32[?,4]"),
    ("Add", ["f32[?]", "f32[*]"], {}, "f32[*]"),
    ("Add", ["f32[]", "f32[?,?]"], {}, "f32[?,?]"),
    ("Sub", ["i32[2,3]", "f16[3]"], {}, "f16[2,3]"),
    ("Mul", ["u8[4]", "i8[4]"], {}, "i16[4]"),
    ("Mul", ["bool[4]", "bool[4]"], {}, "bool[4]"),
    ("RealDiv", ["i32[?]", "i64[?]"], {}, "f32[?]"),
    ("RealDiv", ["f16[?]", "i64[?]"], {}, "f16[?]"),
    ("FloorDiv", ["i8[?,2]", "i8[2]"], {}, "i8[?,2]"),
    ("FloorMod", ["f64[*]", "f32[]"], {}, "f64[*]"),
    ("TruncateDiv", ["i32[3]", "i32[3]"], {}, "i32[3]"),
    ("Mod", ["f32[3]", "f32[3]"], {}, "f32[3]"),
    ("Pow", ["i32[?]", "f32[]"], {}, "f32[?]"),
    ("Maximum", ["bool[2]", "i8[?]"], {}, "i8[2]"),
    ("Minimum", ["f32[?,1]", "f64[1,?]"], {}, "f64[?,?]"),
    ("Less", ["f32[?,3]", "f32[]"], {}, "bool[?,3]"),
    ("Equal", ["i32[*]", "f32[2]"], {}, "bool[*]"),
    ("LogicalAnd", ["i32[?]", "bool[?]"], {}, "bool[?]"),
    ("BitwiseOr", ["i32[?]", "i8[1]"], {}, "i32[?]"),
    ("Neg", ["i8[?]"], {}, "i8[?]"),
    ("Abs", ["u8[*]"], {}, "u8[*]"),
    ("Exp", ["i32[?,2]"], {}, "f32[?,2]"),
    ("Log", ["bool[3]"], {}, "f32[3]"),
    ("Sqrt", ["f64[?]"], {}, "f64[?]"),
    ("Sigmoid", ["f16[*]"], {}, "f16[*]"),
    ("Tanh", ["i64[]"], {}, "f32[]"),
    ("ReLU", ["i8[?]"], {}, "i8[?]"),
    ("LogicalNot", ["f32[?]"], {}, "bool[?]"),
    ("IsNan", ["f16[2,?]"], {}, "bool[2,?]"),
    ("Sign", ["bool[2]"], {}, "bool[2]"),
    ("Invert", ["u8[?]"], {}, "u8[?]"),
    ("Select", ["bool[?,1]", "f32[3]", "f32[]"], {}, "f32[?,3]"),
    ("Select", ["bool[*]", "i8[3]", "i8[3]"], {}, "i8[*]"),
    ("Cast", ["f32[*]"], {"dtype": D.int8}, "i8[*]"),
    ("Cast", ["f32[?,2]"], {"dtype": D.bool_}, "bool[?,2]"),
    # reductions
    ("ReduceSum", ["f32[?,3]"], {"axis": 1}, "f32[?]"),
    ("ReduceSum", ["f32[?,3]"], {"axis": 0, "keep_dims": True}, "f32[1,3]"),
    ("ReduceSum", ["f32[?,3]"], {"axis": None}, "f32[]"),
    ("ReduceSum", ["f32[*]"], {"axis": -1, "keep_dims": True}, "f32[*]"),
    ("ReduceSum", ["i32[?,3]"], {"axis": -1}, "i64[?]"),
    ("ReduceSum", ["bool[?,3]"], {}, "i64[]"),
    ("ReduceSum", ["f16[2,3,4]"], {"axis": (0, -1)}, "f16[3]"),
    ("ReduceProd", ["u8[?]"], {"axis": 0}, "i64[]"),
    ("ReduceMean", ["i8[?,3]"], {"axis": (0, 1)}, "f32[]"),
    ("ReduceMean", ["f64[?,3]"], {"axis": 1, "keep_dims": True}, "f64[?,1]"),
    ("ReduceMax", ["u8[?,?]"], {"axis": 0}, "u8[?]"),
    ("ReduceMin", ["bool[2,?]"], {"axis": -1, "keep_dims": True}, "bool[2,1]"),
    ("ReduceMax", ["f32[0,3]"], {"axis": 1}, "f32[0]"),
    ("ReduceSum", ["f32[0,3]"], {"axis": 0}, "f32[3]"),
    ("ArgMax", ["f32[?,3]"], {"axis": -1}, "i64[?]"),
    ("ArgMax", ["f32[?,3]"], {}, "i64[]"),
    ("ArgMax", ["f32[?,3]"], {"keep_dims": True}, "i64[1,1]"),
    ("ArgMax", ["f32[*]"], {"axis": 0}, "i64[*]"),
    ("ArgMin", ["i8[4,?]"], {"axis": 0, "output_type": D.int32}, "i32[?]"),
    ("CumSum", ["bool[?,3]"], {"axis": 1}, "i64[?,3]"),
    ("CumProd", ["i32[*]"], {"axis": 0}, "i32[*]"),
    # matrix products
    ("MatMul", ["f32[?,3]", "f32[3,4]"], {}, "f32[?,4]"),
    ("MatMul", ["f32[2,?,3]", "f32[3,4]"], {}, "f32[2,?,4]"),
    ("MatMul", ["f32[5,2,3]", "f32[1,3,4]"], {}, "f32[5,2,4]"),
    ("MatMul", ["f32[3]", "f32[3]"], {}, "f32[]"),
    ("MatMul", ["f32[3]", "f32[?,3,4]"], {}, "f32[?,4]"),
    ("MatMul", ["f32[?,3]", "f32[?,4]"], {}, "f32[?,4]"),
    ("MatMul", ["f32[*]", "f32[3,4]"], {}, "f32[*]"),
    ("MatMul", ["i32[2,3]", "f16[3]"], {}, "f16[2]"),
    ("MatMul", ["f32[2,3]", "f32[4,3]"], {"transpose_b": True}, "f32[2,4]"),
    ("MatMul", ["f32[3,2]", "f32[3,4]"], {"transpose_a": True}, "f32[2,4]"),
    # shapes
    ("Reshape", ["f32[?,3]"], {"shape": (-1,)}, "f32[?]"),
    ("Reshape", ["f32[?,3]"], {"shape": (3, -1)}, "f32[3,?]"),
    ("Reshape", ["f32[?,2]"], {"shape": (4, 2)}, "f32[4,2]"),
    ("Reshape", ["f32[2,3]"], {"shape": (-1, 2)}, "f32[3,2]"),
    ("Reshape", ["f32[*]"], {"shape": (2, -1)}, "f32[2,?]"),
    ("Reshape", ["f32[2,3]"], {"shape": ()}, "error:cannot reshape"),
    ("Flatten", ["f32[?,2,3]"], {}, "f32[?,6]"),
    ("Flatten", ["f32[2,?,3]"], {}, "f32[2,?]"),
    ("Flatten", ["f32[2,3,4]"], {"start_dim": 0, "end_dim": 1}, "f32[6,4]"),
    ("Flatten", ["f32[*]"], {}, "f32[*]"),
    ("Flatten", ["f32[]"], {}, "f32[1]"),
    ("Transpose", ["f32[?,3,1]"], {"perm": (2, 0, 1)}, "f32[1,?,3]"),
    ("Transpose", ["f32[?,3,1]"], {"perm": (-1, 0, 1)}, "f32[1,?,3]"),
    ("Transpose", ["f32[?,3]"], {}, "f32[3,?]"),
    ("Transpose", ["f32[*]"], {"perm": (1, 0)}, "f32[*]"),
    ("ExpandDims", ["f32[?,3]"], {"axis": -1}, "f32[?,3,1]"),
    ("ExpandDims", ["f32[?,3]"], {"axis": 0}, "f32[1,?,3]"),
    ("ExpandDims", ["f32[]"], {"axis": -1}, "f32[1]"),
    ("ExpandDims", ["f32[*]"], {"axis": 0}, "f32[*]"),
    ("Squeeze", ["f32[1,?,3]"], {"axis": 0}, "f32[?,3]"),
    ("Squeeze", ["f32[?,3]"], {"axis": 0}, "f32[3]"),
    ("Squeeze", ["f32[1,3,1]"], {}, "f32[3]"),
    ("Squeeze", ["f32[1,?,3]"], {}, "f32[*]"),
    ("Squeeze", ["f32[1,3,1]"], {"axis": (0, -1)}, "f32[3]"),
    ("Concat", ["f32[?,3]", "f32[2,3]"], {"axis": 0}, "f32[?,3]"),
    ("Concat", ["f32[4,3]", "f32[2,3]"], {"axis": 0}, "f32[6,3]"),
    ("Concat", ["f32[?,3]", "f32[?,2]"], {"axis": -1}, "f32[?,5]"),
    ("Concat", ["f32[*]", "f32[2,3]"], {"axis": 0}, "f32[?,3]"),
    ("Concat", ["i32[2]", "f32[2]"], {"axis": 0}, "f32[4]"),
    ("Concat", ["f32[*]", "f32[*]"], {"axis": 0}, "f32[*]"),
    ("Stack", ["f32[?,3]", "f32[2,?]"], {"axis": 0}, "f32[2,2,3]"),
    ("Stack", ["f32[?,3]", "f32[?,3]", "f32[?,3]"], {"axis": -1}, "f32[?,3,3]"),
    ("Stack", ["f32[*]", "f32[2,3]"], {"axis": 1}, "f32[2,2,3]"),
    ("Stack", ["f32[*]", "f32[*]"], {"axis": 0}, "f32[*]"),
    ("Index", ["f32[?,3]"], {"index": encode_index(0)}, "f32[3]"),
    ("Index", ["f32[?,3]"], {"index": encode_index((slice(None, None, -1), 1))}, "f32[?]"),
    ("Index", ["f32[5,3]"], {"index": encode_index(slice(1, None, 2))}, "f32[2,3]"),
    ("Index", ["f32[?,3]"], {"index": encode_index((Ellipsis, None))}, "f32[?,3,1]"),
    ("Index", ["f32[?,3]"], {"index": encode_index((-1, -1))}, "f32[]"),
    ("Index", ["f32[*]"], {"index": encode_index(0)}, "f32[*]"),
    ("Gather", ["f32[?,3]", "i32[5]"], {"axis": 1}, "f32[?,5]"),
    ("Gather", ["f32[?,3]", "i64[2,2]"], {"axis": 0}, "f32[2,2,3]"),
    ("BroadcastTo", ["f32[?,1]"], {"shape": (2, 4)}, "f32[2,4]"),
    ("BroadcastTo", ["f32[*]"], {"shape": (2, 3)}, "f32[2,3]"),
    ("BroadcastTo", ["f32[3]"], {"shape": (2, -1)}, "f32[2,3]"),
    ("BroadcastTo", ["f32[?]"], {"shape": (2, -1)}, "f32[2,?]"),
    ("Tile", ["f32[?,3]"], {"multiples": (2, 2)}, "f32[?,6]"),
    ("Tile", ["f32[3]"], {"multiples": (2, 1)}, "f32[2,3]"),
    ("Shape", ["f32[?,3]"], {}, "i64[2]"),
    ("Shape", ["f32[*]"], {}, "i64[?]"),
    ("Fill", [], {"shape": (2, 3), "dtype": D.int8, "value": 1}, "i8[2,3]"),
    ("ZerosLike", ["f32[?,3]"], {}, "f32[?,3]"),
    ("OnesLike", ["f32[*]"], {"dtype": D.int32}, "i32[*]"),
    ("Range", [], {"limit": 5}, "i64[5]"),
    ("Range", [], {"start": 1.0, "limit": 2.0, "delta": 0.25, "dtype": D.float32}, "f32[4]"),
    ("Softmax", ["i32[?,3]"], {}, "f32[?,3]"),
    ("Softmax", ["f16[*]"], {"axis": 0}, "f16[*]"),
    ("LogSoftmax", ["f64[?,3]"], {"axis": 0}, "f64[?,3]"),
    ("OneHot", ["i64[?]"], {"depth": 4}, "f32[?,4]"),
    ("OneHot", ["i32[?,2]"], {"depth": 3, "axis": 0, "dtype": D.int64}, "i64[3,?,2]"),
    # convolution and pooling (NCHW)
    ("Conv2D", ["f32[?,3,8,8]", "f32[4,3,3,3]"], {"out_channel": 4, "kernel_size": (3, 3)},
     "f32[?,4,6,6]"),
    ("Conv2D", ["f32[2,3,?,7]", "f32[4,3,3,3]"], {"out_channel": 4, "kernel_size": (3, 3),
                                                   "pad_mode": "same", "stride": (2, 2)},
     "f32[2,4,?,4]"),
    ("Conv2D", ["f32[*]", "f32[4,3,3,3]"], {"out_channel": 4, "kernel_size": (3, 3)},
     "f32[?,4,?,?]"),
    ("Conv2D", ["f16[1,4,9,9]", "f16[4,1,3,3]"],
     {"out_channel": 4, "kernel_size": (3, 3), "pad_mode": "pad", "pad": (1, 1, 1, 1),
      "dilation": (2, 2), "group": 4}, "f16[1,4,7,7]"),
    ("Conv2D", ["f16[1,2,5,5]", "f32[?,?,?,?]"], {"out_channel": 3, "kernel_size": (2, 1)},
     "f32[1,3,4,5]"),
    ("MaxPool", ["f32[?,3,7,6]"], {"kernel_size": (2, 2), "strides": (2, 2)}, "f32[?,3,3,3]"),
    ("MaxPool", ["i32[3,7,6]"], {"kernel_size": (3, 3), "strides": (2, 2), "pad_mode": "pad",
                                 "pad": (1, 1, 1, 1), "ceil_mode": True}, "i32[3,4,4]"),
    ("MaxPool", ["u8[1,1,5,?]"], {"kernel_size": (3, 3), "strides": (2, 2), "pad_mode": "same"},
     "u8[1,1,3,?]"),
    ("AvgPool", ["f64[*]"], {"kernel_size": (2, 2)}, "f64[*]"),
    ("AvgPool", ["f16[2,2,6,6]"], {"kernel_size": (3, 3), "strides": (3, 3)}, "f16[2,2,2,2]"),
    ("GatherD", ["f32[?,4]", "i32[2,?]"], {"dim": 1}, "f32[2,?]"),
    ("GatherD", ["i8[*]", "i64[3,3]"], {"dim": 0}, "i8[3,3]"),
    ("BatchDot", ["f32[?,2,3]", "f32[?,3,5]"], {"axes": (2, 1)}, "f32[?,2,5]"),
    ("BatchDot", ["f32[3,4]", "f32[3,4]"], {"axes": (1, 1)}, "f32[3,1]"),
    ("BatchDot", ["i32[6,2,3,4]", "f16[6,5,4,8]"], {"axes": (3, 2)}, "f16[6,2,3,5,8]"),
    ("BatchDot", ["f32[*]", "f32[3,4]"], {"axes": (1, 1)}, "f32[*]"),
]

# op, input types, attrs, expected output types (ops with several outputs)
MULTI_CASES = [
    ("MaxPool", ["f32[?,3,7,6]"], {"kernel_size": (2, 2), "strides": (2, 2),
                                   "return_indices": True}, ["f32[?,3,3,3]", "i64[?,3,3,3]"]),
    ("BatchNorm", ["f32[?,3,?,?]", "f32[3]", "f32[3]", "f32[3]", "f32[3]"], {},
     ["f32[?,3,?,?]", "f32[3]", "f32[3]"]),
    ("BatchNorm", ["f16[2,3]", "f32[?]", "f32[?]", "f32[?]", "f32[?]"], {"is_training": True},
     ["f16[2,3]", "f32[3]", "f32[3]"]),
    ("BatchNorm", ["f32[*]", "f32[*]", "f32[*]", "f32[*]", "f32[*]"], {},
     ["f32[*]", "f32[?]", "f32[?]"]),
    ("LayerNorm", ["f32[?,3,4]", "f32[3,4]", "f32[3,4]"], {},
     ["f32[?,3,4]", "f32[?,1,1]", "f32[?,1,1]"]),
    ("LayerNorm", ["f64[2,?,4]", "f64[4]", "f64[?]"], {"begin_norm_axis": -1,
                                                       "begin_params_axis": -1},
     ["f64[2,?,4]", "f64[2,?,1]", "f64[2,?,1]"]),
    ("LayerNorm", ["f32[*]", "f32[4]", "f32[4]"], {}, ["f32[*]", "f32[*]", "f32[*]"]),
    ("Dropout", ["f16[?,4]"], {}, ["f16[?,4]", "f16[?,4]"]),
    ("TopK", ["f32[?,5]"], {"k": 2}, ["f32[?,2]", "i32[?,2]"]),
    ("TopK", ["i64[?,5]"], {"k": 3, "axis": 0}, ["i64[3,5]", "i32[3,5]"]),
    ("TopK", ["f32[*]"], {"k": 3}, ["f32[*]", "i32[*]"]),
    ("Sort", ["u8[?,3]"], {}, ["u8[?,3]", "i32[?,3]"]),
    ("Sort", ["f32[*]"], {"axis": 0, "descending": True}, ["f32[*]", "i32[*]"]),
    ("Unique", ["i64[2,?]"], {}, ["i64[?]", "i64[2,?]"]),
    ("Unique", ["f32[*]"], {}, ["f32[?]", "i32[*]"]),
]


@pytest.mark.parametrize("op,inputs,attrs,expected", MULTI_CASES,
                         ids=[f"{c[0]}-{'-'.join(c[1])}-{i}" for i, c in enumerate(MULTI_CASES)])
def test_inference_of_several_outputs(op, inputs, attrs, expected):
    assert infer(op, inputs, **attrs) == tuple(t(e) for e in expected)


@pytest.mark.parametrize("op,inputs,attrs,expected", CASES,
                         ids=[f"{c[0]}-{'-'.join(c[1])}-{i}" for i, c in enumerate(CASES)])
def test_inference(op, inputs, attrs, expected):
    if expected.startswith("error:"):
        with pytest.raises(ShapeInferenceError, match=expected[len("error:"):]):
            infer(op, inputs, **attrs)
        return
    assert infer(op, inputs, **attrs) == t(expected)


# op, input types, attrs, a piece of the error message
ERRORS = [
    ("Add", ["f32[2,3]", "f32[4]"], {}, r"do not broadcast \(dim -1 is 3 vs 4\)"),
    ("Add", ["f32[?,3]", "f32[?,4]"], {}, "do not broadcast"),
    ("Sub", ["bool[2]", "bool[2]"], {}, "not defined for two bool tensors"),
    ("BitwiseAnd", ["f32[2]", "i32[2]"], {}, "needs integer or bool inputs"),
    ("Neg", ["bool[2]"], {}, "not defined for bool tensors"),
    ("Invert", ["f32[2]"], {}, "needs an integer or bool tensor"),
    ("Select", ["f32[2]", "f32[2]", "f32[2]"], {}, "condition must be bool"),
    ("ReduceSum", ["f32[?,3]"], {"axis": 2}, "axis 2 is out of range for a tensor of rank 2"),
    ("ReduceSum", ["f32[?,3]"], {"axis": (0, -2)}, "names a dim twice"),
    ("ReduceSum", ["f32[]"], {"axis": 0}, "rank 0 has no axes"),
    ("ReduceSum", ["f32[3]"], {"axis": 1.5}, "axis must be an int"),
    ("ArgMax", ["f32[]"], {"axis": 0}, "rank >= 1"),
    ("ArgMax", ["f32[0,3]"], {}, r"empty dim of \[0,3\]"),
    ("ReduceMin", ["f32[?,0]"], {"axis": -1}, "empty dim"),
    ("ArgMax", ["f32[3]"], {"axis": 0, "output_type": D.float32}, "integer dtype"),
    ("MatMul", ["f32[2,3]", "f32[4,5]"], {}, "contracted dims are 3 and 4"),
    ("MatMul", ["f32[2,3]", "f32[]"], {}, "rank >= 1"),
    ("MatMul", ["f32[2,2,3]", "f32[3,3,4]"], {}, "do not broadcast"),
    ("MatMul", ["bool[2,2]", "bool[2,2]"], {}, "not defined for bool"),
    ("Reshape", ["f32[2,3]"], {"shape": (4, 2)}, r"cannot reshape f32\[2,3\] \(6 elements\)"),
    ("Reshape", ["f32[2,3]"], {"shape": (4, -1)}, "not a multiple of 4"),
    ("Reshape", ["f32[?,3]"], {"shape": (4, 2)}, "not a multiple of the 3"),
    ("Reshape", ["f32[2,3]"], {"shape": (-1, -1)}, "at most one -1"),
    ("Reshape", ["f32[2,3]"], {"shape": [6]}, "tuple of ints"),
    ("Flatten", ["f32[2,3]"], {"start_dim": 1, "end_dim": 0}, "comes after end_dim"),
    ("Transpose", ["f32[2,3]"], {"perm": (0, 0)}, "not a permutation"),
    ("Transpose", ["f32[2,3]"], {"perm": (0, 2)}, "not a permutation"),
    ("Transpose", ["f32[2,3]"], {"perm": (0,)}, "not a permutation"),
    ("ExpandDims", ["f32[2,3]"], {"axis": 3}, r"valid: -3 to 2"),
    ("Squeeze", ["f32[2,3]"], {"axis": 1}, "cannot squeeze dim 1 of size 3"),
    ("Concat", ["f32[2]", "f32[2,3]"], {"axis": 0}, "different ranks"),
    ("Concat", ["f32[2,3]", "f32[2,4]"], {"axis": 0}, "dim 1 differs"),
    ("Concat", ["f32[]", "f32[]"], {"axis": 0}, "cannot concatenate scalars"),
    ("Stack", ["f32[2,3]", "f32[3,2]"], {"axis": 0}, r"dim 0 is 2 vs 3"),
    ("Stack", ["f32[2]", "f32[2,1]"], {"axis": 0}, "must have one shape"),
    ("Stack", ["f32[2]", "f32[2]"], {"axis": 3}, "out of range"),
    ("Index", ["f32[2,3]"], {"index": encode_index((0, 3))}, "index 3 is out of bounds"),
    ("Index", ["f32[2,3]"], {"index": encode_index((0, 0, 0))}, "too many indices"),
    ("Gather", ["f32[2,3]", "f32[2]"], {"axis": 0}, "indices must be integers"),
    ("Gather", ["f32[]", "i32[2]"], {"axis": 0}, "cannot index a scalar"),
    ("BroadcastTo", ["f32[2]"], {"shape": (3,)}, "do not broadcast"),
    ("BroadcastTo", ["f32[2,2]"], {"shape": (2,)}, "lower rank"),
    ("BroadcastTo", ["f32[2]"], {"shape": (-1, 2)}, "no input dim to keep"),
    ("Fill", [], {"shape": (-1,), "dtype": D.float32, "value": 0}, "non-negative ints"),
    ("Fill", [], {"shape": (2,), "dtype": D.float32, "value": "x"}, "Python number"),
    ("Range", [], {"limit": 5, "delta": 0}, "delta must not be 0"),
    ("Softmax", ["f32[2,3]"], {"axis": 2}, "out of range"),
    ("OneHot", ["f32[3]"], {"depth": 2}, "indices must be integers"),
    ("OneHot", ["i32[3]"], {"depth": -1}, "non-negative int"),
    ("CumSum", ["f32[]"], {"axis": 0}, "rank >= 1"),
    ("Conv2D", ["f32[1,3,5,5]", "f32[4,2,3,3]"], {"out_channel": 4, "kernel_size": (3, 3)},
     "has 3 channels but the weight"),
    ("Conv2D", ["f32[1,3,2,2]", "f32[4,3,3,3]"], {"out_channel": 4, "kernel_size": (3, 3)},
     "larger than the padded input"),
    ("Conv2D", ["i32[1,3,5,5]", "i32[4,3,3,3]"], {"out_channel": 4, "kernel_size": (3, 3)},
     "needs floating inputs"),
    ("Conv2D", ["f32[1,3,5,5]", "f32[4,3,3,3]"], {"out_channel": 5, "kernel_size": (3, 3)},
     "has 4 output channels"),
    ("Conv2D", ["f32[1,3,5,5]", "f32[4,3,3]"], {"out_channel": 4, "kernel_size": (3, 3)},
     "must have rank 4"),
    ("Conv2D", ["f32[5,5]", "f32[4,3,3,3]"], {"out_channel": 4, "kernel_size": (3, 3)},
     "must have rank 4"),
    ("Conv2D", ["f32[1,4,5,5]", "f32[6,2,3,3]"], {"out_channel": 6, "kernel_size": (3, 3),
                                                   "group": 4}, "not divisible by group"),
    ("Conv2D", ["f32[1,3,5,5]", "f32[4,3,3,3]"], {"out_channel": 4, "kernel_size": (3, 3),
                                                   "pad": (1, 1, 1, 1)}, "needs pad_mode='pad'"),
    ("Conv2D", ["f32[1,3,5,5]", "f32[4,3,3,3]"], {"out_channel": 4, "kernel_size": (3, 3),
                                                   "pad_mode": "full"}, "pad_mode must be"),
    ("Conv2D", ["f32[1,3,5,5]", "f32[4,3,3,3]"], {"out_channel": 4, "kernel_size": 3},
     "kernel_size must be a tuple"),
    ("MaxPool", ["bool[1,1,4,4]"], {"kernel_size": (2, 2)}, "not defined for bool"),
    ("MaxPool", ["f32[4,4]"], {"kernel_size": (2, 2)}, "rank 4"),
    ("MaxPool", ["f32[2,3,3,3]"], {"kernel_size": (1, 1), "pad_mode": "pad",
                                   "pad": (0, 0, 0, 1), "ceil_mode": True},
     r"larger than half the window"),
    ("AvgPool", ["f32[2,3,5,5]"], {"kernel_size": (3, 3), "pad_mode": "pad",
                                   "pad": (2, 0, 0, 0)}, r"at most \(1, 1, 1, 1\)"),
    ("MaxPool", ["f32[1,1,4,4]"], {"kernel_size": (0, 2)}, "must be positive"),
    ("AvgPool", ["i32[1,1,4,4]"], {"kernel_size": (2, 2)}, "not defined for int32"),
    ("BatchNorm", ["i32[2,3]", "f32[3]", "f32[3]", "f32[3]", "f32[3]"], {},
     "needs a floating input"),
    ("BatchNorm", ["f32[2,4]", "f32[3]", "f32[3]", "f32[3]", "f32[3]"], {}, "has 4 channels"),
    ("BatchNorm", ["f32[2,3]", "f32[3]", "f32[2]", "f32[3]", "f32[3]"], {}, "one shape"),
    ("BatchNorm", ["f32[2]", "f32[2]", "f32[2]", "f32[2]", "f32[2]"], {}, "rank >= 2"),
    ("LayerNorm", ["f32[2,3,4]", "f32[4]", "f32[4]"], {}, r"shape \(3, 4\)"),
    ("LayerNorm", ["i32[2,3]", "f32[3]", "f32[3]"], {"begin_norm_axis": -1,
                                                     "begin_params_axis": -1}, "floating"),
    ("Dropout", ["f32[3]"], {"keep_prob": 0.0}, r"keep_prob must be a number in \(0, 1\]"),
    ("Dropout", ["i32[3]"], {}, "needs a floating input"),
    ("TopK", ["f32[2,3]"], {"k": 4}, "larger than the size 3"),
    ("TopK", ["bool[3]"], {"k": 1}, "not defined for bool"),
    ("TopK", ["f32[]"], {"k": 1}, "rank >= 1"),
    ("Sort", ["f32[]"], {}, "rank >= 1"),
    ("GatherD", ["f32[2,3]", "i32[2]"], {"dim": 0}, "same rank"),
    ("GatherD", ["f32[2,3]", "i32[3,3]"], {"dim": 1}, r"larger than input .* at dim 0"),
    ("GatherD", ["f32[2,3]", "f32[2,3]"], {"dim": 1}, "index must be integers"),
    ("GatherD", ["f32[2,3]", "i32[2,3]"], {"dim": 2}, "out of range"),
    ("BatchDot", ["f32[2,3,4]", "f32[2,3,4]"], {"axes": (1, 2)}, "contracted dims"),
    ("BatchDot", ["f32[2,3]", "f32[3,3]"], {"axes": (1, 1)}, "batch sizes"),
    ("BatchDot", ["f32[2,3]", "f32[2,3]"], {"axes": (0, 1)}, "not the batch axis"),
    ("BatchDot", ["f32[2]", "f32[2,3]"], {"axes": (1, 1)}, "rank >= 2"),
]


@pytest.mark.parametrize("op,inputs,attrs,message", ERRORS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ERRORS)])
def test_inference_errors(op, inputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message) as info:
        infer(op, inputs, **attrs)
    assert str(info.value).startswith(op + ":"), "the message names the op"


def test_index_out_of_range_is_an_index_error():
    with pytest.raises(IndexError):
        infer("Index", ["f32[2,3]"], index=encode_index(5))


# -- every kernel returns exactly the inferred dtype and shape -----------------------------
_rng = np.random.default_rng(0)


def _sample(d, shape):
    if d.is_bool:
        return _rng.random(shape) < 0.5
    if d.is_floating:
        return _rng.standard_normal(shape).astype(d.np)
    lo = 0 if d.kind == "u" else -5
    return _rng.integers(lo, 6, shape).astype(d.np)


def _check_kernel(op, in_types, attrs):
    """The kernel's output for random inputs of these types has the inferred types; a
    refusal by the inference function is fine (the op does not take these types)."""
    g = Graph("g")
    params = [g.add_param(ty) for ty in in_types]
    try:
        node = g.add_node(op, params, attrs)
    except ShapeInferenceError:
        return "refused"
    kernel = get_op(op).make_kernel(in_types, [o.type for o in node.outputs], node.attrs)
    arrays = [_sample(ty.dtype, ty.shape) for ty in in_types]
    with np.errstate(all="ignore"):
        result = kernel(*arrays)
    results = result if len(node.outputs) > 1 else (result,)
    for o, r in zip(node.outputs, results):
        got = f"{getattr(r, 'dtype', type(r).__name__)}{format_shape(np.shape(r))}"
        assert getattr(r, "dtype", None) == o.type.dtype.np and np.shape(r) == o.type.shape, (
            f"{op}{tuple(str(x) for x in in_types)} {attrs}: inferred {o.type}, kernel "
            f"gave {got}")
    return "ok"


SHAPE_PAIRS = [((2, 3), (3,)), ((), ()), ((1, 3), (2, 1))]


@pytest.mark.parametrize("op", sorted(BINARY) + sorted(COMPARISONS))
def test_binary_kernels_match_inference(op):
    outcomes = set()
    for a, b in itertools.product(D.ALL_DTYPES, repeat=2):
        for sa, sb in SHAPE_PAIRS:
            outcomes.add(_check_kernel(op, [TensorType(a, sa), TensorType(b, sb)], {}))
    assert "ok" in outcomes


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_kernels_match_inference(op):
    outcomes = {_check_kernel(op, [TensorType(a, s)], {})
                for a in D.ALL_DTYPES for s in [(2, 3), ()]}
    assert "ok" in outcomes


REDUCTION_ATTRS = [dict(axis=None, keep_dims=False), dict(axis=1, keep_dims=True),
                   dict(axis=(0, -1), keep_dims=False), dict(axis=-1, keep_dims=False)]


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                "ReduceProd", "ArgMax", "ArgMin", "CumSum", "CumProd"])
@pytest.mark.parametrize("dtype", D.ALL_DTYPES, ids=str)
def test_reduction_kernels_match_inference(op, dtype):
    attr_sets = REDUCTION_ATTRS if op.startswith("Reduce") else (
        [dict(axis=0), dict(axis=-1, exclusive=True), dict(axis=1, reverse=True)]
        if op.startswith("Cum") else
        [dict(axis=None), dict(axis=1, keep_dims=True), dict(axis=-1, output_type=D.int32)])
    for attrs in attr_sets:
        assert _check_kernel(op, [TensorType(dtype, (2, 3))], attrs) == "ok"
    if not op.startswith("Cum"):
        assert _check_kernel(op, [TensorType(dtype, ())], {"axis": None}) == "ok"


# op, input shapes, attrs: run for every dtype (and for each dtype pair with two inputs)
OTHER_KERNELS = [
    ("Cast", [(3,)], {"dtype": "each"}),
    ("MatMul", [(2, 3), (3, 4)], {}),
    ("MatMul", [(3,), (2, 3, 4)], {"transpose_a": False}),
    ("MatMul", [(4, 3), (2, 4)], {"transpose_a": True, "transpose_b": True}),
    ("Concat", [(2, 3), (1, 3)], {"axis": 0}),
    ("Stack", [(2, 3), (2, 3)], {"axis": -1}),
    ("Select", [(2, 1), (3,), ()], {}),
    ("Softmax", [(2, 3)], {}),
    ("Softmax", [()], {}),
    ("LogSoftmax", [(2, 3)], {"axis": 0}),
    ("ZerosLike", [(2,)], {}),
    ("OnesLike", [()], {"dtype": "each"}),
    ("Reshape", [(2, 3)], {"shape": (3, -1)}),
    ("Flatten", [(2, 3, 2)], {}),
    ("Transpose", [(2, 3)], {}),
    ("ExpandDims", [()], {"axis": 0}),
    ("Squeeze", [(1, 3, 1)], {}),
    ("Index", [(2, 3)], {"index": encode_index((0,))}),
    ("Index", [(2, 3)], {"index": encode_index((0, 1))}),
    ("Index", [(2, 3)], {"index": encode_index((slice(None, None, -2), None))}),
    ("Tile", [(2,)], {"multiples": (2, 2)}),
    ("BroadcastTo", [(3,)], {"shape": (2, 3)}),
    ("Fill", [], {"shape": (2,), "dtype": "each", "value": 1}),
    ("IndexUpdate", [(2, 3), (3,)], {"index": encode_index(1)}),
]


@pytest.mark.parametrize("op,shapes,attrs", OTHER_KERNELS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(OTHER_KERNELS)])
def test_other_kernels_match_inference(op, shapes, attrs):
    outcomes = set()
    for d in D.ALL_DTYPES:
        a = {k: (d if v == "each" else v) for k, v in attrs.items()}
        if op == "Select":
            types = [TensorType(D.bool_, shapes[0])] + [TensorType(d, s) for s in shapes[1:]]
            outcomes.add(_check_kernel(op, types, a))
            continue
        pairs = D.ALL_DTYPES if len(shapes) == 2 else [d]
        for other in pairs:
            dts = [d, other][:len(shapes)]
            types = [TensorType(x, s) for x, s in zip(dts, shapes)]
            outcomes.add(_check_kernel(op, types, a))
    assert "ok" in outcomes


# op, input shapes, attrs: the layer and sorting ops, run for every dtype (an int32 index
# input where the op has one)
LAYER_KERNELS = [
    ("Conv2D", [(2, 4, 5, 6), (6, 2, 3, 2)], {"out_channel": 6, "kernel_size": (3, 2),
                                              "group": 2, "stride": (2, 1)}),
    ("Conv2D", [(1, 3, 5, 5), (2, 3, 3, 3)], {"out_channel": 2, "kernel_size": (3, 3),
                                              "pad_mode": "same", "dilation": (2, 2)}),
    ("Conv2D", [(1, 2, 4, 4), (2, 1, 2, 2)], {"out_channel": 2, "kernel_size": (2, 2),
                                              "group": 2, "pad_mode": "pad",
                                              "pad": (1, 0, 0, 1)}),
    ("MaxPool", [(1, 2, 5, 5)], {"kernel_size": (2, 2), "strides": (2, 2), "pad_mode": "same"}),
    ("MaxPool", [(2, 5, 6)], {"kernel_size": (3, 3), "strides": (2, 2), "pad_mode": "pad",
                              "pad": (1, 1, 1, 1), "ceil_mode": True, "return_indices": True}),
    ("AvgPool", [(1, 2, 5, 5)], {"kernel_size": (3, 3), "strides": (2, 2), "pad_mode": "same"}),
    ("AvgPool", [(1, 2, 5, 5)], {"kernel_size": (2, 2), "strides": (2, 2), "pad_mode": "pad",
                                 "pad": (0, 1, 1, 0), "ceil_mode": True,
                                 "count_include_pad": False}),
    ("BatchNorm", [(2, 3, 2), (3,), (3,), (3,), (3,)], {}),
    ("BatchNorm", [(4, 3), (3,), (3,), (3,), (3,)], {"is_training": True}),
    ("LayerNorm", [(2, 3, 4), (3, 4), (3, 4)], {}),
    ("Dropout", [(3, 4)], {"keep_prob": 0.7}),
    ("TopK", [(3, 5)], {"k": 2}),
    ("TopK", [(4, 2)], {"k": 4, "axis": 0, "largest": False}),
    ("Sort", [(3, 4)], {"axis": 0, "descending": True}),
    ("BatchDot", [(2, 3, 4), (2, 4, 5)], {"axes": (2, 1)}),
    ("BatchDot", [(3, 4), (3, 4)], {"axes": (1, 1)}),
    ("GatherD", [(2, 6), (2, 3)], {"dim": 1}),
]


@pytest.mark.parametrize("op,shapes,attrs", LAYER_KERNELS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYER_KERNELS)])
def test_layer_kernels_match_inference(op, shapes, attrs):
    outcomes = set()
    for d in D.ALL_DTYPES:
        dts = [D.int32 if op == "GatherD" and i == 1 else d for i in range(len(shapes))]
        outcomes.add(_check_kernel(op, [TensorType(x, s) for x, s in zip(dts, shapes)], attrs))
    assert "ok" in outcomes


@pytest.mark.parametrize("dtype", D.ALL_DTYPES, ids=str)
def test_unique_kernel_matches_inference(dtype):
    g = Graph("g")
    node = g.add_node("Unique", [g.add_param(TensorType(dtype, (2, 3)))], {})
    kernel = get_op("Unique").make_kernel([TensorType(dtype, (2, 3))],
                                          [o.type for o in node.outputs], {})
    y, idx = kernel(_sample(dtype, (2, 3)))
    assert y.dtype == dtype.np and y.ndim == 1 and 1 <= y.shape[0] <= 6
    assert idx.dtype == node.outputs[1].type.dtype.np and idx.shape == (2, 3)


def test_one_hot_and_gather_kernels_match_inference():
    for d in (D.int8, D.int32, D.int64, D.uint8):
        assert _check_kernel("OneHot", [TensorType(d, (2, 3))],
                             {"depth": 4, "axis": 1, "dtype": D.float16}) == "ok"
        assert _check_kernel("Gather", [TensorType(D.float32, (6, 3)), TensorType(d, (2,))],
                             {"axis": 0}) == "ok"


# -- property: inference with unknown dims is sound for every concrete shape ----------------------------
PROPERTY = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _covers(general, concrete):
    """`general` (with unknown dims or rank) describes every value `concrete` does."""
    if general.dtype is not concrete.dtype:
        return False
    if general.shape is None:
        return True
    return len(general.shape) == len(concrete.shape) and all(
        g is None or g == c for g, c in zip(general.shape, concrete.shape))


def _blur(draw, ty):
    """ty with some dims (or the whole rank) made unknown."""
    if draw(st.integers(0, 5)) == 0:
        return TensorType(ty.dtype, None)
    return TensorType(ty.dtype, tuple(None if draw(st.booleans()) else d for d in ty.shape))


@st.composite
def op_cases(draw):
    """An op, concrete input types it accepts, and attrs."""
    d = draw(st.sampled_from([D.float32, D.int32]))
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    kind = draw(st.sampled_from(["binary", "reduce", "matmul", "reshape", "transpose",
                                 "expand", "squeeze", "concat", "stack", "index", "softmax",
                                 "argmax", "flatten", "tile", "conv", "pool", "topk",
                                 "sort"]))
    x = TensorType(d, shape)
    axis = draw(st.integers(-rank, rank - 1))
    if kind == "binary":
        other = tuple(1 if draw(st.booleans()) else s for s in shape[draw(st.integers(0, rank)):])
        return draw(st.sampled_from(["Add", "Mul", "RealDiv", "Less"])), [
            x, TensorType(D.float32, other)], {}
    if kind == "reduce":
        return draw(st.sampled_from(["ReduceSum", "ReduceMean", "ReduceMax"])), [x], {
            "axis": draw(st.sampled_from([None, axis])), "keep_dims": draw(st.booleans())}
    if kind == "matmul":
        k = draw(st.integers(1, 3))
        return "MatMul", [TensorType(d, shape + (k,)), TensorType(d, (k, 2))], {}
    if kind == "reshape":
        n = int(np.prod(shape))
        return "Reshape", [x], {"shape": draw(st.sampled_from([(-1,), (n, -1), (-1, 1, n)]))}
    if kind == "transpose":
        return "Transpose", [x], {"perm": tuple(draw(st.permutations(range(rank))))}
    if kind == "expand":
        return "ExpandDims", [x], {"axis": draw(st.integers(-rank - 1, rank))}
    if kind == "squeeze":
        return "Squeeze", [TensorType(d, shape[:axis % rank] + (1,) + shape[axis % rank + 1:])], \
            {"axis": axis}
    if kind == "concat":
        other = shape[:axis % rank] + (draw(st.integers(1, 3)),) + shape[axis % rank + 1:]
        return "Concat", [x, TensorType(d, other)], {"axis": axis}
    if kind == "stack":
        return "Stack", [x, x], {"axis": draw(st.integers(-rank - 1, rank))}
    if kind == "index":
        key = tuple(draw(st.sampled_from([0, -1, slice(None), slice(None, None, -1), None]))
                    for _ in range(rank))
        return "Index", [x], {"index": encode_index(key)}
    if kind == "softmax":
        return "Softmax", [x], {"axis": axis}
    if kind == "argmax":
        return "ArgMax", [x], {"axis": draw(st.sampled_from([None, axis])),
                               "keep_dims": draw(st.booleans())}
    if kind == "flatten":
        return "Flatten", [x], {"start_dim": 0, "end_dim": axis}
    if kind in ("conv", "pool"):
        hw = (draw(st.integers(3, 6)), draw(st.integers(3, 6)))
        k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        mode = draw(st.sampled_from(["valid", "same", "pad"]))
        pad = tuple(draw(st.integers(0, 1)) for _ in range(4)) if mode == "pad" else (0,) * 4
        if kind == "pool":      # a pool's padding is at most half its window
            pad = tuple(min(pi, k[i // 2] // 2) for i, pi in enumerate(pad))
        stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        if kind == "pool":
            return draw(st.sampled_from(["MaxPool", "AvgPool"])), [
                TensorType(D.float32, (2, 3) + hw)], {
                "kernel_size": k, "strides": stride, "pad_mode": mode, "pad": pad,
                "ceil_mode": mode == "pad" and draw(st.booleans())}
        group = draw(st.sampled_from([1, 2]))
        return "Conv2D", [TensorType(D.float32, (2, 2 * group) + hw),
                          TensorType(D.float32, (2 * group, 2) + k)], {
            "out_channel": 2 * group, "kernel_size": k, "stride": stride, "pad_mode": mode,
            "pad": pad, "group": group,
            "dilation": (draw(st.integers(1, 2)) if min(hw) >= 5 else 1, 1)}
    if kind == "topk":
        return "TopK", [x], {"k": draw(st.integers(0, shape[axis % rank])), "axis": axis}
    if kind == "sort":
        return "Sort", [x], {"axis": axis, "descending": draw(st.booleans())}
    return "Tile", [x], {"multiples": tuple(draw(st.integers(1, 2)) for _ in range(rank))}


@PROPERTY
@given(op_cases(), st.data())
def test_unknown_dims_give_sound_inference(case, data):
    op, types, attrs = case
    g = Graph("g")
    concrete = [o.type for o in g.add_node(op, [g.add_param(ty) for ty in types], attrs).outputs]
    blurred = [_blur(data.draw, ty) for ty in types]
    g2 = Graph("g2")
    general = [o.type for o in
               g2.add_node(op, [g2.add_param(ty) for ty in blurred], attrs).outputs]
    for gen, con in zip(general, concrete):
        assert _covers(gen, con), f"{op}{blurred} {attrs}: {gen} vs {con}"
    arrays = [_sample(ty.dtype, ty.shape) for ty in types]
    kernel = get_op(op).make_kernel(blurred, general, g2.nodes[-1].attrs)
    with np.errstate(all="ignore"):
        out = kernel(*arrays)
    for o, con in zip(out if len(general) > 1 else (out,), concrete):
        o = np.asarray(o)
        assert o.shape == con.shape and o.dtype == con.dtype.np
