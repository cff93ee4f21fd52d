"""A generator of random control-flow programs over integers only (+, -, *, comparisons,
where, if, while, for, break), for the integer-gradient property test.

Programs take x, y (vectors of 3) and n (a scalar) and use no division, no float
constant and no cast, so that run on int32 inputs and on float64 inputs they compute
the same values (until an int32 overflow, which the test detects by comparing the
two forwards) and take the same branches.
"""
from __future__ import annotations

import random

VARS = ["a", "b", "c"]


class IntGen:
    def __init__(self, seed: int, max_depth: int = 2):
        self.r = random.Random(seed)
        self.max_depth = max_depth
        self.lines = []
        self.loops = 0

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def expr(self, d=0):
        r = self.r
        v = r.choice(VARS + ["x", "y"])
        if d > 1:
            return v
        k = r.randrange(8)
        if k == 0:
            return f"({v} + {self.expr(d + 1)})"
        if k == 1:
            return f"({v} - {self.expr(d + 1)})"
        if k == 2:
            return f"({v} * {r.choice(['2', '-1', '3', 'n'])})"
        if k == 3:
            return f"({v} * {self.expr(d + 1)})"
        if k == 4:
            return f"ops.where({v} > {r.choice(['0', '1', '-1'])}, {v}, {self.expr(d + 1)})"
        if k == 5:
            return f"({v} - {r.choice(['1', 'n', '2'])})"
        if k == 6:
            return f"(-{v} + {r.choice(VARS)})"
        return v

    def cond(self):
        r = self.r
        t = r.choice(VARS + ["x", "y"])
        return r.choice([f"{t}.sum() > {r.choice(['0', '2', '-3', 'n'])}",
                         f"({t} > {r.choice(['0', '1'])}).any()",
                         f"{t}.max() < {r.choice(VARS)}.min() + 2",
                         f"n > {r.choice(['0', '1', '2'])}"])

    def block(self, depth, level, in_loop):
        for _ in range(self.r.randint(1, 3)):
            self.stmt(depth, level, in_loop)

    def stmt(self, depth, level, in_loop):
        r = self.r
        k = r.randrange(10) if level < self.max_depth else 0
        if k <= 4:
            self.emit(depth, f"{r.choice(VARS)} = {self.expr()}")
        elif k <= 6:
            self.emit(depth, f"if {self.cond()}:")
            self.block(depth + 1, level + 1, in_loop)
            if r.random() < 0.6:
                self.emit(depth, "else:")
                self.block(depth + 1, level + 1, in_loop)
        elif k == 7:
            self.emit(depth, f"for _ in range({r.randint(1, 3)}):")
            self.block(depth + 1, level + 1, True)
        else:
            i = f"i{self.loops}"
            self.loops += 1
            self.emit(depth, f"{i} = 0")
            self.emit(depth, f"while {i} < n + 1:")
            self.block(depth + 1, level + 1, True)
            if r.random() < 0.4:
                self.emit(depth + 1, f"if {self.cond()}:")
                self.emit(depth + 2, "break")
            self.emit(depth + 1, f"{i} += 1")
        if in_loop and r.random() < 0.1:
            self.emit(depth, f"if {self.cond()}:")
            self.emit(depth + 1, "break")

    def program(self) -> str:
        self.lines = []
        self.emit(0, "def prog(x, y, n):")
        self.emit(1, "a = x * 2 - y")
        self.emit(1, "b = y + 1")
        self.emit(1, "c = x - n")
        self.block(1, 0, False)
        out = self.r.choice(["(a * b + c).sum()", "a + b * c", "(a - c) * b"])
        self.emit(1, f"return {out}")
        return "\n".join(self.lines) + "\n"
