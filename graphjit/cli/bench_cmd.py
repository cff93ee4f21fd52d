"""`graphjit bench FILE.py:NAME --input SPEC ...`: steady time per call in graph mode,
through the compiled model with N infer requests running at once (threads), and in
eager mode, with a progress bar on stderr while it runs."""
from __future__ import annotations

import threading
import time
from typing import List

from ..common.tensor import Tensor
from .args import add_model, add_random, inputs_of, positive_float, positive_int, \
    random_arrays
from .progress import Progress
from .targets import UserCodeError, array_type, load_target
from .timing import format_seconds, plural, time_per_call

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser(
        "bench", help="time a model in graph mode, with concurrent requests, and eagerly",
        description="Time FILE.py:NAME on random inputs of the specs: the steady time per "
                    "call in graph mode (the compiled model called from one thread), the "
                    "throughput of N infer requests running at once on N threads, and the "
                    "time per call in eager mode.")
    add_model(p)
    add_random(p)
    p.add_argument("--requests", type=positive_int, default=2, metavar="N",
                   help="infer requests running at once, one thread each (default 2)")
    p.add_argument("--seconds", type=positive_float, default=2.0, metavar="S",
                   help="time spent on each of the three measurements (default 2)")
    p.add_argument("--no-progress", action="store_true", help="draw no progress bar")
    return p


def _concurrent(model, arrays, n: int, seconds: float, bar: Progress):
    """(calls, elapsed): n requests calling infer in a loop on n threads."""
    requests = [model.create_infer_request() for _ in range(n)]
    for r in requests:             # warm-up, and errors surface here, on this thread
        r.infer(arrays)
    counts = [0] * n
    errors: List[BaseException] = []
    stop = threading.Event()

    def work(i: int) -> None:
        req = requests[i]
        try:
            while not stop.is_set():
                req.infer(arrays)
                counts[i] += 1
        except BaseException as e:   # reported on the main thread
            errors.append(e)
            stop.set()

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(n)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    while not stop.is_set():
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
        bar.update(elapsed)
        stop.wait(min(0.05, seconds - elapsed))
    stop.set()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    if errors:
        raise errors[0]
    return sum(counts), elapsed


def run(args) -> int:
    inputs = inputs_of(args)
    target = load_target(args.model)
    model = target.compile(inputs)
    arrays = random_arrays(inputs, args)
    tensors = [Tensor(a) for a in arrays]
    names = target.input_names(len(inputs))
    print(f"graphjit bench {target.label} on "
          + (", ".join(f"{n}: {array_type(a)}" for n, a in zip(names, arrays)) or "no inputs"))
    show = not args.no_progress
    try:
        bar = Progress("graph mode", args.seconds, enabled=show)
        graph = time_per_call(lambda: model(*tensors), args.seconds, bar.update)
        bar.close(graph.seconds)
        bar = Progress(f"{args.requests} infer requests", args.seconds, enabled=show)
        calls, elapsed = _concurrent(model, arrays, args.requests, args.seconds, bar)
        bar.close(elapsed)
        bar = Progress("eager mode", args.seconds, enabled=show)
        eager = time_per_call(lambda: target.run_eager(tensors), args.seconds, bar.update)
        bar.close(eager.seconds)
    except Exception as e:    # the user's model failed on these inputs
        raise UserCodeError(e) from None
    per_call = elapsed / max(calls, 1)
    print(f"{'graph mode:':<24} {format_seconds(graph.median):>10} per call "
          f"(steady: median of {plural(len(graph.per_batch), 'batch')}; best "
          f"{format_seconds(graph.best)}; {plural(graph.calls, 'call')})")
    print(f"{f'{args.requests} infer requests:':<24} {format_seconds(per_call):>10} per call "
          f"({calls / elapsed:,.0f} calls/s in all; each request "
          f"{format_seconds(per_call * args.requests)} per call; {plural(calls, 'call')})")
    print(f"{'eager mode:':<24} {format_seconds(eager.median):>10} per call "
          f"(median of {plural(len(eager.per_batch), 'batch')}; best "
          f"{format_seconds(eager.best)}; {plural(eager.calls, 'call')})")
    print(f"eager / graph: {eager.median / graph.median:.2f}x; "
          f"{args.requests} requests / one caller: {graph.median / per_call:.2f}x the calls/s")
    return 0
