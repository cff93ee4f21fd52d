"""Batch inference of a compiled model over Dask: `predict(model, *dask_arrays)` scores
arrays chunked along their batch axis, block by block of rows, on a local scheduler or
any Dask cluster (optional extra `distributed`: `pip install -e '.[distributed]'`).

    import dask.array as da
    from distributed import Client, LocalCluster
    import graphjit.distributed as gd

    client = Client(LocalCluster(n_workers=2))       # or Client("tcp://scheduler:8786")
    y = gd.predict(model, da.from_array(x, chunks=(100_000, 16)))
    y.compute()                                       # equals model(x)

`check_batchwise(model)` tells, without Dask, whether a model may be scored in blocks
(graphjit.distributed.batchwise documents the rule). Importing this package without
Dask raises a ModuleNotFoundError that names the extra and how to install it
(graphjit.extras).
"""
from __future__ import annotations

from ..extras import require_extra

require_extra("graphjit.distributed", "distributed")

from ..jit.compiled_model import CompiledModel
from .batchwise import NotBatchwiseError, check_batchwise as _check_graph
from .scoring import load_model, predict

__all__ = ["predict", "check_batchwise", "NotBatchwiseError"]


def check_batchwise(model) -> None:
    """Refuse a model whose outputs are not computed row by row from its inputs.

    Args:
        model: a CompiledModel, or the path of an exported model.

    Raises:
        NotBatchwiseError (a ValueError): naming the output, the reason and the user's
            line (graphjit.distributed.batchwise documents the rule).
    """
    compiled = model if isinstance(model, CompiledModel) else load_model(model)[1]
    _check_graph(compiled.graph, compiled.name)
