"""ONNX in and out (optional extra `onnx`: `pip install -e '.[onnx]'`).

- `export(model_or_net, path, *example_inputs_or_specs)` writes an ONNX model
  (opset 17) with `If` and `Loop`, input names kept, unknown dims symbolic.
- `import_model(path)` reads an ONNX model into a `CompiledModel`.

Errors: `OnnxExportError` (ops with no ONNX form, state updates: every such node
with its line), `UnsupportedOnnxOpError` (every ONNX op of a file graphjit cannot
take), `NeedsConstantError` (a value graphjit needs while building is not a
constant in the file), both `OnnxImportError`s; a damaged file is a ModelFileError.

This package sits on top of the layers (DESIGN.md, Layers): it wires the
compile entry points, the IR and the compiled model to the `onnx` package, and
nothing below imports it. Importing it without `onnx` and `onnxruntime` raises a
ModuleNotFoundError that names the extra and how to install it (graphjit.extras).
"""
from __future__ import annotations

from ..extras import require_extra

require_extra("graphjit.onnx", "onnx")

from .exporter import OnnxExportError, export
from .import_read import NeedsConstantError, OnnxImportError, UnsupportedOnnxOpError
from .importer import import_model

__all__ = ["export", "import_model", "OnnxExportError", "OnnxImportError",
           "UnsupportedOnnxOpError", "NeedsConstantError"]
