"""JitConfig, Cell.set_jit_config, jit(jit_config=), set_context(jit_syntax_level=,
jit_config=): accepted and validated as MindSpore 2.10; graph semantics unchanged."""
import warnings

import numpy as np
import pytest

import graphjit as ms
from graphjit import nn, ops


class Net(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


def test_defaults_and_dict():
    c = ms.JitConfig()
    assert c.jit_config_dict == {"jit_level": "", "exc_mode": "auto", "jit_syntax_level": "",
                                 "debug_level": "RELEASE", "infer_boost": "off"}
    c = ms.JitConfig(jit_level="O1", exc_mode="no_sink", jit_syntax_level="LAX",
                     debug_level="DEBUG", extra=3)
    assert c.jit_config_dict["jit_level"] == "O1"
    assert c.jit_config_dict["jit_syntax_level"] == "LAX"
    assert c.jit_config_dict["extra"] == 3
    assert ms.common.JitConfig is ms.JitConfig


@pytest.mark.parametrize("kw", [dict(jit_level="O3"), dict(jit_level="o0"),
                                dict(exc_mode="fast"), dict(jit_syntax_level="strict"),
                                dict(debug_level="INFO"), dict(infer_boost="yes"),
                                dict(jit_level=0)])
def test_bad_values_raise_value_error(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        ms.JitConfig(**kw)


def test_deprecated_values_warn():
    with pytest.warns(DeprecationWarning):
        ms.JitConfig(jit_level="O2")
    with pytest.warns(DeprecationWarning):
        ms.JitConfig(infer_boost="on")


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
@pytest.mark.parametrize("level", ["", "O0", "O1"])
def test_cell_set_jit_config_same_results(mode, level):
    ms.set_context(mode=mode)
    net = Net()
    net.set_jit_config(ms.JitConfig(jit_level=level, jit_syntax_level="STRICT"))
    assert net.jit_config_dict["jit_level"] == level
    for v in ([1.0, 2.0], [-3.0, 1.0]):
        x = ms.Tensor(np.array(v, np.float32))
        ref = np.array(v, np.float32) * 2 if sum(v) > 0 else np.array(v, np.float32) - 1
        np.testing.assert_array_equal(net(x).asnumpy(), ref)


def test_set_jit_config_once_and_type():
    net = Net()
    assert net.jit_config_dict == {}
    net.set_jit_config(ms.JitConfig(jit_level="O0"))
    with pytest.warns(UserWarning, match="only be set once"):
        net.set_jit_config(ms.JitConfig(jit_level="O1"))
    assert net.jit_config_dict["jit_level"] == "O0"
    with pytest.raises(TypeError, match="JitConfig"):
        Net().set_jit_config({"jit_level": "O0"})


def test_jit_accepts_jit_config():
    @ms.jit(jit_config=ms.JitConfig(jit_level="O1"))
    def f(x):
        return ops.relu(x) + 1
    x = ms.Tensor(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_array_equal(f(x).asnumpy(), [1.0, 3.0])
    with pytest.raises(TypeError, match="jit_config"):
        ms.jit(lambda x: x, jit_config={"jit_level": "O1"})


def test_syntax_level_constants_and_context():
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)
    assert ms.get_context("jit_syntax_level") == ms.LAX
    for level in (ms.STRICT, ms.COMPATIBLE, ms.LAX):
        ms.set_context(jit_syntax_level=level)
        assert ms.get_context("jit_syntax_level") == level
    for bad in ("STRICT", 3, -1, None, True):
        with pytest.raises(ValueError, match="jit_syntax_level"):
            ms.set_context(jit_syntax_level=bad)
    assert ms.get_context("jit_syntax_level") == ms.LAX


def test_syntax_level_keeps_graph_semantics():
    x = ms.Tensor(np.array([1.0, -4.0], np.float32))
    outs = []
    for level in (ms.STRICT, ms.LAX):
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=level)
        outs.append(Net()(x).asnumpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], [0.0, -5.0])


def test_context_jit_config():
    assert ms.get_context("jit_config") == {"jit_level": "", "infer_boost": "off"}
    ms.set_context(jit_config={"jit_level": "O0"})
    assert ms.get_context("jit_config") == {"jit_level": "O0", "infer_boost": "off"}
    got = ms.get_context("jit_config")
    got["jit_level"] = "O1"          # a copy: the context keeps its own
    assert ms.get_context("jit_config")["jit_level"] == "O0"
    ms.set_context(jit_config={"infer_boost": "on"})
    assert ms.get_context("jit_config") == {"jit_level": "O0", "infer_boost": "on"}
    with pytest.raises(ValueError, match="jit_level"):
        ms.set_context(jit_config={"jit_level": "O5"})
    with pytest.raises(ValueError, match="key"):
        ms.set_context(jit_config={"level": "O0"})
    with pytest.raises(TypeError, match="dict"):
        ms.set_context(jit_config="O0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # a known option: no 'has no effect' warning
        ms.set_context(jit_config={"jit_level": "O1"}, jit_syntax_level=ms.STRICT)
