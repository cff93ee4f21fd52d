"""No import circle between the files of graphjit/nn/ or of graphjit/ops/ (issue 19): each
package is a stack of files, the bottom one (nn/cell.py, ops/_dispatch.py) importing none
of the others. The graph has one node per file and an edge for every import that runs when
the file is loaded (module level, `if`/`try` blocks and class bodies; not function bodies)."""
from __future__ import annotations

import ast
import pathlib
from typing import Dict, Iterator, List, Set

import pytest

from test_layers import PACKAGE, _is_module, _module_name

PACKAGES = ("graphjit.nn", "graphjit.ops", "graphjit.common")


def load_time_imports(source: str, package: str) -> Iterator[str]:
    """The graphjit modules `source` imports when it is loaded (relative to `package`)."""
    def walk(nodes):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("graphjit"):
                        yield alias.name
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    if node.level > 1:
                        base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("graphjit"):
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    yield sub if alias.name != "*" and _is_module(sub) else target
            else:
                yield from walk(ast.iter_child_nodes(node))
    yield from walk(ast.parse(source).body)


def import_graph(prefix: str) -> Dict[str, Set[str]]:
    """module -> the modules of the same package (prefix) it imports at load time."""
    graph: Dict[str, Set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module, package = _module_name(path)
        if module != prefix and not module.startswith(prefix + "."):
            continue
        graph[module] = {t for t in load_time_imports(path.read_text(encoding="utf-8"), package)
                         if (t == prefix or t.startswith(prefix + ".")) and t != module}
    return graph


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    out: List[List[str]] = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("prefix", PACKAGES)
def test_no_import_circle_inside_the_package(prefix):
    graph = import_graph(prefix)
    assert len(graph) > 1, prefix
    found = cycles(graph)
    assert not found, "\n".join(" -> ".join(c) for c in found)


def test_the_bottom_files_import_nothing_of_their_package():
    assert import_graph("graphjit.nn")["graphjit.nn.cell"] == set()
    assert import_graph("graphjit.ops")["graphjit.ops._dispatch"] == set()


def test_the_finder_sees_load_time_imports_only():
    source = ("from .a import x\nimport graphjit.ops.b\nif x:\n    from . import c\n"
              "class K:\n    from .d import y\n"
              "def f():\n    from .e import z\n")
    assert set(load_time_imports(source, "graphjit.ops")) == {
        "graphjit.ops.a", "graphjit.ops.b", "graphjit.ops", "graphjit.ops.d"}


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set(), "c": {"a", "b"}}, []),
    ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b"], ["c", "d"]]),
])
def test_the_cycle_finder_finds_circles(graph, expected):
    assert sorted(cycles(graph)) == expected
