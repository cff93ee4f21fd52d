"""`graphjit draw (FILE.py:NAME --input SPEC ... | model.gjm) [-o graph.svg]`: a
picture of the graph (see dot.py), rendered by Graphviz's `dot`. `-o x.dot` (or no
-o: stdout) writes the dot text and needs no Graphviz; `-o x.svg` without `dot`
installed writes x.dot instead and says so."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

from .args import add_model, add_passes, apply_passes, inputs_of, no_inputs_for_file
from .dot import to_dot
from .targets import UsageError, describe_inputs, is_model_file, load_model_file, \
    load_target

__all__ = ["add_parser", "run"]

_TEXT = (".dot", ".gv")
_RENDERED = (".svg", ".png", ".pdf", ".jpg", ".jpeg")


def add_parser(sub):
    p = sub.add_parser(
        "draw", help="draw the graph (Graphviz)",
        description="Draw the graph: If branches and Loop bodies as nested clusters, the "
                    "Loop's port map on its edges (sliced inputs, back edges, stacked "
                    "outputs), fused kernels outlined, each node labelled with its op, type "
                    "and source line. -o x.svg/.png/.pdf renders with Graphviz's dot "
                    "(apt-get install graphviz, brew install graphviz, or "
                    "https://graphviz.org); -o x.dot or no -o writes the dot text.")
    add_model(p, model_files=True)
    add_passes(p)
    p.add_argument("-o", "--output", metavar="PATH",
                   help="graph.svg, .png or .pdf (rendered by dot), or graph.dot (text); "
                        "default: the dot text on stdout")
    p.add_argument("--no-kernels", action="store_true",
                   help="draw the graph only, without the lowered program's kernels")
    p.add_argument("--expand-layers", action="store_true",
                   help="draw every node of graphjit's built-in layers (nn.Dense, ...); by "
                        "default the nodes a layer call makes are one box named by your line")
    return p


def run(args) -> int:
    out = args.output
    suffix = os.path.splitext(out)[1].lower() if out else ""
    if out and suffix not in _TEXT + _RENDERED:
        raise UsageError(f"cannot draw to '{out}': the suffix must be one of "
                         f"{', '.join(_TEXT + _RENDERED)}")
    if is_model_file(args.model):
        no_inputs_for_file(args)
        model = load_model_file(args.model)
    else:
        apply_passes(args)
        model = load_target(args.model).compile(inputs_of(args))
    title = f"{model.name}({describe_inputs(model)})"
    text = to_dot(model.graph, None if args.no_kernels else model.lowered, title,
                  expand_layers=args.expand_layers)
    if not out:
        sys.stdout.write(text)
        return 0
    if suffix in _TEXT:
        _write(out, text)
        print(f"wrote {out}")
        return 0
    dot = shutil.which("dot")
    if dot is None:
        alt = os.path.splitext(out)[0] + ".dot"
        _write(alt, text)
        print(f"Graphviz's dot is not installed: wrote {alt} instead (install Graphviz, then "
              f"run: dot -T{suffix[1:]} {alt} -o {out})")
        return 0
    done = subprocess.run([dot, f"-T{suffix[1:].replace('jpeg', 'jpg')}", "-o", out],
                          input=text, text=True, capture_output=True)
    if done.returncode != 0:
        sys.stderr.write(f"dot failed (exit {done.returncode}): {done.stderr.strip()}\n")
        return 1
    print(f"wrote {out}")
    return 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
