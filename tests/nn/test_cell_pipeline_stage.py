"""Cell.pipeline_stage: kept and checked as MindSpore checks it (tests/st/syntax/
simple_expression/test_parse_exception.py: test_cell_pipeline_state)."""
import pytest

from graphjit import nn


def test_pipeline_stage_is_kept_and_checked():
    cell = nn.Cell()
    assert cell.pipeline_stage == 0
    cell.pipeline_stage = 3
    assert cell.pipeline_stage == 3
    with pytest.raises(ValueError, match="For 'Cell', the property 'pipeline_stage' can not "
                                         "be less than 0, but got -1"):
        cell.pipeline_stage = -1
    with pytest.raises(TypeError, match="must be int type"):
        cell.pipeline_stage = 1.5
    assert cell.pipeline_stage == 3
