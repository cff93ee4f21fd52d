"""Every built-in layer given a wrong input says so in its own words, naming its
parameter, at the user's line that called it, in eager and in graph mode (issue 23,
item 1). A run-time problem (an nn.Embedding index past vocab_size) names the user's
line too."""
import numpy as np
import pytest

import graphjit as ms
from graphjit import nn

THIS = __file__


def _line(text):
    with open(THIS) as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "_line(" not in line)


class One(nn.Cell):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x):
        return self.layer(x)                    # one input


class Two(nn.Cell):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x, y):
        return self.layer(x, y)                 # two inputs


class Three(nn.Cell):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x, y, z):
        return self.layer(x, y, z)              # three inputs


LINES = {One: "return self.layer(x)  ", Two: "return self.layer(x, y)  ",
         Three: "return self.layer(x, y, z)  "}


def f32(*shape):
    return ms.Tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


def i32(values):
    return ms.Tensor(np.asarray(values, np.int32))


# (id, layer factory, wrapper, inputs, the phrase naming the layer's parameter, the error)
CASES = [
    ("Dense", lambda: nn.Dense(4, 3), One, lambda: (f32(2, 5),),
     r"Dense\(in_channels=4\) got an input with 5 features", ValueError),
    ("Conv1d", lambda: nn.Conv1d(3, 4, 3), One, lambda: (f32(1, 2, 8),),
     r"Conv1d\(in_channels=3\) got an input with 2 channels", ValueError),
    ("Conv2d", lambda: nn.Conv2d(3, 4, 3), One, lambda: (f32(1, 2, 8, 8),),
     r"Conv2d\(in_channels=3\) got an input with 2 channels", ValueError),
    ("Conv2d rank", lambda: nn.Conv2d(3, 4, 3), One, lambda: (f32(8, 8),),
     r"Conv2d\(in_channels=3\) needs a 3-D or 4-D input", ValueError),
    ("Conv1dTranspose", lambda: nn.Conv1dTranspose(3, 4, 3), One, lambda: (f32(1, 2, 8),),
     r"Conv1dTranspose\(in_channels=3\) got an input with 2 channels", ValueError),
    ("Conv2dTranspose", lambda: nn.Conv2dTranspose(3, 4, 3), One, lambda: (f32(1, 2, 8, 8),),
     r"Conv2dTranspose\(in_channels=3\) got an input with 2 channels", ValueError),
    ("BatchNorm1d", lambda: nn.BatchNorm1d(4), One, lambda: (f32(2, 3),),
     r"BatchNorm1d\(num_features=4\) got an input with 3 channels", ValueError),
    ("BatchNorm2d", lambda: nn.BatchNorm2d(16), One, lambda: (f32(2, 8, 3, 3),),
     r"BatchNorm2d\(num_features=16\) got an input with 8 channels", ValueError),
    ("LayerNorm", lambda: nn.LayerNorm((4,)), One, lambda: (f32(2, 3),),
     r"LayerNorm\(normalized_shape=\(4,\)\) got an input whose last 1 dim\(s\) are \(3,\)",
     ValueError),
    ("GroupNorm", lambda: nn.GroupNorm(2, 4), One, lambda: (f32(1, 6, 2, 2),),
     r"GroupNorm\(num_channels=4\) got an input with 6 channels", ValueError),
    ("InstanceNorm1d", lambda: nn.InstanceNorm1d(4), One, lambda: (f32(2, 3, 5),),
     r"InstanceNorm1d\(num_features=4\) got an input with 3 channels", ValueError),
    ("InstanceNorm2d", lambda: nn.InstanceNorm2d(4), One, lambda: (f32(2, 3, 2, 2),),
     r"InstanceNorm2d\(num_features=4\) got an input with 3 channels", ValueError),
    ("InstanceNorm3d", lambda: nn.InstanceNorm3d(4), One, lambda: (f32(1, 3, 2, 2, 2),),
     r"InstanceNorm3d\(num_features=4\) got an input with 3 channels", ValueError),
    ("Embedding dtype", lambda: nn.Embedding(3, 4), One, lambda: (f32(2, 2),),
     r"Embedding\(vocab_size=3\) takes integer indices", ValueError),
    ("RNNCell", lambda: nn.RNNCell(4, 5), Two, lambda: (f32(2, 3), f32(2, 5)),
     r"RNNCell\(input_size=4\) got an input with 3 features", ValueError),
    ("GRUCell", lambda: nn.GRUCell(4, 5), Two, lambda: (f32(2, 3), f32(2, 5)),
     r"GRUCell\(input_size=4\) got an input with 3 features", ValueError),
    ("LSTMCell", lambda: nn.LSTMCell(4, 5), Two, lambda: (f32(2, 3), (f32(2, 5), f32(2, 5))),
     r"LSTMCell\(input_size=4\) got an input with 3 features", ValueError),
    ("RNN", lambda: nn.RNN(4, 5), One, lambda: (f32(2, 3, 3),),
     r"RNN\(input_size=4\) got an input with 3 features", ValueError),
    ("GRU", lambda: nn.GRU(4, 5), One, lambda: (f32(2, 3, 3),),
     r"GRU\(input_size=4\) got an input with 3 features", ValueError),
    ("LSTM", lambda: nn.LSTM(4, 5), One, lambda: (f32(2, 3, 3),),
     r"LSTM\(input_size=4\) got an input with 3 features", ValueError),
    ("MultiheadAttention", lambda: nn.MultiheadAttention(4, 2), Three,
     lambda: (f32(2, 3, 5), f32(2, 3, 5), f32(2, 3, 5)),
     r"MultiheadAttention\(embed_dim=4\) got an input with 5 features", ValueError),
    ("TransformerEncoderLayer", lambda: nn.TransformerEncoderLayer(4, 2, 8), One,
     lambda: (f32(2, 3, 5),),
     r"TransformerEncoderLayer\(d_model=4\) got an input with 5 features", ValueError),
    ("TransformerEncoder", lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8),
                                                         1), One, lambda: (f32(2, 3, 5),),
     r"TransformerEncoderLayer\(d_model=4\) got an input with 5 features", ValueError),
    ("TransformerDecoderLayer", lambda: nn.TransformerDecoderLayer(4, 2, 8), Two,
     lambda: (f32(2, 3, 5), f32(2, 3, 4)),
     r"TransformerDecoderLayer\(d_model=4\) got an input with 5 features", ValueError),
    ("Transformer", lambda: nn.Transformer(4, 2, 1, 1, 8), Two,
     lambda: (f32(2, 3, 5), f32(2, 3, 4)),
     r"Transformer\(d_model=4\) got an input with 5 features", ValueError),
    ("PReLU", lambda: nn.PReLU(3), One, lambda: (f32(2, 4, 2),),
     r"PReLU\(channel=3\) got an input with 4 channels", ValueError),
    ("MaxPool2d", lambda: nn.MaxPool2d(2), One, lambda: (f32(5),),
     r"MaxPool2d\(kernel_size=.*\) needs a 3-D or 4-D input", ValueError),
    ("AvgPool2d", lambda: nn.AvgPool2d(2), One, lambda: (f32(5),),
     r"AvgPool2d\(kernel_size=.*\) needs a 3-D or 4-D input", ValueError),
]


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["eager", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("make,wrapper,inputs,phrase,error",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_wrong_input_is_named_by_the_layer_at_the_users_line(mode, make, wrapper, inputs,
                                                               phrase, error):
    net = wrapper(make())
    with pytest.raises(error, match=phrase) as info:
        net(*inputs())
    text = str(info.value)
    assert f'File "{THIS}", line {_line(LINES[wrapper])}' in text, text
    first = next(line for line in text.splitlines() if line.strip().startswith("File"))
    assert THIS in first, text          # the user's line comes first
    assert "Fix: build the layer with" in text or "needs a" in text or "integer" in text


def test_an_embedding_index_out_of_range_names_the_users_line_at_run_time(mode):
    net = One(nn.Embedding(3, 4))
    assert net(i32([[0, 2]])).shape == (1, 2, 4)
    with pytest.raises(IndexError, match=r"Embedding\(vocab_size=3\) got (the|an) index") as info:
        net(i32([[0, 5]]))
    assert f'File "{THIS}", line {_line(LINES[One])}' in str(info.value)
    with pytest.raises(IndexError, match=r"vocab_size=3"):
        net(i32([[-1, 0]]))


def test_every_layer_with_a_size_parameter_is_checked():
    """CHECKS covers the layers whose constructor fixes a size of their input."""
    from graphjit._input_checks import CHECKS
    covered = {c[0].split()[0] for c in CASES}
    assert set(CHECKS) <= covered | {"Embedding"}
    assert covered - {"Embedding", "TransformerEncoder"} <= set(CHECKS)   # (by its layers)


def test_a_subclass_that_overrides_construct_is_not_checked():
    class Mine(nn.Dense):
        def construct(self, x):             # takes any width: slices it first
            return super().construct(x[..., :4])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert Mine(4, 3)(f32(2, 7)).shape == (2, 3)
