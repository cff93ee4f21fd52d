"""Random programs that leave early (return, break, continue under tensor conditions, at
any depth, in unrolled and rolled loops, loop else clauses and helpers) and then read
names bound after the leave; that choose functions and list lengths by tensor conditions
and then call them, index, iterate and stack them. Every read is of a name definitely bound on every path that reaches it (Java's
definite assignment: a path that returned, broke out or continued does not reach what
follows), so each program runs eagerly, and graph mode must run it too.

Programs take x, y (float32 vectors of 3), X (float32 [2, 3]) and n (an int32 scalar).
"""
from __future__ import annotations

import random

TOP = None      # the definitely-bound set of a point no path reaches (every path left)

NAMES = ["a", "b", "j", "t", "u"]
FUNCS = ["ops.tanh", "abs", "dbl", "(lambda t: t - 1.0)", "ops.relu"]
PRELUDE = "def dbl(t):\n    return t * 2\n"


def _meet(d1, d2):
    if d1 is TOP:
        return d2
    if d2 is TOP:
        return d1
    return d1 & d2


class LeaveGen:
    def __init__(self, seed: int, max_depth: int = 2):
        self.r = random.Random(seed)
        self.max_depth = max_depth
        self.lines = []
        self.n_loops = 0
        self.in_helper = False

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    # -- expressions over definitely bound names ------------------------------------------
    def var(self, d):
        # (a loop counter w<k> is a Python int in eager mode: used in sums only)
        return self.r.choice(sorted({v for v in d if not v.startswith("w")} | {"x", "y"}))

    def expr(self, d):
        r = self.r
        v, w = self.var(d), self.var(d)
        return r.choice([f"{v} + {w}", f"{v} * 0.5", f"ops.tanh({v}) - {w}", f"{v} - 1.0",
                         f"ops.maximum({v}, {w})", f"{v} * {w}", f"abs({v} - {w})"])

    def cond(self, d):
        r = self.r
        v = self.var(d)
        return r.choice([f"{v}.sum() > {r.choice(['0', '1.0', '-1.0'])}",
                         f"({v} > 0).any()", f"{v}.max() < 1.5", f"{v}[0] <= {self.var(d)}[1]",
                         "n > 1", f"{v}.mean() > 0.25"])

    # -- statements: each returns the definitely-bound set after it (TOP: every path left)
    def block(self, depth, d, loop, fn_depth, n=None):
        for _ in range(n or self.r.randint(1, 3)):
            d = self.stmt(depth, d, loop, fn_depth)
            if d is TOP:
                break
        return d

    def leave_stmt(self, depth, d, loop):
        kinds = ["return"] + (["break", "continue"] if loop else [])
        kind = self.r.choice(kinds)
        if kind == "return":
            self.emit(depth, f"return {self.expr(d)}")
        else:
            self.emit(depth, kind)
        return TOP

    def stmt(self, depth, d, loop, fn_depth):
        r = self.r
        level = depth - fn_depth
        kinds = ["assign", "assign", "leave_if", "leave_if"]
        if level < self.max_depth:
            kinds += ["if", "if", "if_leave_else", "unrolled", "rolled", "while"]
        if not self.in_helper and r.random() < 0.3:
            kinds += ["helper"]
        kinds += ["fnchoice", "varlist"]
        kind = r.choice(kinds)
        if kind == "assign":
            name = r.choice(NAMES)
            self.emit(depth, f"{name} = {self.expr(d)}")
            return d | {name}
        if kind == "leave_if":          # if c: <leave>   (maybe nested one level deeper)
            self.emit(depth, f"if {self.cond(d)}:")
            if r.random() < 0.3:
                self.emit(depth + 1, f"if {self.cond(d)}:")
                self.leave_stmt(depth + 2, d, loop)
                if r.random() < 0.5:     # then leave anyway: every path left
                    self.leave_stmt(depth + 1, d, loop)
            else:
                self.leave_stmt(depth + 1, d, loop)
            return d
        if kind == "if":
            self.emit(depth, f"if {self.cond(d)}:")
            d1 = self.block(depth + 1, d, loop, fn_depth)
            if r.random() < 0.6:
                self.emit(depth, "else:")
                d2 = self.block(depth + 1, d, loop, fn_depth)
            else:
                d2 = d
            return _meet(d1, d2)
        if kind == "if_leave_else":     # a branch that leaves, the other binds and goes on
            self.emit(depth, f"if {self.cond(d)}:")
            if r.random() < 0.5:
                d1 = self.block(depth + 1, d, loop, fn_depth)
                self.leave_stmt(depth + 1, d1 if d1 is not TOP else d, loop)
                self.emit(depth, "else:")
                return self.block(depth + 1, d, loop, fn_depth)
            d1 = self.block(depth + 1, d, loop, fn_depth)
            self.emit(depth, "else:")
            self.emit(depth + 1, f"if {self.cond(d)}:")
            self.leave_stmt(depth + 2, d, loop)
            d2 = self.block(depth + 1, d, loop, fn_depth)
            return _meet(d1, d2)
        if kind in ("unrolled", "rolled", "while"):
            self.n_loops += 1
            k = self.n_loops
            if kind == "unrolled":
                self.emit(depth, f"for i{k} in range({r.choice(['2', '3'])}):")
            elif kind == "rolled":
                self.emit(depth, f"for r{k} in {r.choice(['X', 'ops.stack([x, y, x])'])}:")
            else:
                self.emit(depth, f"w{k} = 0")
                self.emit(depth, f"while w{k} < n:")
                self.emit(depth + 1, f"w{k} = w{k} + 1")
                d = d | {f"w{k}"}
            self.block(depth + 1, d, True, fn_depth)
            if r.random() < 0.3:
                self.emit(depth, "else:")
                self.block(depth + 1, d, loop, fn_depth)
            return d                      # the loop may run zero times or break at once
        if kind == "fnchoice":        # a function chosen by a tensor condition, then called
            self.n_loops += 1
            g = f"g{self.n_loops}"
            f1, f2, f3 = (r.choice(FUNCS) for _ in range(3))
            if r.random() < 0.5:
                self.emit(depth, f"{g} = {f1} if {self.cond(d)} else {f2}")
            else:
                self.emit(depth, f"if {self.cond(d)}:")
                self.emit(depth + 1, f"{g} = {f1}")
                if r.random() < 0.4:
                    self.emit(depth, f"elif {self.cond(d)}:")
                    self.emit(depth + 1, f"{g} = {f3}")
                self.emit(depth, "else:")
                self.emit(depth + 1, f"{g} = {f2}")
            name = r.choice(NAMES)
            self.emit(depth, f"{name} = {g}({self.var(d)})" + (
                f" + {g}({self.var(d)})" if r.random() < 0.3 else ""))
            return d | {name}
        if kind == "varlist":         # lists of other lengths joined by a tensor condition
            self.n_loops += 1
            ls = f"ls{self.n_loops}"
            items = [self.var(d) for _ in range(3)]
            n1, n2 = r.sample([0, 1, 2, 3], 2)
            self.emit(depth, f"if {self.cond(d)}:")
            self.emit(depth + 1, f"{ls} = [{', '.join(items[:n1])}]")
            self.emit(depth, "else:")
            self.emit(depth + 1, f"{ls} = [{', '.join(items[:n2])}]")
            if r.random() < 0.3:
                self.emit(depth, f"{ls}.append({self.expr(d)})")
                n1, n2 = n1 + 1, n2 + 1
            name, v = r.choice(NAMES), self.var(d)
            use = r.choice(["len", "stack", "iter", "index"] if min(n1, n2) > 0 else
                           ["len", "iter", "stackif"])
            if use == "len":
                self.emit(depth, f"{name} = {v} * len({ls})")
            elif use == "stack":
                self.emit(depth, f"{name} = ops.stack({ls}).sum(0) + {v}")
            elif use == "stackif":
                self.emit(depth, f"{name} = {v}")
                self.emit(depth, f"if len({ls}) > 0:")
                self.emit(depth + 1, f"{name} = ops.stack({ls}).max(0)")
            elif use == "index":
                self.emit(depth, f"{name} = {ls}[-1] - {ls}[0]")
            else:
                self.emit(depth, f"{name} = {v}")
                self.emit(depth, f"for it{self.n_loops} in {ls}:")
                self.emit(depth + 1, f"{name} = {name} * 0.5 + it{self.n_loops}")
            return d | {name}
        if kind == "helper":
            self.n_loops += 1
            k = self.n_loops
            saved = self.lines
            self.lines, self.in_helper = [], True
            self.emit(0, f"def helper{k}(x, y, X, n):")
            self.emit(1, "a = x")
            dd = self.block(1, {"a"}, False, 1, n=r.randint(1, 4))
            if dd is not TOP:
                self.emit(1, f"return {self.expr(dd)}")
            self.helpers.append("\n".join(self.lines))
            self.lines, self.in_helper = saved, False
            name = r.choice(NAMES)
            self.emit(depth, f"{name} = helper{k}({self.var(d)}, {self.var(d)}, X, n)")
            return d | {name}
        raise AssertionError(kind)

    def program(self, name="prog") -> str:
        self.lines, self.helpers = [], []
        self.emit(0, f"def {name}(x, y, X, n):")
        self.emit(1, "a = x")
        d = self.block(1, {"a"}, False, 1, n=self.r.randint(2, 4))
        if d is not TOP:
            self.emit(1, f"return {' + '.join(sorted(d))}")
        main = "\n".join(self.lines)
        return "\n\n".join([PRELUDE] + self.helpers + [main]) + "\n"
