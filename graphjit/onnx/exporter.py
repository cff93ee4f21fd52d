"""graphjit IR -> ONNX: `export(model_or_net, path, *example_inputs_or_specs)`.

The model is compiled through `ms.compile` (so the graph passes have run) and its
graph is translated node by node into an ONNX ModelProto (opset common.OPSET, IR
version common.IR_VERSION), checked with onnx.checker and written.

- Inputs keep the graph parameters' names; outputs are named after the graph's
  result values when those are named (and unique), else `output0`, `output1`, ...
  The outputs are what the Cell or function returns, in order (`output_plan`):
  a returned value that folded to a constant (a constant Tensor of the Cell, a
  Python number: int64, float64 or bool as graphjit gives them) is a Constant node
  named `gj.const_output.<name>` making that output, so nothing returned is lost
  and a program that folds entirely still has its outputs; None is left out.
  Unknown dims are symbolic (`<name>_dim<i>`); an unknown rank has no shape.
- Parameters (ref inputs, read by `Load`) become initializers named after the
  Parameter, holding its current value; the state token disappears (ONNX runs a
  graph without state, so only reads are exportable).
- Ops that update state (`effects == "write"`), draw random numbers, print, exchange
  data with other processes (collectives), or have no ONNX form are refused with one OnnxExportError naming every such node
  and the user's line.
- If and Loop become ONNX If and Loop; graphjit's closed subgraphs read outer
  values through their parameters, and the ONNX bodies read the outer names.

Run-time checks (Check, CheckBound, CheckNonZero, CheckIntOverflow, Assert, and
ReshapeTo's shape hint) are kept: each becomes
a Gather that fails at run time (ONNX Runtime runs every node, a node nobody
reads included) exactly when the check fails, so a model that raises in
graphjit raises in ONNX Runtime too (with ONNX Runtime's message, "indices
element out of data bounds"; the node's doc_string holds graphjit's message),
and a successful run is untouched. The trip count of a Loop that is not a
constant is checked the same way (graphjit refuses one below -1), and so is a
Loop output that has no value after zero iterations.

Node names: every ONNX node made for graphjit node number n (counted over the
whole model, subgraphs included, in walk order) with op Op is named `gj.Op.n`
when it is the only one, else `gj.Op.n/<k>` (k = 0, 1, ... in emission order;
the last one gives the result). Constants a pattern needs are Constant nodes of
the pattern. Graph outputs that are not the producing node's own output get an
Identity named `gj.result.<k>` (in a body: `gj.result.<output name>`).

Patterns. Every op not in the table maps to exactly one ONNX node of the same
meaning: Add, Sub, Mul, Neg, Abs, Exp, Log, Sqrt, Reciprocal, Sin, Cos, Tanh,
Sigmoid, Erf, Floor, Ceil, Round, Sign, Equal, Less, Greater, Transpose, Shape,
Concat, Gather, MatMul, Cast, Identity, If, Loop of the same name; and
Const -> Constant, ReLU -> Relu, Maximum -> Max, Minimum -> Min, Select -> Where,
LogicalAnd/Or/Xor (bool inputs) -> And/Or/Xor, LogicalNot (bool) -> Not,
IsNan -> IsNaN, LessEqual -> LessOrEqual, GreaterEqual -> GreaterOrEqual,
StopGradient -> Identity, ExpandDims -> Unsqueeze, Squeeze -> Squeeze (axes
given, or none when the squeezed dims are unknown), Reshape -> Reshape
(allowzero=1 when the shape holds a 0), BroadcastTo -> Expand (-1 as 1),
BooleanMask -> Compress(axis=0), Softmax / LogSoftmax (one int axis, rank >= 1)
-> Softmax / LogSoftmax, GatherD -> GatherElements, the float reductions ->
ReduceSum (axes as an input) / ReduceMax / ReduceMin / ReduceMean / ReduceProd,
Load -> no node (its value is the Parameter's initializer; the state token has
no ONNX value), SliceRows -> Slice, ReshapeDynamic (allowzero=1) / ReshapeLike
-> Reshape,
BroadcastLike -> Expand, Conv2D -> Conv, MaxPool -> MaxPool, AvgPool ->
AveragePool (the latter three with an Unsqueeze/Squeeze of axis 0 for a rank-3
input; Conv pads are [top, left, bottom, right], 'same' is auto_pad=SAME_UPPER).

Around any of these, two regular wrappers (never counted as a pattern of its own):
  * inputs of other dtypes than the compute dtype get a Cast first (promotion:
    Add(f32, i32) is Cast(i32 -> f32) + Add), and a result Cast to graphjit's
    output dtype where it differs (ReduceSum of int32 gives int64: Cast first);
  * where ONNX Runtime has no kernel for the dtype, the op runs in a carrier
    dtype: Cast in (bool/int8/int16/uint8 -> int32, float16 -> float32), the op,
    Cast back; used only where the result is exact (Max/Min/Neg/Relu/MatMul/
    ReduceMax/ArgMax/TopK/Unique of small integers, IsInf of float16...).

  graphjit op          ONNX pattern (in emission order; Constants omitted)
  -------------------  ---------------------------------------------------------
  Add/Mul/Max/Min bool Or / And / Or / And
  NotEqual             Equal, Not
  LogicalAnd/Or/Xor    Cast of each non-bool input to bool, And / Or / Xor
   (non-bool inputs)
  LogicalNot (numbers) Equal(x, 0)
  BitwiseAnd/Or/Xor    And / Or / Xor (bool only: opset 17 has no bitwise ops)
  RealDiv              (Casts to float) Div
  FloorDiv, FloorMod,  integers (in int32 or int64): Equal(y, 0), Equal(y, -1),
   TruncateDiv, Mod    Or, Where(safe y), Div, Mod(fmod=1), fix-ups (Not, Equal, Xor,
                       Less, And, Cast, Sub/Add/Neg), Where(y == -1), Where(y == 0,
                       0): x // 0 and x % 0 are 0 as numpy, no INT_MIN / -1 trap;
                       floats: numpy's npy_divmod with Mod(fmod=1), Div, Floor,
                       Where; TruncateDiv: Div, Less, Ceil, Floor, Where;
                       Mod: Mod(fmod=1)
  Pow (integers)       Less(y, 0), Max(y, 0), Pow, Mod(fmod=1), Equal, Where x4:
                       an integer to a negative power is 0, or +-1 for x = +-1
  Log1p                Add(x, 1), Sub, Equal, Log, Div, Mul, IsInf, Where, Where
  Expm1                Exp, Sub, Log, Div, Mul, IsInf, Where, Equal, Where, Equal,
                       Where (float16: computed in float32 between Casts)
  Rsqrt                Sqrt, Reciprocal
  Square               Mul(x, x) (bool: And(x, x))
  Trunc                Less(x, 0), Ceil, Floor, Where (ints and bool: Identity)
  Floor/Ceil/Round     Identity for ints and bool
  Sign/Abs/ReLU bool   Identity
  ReLU int64/uint8     Max(x, 0)
  Invert               bool: Not; integers: Sub(-1, x) (uint8: Sub(255, x))
  IsNan/IsInf ints     Cast to float64 (float16: to float32), IsNaN / IsInf
  IsFinite             (Cast) IsInf, IsNaN, Or, Not
  Select bool values   Cast x, y to uint8, Where, Cast back
  ArgMax/ArgMin        axis None: Reshape(x, [-1]), ArgMax(axis 0), and with
                       keep_dims a Reshape to [1] * rank; Cast to int32 if asked
  CumSum               CumSum(x, axis) (bool: Cast to int64 first)
  CumProd              (Cast) (Transpose the axis to 0) (Slice step -1 for reverse),
                       Shape, Gather, Slice, ConstantOfShape(1), Loop whose body
                       (nodes gj.CumProd.<n>/in<k>) is Identity(cond), Gather(x,
                       iter), Mul(acc, row), Identity (the scan output: acc for
                       exclusive), then the Slice and Transpose back (Cast)
  ReduceProdGrad       (Transpose the reduced axes last), Shape, Slice, ReduceProd,
                       (Slice, Concat), Reshape, (Transpose), the CumProd Loop
                       (exclusive) forward, and between two Slices of step -1,
                       Mul, (Transpose), Reshape, (Transpose), (Cast) (Unsqueeze)
                       Expand of g, Mul
  Flatten              Reshape (Constant shape if at most one dim is unknown, else
                       Shape, Slice, ReduceProd, Slice, Concat, Reshape allowzero)
  Stack                Unsqueeze(axis) of each input, Concat(axis)
  Tile                 (Unsqueeze of leading axes when multiples is longer) Tile
  Index                Slice (every slice at once: starts, ends, axes, steps),
                       Gather (each int index, last dim first, scalar index),
                       Unsqueeze (the None axes); Identity for x[...]
  IndexUpdate          Shape, ReduceProd, Range, Reshape (positions), the Index
                       pattern on them, Cast value, Expand(Shape(sub)), Reshape
                       x to [-1], Reshape, Reshape, ScatterElements(axis 0),
                       Reshape(Shape(x))
  Fill, Range          Constant (the whole tensor)
  ZerosLike/OnesLike   Shape, ConstantOfShape
  FillTo               (Cast the shape to int64) ConstantOfShape
  Softmax / LogSoftmax ReduceMax(keepdims), Sub, Exp, ReduceSum(keepdims), Div
   (axis tuple or a    (LogSoftmax: ..., ReduceSum, Log, Sub)
    scalar)
  OneHot               Unsqueeze(indices, axis), Equal(classes Constant shaped
                       (depth, 1, ...)), Where(on, off)
  BatchNorm            Div(scale, Sqrt(Add(var, eps))), Sub(x, Reshape(mean)),
                       Mul(Reshape(inv)), Add(Reshape(bias)); training first
                       ReduceMean, Sub, Mul, ReduceMean, Reshape, Reshape
  LayerNorm            ReduceMean, Sub, Mul, ReduceMean, Add(eps), Sqrt, Div,
                       Mul(gamma), Add(beta)
  Conv2DBackpropInput  (x's H, W known) ConvTranspose(g, weight) of the whole padded
                       frame, (Pad where the windows did not reach), Slice H x W
  Conv2DBackpropFilter (x's H, W known) (Pad x as the forward), per group (Slice x,
                       Slice g), Transpose x, Transpose g, Conv(strides = dilation,
                       dilations = stride), Slice to the kernel, Transpose; (Concat)
  AvgPoolGrad          (x's C, H, W known) (Unsqueeze), Div(g, Constant window
                       counts), ConvTranspose(ones kernel per channel, group = C),
                       (Pad), Slice H x W, (Squeeze)
  MaxPoolGrad          (Cast to float) (Unsqueeze) MaxPool with its Indices, Shape,
                       ReduceProd, ConstantOfShape (zeros), Reshape, Reshape,
                       ScatterElements(reduction add), Reshape
  LayerNormGrad,       graphjit's kernels node for node (Shape, Gather, ReduceProd
   BatchNormGrad       for the count, ReduceMean, Sub, Mul, Div, Sqrt, Add,
                       ReduceSum, Reshape per channel, Neg)
  TopK                 TopK(x, [k], sorted=1), Cast of the indices to int32
  Sort                 Shape, Gather(axis), TopK(largest=descending), Cast
  Unique               Unique(sorted=0), Shape(x), Reshape(inverse), Cast
  BatchDot             Transpose, Transpose, Shape, Shape, Slices, ReduceProds,
                       Concat, Reshape, Concat, Reshape, MatMul, Concat, Reshape
  BatchDotGrad         the same Transposes, Shapes, Slices, ReduceProds, Concats and
                       Reshapes, Concat + Reshape of g, Transpose, MatMul, Transpose,
                       MatMul, Reshape, Reshape, Transpose, Transpose
  ReshapeTo            Cast(shape, int64), Reshape(allowzero=1), and where
                       shape_hint has known dims: Shape, Gather(those), Equal, the
                       Check pattern
  SumToLike            ReduceSum(axes) (float16 between Casts), Shape, Reshape
  ConcatGrad           Shape, Gather per xs, Concat, Split
  TileGrad             Shape(like), Slices, Concat (r0, d0, r1, d1, ...), Reshape,
                       ReduceSum(the r axes), Reshape(Shape(like))
  PadLike              Shape, Gather, Shape, Gather, Sub, Concat, Pad
  GatherGrad,          positions (Shape, ReduceProd, Range, Reshape), Gather /
   ScatterAddAlongAxis, GatherElements / Compress of them, ReduceProd,
   BooleanMaskGrad     ConstantOfShape (zeros), Reshapes, ScatterElements
                       (reduction add; none for BooleanMaskGrad), Reshape
  IndexTake            Reshape(x, [-1]), Gather(Constant flat positions)
  IndexPut/IndexAddAt  Cast, Expand, Reshape, (Gather: the last of repeated
                       positions wins), Shape, Reshape, ScatterElements(Constant
                       positions; reduction add for IndexAddAt), Reshape
  Check, CheckBound,   Cast(ok, int32), ReduceMin, Cast(bool), Not, Cast(int64),
   Assert              Gather(Constant [0], that): fails exactly when not ok; its
                       output is read by nobody; doc_string "<error>: <message>"
  CheckNonZero         Equal(x, 0), Not, then the Check pattern; x passes on
  CheckIntOverflow     scalar result: Add/Sub: Greater, Less/Greater, And, Less,
                       Greater/Less, And, Or, Not; Mul: Equal, Equal, Or, Where,
                       Div, Equal, Equal, Not, Equal, Equal, And, Not, And, Or, Or;
                       then the Check pattern (its Gather's doc_string ends with
                       "(binary=Add)" etc.); the result passes on (no node when the
                       result is not a scalar: graphjit checks scalars only)
  If                   If; a branch result that is not made in the branch gets an
                       Identity named gj.result.<name>; state outputs dropped; an
                       If with only state outputs gets a bool output (Constant
                       True in both branches) that nothing reads
  Loop                 before: trip count Cast to int64 (Reshape to []), the
                       check >= -1, Where(== -1, INT64_MAX) (a Constant for a
                       constant count; none for -1), for each sliced input
                       Shape, Gather(axis), Min; condition Reshape to [] if 1-D;
                       initial values: the carried ones, zeros for each last-
                       value output no back edge carries, a False flag when zero
                       iterations are possible (then checked after the Loop);
                       body inputs (iter, cond_in, carried...): nodes named
                       gj.Loop.<n>/in<k> first: Cast(iter) (+ Reshape [1]) for
                       current_iteration, Unsqueeze(iter) + Gather(x, axis) per
                       sliced input; body outputs (cond [] , back-edged results,
                       last values, the True flag, scan outputs); nodes named
                       gj.Loop.<n>/out<k> after the body: Reshape of the
                       condition to []; after: per concatenated output, Transpose
                       (axis > 0: the new axis 0 next to the axis), Shape, Slice,
                       ReduceProd, Slice, Concat, Reshape(allowzero=1). A Loop
                       with no other output carries a bool nothing reads.

Refused (OnnxExportError naming each node and line): Assign, AssignAdd,
AssignSub and the optimizer updates (write state), Dropout, RandomUniform,
RandomNormal, RandomInt (random: ONNX Runtime's numbers would differ), Print (io),
AllReduce, AllGather, Broadcast, ReduceScatter (collectives across processes), BitCast
(ONNX's is opset 26), integer BitwiseAnd/Or/Xor (opset 18), MaxPool with return_indices, AvgPool with
divisor_override, and a few shape cases (unknown ranks where a pattern needs the
rank; advanced indexing, the Conv2D and AvgPool gradients of an input whose dims
are unknown). Valid ONNX that ONNX Runtime has no kernel for is still written
where a cast would not be exact (float64 Erf and Conv).
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence

import numpy as np

import onnx
from onnx import helper, numpy_helper

from ..ir.dtypes import BY_NUMPY
from ..ir.errors import GraphJitError
from ..ir.graph import Graph, Node, Value
from ..ir.registry import get_op
from ..ir.types import TensorType
from .common import IR_VERSION, OPSET, TO_ONNX
from .export_outputs import output_plan

__all__ = ["export", "OnnxExportError"]


class OnnxExportError(GraphJitError, ValueError):
    """The model cannot be written as ONNX: ops with no ONNX form, state updates,
    or types ONNX cannot hold. The message names every such node and its line."""


class NoOnnxForm(Exception):
    """Raised by an op's translation: this node has no ONNX form (the reason)."""


def export(model_or_net, path, *example_inputs_or_specs) -> "onnx.ModelProto":
    """Write a model as ONNX.

    Args:
        model_or_net: a CompiledModel, an nn.Cell, or a (@jit or plain) function.
        path: the .onnx file to write.
        *example_inputs_or_specs: Tensors, arrays or TensorSpecs (as ms.compile
            takes them); none for a CompiledModel.

    Returns:
        The ModelProto written.

    Raises:
        OnnxExportError: nodes with no ONNX form or that update state (all named).
        the build errors of graphjit (from ms.compile).
    """
    from ..jit.compiled_model import CompiledModel, compile as ms_compile
    if isinstance(model_or_net, CompiledModel):
        if example_inputs_or_specs:
            raise TypeError("export: a CompiledModel is already compiled; pass no example "
                            "inputs")
        model = model_or_net
    else:
        from ..common.tensor import Tensor
        examples = [Tensor(x) if isinstance(x, np.ndarray) else x
                    for x in example_inputs_or_specs]
        model = ms_compile(model_or_net, *examples)
    proto = to_onnx(model)
    try:
        with open(os.fspath(path), "wb") as f:
            f.write(proto.SerializeToString())
    except OSError as e:
        raise OSError(f"cannot write the ONNX model to {path}: {e.strerror or e}") from None
    return proto


def to_onnx(model) -> "onnx.ModelProto":
    """The ONNX ModelProto of a CompiledModel (checked, not written)."""
    proto = _Exporter(model).build()
    try:
        _check(proto)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:
        # a bug of ours: say what ONNX said
        raise OnnxExportError(f"the ONNX model of '{model.name}' does not pass "
                              f"onnx.checker: {str(e).splitlines()[0]}",
                              hint="please report this as a graphjit bug") from None
    return proto


def _check(proto) -> None:
    """onnx.checker with full_check (strict shape inference). The checker wants a
    shape on every input and output of the main graph, so a value of unknown rank
    (no shape, as ONNX spells it) is checked on a copy where it has one, and the
    model itself through strict shape inference."""
    io = list(proto.graph.input) + list(proto.graph.output)
    if all(vi.type.tensor_type.HasField("shape") for vi in io):
        onnx.checker.check_model(proto, full_check=True)
        return
    copy = onnx.ModelProto()
    copy.CopyFrom(proto)
    for vi in list(copy.graph.input) + list(copy.graph.output):
        if not vi.type.tensor_type.HasField("shape"):
            vi.type.tensor_type.shape.SetInParent()
    onnx.checker.check_model(copy)
    onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True)


# -- the exporter ---------------------------------------------------------------------------------
class _Scope:
    """One ONNX graph being built (the main graph or a body)."""

    def __init__(self):
        self.nodes: List[onnx.NodeProto] = []
        self.output_names = set()   # the graph outputs named so far
        self.renamed: Dict[str, str] = {}   # a node output renamed to a graph output


class _Exporter:
    def __init__(self, model):
        self.model = model
        self.graph: Graph = model.graph
        self.used = set()
        self._next: Dict[str, int] = {}     # the next suffix to try per base name
        self.problems = []          # (op, loc, reason)
        self.counter = 0
        self.initializers = []
        self.scope: Optional[_Scope] = None
        self.names: Dict[int, Optional[str]] = {}   # id(Value) -> ONNX name (None: state)
        self._pending = None        # the nodes of the graphjit node being translated
        self.current = None         # (op, number) of that node

    # -- names and nodes ---------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c in "_.-/" else "_" for c in (base or "v"))
        if base not in self.used:
            self.used.add(base)
            return base
        i = self._next.get(base, 1)
        while f"{base}_{i}" in self.used:
            i += 1
        self._next[base] = i + 1
        name = f"{base}_{i}"
        self.used.add(name)
        return name

    def name_of(self, v: Value) -> str:
        try:
            name = self.names[id(v)]
        except KeyError:
            raise NoOnnxForm(f"reads {v!r}, which has no ONNX value") from None
        if name is None:
            raise NoOnnxForm(f"reads the state value {v!r} as a tensor")
        return name

    def emit(self, op_type: str, inputs: Sequence[str], n_out: int = 1, out=None,
             doc: str = "", **attrs) -> List[str]:
        """Add one ONNX node to the pattern being built; returns its output names."""
        outs = list(out) if out is not None else [self.fresh("t") for _ in range(n_out)]
        node = helper.make_node(op_type, list(inputs), outs, **attrs)
        if doc:
            node.doc_string = doc
        self._pending.append(node)
        return outs

    def one(self, op_type, inputs, **attrs) -> str:
        return self.emit(op_type, inputs, **attrs)[0]

    def const(self, value, dtype=None) -> str:
        arr = np.asarray(value, dtype=dtype)
        return self.one("Constant", [], value=numpy_helper.from_array(arr))

    def i64(self, values) -> str:
        return self.const(np.asarray(values, dtype=np.int64))

    # -- the model ---------------------------------------------------------------------------------
    def build(self) -> "onnx.ModelProto":
        g = self.graph
        variables = []
        if any(not p.type.is_tensor for p in g.params):
            variables = list(self.model._variables())
        inputs, refs = [], iter(variables)
        for i, p in enumerate(g.params):
            if p.type.kind == "state":
                self.names[id(p)] = None
            elif p.type.kind == "ref":
                var = next(refs)
                from ..ir.defs.state import read
                arr = np.asarray(read(var))
                name = self.fresh(p.name or getattr(var, "name", None) or f"param{i}")
                self.initializers.append(numpy_helper.from_array(
                    np.array(arr, dtype=p.type.dtype.np, order="C"), name))
                self.names[id(p)] = name
            else:
                name = self.fresh(p.name or f"input{i}")
                self.names[id(p)] = name
                inputs.append(self.value_info(name, p.type, symbolic=True))
        main = _Scope()
        results = self.translate(g, main)
        if self.problems:
            raise self._problem_error()
        outputs, taken = [], set()
        for item in output_plan(self.model):
            if item[0] == "const":
                outputs.append(self._const_output(main, item[1], f"output{len(outputs)}"))
                continue
            k = item[1]
            r, name = g.results[k], results[k]
            if name is None:        # the state token
                continue
            want = r.name if (r.name and r.name not in taken and
                              sum(1 for x in g.results if x.name == r.name) == 1) else None
            out = self._final_name(main, name, want or f"output{len(outputs)}", k)
            taken.add(out)
            outputs.append(self.value_info(out, r.type, symbolic=True))
        if not outputs:
            raise OnnxExportError(
                f"cannot export '{self.model.name}' to ONNX: it returns nothing (an ONNX "
                f"model needs at least one output)",
                hint="return the tensors the model computes")
        _drop_unread_constants(main.nodes, [o.name for o in outputs])
        graph = helper.make_graph(main.nodes, self.graph.name or "graphjit", inputs, outputs,
                                  initializer=self.initializers)
        proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="graphjit", ir_version=IR_VERSION)
        proto.doc_string = f"graphjit model '{self.model.name}'"
        return proto

    def _final_name(self, scope: _Scope, name: str, want: str, k: int) -> str:
        """Give a graph output its final name: rename the producing node's output
        when this scope made it and nothing else named it, else an Identity."""
        name = scope.renamed.get(name, name)
        producer = None
        for n in scope.nodes:
            if name in n.output:
                producer = n
        readers = sum(1 for n in scope.nodes for i in n.input if i == name) + sum(
            _reads_in_subgraphs(n, name) for n in scope.nodes)
        if producer is not None and not readers and want not in self.used \
                and name not in scope.output_names:
            self.used.add(want)
            for i, o in enumerate(producer.output):
                if o == name:
                    producer.output[i] = want
            scope.output_names.add(want)
            scope.renamed[name] = want
            return want
        if want in self.used:
            want = self.fresh(want)
        else:
            self.used.add(want)
        node = helper.make_node("Identity", [name], [want], name=f"gj.result.{k}")
        scope.nodes.append(node)
        scope.output_names.add(want)
        return want

    def _const_output(self, scope: _Scope, arr: np.ndarray, want: str):
        """A graph output that folded to a constant: a Constant node making it."""
        want = self.fresh(want)
        dt = BY_NUMPY.get(arr.dtype)
        if dt is None or dt not in TO_ONNX:
            raise OnnxExportError(f"cannot export '{self.model.name}' to ONNX: output '{want}' "
                                  f"is a constant of dtype {arr.dtype}, which ONNX export "
                                  f"does not support")
        node = helper.make_node("Constant", [], [want], name=f"gj.const_output.{want}",
                                value=numpy_helper.from_array(np.array(arr, order="C")))
        scope.nodes.append(node)
        scope.output_names.add(want)
        return self.value_info(want, TensorType(dt, tuple(arr.shape)))

    def value_info(self, name: str, t: TensorType, symbolic: bool = False):
        if t.dtype not in TO_ONNX:
            raise OnnxExportError(f"'{name}' has the dtype {t.dtype}, which ONNX export does "
                                  f"not support")
        if t.shape is None:
            return helper.make_tensor_value_info(name, TO_ONNX[t.dtype], None)
        dims = [d if d is not None else (f"{name}_dim{i}" if symbolic else None)
                for i, d in enumerate(t.shape)]
        return helper.make_tensor_value_info(name, TO_ONNX[t.dtype], dims)

    # -- graphs ------------------------------------------------------------------------------------
    def translate(self, g: Graph, scope: _Scope) -> List[Optional[str]]:
        """Translate the nodes of g into scope (its params already named); returns the
        ONNX names of its results (None for the state token)."""
        saved = self.scope
        self.scope = scope
        scope.output_names = set()
        try:
            for node in g.nodes:
                self.translate_node(node)
        finally:
            self.scope = saved
        out = []
        for r in g.results:
            if r.type.kind == "state":
                out.append(None)
            else:
                out.append(self.names.get(id(r), "?"))
        return out

    def translate_node(self, node: Node) -> None:
        from .export_ops import OPS
        self.counter += 1
        n = self.counter
        saved_pending, saved_current = self._pending, self.current
        self._pending, self.current = [], (node.op, n)
        why = None
        opdef = get_op(node.op)
        fn = OPS.get(node.op)
        try:
            if opdef.effects == "write":
                why = "it updates a Parameter (ONNX graphs hold no state)"
            elif opdef.effects == "random":
                why = "it draws random numbers (ONNX Runtime's would differ)"
            elif opdef.effects == "collective":
                why = ("it is a collective operation across processes (ONNX has no "
                       "collectives; export the model a single process runs)")
            elif opdef.effects == "io":
                why = "it prints (ONNX has no output besides the graph's results)"
            elif fn is None:
                why = "it has no ONNX form"
            else:
                outs = fn(self, node)
                if len(outs) != len(node.outputs):
                    raise NoOnnxForm(f"internal: {len(outs)} ONNX outputs for "
                                     f"{len(node.outputs)}")
                for v, name in zip(node.outputs, outs):
                    self.names[id(v)] = name
        except NoOnnxForm as e:
            why = str(e)
        except GraphJitError:
            raise
        except Exception as e:  # a bug of the exporter: named, never a bare KeyError
            why = (f"the ONNX exporter failed on it ({type(e).__name__}: {e}); please "
                   f"report this as a graphjit bug")
        pending = self._pending
        self._pending, self.current = saved_pending, saved_current
        if why is not None:
            self.problems.append((node.op, node.loc, why))
            for v in node.outputs:
                self.names[id(v)] = None if v.type.kind == "state" else self.fresh("bad")
            return
        if len(pending) == 1:
            pending[0].name = f"gj.{node.op}.{n}"
        else:
            for k, p in enumerate(pending):
                p.name = f"gj.{node.op}.{n}/{k}"
        self.scope.nodes.extend(pending)

    def _problem_error(self) -> OnnxExportError:
        lines = []
        for op, loc, why in self.problems:
            where = ""
            if loc is not None:     # the user's line (and the layer's, inside a built-in one)
                user = loc.user()
                where = f" at {user.short()}" + (f" (in graphjit's {loc.short()})"
                                                 if user is not loc else "")
            lines.append(f"  {op}{where}: {why}")
        ops = sorted({op for op, _, _ in self.problems})
        first = next((loc for _, loc, _ in self.problems if loc is not None), None)
        return OnnxExportError(
            f"cannot export '{self.model.name}' to ONNX: {len(self.problems)} node(s) have "
            f"no ONNX form ({', '.join(ops)})", loc=first, detail="\n".join(lines),
            hint="ONNX export takes inference graphs: no Parameter updates, printing or "
                 "random ops; compute these outside the exported model")

    # -- subgraphs (used by export_ops for If and Loop) --------------------------------------------
    def subgraph(self, g: Graph, bound: Sequence[Optional[str]], name: str,
                 inputs: Sequence = (), prologue=None, epilogue=None):
        """Translate a closed graphjit subgraph into an ONNX GraphProto.

        bound: per parameter of g, the ONNX name it reads (an outer name, or a name
            the prologue defines), or None for the state token; a callable
            `bound()` is called after the prologue ran.
        inputs: ValueInfoProtos of the ONNX body's own inputs (Loop's).
        prologue: called in the body's scope before its nodes, to emit nodes.
        epilogue: called after the nodes with the result names (None for the state
            token); emits nodes and returns the list of (name, TensorType) to output.
        Nodes the prologue and epilogue emit are named `gj.<Op>.<n>/in<k>` and
        `gj.<Op>.<n>/out<k>` after the If or Loop being translated.
        """
        op, n = self.current
        scope = _Scope()
        scope.output_names = set()
        saved_scope, saved_pending = self.scope, self._pending
        self.scope, self._pending = scope, []
        try:
            if prologue is not None:
                prologue()
            for k, p in enumerate(self._pending):
                p.name = f"gj.{op}.{n}/in{k}"
            scope.nodes.extend(self._pending)
            self._pending = []
            names = bound() if callable(bound) else bound
            for p, b in zip(g.params, names):
                self.names[id(p)] = b
            results = self.translate(g, scope)
            self.scope, self.current = scope, (op, n)
            outs = epilogue(results) if epilogue is not None else \
                [(r, v.type) for r, v in zip(results, g.results) if r is not None]
            for k, p in enumerate(self._pending):
                p.name = f"gj.{op}.{n}/out{k}"
            scope.nodes.extend(self._pending)
        finally:
            self.scope, self._pending, self.current = saved_scope, saved_pending, (op, n)
        infos = []
        produced = {o for nd in scope.nodes for o in nd.output}
        for k, (nm, t) in enumerate(outs):
            if nm not in produced or nm in scope.output_names:
                new = self.fresh(f"{name}_out{k}")
                scope.nodes.append(helper.make_node("Identity", [nm], [new],
                                                    name=f"gj.result.{new}"))
                nm = new
            scope.output_names.add(nm)
            infos.append(self.value_info(nm, t))
        return helper.make_graph(scope.nodes, name, list(inputs), infos)


def _reads(nodes, out):
    for n in nodes:
        out.update(n.input)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                out.update(o.name for o in a.g.output)
                _reads(a.g.node, out)
    return out


def _drop_unread_constants(nodes, outputs) -> None:
    """Remove the Constant nodes nothing reads (a Loop trip count of -1, say), in the
    graph and its bodies: ONNX Runtime warns about each."""
    read = _reads(nodes, set(outputs))

    def sweep(ns):
        keep = [n for n in ns if not (n.op_type == "Constant" and n.output[0] not in read)]
        for n in keep:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    inner = sweep(list(a.g.node))
                    del a.g.node[:]
                    a.g.node.extend(inner)
        return keep
    nodes[:] = sweep(nodes)


def _reads_in_subgraphs(node, name) -> int:
    count = 0
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            for n in a.g.node:
                count += sum(1 for i in n.input if i == name) + _reads_in_subgraphs(n, name)
    return count
