"""graphjit.distributed.predict: score dask arrays with a compiled model, block by block
of rows, on whatever Dask runs (a distributed cluster or the local threaded scheduler).

    import dask.array as da
    import graphjit.distributed as gd
    x = da.from_array(rows, chunks=(100_000, 16))      # chunked along the batch axis only
    y = gd.predict(model, x)                            # lazy: a dask array
    y.compute()                                         # equals model(rows)

The dask graph: one literal holding the model's exported bytes (or, with a client,
a future of them scattered to every worker), one task per block of rows that runs
the model on the rows of each input (`worker.run_block`), and one small task per
block and output that takes that output out (`worker.pick`), so the outputs of a
multi-output model share one run per block.
"""
from __future__ import annotations

import hashlib
import io
import math
import os
import warnings
from typing import List, Tuple

import numpy as np

from ..extras import require_extra
from ..jit.compiled_model import CompiledModel, import_model
from ..ir.types import format_shape
from . import worker
from .batchwise import check_batchwise, model_inputs, model_outputs

__all__ = ["predict", "load_model"]



def _dask():
    require_extra("graphjit.distributed", "distributed")
    import dask
    import dask.array as da
    return dask, da


def predict(model, *arrays, client=None, progress: bool = False):
    """Score dask arrays with a compiled model, blockwise along the batch axis.

    The model is checked first (see graphjit.distributed.batchwise for the rule): every
    output must have one row per input row, computed from that row only, so that the
    blocks together give exactly what one call on the whole arrays gives. Each worker
    imports the model once from its exported bytes (cached by their sha256); no Python
    code is pickled and nothing is recompiled per block.

    Args:
        model: a CompiledModel (`graphjit.compile(...)`, `graphjit.import_model(...)`),
            or the path of a file written by `CompiledModel.export`.
        *arrays: one `dask.array.Array` per model input, in order, with the model's
            dtypes; axis 0 is the batch axis, the only one split into chunks.
        client: a `distributed.Client` to place the model on (scattered to every
            worker now). None uses the current client if there is one, else Dask's
            local scheduler. The arrays are computed by whatever scheduler computes
            them: the current client, or `client.compute(...)` for another one.
        progress: compute now, showing Dask's progress bar (`distributed.progress` on
            a client, `dask.diagnostics.ProgressBar` locally), and return arrays that
            hold the results.

    Returns:
        A dask array per model output (a tuple when there are several), lazily unless
        `progress`; its dtype and chunks are declared from the model's output types
        (axis 0 chunked like the inputs; a dim the types leave unknown is read
        from a run on zero rows, or left nan if that run fails).

    Raises:
        ImportError: Dask is not installed.
        TypeError: `model` is neither a CompiledModel nor a path; an array is not a
            dask array, or has the wrong dtype; the wrong number of arrays.
        ValueError: an array is chunked along another axis than the first, has the
            wrong shape, or unknown chunk sizes; the arrays differ in length; a model
            compiled for a fixed batch size gets chunks of another size.
        NotBatchwiseError (a ValueError): the model's outputs are not batch-wise.
        ModelFileError / OSError: the model file cannot be read.
    """
    dask, da = _dask()
    data, compiled = load_model(model)
    graph = compiled.graph
    arrays = _check_arrays(da, compiled, arrays)
    check_batchwise(graph, compiled.name)
    rows = arrays[0].chunks[0]
    arrays = [a if a.chunks[0] == rows else a.rechunk({0: rows}) for a in arrays]

    client = _client(client)
    digest = hashlib.sha256(data).hexdigest()
    if client is not None:
        # a fresh key per call: a hashed key could be released by an earlier call's
        # arrays while this one scatters it again (the workers' cache is by digest)
        source = client.scatter(data, broadcast=True, hash=False)
    else:
        source = dask.delayed(data, name=f"graphjit-model-{digest[:16]}", pure=True)
    token = dask.base.tokenize(digest, *[a.name for a in arrays])
    label = "".join(c if c.isalnum() else "-" for c in compiled.name.lower())[:40]
    shapes = _output_shapes(compiled, arrays)
    dims = tuple(tuple(s[1:]) for s in shapes)
    index_args = []
    for n, a in enumerate(arrays):     # axis 0 is "rows" in all; the others their own
        index_args += [a, ("rows",) + tuple(f"a{n}d{k}" for k in range(1, a.ndim))]
    packed = da.blockwise(worker.run_block, ("rows",), digest, None, source, None, dims, None,
                          *index_args,
                          concatenate=True, adjust_chunks={"rows": 1}, dtype=object,
                          meta=np.empty((0,), dtype=object),
                          name=f"graphjit-{label}-run-{token}")
    outs = []
    for k, (r, shape) in enumerate(zip(model_outputs(graph), shapes)):
        dtype = r.type.dtype.np
        chunks = (rows,) + tuple((np.nan,) if d is None else (d,) for d in shape[1:])
        outs.append(da.map_blocks(worker.pick, packed, k, chunks=chunks, dtype=dtype,
                                  meta=np.empty((0,) * len(shape), dtype=dtype),
                                  new_axis=list(range(1, len(shape))) or None,
                                  name=f"graphjit-{label}-out{k}-{token}"))
    if progress:
        outs = _compute_with_progress(dask, client, outs)
    return outs[0] if len(outs) == 1 else tuple(outs)


def load_model(model) -> Tuple[bytes, object]:
    """The exported bytes of the model and a CompiledModel of them."""
    if isinstance(model, CompiledModel):
        buf = io.BytesIO()
        model.export(buf)
        return buf.getvalue(), model
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        with open(path, "rb") as f:
            data = f.read()
        stream = io.BytesIO(data)
        stream.name = path           # named in ModelFileError messages
        return data, import_model(stream)
    raise TypeError(f"model must be a graphjit CompiledModel or the path of an exported "
                    f"model, got {type(model).__name__}")


def _check_arrays(da, model, arrays) -> List:
    inputs = model_inputs(model.graph)
    if len(arrays) != len(inputs):
        want = ", ".join(f"{p.name or f'input{i}'}: {p.type}" for i, p in enumerate(inputs))
        raise TypeError(f"model '{model.name}' takes {len(inputs)} input(s) "
                        f"({want or 'none'}), got {len(arrays)} array(s)")
    if not inputs:
        raise TypeError(f"model '{model.name}' takes no input, so there is nothing to "
                        f"split into blocks of rows")
    for i, (p, a) in enumerate(zip(inputs, arrays)):
        name, t = p.name or f"input{i}", p.type
        where = f"array {i} (model input '{name}': {t})"
        if not isinstance(a, da.Array):
            raise TypeError(f"{where} must be a dask array, got {type(a).__name__}; wrap "
                            f"it with dask.array.from_array(x, chunks=(rows_per_block, ...))")
        if a.dtype != t.dtype.np:
            raise TypeError(f"{where} must have dtype {t.dtype.np}, got {a.dtype}; convert "
                            f"it with .astype(np.{t.dtype.np.name})")
        if t.shape is not None and (a.ndim != len(t.shape) or any(
                d is not None and d != s for d, s in zip(t.shape[1:], a.shape[1:]))):
            raise ValueError(f"{where} must have shape {format_shape(t.shape)} ('?' is any "
                             f"size), got {format_shape(a.shape)}")
        if a.ndim == 0:
            raise ValueError(f"{where} is a scalar; predict needs a batch axis (axis 0)")
        if any(math.isnan(c) for c in a.chunks[0]):
            raise ValueError(f"{where} has unknown chunk sizes along axis 0; call "
                             f".compute_chunk_sizes() on it first")
        split = [k for k in range(1, a.ndim) if len(a.chunks[k]) > 1]
        if split:
            raise ValueError(f"{where} is chunked along axis {split[0]} "
                             f"(chunks {a.chunks[split[0]]}); only axis 0, the batch "
                             f"axis, may be split: rechunk it with .rechunk({{"
                             + ", ".join(f"{k}: -1" for k in split) + "})")
        if a.shape[0] != arrays[0].shape[0]:
            raise ValueError(f"{where} has {a.shape[0]} rows but array 0 has "
                             f"{arrays[0].shape[0]}; every input needs one row per sample")
        fixed = None if t.shape is None else t.shape[0]
        if fixed is not None and any(c != fixed for c in a.chunks[0]):
            raise ValueError(f"{where}: the model was compiled for batches of exactly "
                             f"{fixed} rows, but the chunks along axis 0 are "
                             f"{_show_chunks(a.chunks[0])}; rechunk to {fixed} rows per "
                             f"block, or compile with a None batch dim (ms.TensorSpec(("
                             f"None, ...), dtype)) to take any number of rows")
    return list(arrays)


def _output_shapes(model, arrays) -> List[tuple]:
    """The output shapes, batch dim None. Dims the types leave unknown come from a run
    on a block of zero rows: in a batch-wise model the dims other than the batch dim
    are computed from what is the same for every block (weights, the inputs' other
    dims), so an empty block shows them. If that run fails they stay unknown (nan)."""
    shapes = [r.type.shape for r in model_outputs(model.graph)]
    if all(None not in s[1:] for s in shapes):
        return shapes
    empty = [np.zeros((0,) + a.shape[1:], a.dtype) for a in arrays]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            outs = model.run_arrays(empty)
    except Exception:   # the shapes are a convenience: unknown dims stay nan
        return shapes
    return [(None,) + o.shape[1:] for o in outs]


def _show_chunks(chunks) -> str:
    return str(chunks) if len(chunks) <= 6 else f"({', '.join(map(str, chunks[:5]))}, ...)"


def _client(client):
    """The distributed client to use, or None for Dask's local scheduler."""
    if client is not None:
        try:
            from distributed import Client
        except ImportError:
            Client = None
        if Client is None or not isinstance(client, Client):
            raise TypeError(f"client must be a distributed.Client, got "
                            f"{type(client).__name__}")
        return client
    try:
        from distributed import get_client
        return get_client()
    except (ImportError, ValueError):
        return None


def _compute_with_progress(dask, client, outs):
    if client is not None:
        from distributed import progress
        outs = client.persist(outs)
        progress(*outs)
        return outs
    from dask.diagnostics import ProgressBar
    with ProgressBar():
        return list(dask.persist(*outs))
