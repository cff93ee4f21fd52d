"""MindSpore's `mindspore.export` and `mindspore.load`: a network written to a file for
inference and read back (`nn.GraphCell(ms.load(path))` runs it).

graphjit writes its own model format (`CompiledModel.export`: a zip of JSON and .npy, no
pickle) under MindSpore's name `FILE.mindir`, and ONNX (the 'onnx' extra) as
`FILE.onnx`. A MindIR protobuf written by MindSpore cannot be read: `load` says so.
This module sits on top of the layers, beside the command line: it reaches the
compiler (jit) and, for ONNX, graphjit.onnx.
"""
from __future__ import annotations

import os

from .ir.errors import ModelFileError
from .jit.compiled_model import compile as compile_model, import_model

__all__ = ["export", "load"]

_FORMATS = ("AIR", "ONNX", "MINDIR")


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """Write `net`, compiled for `inputs` (Tensors or TensorSpecs) in inference mode
    (set_train(False) while it is compiled), to `file_name` plus the format's suffix
    ('.mindir' or '.onnx', unless the name ends with it).

    Raises:
        TypeError: file_name is not a str.
        ValueError: file_format is not 'MINDIR', 'ONNX' or 'AIR'; 'AIR' (Ascend's format)
            is not written by graphjit.
        the compile errors of ms.compile.
    """
    if not isinstance(file_name, str):
        raise TypeError(f"For 'export', the argument 'file_name' must be str, but got "
                        f"{type(file_name).__name__}.")
    if file_format not in _FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {list(_FORMATS)}, "
                         f"but got {file_format!r}.")
    if file_format == "AIR":
        raise ValueError("For 'export', file_format 'AIR' is Ascend's format, which "
                         "graphjit does not write; use 'MINDIR' or 'ONNX'.")
    suffix = "." + file_format.lower()
    path = file_name if file_name.endswith(suffix) else file_name + suffix
    was_training = getattr(net, "training", None)
    if was_training:
        net.set_train(False)
    try:
        if file_format == "ONNX":
            from .onnx import export as onnx_export   # the 'onnx' extra
            onnx_export(net, path, *inputs)
        else:
            compile_model(net, *inputs).export(path)
    finally:
        if was_training:
            net.set_train(True)


def load(file_name, **kwargs):
    """Read a network written by `export(..., file_format='MINDIR')`: the CompiledModel
    that `nn.GraphCell` runs (it is callable itself, on Tensors or arrays).

    Raises:
        ValueError: file_name is not a str ending with '.mindir', or does not exist;
            the file is not a graphjit model (a MindIR protobuf written by MindSpore is
            not read).
    """
    if not isinstance(file_name, str):
        raise ValueError(f"For 'load', the argument 'file_name' must be str, but got "
                         f"{type(file_name).__name__}.")
    if not file_name.endswith(".mindir"):
        raise ValueError("For 'load', the argument 'file_name'(MindIR file) should end "
                         "with '.mindir', please input the correct 'file_name'.")
    if not os.path.exists(file_name):
        raise ValueError(f"For 'load', the argument 'file_name'(MindIR file) does not "
                         f"exist: {file_name!r}")
    try:
        return import_model(file_name)
    except ModelFileError as e:
        raise ModelFileError(f"{e.reason} (graphjit reads the .mindir files graphjit's "
                             f"export writes, not MindSpore's MindIR protobufs)",
                             path=e.path, part=e.part) from None
