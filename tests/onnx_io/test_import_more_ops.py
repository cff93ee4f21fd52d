"""The ONNX ops imported by import_math, import_attn, import_loss, import_resize,
import_scatter, import_norm, import_window and import_rnn, on cases ONNX's own node
tests do not reach (activations, clip, directions, reductions with duplicates,
1-D windows...), against ONNX Runtime; and their refusals."""
import numpy as np
import pytest

from optional import require
onnx = require("onnx", "onnx")
ort = require("onnxruntime", "onnx")

from onnx import helper as h, numpy_helper  # noqa: E402

from onnx.reference import ReferenceEvaluator  # noqa: E402

from graphjit.onnx import import_model  # noqa: E402
from graphjit.onnx.importer import OnnxImportError  # noqa: E402

RNG = np.random.default_rng(7)


def _model(node, feeds, consts=None, opset=21):
    consts = consts or {}
    inputs = [h.make_tensor_value_info(k, onnx.helper.np_dtype_to_tensor_dtype(v.dtype),
                                       v.shape) for k, v in feeds.items()]
    outputs = [onnx.ValueInfoProto(name=o) for o in node.output if o]
    inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()]
    g = h.make_graph([node], "main", inputs, outputs, initializer=inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 10
    return onnx.shape_inference.infer_shapes(m)   # the outputs' types, which ORT needs


def check(node, feeds, consts=None, opset=21, rtol=1e-5, atol=1e-6, want=None,
          reference=False):
    """graphjit's import against ONNX Runtime (or ONNX's reference evaluator, or the
    outputs `want`), where ONNX Runtime lacks the case."""
    m = _model(node, feeds, consts, opset)
    if want is None and reference:
        want = ReferenceEvaluator(m).run(None, feeds)
    elif want is None:
        s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        want = s.run(None, feeds)
    got = import_model(m).run_arrays(list(feeds.values()))
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype, k
        assert g.shape == w.shape, (k, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"output {k}")


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# -- recurrent layers -----------------------------------------------------------------------------
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("layout", [0, 1])
def test_lstm_directions_layouts_peepholes_and_clip(direction, layout):
    d, t, b, i, hs = (2 if direction == "bidirectional" else 1), 4, 3, 5, 6
    x = f32(t, b, i)
    consts = {"W": f32(d, 4 * hs, i), "R": f32(d, 4 * hs, hs), "B": f32(d, 8 * hs),
              "P": f32(d, 3 * hs)}

    def node(layout):
        return h.make_node("LSTM", ["X", "W", "R", "B", "", "", "", "P"], ["Y", "Yh", "Yc"],
                           hidden_size=hs, direction=direction, layout=layout, clip=1.5)
    if not layout:
        check(node(0), {"X": x}, consts)
        return
    # ONNX Runtime has no batch-major layout: its time-major answer, transposed
    s = ort.InferenceSession(_model(node(0), {"X": x}, consts).SerializeToString(),
                             providers=["CPUExecutionProvider"])
    y, yh, yc = s.run(None, {"X": x})
    check(node(1), {"X": x.transpose(1, 0, 2).copy()}, consts,
          want=[y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2), yc.transpose(1, 0, 2)])


def test_lstm_activations_initial_states_and_input_forget():
    t, b, i, hs = 3, 2, 4, 5
    feeds = {"X": f32(t, b, i), "h0": f32(1, b, hs), "c0": f32(1, b, hs)}
    consts = {"W": f32(1, 4 * hs, i), "R": f32(1, 4 * hs, hs)}
    node = h.make_node("LSTM", ["X", "W", "R", "", "", "h0", "c0"], ["Y", "Yh", "Yc"],
                       hidden_size=hs, input_forget=1,
                       activations=["HardSigmoid", "LeakyRelu", "Tanh"],
                       activation_alpha=[0.3, 0.05], activation_beta=[0.4])
    check(node, feeds, consts)


@pytest.mark.parametrize("lbr", [0, 1])
def test_gru_bidirectional_with_bias_and_initial_state(lbr):
    t, b, i, hs = 4, 2, 3, 5
    feeds = {"X": f32(t, b, i), "h0": f32(2, b, hs)}
    consts = {"W": f32(2, 3 * hs, i), "R": f32(2, 3 * hs, hs), "B": f32(2, 6 * hs)}
    node = h.make_node("GRU", ["X", "W", "R", "B", "", "h0"], ["Y", "Yh"], hidden_size=hs,
                       direction="bidirectional", linear_before_reset=lbr)
    check(node, feeds, consts)


def test_rnn_reverse_with_relu_and_constant_full_sequence_lens():
    t, b, i, hs = 5, 3, 2, 4
    feeds = {"X": f32(t, b, i)}
    consts = {"W": f32(1, hs, i), "R": f32(1, hs, hs) * 0.3, "B": f32(1, 2 * hs),
              "L": np.full(b, t, np.int32)}
    node = h.make_node("RNN", ["X", "W", "R", "B", "L"], ["Y", "Yh"], hidden_size=hs,
                       direction="reverse", activations=["Relu"])
    check(node, feeds, consts)


def test_rnn_with_a_padded_batch_is_refused():
    consts = {"W": f32(1, 4, 2), "R": f32(1, 4, 4), "L": np.array([3, 1], np.int32)}
    node = h.make_node("RNN", ["X", "W", "R", "", "L"], ["Y"], hidden_size=4)
    with pytest.raises(OnnxImportError, match="sequence_lens shorter than the sequence"):
        import_model(_model(node, {"X": f32(3, 2, 2)}, consts))


# -- scatters and gathers ----------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_nd_reductions(reduction):
    data = f32(6, 3)
    idx = np.array([[4], [0], [2]], np.int64)
    check(h.make_node("ScatterND", ["d", "i", "u"], ["y"], reduction=reduction),
          {"d": data, "i": idx, "u": f32(3, 3)})


def test_scatter_nd_none_lets_the_last_write_win():
    m = _model(h.make_node("ScatterND", ["d", "i", "u"], ["y"]),
               {"d": np.zeros(4, np.float32), "i": np.array([[1], [1], [3], [1]]),
                "u": np.array([1, 2, 3, 4], np.float32)})
    got = import_model(m).run_arrays([np.zeros(4, np.float32), np.array([[1], [1], [3], [1]]),
                                      np.array([1, 2, 3, 4], np.float32)])[0]
    np.testing.assert_array_equal(got, [0, 4, 0, 3])


@pytest.mark.parametrize("reduction", ["none", "add", "max", "min", "mul"])
def test_scatter_elements_negative_indices_and_axis_1(reduction):
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    idx = np.array([[-1, 0], [2, -4], [1, 3]], np.int64)
    check(h.make_node("ScatterElements", ["d", "i", "u"], ["y"], axis=1, reduction=reduction),
          {"d": data, "i": idx, "u": np.array([[5, -6], [7, 8], [-9, 10]], np.int32)})


def test_gather_nd_with_batch_dims_and_negative_indices():
    check(h.make_node("GatherND", ["d", "i"], ["y"], batch_dims=1),
          {"d": f32(2, 3, 4, 5), "i": np.array([[[0, -1], [2, 1]], [[-3, 0], [1, 3]]])})


def test_reverse_sequence_batch_major():
    check(h.make_node("ReverseSequence", ["x", "l"], ["y"], batch_axis=0, time_axis=1),
          {"x": f32(3, 5, 2), "l": np.array([5, 1, 3], np.int64)})


# -- math -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("eq", ["ij,jk->ik", "bij,bjk->bik", "ii->i", "ii", "...ij,...jk",
                                "i,j->ij", "ijk->", "ij,ij->i"])
def test_einsum_equations(eq):
    shapes = {"ij,jk->ik": [(3, 4), (4, 2)], "bij,bjk->bik": [(2, 3, 4), (2, 4, 5)],
              "ii->i": [(4, 4)], "ii": [(3, 3)], "...ij,...jk": [(2, 3, 4), (4, 5)],
              "i,j->ij": [(3,), (4,)], "ijk->": [(2, 3, 4)], "ij,ij->i": [(3, 4), (3, 4)]}
    feeds = {f"x{k}": f32(*s) for k, s in enumerate(shapes[eq])}
    want = [np.einsum(eq, *feeds.values())]
    check(h.make_node("Einsum", list(feeds), ["y"], equation=eq), feeds, rtol=1e-4, want=want)


def test_einsum_of_integers_keeps_the_dtype():
    feeds = {"a": np.arange(6, dtype=np.int32).reshape(2, 3),
             "b": np.arange(12, dtype=np.int32).reshape(3, 4)}
    check(h.make_node("Einsum", ["a", "b"], ["y"], equation="ij,jk->ik"), feeds)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_nonzero(dtype):
    x = (RNG.integers(0, 3, (3, 4)) > 1).astype(dtype)
    check(h.make_node("NonZero", ["x"], ["y"]), {"x": x})


def test_hardmax_takes_the_first_maximum():
    x = np.array([[1, 3, 3, 0], [2, 2, 2, 2]], np.float32)
    check(h.make_node("Hardmax", ["x"], ["y"], axis=1), {"x": x})


# -- resize ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode,ctm", [("linear", "align_corners"), ("cubic", "half_pixel"),
                                      ("nearest", "asymmetric"), ("linear", "pytorch_half_pixel")])
def test_resize_modes_on_one_axis_of_a_3d_tensor(mode, ctm):
    node = h.make_node("Resize", ["x", "", "", "s"], ["y"], mode=mode,
                       coordinate_transformation_mode=ctm, axes=[2])
    check(node, {"x": f32(2, 3, 5)}, {"s": np.array([8], np.int64)}, opset=19, rtol=1e-4,
          reference=True)


def test_resize_of_uint8_rounds_and_clips():
    x = RNG.integers(0, 256, (1, 1, 3, 3)).astype(np.uint8)
    node = h.make_node("Resize", ["x", "", "sc"], ["y"], mode="cubic")
    check(node, {"x": x}, {"sc": np.array([1, 1, 2, 2], np.float32)}, opset=19, atol=1,
          reference=True)


# -- windows and normalizations -----------------------------------------------------------------
def test_conv_transpose_1d_with_groups_strides_and_bias():
    node = h.make_node("ConvTranspose", ["x", "w", "b"], ["y"], group=2, strides=[2],
                       pads=[1, 0], output_padding=[1])
    check(node, {"x": f32(2, 4, 5)}, {"w": f32(4, 3, 3), "b": f32(6)}, rtol=1e-4)


def test_lp_pool_p1_with_dilations_and_pads():
    node = h.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 2], p=1, dilations=[2, 1],
                       pads=[1, 1, 0, 1], strides=[1, 2])
    check(node, {"x": f32(1, 2, 5, 6)}, rtol=1e-4)


def test_group_normalization_of_opset_18_scales_per_group():
    node = h.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)
    check(node, {"x": f32(2, 4, 3)}, {"s": f32(2), "b": f32(2)}, opset=18, rtol=1e-4)


def test_lrn_over_an_even_window():
    node = h.make_node("LRN", ["x"], ["y"], size=4, alpha=0.01, beta=0.6, bias=1.5)
    # the reference sums channels only below the batch size: a batch of 6 for 6 channels
    check(node, {"x": f32(6, 6, 3, 3)}, rtol=1e-4, reference=True)


# -- refusals -------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", [1, 2])
def test_conv_transpose_3d_against_onnx_runtime(group):
    node = h.make_node("ConvTranspose", ["x", "w", "b"], ["y"], group=group, strides=[2, 1, 2],
                       pads=[1, 0, 0, 0, 1, 1], dilations=[1, 2, 1], output_padding=[1, 0, 0])
    check(node, {"x": f32(2, 4, 3, 2, 3)}, {"w": f32(4, 3, 2, 2, 3), "b": f32(3 * group)},
          rtol=1e-4, atol=1e-5)


def test_lp_pool_3d_against_the_reference():
    node = h.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 2, 2], p=3,
                       pads=[1, 0, 0, 0, 1, 1], strides=[1, 2, 1])
    check(node, {"x": f32(1, 2, 3, 4, 5)}, reference=True, rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("op_type", ["ReduceMax", "ReduceMin"])
def test_max_and_min_over_an_empty_dim(dtype, op_type):
    x = np.zeros((2, 0, 3), dtype)
    node = h.make_node(op_type, ["x", "axes"], ["y"], keepdims=1)
    check(node, {"x": x}, {"axes": np.array([1], np.int64)}, reference=True)


def test_batch_norm_in_training_mode_against_the_reference():
    node = h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"],
                       training_mode=1, momentum=0.8, epsilon=1e-3)
    check(node, {"x": f32(4, 3, 2, 5)}, {"s": f32(3), "b": f32(3), "m": f32(3),
                                         "v": np.abs(f32(3))}, reference=True, rtol=1e-4)


@pytest.mark.parametrize("sort", [0, 1])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unique_along_an_axis_against_onnx_runtime(sort, axis):
    x = np.array([[2, 1, 2, 0], [1, 3, 1, 3], [2, 1, 2, 0], [0, 0, 0, 5]], np.float32)
    check(h.make_node("Unique", ["x"], ["y", "i", "inv", "c"], axis=axis, sorted=sort),
          {"x": x})


# -- quantization and integer products ----------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_quantize_per_axis_with_zero_points_rounds_halves_to_even(dtype):
    x = np.array([[0.5, 1.5, 2.5, -300.0], [7.0, -1.5, 1000.0, 3.25]], np.float32)
    zp = np.array([3, 0], dtype)
    node = h.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=0)
    check(node, {"x": x}, {"s": np.array([1.0, 0.5], np.float32), "z": zp})


def test_dequantize_blocked_with_zero_points():
    x = RNG.integers(-128, 128, (2, 6)).astype(np.int8)
    node = h.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=1, block_size=4)
    check(node, {"x": x}, {"s": np.array([[0.5, 2.0], [0.25, 1.0]], np.float32),
                           "z": np.array([[1, -2], [0, 3]], np.int8)}, reference=True)


def test_matmul_integer_with_per_row_and_per_column_zero_points():
    a = RNG.integers(0, 256, (3, 4)).astype(np.uint8)
    b = RNG.integers(0, 256, (4, 2)).astype(np.uint8)
    za, zb = np.array([1, 2, 3], np.uint8), np.array([4, 5], np.uint8)
    want = (a.astype(np.int32) - za[:, None]) @ (b.astype(np.int32) - zb)   # ORT: scalar za only
    node = h.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])
    check(node, {"a": a, "b": b}, {"za": za, "zb": zb}, want=[want])


@pytest.mark.parametrize("n", [1, 3, 4, 5])
def test_det_of_batched_matrices(n):
    x = f32(2, 3, n, n)
    check(h.make_node("Det", ["x"], ["y"]), {"x": x}, want=[np.linalg.det(x)], rtol=1e-4,
          atol=1e-5)


def test_det_of_large_matrices_is_refused():
    with pytest.raises(OnnxImportError, match="Det of 6x6 matrices is not supported"):
        import_model(_model(h.make_node("Det", ["x"], ["y"]), {"x": f32(6, 6)}))


# -- DFT ------------------------------------------------------------------------------------------
def _complex(x):
    return x[..., 0] + 1j * x[..., 1]


@pytest.mark.parametrize("n", [None, 5, 12])
@pytest.mark.parametrize("onesided", [0, 1])
def test_dft_of_a_complex_signal_cut_or_padded(n, onesided):
    x = f32(2, 8, 3, 2)
    consts = {"axis": np.array(1, np.int64)}
    ins = ["x", "", "axis"]
    if n is not None:
        consts["n"] = np.array(n, np.int64)
        ins[1] = "n"
    y = np.fft.fft(_complex(x.astype(np.float64)), n=n, axis=1)
    if onesided:
        y = y[:, :(n or 8) // 2 + 1]
    want = np.stack([y.real, y.imag], -1).astype(np.float32)
    check(h.make_node("DFT", ins, ["y"], onesided=onesided), {"x": x}, consts, want=[want],
          rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [6, 7])
def test_dft_inverse_one_sided_is_numpy_irfft(n):
    x = f32(3, n // 2 + 1, 2)
    want = np.fft.irfft(_complex(x.astype(np.float64)), n=n, axis=1)[..., None]
    check(h.make_node("DFT", ["x", "n", "axis"], ["y"], inverse=1, onesided=1), {"x": x},
          {"n": np.array(n, np.int64), "axis": np.array(1, np.int64)},
          want=[want.astype(np.float32)], rtol=1e-4, atol=1e-5)


def test_stft_with_a_window_against_onnx_runtime():
    x = f32(2, 32, 1)
    check(h.make_node("STFT", ["x", "step", "w"], ["y"]), {"x": x},
          {"step": np.array(6, np.int64), "w": np.hanning(10).astype(np.float32)},
          rtol=1e-4, atol=1e-4)


# -- grids, unpooling, constant If -------------------------------------------------------------
@pytest.mark.parametrize("align", [0, 1])
def test_affine_grid_3d_against_the_reference(align):
    node = h.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=align)
    check(node, {"theta": f32(2, 3, 4)}, {"size": np.array([2, 1, 3, 4, 5], np.int64)},
          reference=True)


def test_col2im_with_pads_strides_and_dilations_against_onnx_runtime():
    node = h.make_node("Col2Im", ["x", "img", "blk"], ["y"], dilations=[1, 2], pads=[1, 0, 1, 1],
                       strides=[2, 1])
    img, blk = np.array([5, 6], np.int64), np.array([2, 2], np.int64)
    rows = (5 + 2 - 2) // 2 + 1
    cols = (6 + 1 - 3) // 1 + 1
    check(node, {"x": f32(2, 3 * 4, rows * cols)}, {"img": img, "blk": blk})


def test_max_unpool_into_a_larger_output_shape():
    """As ONNX's node test and reference: the indices address the inferred (1, 2, 4, 4),
    padded with zeros to output_shape (ONNX Runtime reads them in output_shape)."""
    x = f32(1, 2, 2, 2)
    idx = np.array([[[[0, 3], [9, 14]], [[16, 19], [25, 31]]]], np.int64)
    node = h.make_node("MaxUnpool", ["x", "i", "shape"], ["y"], kernel_shape=[2, 2],
                       strides=[2, 2])
    check(node, {"x": x, "i": idx}, {"shape": np.array([1, 2, 5, 4], np.int64)},
          reference=True)


def test_an_if_on_a_constant_condition_takes_its_branch_while_building():
    """The branches give different ranks: only the taken one is built."""
    then = h.make_graph([h.make_node("ReduceSum", ["x"], ["t"], keepdims=0)], "then", [],
                        [h.make_tensor_value_info("t", onnx.TensorProto.FLOAT, None)])
    other = h.make_graph([h.make_node("Neg", ["x"], ["e"])], "else", [],
                         [h.make_tensor_value_info("e", onnx.TensorProto.FLOAT, None)])
    nodes = [h.make_node("Shape", ["x"], ["s"]), h.make_node("Size", ["s"], ["r"]),
             h.make_node("Equal", ["r", "two"], ["c"]),
             h.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)]
    g = h.make_graph(nodes, "main", [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                                              [2, 3])],
                     [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
                     initializer=[numpy_helper.from_array(np.array(2, np.int64), "two")])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    x = f32(2, 3)
    cm = import_model(m)
    assert not any(n.op == "If" for n in cm.graph.walk())
    np.testing.assert_allclose(cm.run_arrays([x])[0], x.sum(), rtol=1e-6)


@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_4d_against_onnx_runtime(mode, padding):
    """Bicubic with border padding: ONNX Runtime clamps otherwise than ONNX's reference
    (which the node tests follow, and graphjit): checked against the reference."""
    grid = (RNG.uniform(-1.4, 1.4, (2, 3, 5, 2))).astype(np.float32)
    node = h.make_node("GridSample", ["x", "g"], ["y"], mode=mode, padding_mode=padding,
                       align_corners=1 if padding == "border" else 0)
    check(node, {"x": f32(2, 3, 4, 6), "g": grid}, rtol=1e-4, atol=1e-5,
          reference=(mode, padding) == ("cubic", "border"))


# -- other domains --------------------------------------------------------------------------------
def _training_model(with_default_node):
    dom = "ai.onnx.preview.training"
    nodes = [h.make_node("Adagrad", ["r", "t", "x", "g", "h"], ["x2", "h2"], domain=dom,
                         epsilon=1e-6, decay_factor=0.1)]
    if with_default_node:
        nodes.append(h.make_node("Neg", ["x2"], ["x3"]))
    vi = lambda n, t=onnx.TensorProto.FLOAT, s=(3,): h.make_tensor_value_info(n, t, s)  # noqa
    g = h.make_graph(nodes, "opt", [vi("r", s=()), vi("t", onnx.TensorProto.INT64, ()),
                                    vi("x"), vi("g"), vi("h")],
                     [vi("x3" if with_default_node else "x2"), vi("h2")])
    return h.make_model(g, opset_imports=[h.make_opsetid(dom, 1)])


def test_a_model_of_training_ops_only_needs_no_default_opset():
    r, t = np.array(0.1, np.float32), np.array(3, np.int64)
    x, g, hh = f32(3), f32(3), np.abs(f32(3))
    want = ReferenceEvaluator(_training_model(False)).run(None, {"r": r, "t": t, "x": x,
                                                                 "g": g, "h": hh})
    got = import_model(_training_model(False)).run_arrays([r, t, x, g, hh])
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_default_domain_node_without_its_opset_is_a_damaged_file():
    from graphjit.ir.errors import ModelFileError
    with pytest.raises(ModelFileError, match="no entry for the default ONNX domain"):
        import_model(_training_model(True))


@pytest.mark.parametrize("ctm", ["half_pixel", "output_half_pixel"])
def test_roi_align_average_against_onnx_runtime(ctm):
    rois = np.array([[0, 0, 7, 5], [1.5, 2.2, 9.9, 8.1], [-3, -2, 4, 3], [5, 1, 5.5, 1.2]],
                    np.float32)
    node = h.make_node("RoiAlign", ["x", "rois", "b"], ["y"], output_height=3, output_width=2,
                       sampling_ratio=2, spatial_scale=0.5, coordinate_transformation_mode=ctm)
    check(node, {"x": f32(2, 3, 6, 7), "rois": rois, "b": np.array([0, 1, 1, 0], np.int64)},
          rtol=1e-4, atol=1e-5)


def test_roi_align_with_an_adaptive_grid_is_refused():
    node = h.make_node("RoiAlign", ["x", "rois", "b"], ["y"], sampling_ratio=0)
    with pytest.raises(OnnxImportError, match="sampling_ratio 0"):
        import_model(_model(node, {"x": f32(1, 1, 4, 4), "rois": f32(2, 4),
                                   "b": np.zeros(2, np.int64)}))


def test_deform_conv_with_groups_strides_dilations_and_mask():
    x = f32(2, 4, 6, 7)
    oh, ow = (6 + 2 - 3) // 2 + 1, (7 + 1 - 2) // 1 + 1
    feeds = {"x": x, "off": f32(2, 2 * 2 * 2 * 2, oh, ow) * 0.7,
             "mask": RNG.uniform(0, 1, (2, 2 * 2 * 2, oh, ow)).astype(np.float32)}
    node = h.make_node("DeformConv", ["x", "w", "off", "b", "mask"], ["y"], kernel_shape=[2, 2],
                       strides=[2, 1], dilations=[2, 1], pads=[1, 0, 1, 1], group=2,
                       offset_group=2)
    check(node, feeds, {"w": f32(6, 2, 2, 2), "b": f32(6)}, rtol=1e-4, atol=1e-5,
          reference=True)


@pytest.mark.parametrize("center", [0, 1])
def test_non_max_suppression_against_onnx_runtime(center):
    boxes = RNG.uniform(0, 10, (2, 8, 4)).astype(np.float32)
    if center:
        boxes[..., 2:] = np.abs(boxes[..., 2:]) / 2 + 1
    scores = RNG.uniform(0, 1, (2, 3, 8)).astype(np.float32)
    scores[0, 0, 3] = scores[0, 0, 5]                     # a tie: the lower index first
    node = h.make_node("NonMaxSuppression", ["b", "s", "m", "iou", "st"], ["y"],
                       center_point_box=center)
    check(node, {"b": boxes, "s": scores},
          {"m": np.array([3], np.int64), "iou": np.array([0.3], np.float32),
           "st": np.array([0.2], np.float32)})


def test_non_max_suppression_of_too_many_boxes_is_refused():
    node = h.make_node("NonMaxSuppression", ["b", "s"], ["y"])
    with pytest.raises(OnnxImportError, match="too large for graphjit's unrolled form"):
        import_model(_model(node, {"b": f32(1, 5000, 4), "s": f32(1, 1, 5000)}))


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
def test_tfidf_vectorizer_uni_bi_and_trigrams_with_skips(mode):
    x = RNG.integers(1, 5, (3, 12)).astype(np.int64)
    pool = [1, 2, 3, 4, 1, 2, 2, 3, 4, 4, 1, 2, 3]   # 4 unigrams, 3 bigrams, 1 trigram
    node = h.make_node("TfIdfVectorizer", ["x"], ["y"], mode=mode, min_gram_length=1,
                       max_gram_length=3, max_skip_count=2, ngram_counts=[0, 4, 10],
                       ngram_indexes=[0, 1, 2, 3, 4, 5, 6, 7], pool_int64s=pool,
                       weights=[0.5, 1.0, 2.0, 1.5, 3.0, 0.25, 1.0, 2.0])
    check(node, {"x": x})


@pytest.mark.parametrize("code,np_dtype", [(onnx.TensorProto.UINT16, np.uint16),
                                           (onnx.TensorProto.UINT32, np.uint32),
                                           (onnx.TensorProto.UINT64, np.uint64)])
def test_unsigned_wide_dtypes_are_read_from_typed_fields_and_inputs(code, np_dtype):
    c = h.make_tensor("c", code, [3], [1, 2, 65535])      # typed fields, not raw_data
    g = h.make_graph([h.make_node("Add", ["x", "c"], ["y"])], "u",
                     [h.make_tensor_value_info("x", code, [3])],
                     [h.make_tensor_value_info("y", code, [3])], initializer=[c])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    x = np.array([5, 0, 1], np_dtype)
    got = import_model(m).run_arrays([x])[0]
    assert got.dtype == np_dtype
    np.testing.assert_array_equal(got, x + np.array([1, 2, 65535], np_dtype))


# -- pools graphjit's own MaxPool/AvgPool do not take ---------------------------------------------
@pytest.mark.parametrize("op_type", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("include", [0, 1])
def test_pool_3d_with_strides_and_wide_pads_against_onnx_runtime(op_type, include):
    attrs = dict(kernel_shape=[2, 3, 2], strides=[1, 2, 2], pads=[1, 2, 0, 1, 2, 1])
    if op_type == "AveragePool":
        attrs["count_include_pad"] = include
    check(h.make_node(op_type, ["x"], ["y"], **attrs), {"x": f32(2, 3, 4, 5, 6)}, rtol=1e-5)


@pytest.mark.parametrize("op_type", ["MaxPool", "AveragePool"])
def test_pool_1d_and_dilated_average_with_ceil_mode_against_the_reference(op_type):
    check(h.make_node(op_type, ["x"], ["y"], kernel_shape=[3], strides=[2], ceil_mode=1,
                      dilations=[2], pads=[1, 1]), {"x": f32(2, 3, 10)}, reference=True)


@pytest.mark.parametrize("order", [0, 1])
def test_max_pool_indices_over_the_whole_tensor(order):
    node = h.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[2, 1],
                       pads=[1, 0, 0, 1], storage_order=order)
    check(node, {"x": f32(2, 3, 5, 4)})


def test_a_value_needed_while_building_names_the_graph_input_it_comes_from():
    from graphjit.onnx.importer import NeedsConstantError
    nodes = [h.make_node("Shape", ["x"], ["s"]), h.make_node("Sub", ["want", "s"], ["d"]),
             h.make_node("Concat", ["zero", "d"], ["pads"], axis=0),
             h.make_node("Pad", ["x", "pads"], ["y"])]
    g = h.make_graph(nodes, "p", [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3]),
                                  h.make_tensor_value_info("want", onnx.TensorProto.INT64, [1])],
                     [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
                     initializer=[numpy_helper.from_array(np.array([0], np.int64), "zero")])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    with pytest.raises(NeedsConstantError, match="computed from the graph input 'want'") as e:
        import_model(m)
    assert e.value.input_name == "want"
    m.graph.initializer.append(numpy_helper.from_array(np.array([5], np.int64), "want"))
    y = import_model(m).run_arrays([np.ones(3, np.float32)])[0]     # want: a constant now
    np.testing.assert_array_equal(y, [1, 1, 1, 0, 0])
