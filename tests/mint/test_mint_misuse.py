"""mint's functions and mint.nn.functional's, given arguments of the wrong kind, raise
user-facing errors, never internal ones from graphjit's code (the sweep of
tests/ops/test_api_misuse.py, over mint)."""
import itertools
import os
import sys

import numpy as np

import graphjit as ms
from graphjit import mint

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
from test_api_misuse import _bad_values, _internal  # noqa: E402


def test_mint_functions_refuse_bad_arguments_with_user_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    found = []
    good = ms.Tensor(np.random.default_rng(0).random((2, 3)).astype(np.float32))
    for prefix, mod in (("mint", mint), ("mint.nn.functional", mint.nn.functional)):
        for name in mod.__all__:
            fn = getattr(mod, name)
            if not callable(fn) or isinstance(fn, type) or name == "nn":
                continue
            calls = [(v,) for v in _bad_values() + [good]]
            calls += list(itertools.islice(itertools.product(_bad_values() + [good], repeat=2),
                                           121))
            for args in calls:
                err = _internal(fn, args)
                if err:
                    found.append(f"{prefix}.{name}{tuple(type(a).__name__ for a in args)}: {err}")
                    break
    assert not found, "\n".join(found[:20])
