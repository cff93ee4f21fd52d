"""Errors inside graphjit's own layers name the user's line first, then the layer's
(the chain of calls kept while building, as MindSpore's "The Traceback of Net
Construct Code"), at build time and at run time (issue 23, item 1)."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn

THIS = __file__


def _line_of(text):
    with open(THIS) as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "_line_of" not in line)


class DenseUser(nn.Cell):
    """A kernel larger than the image: the convolution op fails inside Conv2d."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Conv2d(2, 3, 5, pad_mode="valid")

    def construct(self, x):
        h = x * 2
        return self.fc(h)       # the user's line


class Wrapper(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.SequentialCell([nn.ReLU(), nn.Dense(4, 3)])

    def construct(self, x):
        return self.body(x)     # through SequentialCell into Dense


def _build_error(net, x):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(Exception) as info:
            net(ms.Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return info.value


def test_a_build_error_in_a_layer_names_the_users_line_first():
    e = _build_error(DenseUser(), np.ones((1, 2, 3, 3), np.float32))
    text = str(e)
    user = f'File "{THIS}", line {_line_of("return self.fc(h)")}'
    assert user in text
    files = [line.split('"')[1] for line in text.splitlines() if line.strip().startswith("File")]
    assert files[0] == THIS and files[-1] != THIS       # the user's line, then the layer's
    assert e.line == _line_of("return self.fc(h)")
    assert e.loc.caller is not None and e.loc.user().file == THIS


def test_the_chain_goes_through_nested_layers():
    """Dense's own check, at SequentialCell's line that called it, called from here."""
    e = _build_error(Wrapper(), np.ones((2, 5), np.float32))
    files = [line.split('"')[1] for line in str(e).splitlines()
             if line.strip().startswith("File")]
    assert files[0] == THIS and len(files) == 2 and files[1] != THIS
    assert f"line {_line_of('return self.body(x)')}" in str(e)
    assert str(e).startswith("Dense(in_channels=4) got an input with 5 features")


def test_a_users_own_function_keeps_its_innermost_line():
    def helper(x):
        return x.reshape((7, 7))     # the bad reshape

    class Net(nn.Cell):
        def construct(self, x):
            return helper(x)
    e = _build_error(Net(), np.ones((2, 5), np.float32))
    assert e.line == _line_of("return x.reshape((7, 7))")


def test_an_eager_error_inside_a_layer_names_the_users_line_then_the_layers():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError) as info:
        DenseUser()(ms.Tensor(np.ones((1, 2, 3, 3), np.float32)))
    e = info.value
    files = [line.split('"')[1] for line in str(e).splitlines()
             if line.strip().startswith("File")]
    assert files[0] == THIS and len(files) == 2 and files[1] != THIS
    assert e.line == _line_of("return self.fc(h)")


def test_the_chain_survives_export_and_import():
    import io
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        model = ms.compile(DenseUser(), ms.TensorSpec((1, 2, 8, 8), ms.float32))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    buf = io.BytesIO()
    model.export(buf)
    buf.seek(0)
    back = ms.import_model(buf)
    conv = [n for n in back.graph.walk() if n.loc is not None and n.loc.caller is not None]
    assert conv and all(n.loc.user().file == THIS for n in conv)
    assert conv[0].loc.user().line == _line_of("return self.fc(h)")
