"""What runs on a Dask worker: the model, imported once per process from its exported
bytes and cached by their content hash, and the function each block of rows runs.

Tasks name these functions by module and name (no Python code is pickled); the model
arrives as the bytes of `CompiledModel.export` (a zip of JSON and .npy entries), read
by `graphjit.import_model`, which executes nothing from the file.
"""
from __future__ import annotations

import io
import threading
from collections import OrderedDict
from typing import Dict

import numpy as np

from ..jit.compiled_model import import_model
from .batchwise import model_outputs

__all__ = ["model_for", "run_block", "pick", "cached_models"]

_MAX_MODELS = 8          # models kept per process, least recently used dropped first
_MODELS: "OrderedDict[str, object]" = OrderedDict()
_IMPORTS: Dict[str, int] = {}     # digest -> times imported in this process
_LOCK = threading.Lock()


def model_for(digest: str, data: bytes):
    """The CompiledModel whose exported bytes are `data` (sha256 `digest`), imported
    at most once per process while it stays among the last _MAX_MODELS used."""
    with _LOCK:
        model = _MODELS.get(digest)
        if model is not None:
            _MODELS.move_to_end(digest)
            return model
    model = import_model(io.BytesIO(data))
    with _LOCK:
        if digest not in _MODELS:       # another thread may have imported it meanwhile
            _MODELS[digest] = model
            _IMPORTS[digest] = _IMPORTS.get(digest, 0) + 1
            while len(_MODELS) > _MAX_MODELS:
                _MODELS.popitem(last=False)
        return _MODELS[digest]


def run_block(digest: str, data: bytes, dims: tuple, *blocks: np.ndarray) -> np.ndarray:
    """Run the model on one block of rows of each input.

    Args:
        digest, data: the model's sha256 and exported bytes.
        dims: per output, the dims after the first that the dask array declares
            (None where unknown); each output block is checked against them.
        blocks: one block of rows per model input.

    Returns:
        A one-element object array holding the tuple of output blocks (the block of
        a dask array; `pick` takes each output out of it).

    Raises:
        RuntimeError: an output block does not have the declared shape (a bug in the
            batch-wise analysis: never a silently wrong array).
    """
    model = model_for(digest, data)
    rows = blocks[0].shape[0]
    if rows == 0 and all(None not in want for want in dims):
        # no rows: a batch-wise model gives no rows, with the dims declared
        outs = tuple(np.empty((0,) + tuple(want), r.type.dtype.np)
                     for want, r in zip(dims, model_outputs(model.graph)))
    else:
        outs = model.run_arrays(blocks)
    for k, (o, want) in enumerate(zip(outs, dims)):
        if o.shape[0] != rows or len(o.shape) != len(want) + 1 or any(
                w is not None and w != d for w, d in zip(want, o.shape[1:])):
            raise RuntimeError(
                f"graphjit.distributed: output {k} of model '{model.name}' has shape "
                f"{o.shape} for a block of {rows} rows, but ({rows}, "
                f"{', '.join('?' if w is None else str(w) for w in want)}) was declared; "
                f"this is a bug in graphjit's batch-wise analysis, please report it")
    packed = np.empty((1,), dtype=object)
    packed[0] = outs
    return packed


def pick(packed: np.ndarray, k: int) -> np.ndarray:
    """Output k of a block that `run_block` returned."""
    return packed[0][k]


def cached_models() -> Dict[str, int]:
    """digest -> how many times this process imported that model (diagnostics and
    tests: after any number of blocks it stays 1)."""
    with _LOCK:
        return {d: _IMPORTS[d] for d in _MODELS}
