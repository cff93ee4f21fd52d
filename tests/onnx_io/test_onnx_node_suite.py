"""The ONNX package's own backend node tests, imported into graphjit and run.

The cases come from `onnx/backend/test/data/node/` when the onnx package ships it;
onnx 1.23's wheel does not, so they are made in memory by the generators that
write that folder (`onnx.backend.test.case.node`, one module per op: importing a
module runs its `export*` functions, each recording models and expected outputs).
Every generator module is loaded (test_every_generator_module_is_listed). Outputs are
compared as ONNX's runner does: dtype and shape exact, values
with the case's rtol/atol (1e-3 / 1e-7 by default).

A case graphjit cannot pass for want of a feature is skipped with the reason
(SKIPS below, one entry per reason), never left out silently.
"""
import importlib
import os
import re
import warnings

import numpy as np
import pytest

from optional import require
onnx = require("onnx", "onnx")
require("onnx.backend.test.case.node", "onnx")

from onnx import numpy_helper  # noqa: E402

from graphjit.onnx import import_model  # noqa: E402
from graphjit.ir.errors import GraphJitError  # noqa: E402
from graphjit.onnx.importer import NeedsConstantError  # noqa: E402

# the generator modules (onnx/backend/test/case/node/<module>.py) of the ops covered
MODULES = """
loop if_ scan abs add and_ argmax argmin batch_normalization bitwiseand bitwisenot
bitwiseor bitwisexor cast castlike ceil celu clip concat constant constantofshape conv
cos cumsum div dropout elu equal erf exp expand flatten floor gather gatherelements gelu
gemm globalaveragepool globalmaxpool greater greater_or_equal hardsigmoid hardswish
identity isinf isnan layernormalization leakyrelu less less_or_equal log logsoftmax
matmul max mean min mish mod mul neg not_ onehot or_ pad pow prelu rangeop reciprocal
reduce_log_sum reduce_log_sum_exp reducel1 reducel2 reducemax reducemean reducemin
reduceprod reducesum reducesumsquare relu reshape round selu shape shrink sigmoid sign
sin size slice softmax softplus softsign split sqrt squeeze sub sum tanh
thresholdedrelu tile topk transpose unsqueeze where xor averagepool maxpool compress
acos acosh asin asinh atan atanh cosh sinh tan swish hardmax bitshift cumprod trilu eyelike
einsum nonzero attention rotaryembedding rmsnormalization swiglu negativeloglikelihoodloss
softmax_cross_entropy_loss resize upsample depthtospace spacetodepth gathernd scatternd
scatterelements scatter reversesequence center_crop_pad tensorscatter unique
instance_normalization groupnormalization lpnormalization meanvariancenormalization lrn lppool
convtranspose rnn gru lstm hannwindow hammingwindow blackmanwindow quantizelinear
dequantizelinear dynamicquantizelinear matmulinteger convinteger det causal_conv_with_state
linear_attention flexattention dft stft melweightmatrix qlinearmatmul qlinearconv affinegrid
col2im maxunpool gridsample adagrad adam momentum
bernoulli bitcast deformconv image_decoder nonmaxsuppression optionalgetelement
optionalhaselement regex_full_match roialign sequence_map sequenceinsert splittosequence
string_concat string_split stringnormalizer tfidfvectorizer
""".split()

# reason -> (regexes of case names, the error graphjit gives them): what graphjit lacks.
# A skipped case is still imported, and must fail with that error, so a skip never
# hides a regression into another failure.
_NO_DTYPE = r"element type \w+ has no graphjit dtype"
SKIPS = {
    "graphjit has no 8-, 4- or 2-bit dtypes (float8, float4, int4, int2...)": (
        [r"test_cast(like)?_.*(FLOAT8|FLOAT4E2M1|INT4|INT2|UINT4|UINT2|E8M0).*",
         r"test_(de)?quantizelinear_(e4m3fn.*|e5m2|uint4|int4|uint2|int2|float4e2m1)"],
        _NO_DTYPE),
    "graphjit has no string dtype": ([r"test_equal_string.*"], _NO_DTYPE),
    "graphjit has tensors only: no sequence or optional types": (
        [r"test_identity_(opt|sequence)", r"test_if_(opt|seq)", r"test_loop13_seq",
         r"test_loop16_seq_none", r"test_optional_(get|has)_element_.*", r"test_sequence_.*",
         r"test_split_to_sequence_.*"],
        r"(is a sequence|is an optional|graphjit cannot express)"),
    "graphjit has no string dtype (string ops, TfIdfVectorizer's string vocabularies aside, "
    "are refused by op)": (
        [r"test_string_(concat|split).*", r"test_strnormalizer_.*", r"test_regex_full_match_.*"],
        r"(has no graphjit dtype|graphjit cannot express)"),
    "random ops (Bernoulli, RandomUniformLike) cannot reproduce the test's draws and are "
    "not imported": ([r"test_bernoulli.*"], r"graphjit cannot express"),
    "graphjit has no image decoding (ImageDecoder takes encoded bytes)": (
        [r"test_image_decoder_.*"],
        r"graphjit cannot express"),
    "random Dropout in training mode (a nonzero ratio) is not imported": (
        [r"test_training_dropout(_default)?(_mask)?"], r"training mode"),
}

# case regex -> (atol, reason): an expected output whose own rounding exceeds the default
# atol (1e-7) where graphjit's answer is closer to the exact one
TOLERANCES = {
    r"test_dft_inverse(_opset19)?": (1e-6, "the expected imaginary parts of bins that are "
                                     "exactly 0 hold numpy's complex64 FFT noise (1.9e-7, "
                                     "outputs up to 50); graphjit's matrix DFT gives 5e-15"),
}


def _cases():
    shipped = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    if os.path.isdir(shipped):
        return _shipped_cases(shipped)
    import onnx.backend.test.case.node as gen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            for m in MODULES:
                importlib.import_module(f"{gen.__name__}.{m}")
    cases = {}
    for c in gen._NodeTestCases:
        cases.setdefault(c.name, (c.model, c.data_sets, c.rtol, c.atol))
    return cases


def _shipped_cases(root):
    ops = set()
    for m in MODULES:
        ops.add(m.rstrip("_").replace("_", ""))
    cases = {}
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        model = onnx.load(os.path.join(path, "model.onnx"))
        if not {n.op_type.lower() for n in model.graph.node} & ops:
            continue
        sets = []
        for d in sorted(x for x in os.listdir(path) if x.startswith("test_data_set_")):
            read = lambda kind: [_read_pb(os.path.join(path, d, f)) for f in sorted(  # noqa
                os.listdir(os.path.join(path, d))) if f.startswith(kind)]
            sets.append((read("input_"), read("output_")))
        cases[name] = (model, sets, 1e-3, 1e-7)
    return cases


def _read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


CASES = _cases()
NAMES = sorted(CASES)


def _array(x):
    if isinstance(x, (list, type(None))):      # a sequence or an empty optional: as it is
        return x
    return numpy_helper.to_array(x) if isinstance(x, onnx.TensorProto) else np.asarray(x)


def _import_freezing(model, inputs):
    """Import the model; an input graphjit needs while building (axes, a shape, pads),
    which the node tests feed as graph inputs, becomes an initializer of its test value,
    as onnx-simplifier or the exporter of a real model makes it. The CompiledModel
    gets `input_names`: the inputs still fed."""
    model = _copy(model)
    while True:
        try:
            compiled = import_model(model)
        except NeedsConstantError as e:
            names = [vi.name for vi in model.graph.input]
            if e.input_name not in names:
                raise
            k = names.index(e.input_name)
            model.graph.initializer.append(numpy_helper.from_array(inputs[k], e.input_name))
            continue
        compiled.input_names = [n for n, _ in compiled._inputs]
        return compiled


def _copy(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    return m


def _skip_reason(name):
    for reason, (patterns, error) in SKIPS.items():
        if any(re.fullmatch(p, name) for p in patterns):
            return reason, error
    return None


def test_every_generator_module_is_listed():
    """A module a newer onnx adds must be listed (and its cases pass or be skipped)."""
    import onnx.backend.test.case.node as gen
    folder = os.path.dirname(gen.__file__)
    found = {f[:-3] for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_")}
    assert found <= set(MODULES), sorted(found - set(MODULES))


def test_the_suite_is_loaded():
    control = [n for n in NAMES if re.match(r"test_(loop|if|scan)", n)]
    assert len(control) >= 10, control
    assert len(NAMES) > 300


@pytest.mark.parametrize("name", NAMES)
def test_node(name):
    model, data_sets, rtol, atol = CASES[name]
    for pattern, (wider, _) in TOLERANCES.items():
        if re.fullmatch(pattern, name):
            atol = wider
    skip = _skip_reason(name)
    if skip:
        reason, error = skip
        with pytest.raises(GraphJitError, match=error):
            _import_freezing(model, [_array(x) for x in data_sets[0][0]])
        pytest.skip(reason)
    for inputs, expected in data_sets:
        inputs = [_array(x) for x in inputs]
        compiled = _import_freezing(model, inputs)
        fed = [x for x, vi in zip(inputs, model.graph.input) if vi.name in compiled.input_names]
        got = compiled.run_arrays(fed)
        assert len(got) == len(expected)
        for k, (g, e) in enumerate(zip(got, expected)):
            e = _array(e)
            assert g.dtype == e.dtype, f"output {k}: dtype {g.dtype}, expected {e.dtype}"
            assert g.shape == e.shape, f"output {k}: shape {g.shape}, expected {e.shape}"
            if e.dtype.kind in "fc":
                np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=f"output {k}")
            else:
                np.testing.assert_array_equal(g, e, err_msg=f"output {k}")
