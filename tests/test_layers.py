"""The package's layers import one way (DESIGN.md, "Layers"): every module of graphjit
is parsed and each of its imports, at any depth (inside functions and `if` blocks too),
absolute or relative, is checked against MAY_NOT_IMPORT."""
from __future__ import annotations

import ast
import pathlib
from typing import Iterator, List, Tuple

import pytest

import graphjit

PACKAGE = pathlib.Path(graphjit.__file__).resolve().parent

# layer -> the parts of graphjit it may not import; "*" means anything outside the layer.
# A layer is a subpackage (`frontend` is graphjit/frontend/) or a module (`context` is
# graphjit/context.py) of graphjit, or a module of a subpackage (`common.tensor` is
# graphjit/common/tensor.py) when it has a row of its own. New layers get a row here (for example
# "passes": {"frontend", "backend", "jit", "nn"}), and every row also forbids importing the
# top-level package `graphjit` itself, which imports everything.
MAY_NOT_IMPORT = {
    "ir": "*",
    "common.tensor": {"frontend", "jit", "nn"},
    "common.parameter": {"frontend", "jit", "nn"},
    "common.initializer": {"frontend", "jit", "nn"},
    "ops": {"frontend", "jit", "nn"},
    "nn": {"frontend", "jit"},          # Cell.__call__ reaches jit through context.compiler
    "mint": {"frontend", "jit"},        # mindspore.mint: on ops and nn like nn
    "_checkparam": {"frontend", "jit", "nn"},   # argument checks of the layers (mindspore._checkparam)
    "_input_checks": {"frontend", "jit", "nn"},   # the built-in layers' checks of their input
    "_module_alias": "*",               # `mindspore.nn.layer.conv` under sys.modules aliases
    "numpy": {"frontend", "jit", "nn", "backend"},   # mindspore.numpy, on ops like ops
    "log": "*",                                        # mindspore.log stands alone
    "train": {"frontend", "jit", "backend"},   # Model reaches the compiler through Cells
    "dataset": {"frontend", "jit", "backend", "nn", "ops"},
    "amp": {"frontend", "jit", "backend"},     # beside train: Cells and the managers
    "context": {"frontend", "jit", "nn", "backend"},
    "backend": {"frontend", "jit", "nn"},
    "frontend": {"backend", "jit"},
    # graph-to-graph transforms see graphs only
    "passes": {"frontend", "backend", "jit", "nn", "ops", "context", "common", "model",
               "tracebacks"},
    # the processes of a data-parallel job (MPI): on ir alone
    "communication": {"common", "ops", "nn", "context", "frontend", "backend", "jit", "train",
                      "dataset", "autodiff", "passes"},
    "distributed": {"frontend", "backend", "nn"},   # on top of jit and ir
    # the command line sits on top of every layer (and nothing imports it: see below)
    "cli": set(),
    # mindspore.export / load (graphjit/mindir.py): on top too, beside the command line
    "mindir": set(),
    # ONNX in and out sits on top too: only the command line reaches it (see below)
    "onnx": {"cli"},
    # autodiff (the graph transform and the eager tape) stands on ir alone
    "autodiff": {"ops", "nn", "context", "frontend", "backend", "jit", "model", "common",
                 "tracebacks"},
}


def _module_name(path: pathlib.Path) -> Tuple[str, str]:
    """(module, package its relative imports start from) of a file under PACKAGE."""
    parts = ["graphjit"] + list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def _is_module(dotted: str) -> bool:
    rel = dotted.split(".")[1:]
    base = PACKAGE.joinpath(*rel) if rel else PACKAGE
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports_of(source: str, module: str, package: str) -> Iterator[Tuple[str, int]]:
    """(graphjit module imported, line) for every import in source, at any depth."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "graphjit" or alias.name.startswith("graphjit."):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                if node.level > 1:
                    base = base[:len(base) - (node.level - 1)]
                if not base:
                    raise ValueError(f"{module}:{node.lineno}: relative import beyond graphjit")
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not (target == "graphjit" or target.startswith("graphjit.")):
                continue
            for alias in node.names:   # `from graphjit import ops` imports graphjit.ops
                sub = f"{target}.{alias.name}"
                yield (sub if alias.name != "*" and _is_module(sub) else target), node.lineno


def _layer(dotted: str) -> str:
    """The layer of a graphjit module: its first part after graphjit ('' for graphjit), or
    its first two parts when the table has a row for them (`common.tensor`)."""
    parts = dotted.split(".")
    if len(parts) > 2 and f"{parts[1]}.{parts[2]}" in MAY_NOT_IMPORT:
        return f"{parts[1]}.{parts[2]}"
    return parts[1] if len(parts) > 1 else ""


def violations(source: str, module: str, package: str) -> List[str]:
    layer = _layer(module)
    rule = MAY_NOT_IMPORT.get(layer)
    if rule is None:
        return []
    out = []
    for target, line in imports_of(source, module, package):
        other = _layer(target)
        if other == layer:
            continue
        if other == "" or rule == "*" or other in rule or other.split(".")[0] in rule:
            out.append(f"{module} (line {line}) imports {target}: {layer} may not import "
                       f"{'anything of graphjit outside ' + layer if rule == '*' else other}")
    return out


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_layer_of_the_table_exists():
    for layer in MAY_NOT_IMPORT:
        assert _is_module(f"graphjit.{layer}"), layer


def test_layers_import_downward_only():
    found = []
    for path in _modules():
        module, package = _module_name(path)
        found += violations(path.read_text(encoding="utf-8"), module, package)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("module, package, source, bad", [
    # the checker itself: each of these is an upward import it must find
    ("graphjit.ops.functional", "graphjit.ops",
     "def f():\n    from ..frontend.values import GraphTensor\n", "graphjit.frontend.values"),
    ("graphjit.common.tensor", "graphjit.common", "import graphjit.jit.api\n",
     "graphjit.jit.api"),
    ("graphjit.backend.executor", "graphjit.backend", "from .. import nn\n", "graphjit.nn"),
    ("graphjit.frontend.calls", "graphjit.frontend",
     "if x:\n    from graphjit.jit import api\n", "graphjit.jit.api"),
    ("graphjit.ir.graph", "graphjit.ir", "from ..common.tensor import Tensor\n",
     "graphjit.common.tensor"),
    ("graphjit.autodiff.tape", "graphjit.autodiff", "from ..common.parameter import Parameter\n",
     "graphjit.common.parameter"),
    ("graphjit.ops", "graphjit.ops", "from .. import context, jit\n", "graphjit.jit"),
    ("graphjit.backend.loop", "graphjit.backend", "from graphjit import Tensor\n", "graphjit"),
])
def test_checker_finds_upward_imports(module, package, source, bad):
    found = violations(source, module, package)
    assert len(found) == 1 and f"imports {bad}:" in found[0], found


def test_nothing_imports_the_command_line():
    """graphjit.cli is reached only by `python -m graphjit` and the console script."""
    found = []
    for path in _modules():
        module, package = _module_name(path)
        if _layer(module) in ("cli", "__main__"):
            continue
        for target, line in imports_of(path.read_text(encoding="utf-8"), module, package):
            if _layer(target) == "cli":
                found.append(f"{module} (line {line}) imports {target}")
    assert not found, "\n".join(found)


def test_checker_allows_downward_and_inner_imports():
    ok = ("from .. import ops\nfrom ..ir.graph import Graph\nfrom .values import active\n"
          "def f():\n    from ..tensor import Tensor\n    import numpy\n")
    assert violations(ok, "graphjit.frontend.builder", "graphjit.frontend") == []
    assert violations("from .graph import Graph\n", "graphjit.ir.printer", "graphjit.ir") == []


def test_only_the_command_line_reaches_onnx():
    """graphjit.onnx is imported by its users (and by the command line and ms.export
    with file_format="ONNX", at run time)."""
    found = []
    for path in _modules():
        module, package = _module_name(path)
        if _layer(module) in ("onnx", "cli", "mindir"):
            continue
        for target, line in imports_of(path.read_text(encoding="utf-8"), module, package):
            if _layer(target) == "onnx":
                found.append(f"{module} (line {line}) imports {target}")
    assert not found, "\n".join(found)
