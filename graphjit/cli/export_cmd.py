"""`graphjit export FILE.py:NAME --input SPEC ... -o model.gjm`: compile a model and
write it to one file (`graphjit run` and ms.import_model read it back); `-o
model.onnx` (or `--format onnx`) writes ONNX through graphjit.onnx."""
from __future__ import annotations

import os

from .args import add_model, inputs_of
from .targets import UsageError, UserCodeError, describe_inputs, describe_outputs, \
    load_target, needs_onnx, onnx_module, state_note

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
                   help="the file format (default: from the suffix of PATH, .gjm or "
                        ".onnx; another suffix needs --format)")
    return p


def run(args) -> int:
    out = args.output
    suffix = os.path.splitext(out)[1].lower()
    if args.format is None and suffix not in (".gjm", ".onnx"):
        raise UsageError(f"cannot tell the format of '{out}' from its suffix "
                         f"'{suffix or '(none)'}': name it .gjm (graphjit's format) or "
                         f".onnx, or say --format gjm / --format onnx")
    fmt = args.format or ("onnx" if suffix == ".onnx" else "gjm")
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
    note = state_note(model.graph)
    print(f"wrote {out}: {model.name}({describe_inputs(model)}) -> "
          f"{describe_outputs(model.graph)}; {model.get_metric('NUMBER_OF_NODES')} nodes, "
          f"{os.path.getsize(out)} bytes" + (f"\nnote: the model {note}" if note else ""))
    return 0
