"""`graphjit export FILE.py:NAME --input SPEC ... -o model.gjm`: compile a model and
write it to one file (`graphjit run` and ms.import_model read it back); `-o
model.onnx` (or `--format onnx`) writes ONNX through graphjit.onnx."""
from __future__ import annotations

import os

from .args import add_model, inputs_of
from .targets import UsageError, UserCodeError, describe_inputs, load_target, \
    needs_onnx, onnx_module

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser(
        "export", help="compile a model and write it to a file",
        description="Compile FILE.py:NAME for the input specs and write the compiled model "
                    "(graph and weights, no pickle) to one file that `graphjit run` and "
                    "ms.import_model load. Unknown dims stay unknown in the file.")
    add_model(p)
    p.add_argument("-o", "--output", required=True, metavar="PATH",
                   help="the file to write (model.gjm; model.onnx for ONNX)")
    p.add_argument("--format", choices=("gjm", "onnx"),
                   help="the file format (default: from the suffix of PATH, else gjm)")
    return p


def run(args) -> int:
    out = args.output
    fmt = args.format or ("onnx" if out.lower().endswith(".onnx") else "gjm")
    onnx = onnx_module("--format onnx") if fmt == "onnx" else None
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write {out}: the folder {folder} does not exist")
    inputs = inputs_of(args)
    target = load_target(args.model)
    if onnx is not None:
        target.check_arity(inputs)
        try:
            onnx.export(target.obj, out, *[i.example() for i in inputs])
        except ImportError as e:    # the onnx package is missing (else raised again)
            raise UsageError(needs_onnx("--format onnx", e)) from None
        except Exception as e:   # the build error, or what ONNX cannot express
            raise UserCodeError(e) from None
        print(f"wrote {out} (ONNX): {target.name}, {os.path.getsize(out)} bytes")
        return 0
    model = target.compile(inputs)
    try:
        model.export(out)
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None
    results = ", ".join(str(r.type) for r in model.graph.results) or "none"
    print(f"wrote {out}: {model.name}({describe_inputs(model)}) -> {results}; "
          f"{model.get_metric('NUMBER_OF_NODES')} nodes, {os.path.getsize(out)} bytes")
    return 0
