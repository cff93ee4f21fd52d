"""`graphjit inspect FILE.py:NAME --input SPEC ...`: everything the compiler decided
for one model: the explain report, the node counts through the passes, the IR after
them, the lowered program (fused and extern kernels), compile time, and time per call
in graph and eager mode on random inputs of the specs."""
from __future__ import annotations

import contextlib
import io
import sys
import time
from typing import List

from ..context import get_context, set_context
from ..jit.explain import compare_results
from ..common.tensor import Tensor
from .args import add_model, add_passes, add_random, apply_passes, inputs_of, \
    positive_float, random_arrays
from .targets import UserCodeError, array_type, load_target
from .timing import format_seconds, plural, time_per_call

__all__ = ["add_parser", "run"]

_PASS_PREFIX = "[graphjit passes] "


def add_parser(sub):
    p = sub.add_parser(
        "inspect", help="print what the compiler made of a model, and how fast it runs",
        description="Compile FILE.py:NAME for the input specs and print the explain report "
                    "(what each if/for/while became), the node counts through the graph "
                    "passes, the IR after them, the lowered program (fused and extern "
                    "kernels), the compile time, and the time per call in graph and eager "
                    "mode on random inputs of the specs.")
    add_model(p)
    add_random(p)
    add_passes(p)
    p.add_argument("--seconds", type=positive_float, default=0.3, metavar="S",
                   help="time spent timing each mode (default 0.3)")
    p.add_argument("--no-timing", action="store_true",
                   help="print the compiler's output only, without running the model")
    return p


def _section(title: str) -> None:
    print(f"\n== {title} ==")


@contextlib.contextmanager
def _pass_counts(lines: List[str]):
    """Collect the pipeline's node counts (set_context(dump_passes=True) writes them
    to stderr); everything else written to stderr meanwhile goes through."""
    real = sys.stderr
    buf = io.StringIO()
    old = get_context("dump_passes")
    set_context(dump_passes=True)
    try:
        with contextlib.redirect_stderr(buf):
            yield
    finally:
        set_context(dump_passes=old)
        for line in buf.getvalue().splitlines(keepends=True):
            if line.startswith(_PASS_PREFIX):
                lines.append(line[len(_PASS_PREFIX):].rstrip("\n"))
            else:
                real.write(line)


def _print_passes(lines: List[str]) -> None:
    """The node counts before the passes and after the last one in full, and the
    total after each pass between."""
    if not lines:
        print("(passes off: --no-passes)" if not get_context("optimize_graphs") else
              "(no pass ran)")
        return
    steps = []
    for line in lines:
        # `Decay: canonicalize   31 nodes (Const 9, ...)`
        _, _, rest = line.partition(": ")
        word, _, counts = rest.partition(" ")
        counts = counts.strip()
        total = counts.split(" ", 1)[0]
        steps.append((word, int(total) if total.isdigit() else None, counts))
    print(f"before: {steps[0][2]}")
    previous = steps[0][1]
    for word, total, _ in steps[1:]:
        change = ""
        if total is not None and previous is not None and total != previous:
            change = f" ({total - previous:+d})"
        print(f"  {word:<34} {total} nodes{change}")
        previous = total
    print(f"after:  {steps[-1][2]}")


def _shown(a, i) -> str:
    value = f" = {a.item()!r}" if a.ndim == 0 else ""
    return f"{array_type(a)}{value} " + ("(random)" if i.array is None else f"({i.text})")


def run(args) -> int:
    apply_passes(args)
    inputs = inputs_of(args)
    target = load_target(args.model)
    counts: List[str] = []
    t0 = time.perf_counter()
    with _pass_counts(counts):
        model = target.compile(inputs)
    seconds = time.perf_counter() - t0
    examples = [i.example() for i in inputs]
    report = model.explain(*examples)
    names = target.input_names(len(inputs))
    spec_text = ", ".join(f"{n}: {i.describe()}" for n, i in zip(names, inputs))
    print(f"graphjit inspect {target.label} ({spec_text or 'no inputs'})")
    _section("explain")
    print(report)
    _section("passes (node counts)")
    _print_passes(counts)
    _section("IR" + (" after the passes" if counts else ""))
    print(model.graph)
    _section("lowered program (fused and extern kernels)")
    print(model.lowered)
    _section("time")
    print(f"compile: {format_seconds(report.entry.compile_seconds)} (build, passes, "
          f"lowering); {format_seconds(seconds)} in all with the compiled model")
    if args.no_timing:
        return 0
    arrays = random_arrays(inputs, args)
    tensors = [Tensor(a) for a in arrays]
    print("inputs: " + ", ".join(f"{n}: {_shown(a, i)}" for n, a, i in
                                 zip(names, arrays, inputs)))
    try:
        graph_out = model(*tensors)
        eager_out = target.run_eager(tensors)
        graph = time_per_call(lambda: model(*tensors), args.seconds)
        eager = time_per_call(lambda: target.run_eager(tensors), args.seconds)
    except Exception as e:   # a kernel failed on these inputs, in the user's model
        raise UserCodeError(e) from None
    problem = compare_results(graph_out, eager_out)
    for mode, t in (("graph", graph), ("eager", eager)):
        print(f"{mode} mode: {format_seconds(t.best)} per call (best of "
              f"{plural(len(t.per_batch), 'batch')}, {plural(t.calls, 'call')}; median "
              f"{format_seconds(t.median)})")
    print(f"eager / graph: {eager.best / graph.best:.2f}x")
    print("results: graph mode equals eager mode" if not problem else
          f"results: graph mode and eager mode DIFFER: {problem}")
    return 0
