"""A generator of random small control-flow programs (for graph-vs-eager testing).

Programs take x, y (float32 vectors of 3), n (an int32 scalar) and s (a float32
scalar); they use nested if/for/while on tensor and Python conditions, break,
continue and early return, and names first bound after a tensor-conditioned break,
continue or return and read after it. Every loop is bounded, every other variable is
defined before the body starts, so each program runs eagerly.
"""
from __future__ import annotations

import random

TENSOR_VARS = ["a", "b", "c"]
SCALAR_VARS = ["k", "m"]


class Gen:
    def __init__(self, seed: int, max_depth: int = 3):
        self.r = random.Random(seed)
        self.max_depth = max_depth
        self.lines = []
        self.loop_id = 0

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def texpr(self, d=0):
        r = self.r
        v = r.choice(TENSOR_VARS + ["x", "y"])
        if d > 1:
            return v
        choice = r.randrange(9)
        if choice == 0:
            return f"({v} + {self.texpr(d + 1)})"
        if choice == 1:
            return f"({v} * {r.choice(['0.5', '2', '-1', 's', 'k'])})"
        if choice == 2:
            return f"ops.tanh({self.texpr(d + 1)})"
        if choice == 3:
            return f"ops.maximum({v}, {self.texpr(d + 1)})"
        if choice == 4:
            return f"({v} - {r.choice(['1', 'm', '0.25', 's'])})"
        if choice == 5:
            return f"({v} * 0.5 + {r.choice(TENSOR_VARS)})"
        if choice == 6:
            return f"ops.where({v} > 0, {v}, {r.choice(TENSOR_VARS)} * 0.5)"
        if choice == 7:
            return f"({v} + {r.choice(SCALAR_VARS)})"
        if r.random() < 0.3:
            return f"({v} if {self.cond()} else {r.choice(TENSOR_VARS)} * 2)"
        if r.random() < 0.3:
            return f"helper({v}, {r.choice(TENSOR_VARS)})"
        if r.random() < 0.3:
            return f"ops.concat([{v}[1:], {v}[:1]])"
        return v

    def sexpr(self):
        r = self.r
        v = r.choice(SCALAR_VARS)
        return r.choice([f"{v} + 1", f"{v} * 2", f"{v} - 1", "n", f"{v} + n", "2",
                         f"({v} + 3) % 5"])

    def cond(self):
        r = self.r
        c = r.randrange(8)
        t = r.choice(TENSOR_VARS + ["x", "y"])
        if c == 0:
            return f"{t}.sum() > {r.choice(['0', '1.5', 's', '-2'])}"
        if c == 1:
            return f"{r.choice(SCALAR_VARS)} < {r.choice(['2', '3', 'n'])}"
        if c == 2:
            return f"({t} > 0).any()"
        if c == 3:
            return f"{t}.max() < {r.choice(TENSOR_VARS)}.min() + 1"
        if c == 4:
            return f"{t}.sum() > 0 and {r.choice(SCALAR_VARS)} < 3"
        if c == 5:
            return f"not ({t}.mean() > s)"
        if c == 6:
            return f"n > {r.choice(['0', '1', '2'])}"
        return f"{r.choice(SCALAR_VARS)} == {r.choice(['0', '1', '2'])}"

    def block(self, depth, in_loop, n_stmts=None):
        n = n_stmts or self.r.randint(1, 3)
        for _ in range(n):
            self.stmt(depth, in_loop)

    def stmt(self, depth, in_loop):
        r = self.r
        level = depth - 1
        choices = ["assign", "assign", "sassign"]
        if level < self.max_depth:
            choices += ["if", "if", "for", "while", "fortensor", "append", "enumerate"]
        if in_loop:
            choices += ["break", "continue"]
        choices += ["return"] if r.random() < 0.15 else []
        choices += ["leavebind"] if r.random() < 0.3 else []
        kind = r.choice(choices)
        if kind == "assign":
            self.emit(depth, f"{r.choice(TENSOR_VARS)} = {self.texpr()}")
        elif kind == "sassign":
            self.emit(depth, f"{r.choice(SCALAR_VARS)} = {self.sexpr()}")
        elif kind == "if":
            self.emit(depth, f"if {self.cond()}:")
            self.block(depth + 1, in_loop)
            if r.random() < 0.3:
                self.emit(depth, f"elif {self.cond()}:")
                self.block(depth + 1, in_loop)
            if r.random() < 0.6:
                self.emit(depth, "else:")
                self.block(depth + 1, in_loop)
        elif kind == "for":
            bound = r.choice(["3", "2", "n"])
            self.emit(depth, f"for i{depth} in range({bound}):")
            self.emit(depth + 1, f"{r.choice(TENSOR_VARS)} = {r.choice(TENSOR_VARS)} + i{depth}")
            self.block(depth + 1, True)
        elif kind == "fortensor":
            self.emit(depth, f"for row{depth} in ops.stack([x, y]):")
            self.emit(depth + 1, f"{r.choice(TENSOR_VARS)} = {r.choice(TENSOR_VARS)} + row{depth}")
            self.block(depth + 1, True)
        elif kind == "while":
            self.loop_id += 1
            w = f"w{self.loop_id}"
            self.emit(depth, f"{w} = 0")
            self.emit(depth, f"while {w} < {r.choice(['2', '3', 'n'])} and ({self.cond()}):")
            self.emit(depth + 1, f"{w} = {w} + 1")
            local = r.random() < 0.3
            tid = self.loop_id
            if local:        # a name bound only inside the loop, read after it
                self.emit(depth + 1, f"t{tid} = {self.texpr()}")
            self.block(depth + 1, True)
            if local:
                self.emit(depth, f"{r.choice(TENSOR_VARS)} = t{tid} * 0.5")
        elif kind == "append":
            self.loop_id += 1
            lst = f"outs{self.loop_id}"
            self.emit(depth, f"{lst} = [x]")
            bound = r.choice(["3", "n"])
            self.emit(depth, f"for j{depth} in range({bound}):")
            self.emit(depth + 1, f"{r.choice(TENSOR_VARS)} = {self.texpr()}")
            if r.random() < 0.4:     # appended only where a condition holds
                self.emit(depth + 1, f"if {self.cond()}:")
                self.emit(depth + 2, f"{lst}.append({r.choice(TENSOR_VARS)} * j{depth})")
            else:
                self.emit(depth + 1, f"{lst}.append({r.choice(TENSOR_VARS)} * j{depth})")
            self.emit(depth, f"{r.choice(TENSOR_VARS)} = ops.stack({lst}).sum(0)")
        elif kind == "enumerate":
            self.emit(depth, f"for e{depth}, row{depth} in enumerate(ops.stack([x, y, x])):")
            self.emit(depth + 1, f"{r.choice(TENSOR_VARS)} = {r.choice(TENSOR_VARS)} + row{depth} * e{depth}")
            self.block(depth + 1, True)
        elif kind == "break":
            self.emit(depth, f"if {self.cond()}:")
            self.emit(depth + 1, "break")
        elif kind == "continue":
            self.emit(depth, f"if {self.cond()}:")
            self.emit(depth + 1, "continue")
        elif kind == "return":
            self.emit(depth, f"if {self.cond()}:")
            self.emit(depth + 1, f"return {r.choice(TENSOR_VARS)}, {r.choice(SCALAR_VARS)}")
        elif kind == "leavebind":      # bound after a leave, on every path that goes on
            self.loop_id += 1
            nb = f"nb{self.loop_id}"
            leave = r.choice(["return"] + (["break", "continue"] if in_loop else []))
            leave = f"return {r.choice(TENSOR_VARS)}, {r.choice(SCALAR_VARS)}" \
                if leave == "return" else leave
            self.emit(depth, f"if {self.cond()}:")
            if r.random() < 0.5:
                self.emit(depth + 1, leave)
                self.emit(depth, f"{nb} = {self.texpr()}")
            else:
                self.emit(depth + 1, f"{nb} = {self.texpr()}")
                self.emit(depth, "else:")
                self.emit(depth + 1, f"if {self.cond()}:")
                self.emit(depth + 2, leave)
                self.emit(depth + 1, f"{nb} = {self.texpr()}")
            self.emit(depth, f"{r.choice(TENSOR_VARS)} = {nb} * 0.5")

    def program(self, name="prog") -> str:
        self.lines = []
        self.emit(0, "def helper(u, v):")
        self.emit(1, "if u.sum() > v.sum():")
        self.emit(2, "return u - v")
        self.emit(1, "return u * 0.5")
        self.emit(0, "")
        self.emit(0, f"def {name}(x, y, n, s):")
        self.emit(1, "a = x")
        self.emit(1, "b = y")
        self.emit(1, "c = x * 0")
        self.emit(1, "k = 0")
        self.emit(1, "m = 1")
        self.block(1, False, self.r.randint(2, 5))
        self.emit(1, "return a + b * c, k + m")
        return "\n".join(self.lines) + "\n"
