"""The graph IR: types, ShapeJoin, the op registry, graphs, printer and verifier.

Imports nothing else of graphjit.
"""
from . import dtypes
from .dtypes import DType, as_dtype
from .errors import *  # noqa: F401,F403
from .graph import Graph, Node, Value
from .join import join_shapes, join_types
from .loc import SourceLoc
from .registry import OpDef, get_op, register_op, REQUIRED
from .types import TensorType, format_shape
from . import defs  # noqa: F401  (registers the built-in ops)
from . import control  # noqa: F401  (registers If and Loop)
from .verifier import verify

__all__ = ["dtypes", "DType", "as_dtype", "Graph", "Node", "Value", "join_shapes",
           "join_types", "SourceLoc", "OpDef", "get_op", "register_op", "REQUIRED",
           "TensorType", "format_shape", "verify"]
