"""A few fixed seeds of run_repeat_calls.py in CI: each program's graph-mode calls are
repeated (the second and later take the cache entry's generated fast call) and must
agree with the first call and with eager mode. Seeds 9100004 and 9100051 raise the
program's own ValueError / KeyError, which the fast call once wrapped in a
GraphRuntimeError; the others return tuples of tensors and Python numbers."""
import pytest

import graphjit as ms
import run_repeat_calls
import test_fuzz2_equivalence
import test_leaving_paths

SEEDS = [9100004, 9100051, 9100000, 9100001, 9100002]


@pytest.mark.parametrize("cell", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_repeated_calls_agree_with_the_first_and_with_eager(seed, cell, tmp_path,
                                                            monkeypatch):
    monkeypatch.setattr(run_repeat_calls, "CELL", cell)
    monkeypatch.setattr(ms, "jit", run_repeat_calls.repeating_jit)
    test_fuzz2_equivalence.check_program(seed, tmp_path)


def test_repeated_calls_of_programs_that_leave_early(tmp_path, monkeypatch):
    monkeypatch.setattr(ms, "jit", run_repeat_calls.repeating_jit)
    for seed in (9100000, 9100001, 9100002):
        test_leaving_paths.check_program(seed, tmp_path)
