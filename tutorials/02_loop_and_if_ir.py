"""Loop and If in the IR: build them by hand, print them, verify them, run them.

The Loop below walks the rows of `xs` (a sliced input), carries a running total
(a back edge), stops as soon as the total reaches `limit` (the execution
condition) and concatenates every total it saw (a concatenated output). An If
then says by how much the total went past the limit (0 if it never reached it).
"""
import numpy as np

from graphjit.backend.executor import compile_graph
from graphjit.ir import Graph, TensorType, dtypes as dt, verify
from graphjit.ir.builders import if_, loop


def build() -> Graph:
    g = Graph("running_total")
    xs = g.add_param(TensorType(dt.float32, (6, 3)), "xs")
    limit = g.add_param(TensorType(dt.float32, ()), "limit")
    total0 = g.const(np.zeros(3, np.float32), name="total0")

    def step(b, i, carried, sliced, invariant):
        (total,), (row,), (lim,) = carried, sliced, invariant
        total = b.apply("Add", total, b.apply("Squeeze", row, axis=0), name="total_next")
        keep_going = b.apply("Less", b.apply("ReduceSum", total), lim, name="keep_going")
        seen = b.apply("ExpandDims", total, axis=0, name="seen")
        return keep_going, [total], [(seen, 0)]      # condition, back edges, outputs

    total, totals = loop(g, step, carried=[total0], sliced=[(xs, 0)], invariant=[limit],
                         name="add_row", names=["total", "totals"])
    reached = g.apply("ReduceSum", total, name="reached")
    stopped = g.apply("GreaterEqual", reached, limit, name="stopped")
    # branches are closed graphs: what they read comes in as operands
    (excess,) = if_(g, stopped, lambda b, r, lim: b.apply("Sub", r, lim),
                    lambda b, r, lim: b.const(np.float32(0)), [reached, limit],
                    names=["excess"])
    g.set_results([total, totals, excess])
    return g


def by_hand(xs, limit):
    total, totals = np.zeros(3, np.float32), []
    for row in xs:
        total = total + row
        totals.append(total)
        if total.sum() >= limit:
            break
    excess = total.sum() - limit if total.sum() >= limit else 0.0
    return total, np.stack(totals), np.float32(excess)


def main():
    g = build()
    verify(g)
    print("The IR (the body is nested under the Loop, its port map after it):\n")
    print(g)
    run = compile_graph(g)
    xs = np.arange(18, dtype=np.float32).reshape(6, 3)
    for limit in (40.0, 1000.0):
        total, totals, excess = run(xs, np.float32(limit))
        want = by_hand(xs, limit)
        print(f"\nlimit={limit}: ran {len(totals)} of {len(xs)} iterations, "
              f"went past the limit by {excess}")
        print("totals:\n", totals)
        np.testing.assert_array_equal(total, want[0])
        np.testing.assert_array_equal(totals, want[1])
        assert excess == want[2]
    print("\nthe graph agrees with the hand-written loop")


if __name__ == "__main__":
    main()
