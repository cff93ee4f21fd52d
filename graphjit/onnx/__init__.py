"""ONNX in and out (optional extra: `pip install 'graphjit[onnx]'`).

- `export(model_or_net, path, *example_inputs_or_specs)` writes an ONNX model
  (opset 17) with `If` and `Loop`, input names kept, unknown dims symbolic.
- `import_model(path)` reads an ONNX model into a `CompiledModel`.

This package sits on top of the layers (DESIGN.md, Layers): it wires the
compile entry points, the IR and the compiled model to the `onnx` package, and
nothing below imports it. Importing it needs `onnx`; an ImportError names it.
"""
from __future__ import annotations

from .exporter import export
from .importer import import_model

__all__ = ["export", "import_model"]
