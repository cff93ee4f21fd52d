"""Cases from MindSpore's own system tests (tests/st/control, tests/st/syntax), imports
changed, that graphjit once answered differently: the message MindSpore's test matches."""
import pytest

import graphjit as ms
from graphjit import jit


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_for_over_an_int_is_a_type_error_in_graph_mode(mode):
    # tests/st/control/inner/test_002_single_for.py: test_single_for_with_not_iterable_object
    ms.set_context(mode=mode)

    @jit
    def control_flow_for_with_not_iterable_object():
        ret = 0
        a = 1
        for i in a:
            ret = ret + i
        return ret

    with pytest.raises(TypeError, match="object is not iterable in graph mode"):
        control_flow_for_with_not_iterable_object()
    ms.set_context(mode=ms.GRAPH_MODE)
