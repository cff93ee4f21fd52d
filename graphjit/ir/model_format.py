"""The model file format's names and limits, shared by the writer (serialize.py) and the
reader (model_reader.py); the format itself is described in serialize.py."""
from __future__ import annotations

import struct
import zipfile
import zlib
from typing import Any, Dict, NamedTuple, Optional, Tuple

from .dtypes import ALL_DTYPES, DType
from .graph import Graph

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "GRAPH_ENTRY", "ARRAY_PREFIX", "MAX_JSON_BYTES",
           "MAX_DEPTH", "MAX_RANK", "MAX_DIM", "EPOCH", "DTYPES", "DTYPE_NAMES", "ZIP_ERRORS",
           "ModelFile"]

FORMAT_NAME = "graphjit-model"
FORMAT_VERSION = 1
GRAPH_ENTRY = "graph.json"

ARRAY_PREFIX = "arrays/"
MAX_JSON_BYTES = 1 << 28          # graph.json larger than this is not a model we wrote
MAX_DEPTH = 100                   # nesting of attribute values and subgraphs
MAX_RANK = 64                     # numpy's own limit
MAX_DIM = 1 << 62
EPOCH = (1980, 1, 1, 0, 0, 0)     # fixed timestamps make exports reproducible
DTYPES: Dict[str, DType] = {d.name: d for d in ALL_DTYPES}
DTYPE_NAMES = ", ".join(DTYPES)

# What zipfile (and the zlib under it) raise on bytes that are not a sound archive.
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError,
              OverflowError, NotImplementedError, RuntimeError, struct.error, zlib.error)


class ModelFile(NamedTuple):
    """What load_model_file returns: the graph, the model's name, the metadata (plain
    JSON data) it was saved with, and the values of the Parameters the graph reads and
    updates: one (name, array) per ref parameter of the graph, in parameter order."""

    graph: Graph
    name: str
    metadata: Dict[str, Any]
    state: Tuple[Tuple[Optional[str], Any], ...] = ()
