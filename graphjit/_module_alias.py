"""Submodules under the names a MindSpore program imports graphjit by.

MindSpore programs run on graphjit with the import changed (`import graphjit as ms`) or
with `sys.modules["mindspore"] = graphjit` (and `mindspore.nn`, `mindspore.ops`). In the
second case `import mindspore.nn.layer.conv` asks Python for a submodule of a module that
is really `graphjit.nn`; Python would load `graphjit/nn/layer/conv.py` a second time under
the name `mindspore.nn.layer.conv`, with classes of its own (`isinstance` then fails).
This finder answers such a request with graphjit's own module, loaded once: a submodule
`P.x` of a module whose real name is `graphjit.Q` is `graphjit.Q.x`.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install"]


class _SameModule(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        module.__spec__ = self.spec    # importlib set the alias's spec; keep graphjit's


class _GraphjitAliases(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        parent, _, child = fullname.rpartition(".")
        if not parent or fullname.startswith("graphjit."):
            return None
        owner = sys.modules.get(parent)
        real_parent = getattr(owner, "__name__", "") or ""
        if not (real_parent == "graphjit" or real_parent.startswith("graphjit.")) or \
                real_parent == parent:
            return None
        real = f"{real_parent}.{child}"
        if real not in sys.modules and importlib.util.find_spec(real) is None:
            return None
        module = importlib.import_module(real)
        return importlib.util.spec_from_loader(fullname, _SameModule(module))


_FINDER = _GraphjitAliases()


def install() -> None:
    """Put the finder first on sys.meta_path (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
