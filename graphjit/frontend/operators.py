"""Python's operators by AST class (the builder applies them to Python values and graph
values alike; graph values overload them)."""
from __future__ import annotations

import ast
import operator

__all__ = ["BINOPS", "IBINOPS", "CMPOPS", "UNOPS"]

BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
          ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
          ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
          ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
          ast.RShift: operator.rshift}
IBINOPS = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
           ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv,
           ast.Mod: operator.imod, ast.Pow: operator.ipow, ast.MatMult: operator.imatmul,
           ast.BitAnd: operator.iand, ast.BitOr: operator.ior, ast.BitXor: operator.ixor,
           ast.LShift: operator.ilshift, ast.RShift: operator.irshift}
CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
          ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
          ast.Is: operator.is_, ast.IsNot: operator.is_not}
UNOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
