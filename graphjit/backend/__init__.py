"""Execution of graphs on numpy: kernels, plans, the executor and compiled models."""
from .executor import CompiledGraph, compile_graph

__all__ = ["CompiledGraph", "compile_graph"]
