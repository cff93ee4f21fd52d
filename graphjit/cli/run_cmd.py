"""`graphjit run model.gjm --input x.npy ... [-o outdir]`: run a model on arrays;
its outputs are saved as .npy files in outdir, or printed."""
from __future__ import annotations

import os
from typing import List

import numpy as np

from ..ir.errors import GraphJitError
from .args import add_model, add_random, inputs_of, random_arrays
from .targets import UsageError, UserCodeError, array_type, is_model_file, load_model_file, \
    load_target

__all__ = ["add_parser", "run"]

_PRINT_LIMIT = 1000      # outputs up to this many elements are printed whole


def add_parser(sub):
    p = sub.add_parser(
        "run", help="run a model on inputs from .npy files",
        description="Run an exported model (or FILE.py:NAME) on the inputs, one --input per "
                    "model input: .npy files, or specs for random data. Outputs are saved as "
                    "outdir/output0.npy, ... with -o, else printed (summarized when large).")
    add_model(p, model_files=True)
    add_random(p)
    p.add_argument("-o", "--output", metavar="OUTDIR",
                   help="a folder to save the outputs in, as output0.npy, output1.npy, ...")
    return p


def _model(args, inputs):
    if is_model_file(args.model):
        return load_model_file(args.model)
    return load_target(args.model).compile(inputs)


def run(args) -> int:
    inputs = inputs_of(args)
    model = _model(args, inputs)
    arrays = random_arrays(inputs, args)
    try:
        outs: List[np.ndarray] = model.create_infer_request().infer(arrays)
    except GraphJitError as e:   # a kernel failed on this data: the user's model
        raise UserCodeError(e) from None
    except (TypeError, ValueError) as e:   # inputs that do not fit the model
        raise UsageError(str(e)) from None
    if args.output:
        os.makedirs(args.output, exist_ok=True)
        for i, o in enumerate(outs):
            path = os.path.join(args.output, f"output{i}.npy")
            np.save(path, o, allow_pickle=False)
            print(f"wrote {path} ({array_type(o)})")
        return 0
    for i, o in enumerate(outs):
        o = np.asarray(o)
        print(f"output {i}: {array_type(o)}")
        if o.size <= _PRINT_LIMIT:
            print(np.array2string(o, threshold=_PRINT_LIMIT))
        else:
            summary = ""
            if o.dtype.kind in "fiu":
                summary = f"min {o.min()!r}, max {o.max()!r}, mean {o.mean()!r}; "
            print(f"{summary}{o.size} elements: save them with -o OUTDIR")
    return 0
