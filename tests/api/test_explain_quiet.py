"""explain reports the user's own control flow (issue 23, item 2): the ifs that graphjit's
built-in layers decide from their settings are left out (listed with library=True), a
for loop's variable is not carried, carried is what the compiled Loop hands from one
iteration to the next, and the state token is in no "depends on"."""
import numpy as np

import graphjit as ms
from graphjit import nn, ops


class Decoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)
        self.emb = nn.Embedding(5, 3)
        self.w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")

    def construct(self, x, ids):
        h = ops.zeros((3,), ms.float32)
        for row in x:
            tmp = row * 2                   # read after the loop by nobody: not carried
            h = ops.tanh(self.fc(row) + h * self.w + tmp)
        logits = self.fc(h)
        token = ops.argmax(logits)
        length = 0
        while length < 4:
            scratch = h * 2
            h = self.fc(h)
            token = ops.argmax(h)
            if token > 1:
                break
            length += 1
        return h + self.emb(ids).sum(), token, length, scratch


def _report(**kw):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return ms.explain(Decoder(), ms.Tensor(np.ones((4, 3), np.float32)),
                          ms.Tensor(np.array([1, 2], np.int32)), **kw)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _block(text, head):
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if head in line)
    out = []
    for line in lines[i + 1:]:
        if not line.startswith("      "):
            break
        out.append(line.strip())
    return out


def test_the_layers_ifs_are_left_out_and_counted():
    text = str(_report())
    assert "nn.py" not in text and "nn_layers.py" not in text and "basic.py" not in text
    assert "has_bias" not in text and "use_one_hot" not in text
    assert "of graphjit's built-in layers, all decided by the layers' settings, not " \
           "listed: ms.explain(..., library=True) lists them" in text
    full = str(_report(library=True))
    assert "if self.has_bias" in full and "if self.use_one_hot" in full


def test_carried_is_what_the_loop_hands_on():
    text = str(_report())
    assert "carried: h" in _block(text, "for row in x:")
    # scratch is returned: the Loop gives its last value, so it carries it
    assert "carried: scratch, h, token, length" in _block(text, "while length < 4:")


def test_no_state_in_depends_on():
    text = str(_report())
    deps = [line for line in text.splitlines() if "depends on" in line]
    assert deps and not any("state" in line for line in deps)
    assert any(" w," in line or " w]" in line for line in deps)
