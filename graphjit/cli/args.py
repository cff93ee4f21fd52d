"""The arguments the sub-commands share: the model, its inputs, random data."""
from __future__ import annotations

import argparse
from typing import List

import numpy as np

from ..context import set_context
from .targets import DEFAULT_INT_RANGE, InputArg, UsageError, parse_input, parse_int_range

__all__ = ["add_model", "add_random", "add_passes", "inputs_of", "random_arrays",
           "apply_passes"]

INPUT_HELP = ("an input, once per tensor argument in order: a spec dtype[dims] "
              "('float32[3,4]'; None or ? for an unknown dim; 'int64[]' for a scalar; "
              "'float32[*]' for an unknown rank; an integer spec may end in @LOW..HIGH, "
              "the range of its random values: 'int32[None,20]@0..2') or a .npy file")


def add_model(p: argparse.ArgumentParser, model_files: bool = False) -> None:
    """MODEL and --input."""
    if model_files:
        p.add_argument("model", metavar="MODEL",
                       help="FILE.py:NAME (a Cell class built with no arguments, a Cell "
                            "instance or a function in FILE) or an exported model file "
                            "(.gjm, or .onnx with ONNX support)")
    else:
        p.add_argument("model", metavar="FILE.py:NAME",
                       help="a Cell class (built with no arguments), a Cell instance or a "
                            "function in FILE; FILE's `if __name__ == '__main__':` block "
                            "does not run")
    p.add_argument("-i", "--input", action="append", default=[], metavar="SPEC",
                   help=INPUT_HELP)


def add_random(p: argparse.ArgumentParser) -> None:
    """--dim and --seed: how random inputs are made from specs."""
    p.add_argument("--dim", type=_positive, default=4, metavar="N",
                   help="the size of unknown dims in random inputs (default 4)")
    p.add_argument("--seed", type=int, default=0,
                   help="the seed of the random inputs (default 0)")
    low, high = DEFAULT_INT_RANGE
    p.add_argument("--int-range", type=_int_range, default=DEFAULT_INT_RANGE,
                   metavar="LOW,HIGH",
                   help=f"random integer inputs are drawn from LOW to HIGH, both included "
                        f"(default {low},{high}: valid indices of any table of {high + 1} or "
                        f"more rows, e.g. an nn.Embedding); an input's own @LOW..HIGH wins")


def add_passes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-passes", action="store_true",
                   help="skip the graph passes (set_context(optimize_graphs=False)): the "
                        "graph as the front-end built it")


def apply_passes(args) -> None:
    if getattr(args, "no_passes", False):
        set_context(optimize_graphs=False)


def inputs_of(args) -> List[InputArg]:
    """The parsed --input arguments (UsageError for a malformed one)."""
    return [parse_input(t) for t in args.input]


def random_arrays(inputs: List[InputArg], args) -> List[np.ndarray]:
    rng = np.random.default_rng(args.seed)
    int_range = getattr(args, "int_range", DEFAULT_INT_RANGE)
    return [i.array_or_random(rng, args.dim, int_range) for i in inputs]


def _int_range(text: str) -> tuple:
    try:
        return parse_int_range(text)
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e).replace("--int-range ", "")) from None


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {v}")
    return v


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return v


def positive_int(text: str) -> int:
    return _positive(text)


def no_inputs_for_file(args) -> None:
    if args.input:
        raise UsageError("--input is for FILE.py:NAME models; an exported model file "
                         "already says its inputs")
