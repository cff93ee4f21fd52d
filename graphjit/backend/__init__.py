"""Execution of graphs on numpy: kernels, plans and the executor."""
from .executor import CompiledGraph, compile_graph

__all__ = ["CompiledGraph", "compile_graph"]
