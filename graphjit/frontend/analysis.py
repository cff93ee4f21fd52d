"""Small static analyses of statement lists: which names a loop body assigns, which
lists it appends to, whether it returns, whether a block certainly returns."""
from __future__ import annotations

import ast
from typing import List, Set

__all__ = ["assigned_names", "appended_names", "contains", "always_returns", "target_names"]


class _Scan(ast.NodeVisitor):
    """Walks statements without entering nested function or class bodies."""

    def __init__(self):
        self.assigned: List[str] = []
        self.appended: List[str] = []
        self.found: Set[type] = set()

    def _add(self, name):
        if name not in self.assigned:
            self.assigned.append(name)

    def visit_FunctionDef(self, node):
        self._add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._add(node.name)

    def visit_Lambda(self, node):
        return  # a lambda's parameters are its own, not the function's

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._add(node.id)

    def visit_Subscript(self, node):
        # `x[i] = v` rebinds x to an updated tensor (or changes the container x)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            base = node.value
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                self._add(base.id)
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ("append", "extend", "insert") and \
                isinstance(f.value, ast.Name) and f.value.id not in self.appended:
            self.appended.append(f.value.id)
        self.generic_visit(node)

    def generic_visit(self, node):
        self.found.add(type(node))
        super().generic_visit(node)

    def visit_Return(self, node):
        self.found.add(ast.Return)
        self.generic_visit(node)

    def visit_Break(self, node):
        self.found.add(ast.Break)

    def visit_Continue(self, node):
        self.found.add(ast.Continue)


def _scan(stmts) -> _Scan:
    s = _Scan()
    for st in stmts:
        s.visit(st)
    return s


def assigned_names(stmts) -> List[str]:
    """Names bound anywhere in the statements (in order of first binding)."""
    return _scan(stmts).assigned


def rebound_names(stmts) -> set:
    """Names the statements bind as names (what makes a name local in Python): not
    the base of `x[i] = v` alone, which changes a global's or closure's container."""
    found = set()
    for st in stmts:
        for node in ast.walk(st):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                found.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, ast.alias):
                found.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                found.add(node.name)
    return found


def target_names(target) -> List[str]:
    s = _Scan()
    s.visit(target)
    return s.assigned


def appended_names(stmts) -> List[str]:
    """Names `n` for which the statements call `n.append(...)`/extend/insert."""
    return _scan(stmts).appended


def contains(stmts, kind) -> bool:
    """Whether a node of this AST class occurs (outside nested functions)."""
    return kind in _scan(stmts).found


def always_returns(stmts) -> bool:
    """True if every path through the statements ends in return or raise."""
    for st in stmts:
        if isinstance(st, (ast.Return, ast.Raise)):
            return True
        if isinstance(st, ast.If) and always_returns(st.body) and always_returns(st.orelse):
            return True
        if isinstance(st, ast.While) and isinstance(st.test, ast.Constant) and st.test.value \
                and not contains(st.body, ast.Break):
            return True
    return False

