"""A second generator of random control-flow programs (graph mode against eager).

Where fuzzgen.py works on float32 vectors, this one mixes dtypes and ranks:
float32 matrices (2x3) and vectors (3,), int32 and bool vectors, reductions with
axis/keepdims, matmul, transpose, indexing x[i], x[:, j] and slices; Python int,
float and bool scalars mixed into tensor arithmetic (//, %, small **, comparisons,
and/or/not); conditional expressions; tuple assignments and swaps; module-level
helper functions with their own if/while/for; for over tuples, range(tensor),
tensor rows, enumerate and zip; counter-bounded while loops; break/continue/return
at several depths; augmented assignments; lists appended in loops then ops.stack;
early returns of tuples; names first bound after a tensor-conditioned break, continue
or return and read after it; functions chosen by tensor conditions, then called; lists
of different lengths joined at tensor conditions, then stacked, indexed, iterated and
measured with len; raise and assert under tensor conditions (messages formatted from
tensor and Python values; test_fuzz2_equivalence checks the exception's type and text),
with-blocks on a @jit_class, membership (`in`, `not in`, list.count) over lists of
tensors, numbers and strings, and tuples indexed by bools decided at run time.

Each variable keeps one kind (dtype and shape, or Python type) on every path, so a
program is valid for graph mode unless it exercises a documented limit; loops are
bounded, so every program runs eagerly.

Program signature: prog(X, Y, V, B, n, p, q, f) with X float32 (2, 3), Y float32
(3, 3), V int32 (3,), B bool (3,), n int32 scalar tensor, p Python int, q Python
float, f Python bool. It returns (A, u, iv, bv, k, z, flag).

`avoid` is a set of construct names to leave out (open findings, see
test_fuzz2_equivalence.py).
"""
from __future__ import annotations

import random

HELPERS = '''
def h_clip(v, lim):
    w = 0
    while w < 3 and v.max() > lim:
        v = v * 0.5
        w += 1
    return v


def h_pair(a, b, k):
    if a.sum() > b.sum():
        return b, a, k + 1
    return a, b, k


def h_rows(M, z):
    acc = M[0] * 0
    for r in M:
        if r.sum() > z:
            acc = acc + r
        else:
            acc = acc - r * 0.5
    return acc


def h_int(iv, k):
    if k > 1:
        return iv % 5 + k
    return iv * 2 - k


def h_count(bv, k):
    c = k
    for t in bv:
        if t:
            c = c + 1
    return c


def h_neg(v):
    return -v


@ms.jit_class
class HCtx:
    def __init__(self, s):
        self.s = s
        self.n = 0

    def __enter__(self):
        self.n = self.n + 1
        return self.s * 2

    def __exit__(self, exc_type, exc_value, traceback):
        self.n = self.n + 10
        return False
'''

FUNCS = ["ops.tanh", "abs", "h_neg", "(lambda t: t * 0.5)", "ops.relu"]

MAT = ["A", "Am"]
VEC = ["u", "u2"]
INT = ["k", "m"]


class Gen2:
    def __init__(self, seed: int, max_depth: int = 3, avoid=()):
        self.r = random.Random(seed)
        self.max_depth = max_depth
        self.avoid = set(avoid)
        self.lines = []
        self.uid = 0

    def ok(self, name):
        return name not in self.avoid

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def pick(self, opts):
        # options are thunks, so only the chosen one generates (and recurses)
        opts = [o for o in opts if o is not None]
        return self.r.choice(opts)()

    # ---- Python scalar expressions -------------------------------------------------
    def iexpr(self, d=0):
        r = self.r
        v = r.choice(INT + ["p"] + self.loopvars_int)
        if d > 1:
            return v
        return self.pick([
            lambda: f"{v} + 1", lambda: f"{v} * 2", lambda: f"{v} - 1", lambda: f"({v} + 3) % 5", lambda: f"{v} // 2",
            lambda: f"-{v}", lambda: f"{v} ** 2 % 7", lambda: f"abs({v})", lambda: "p",
            lambda: f"({v} + {self.iexpr(d + 1)})",
            lambda: f"({v} if {self.pcond()} else {r.choice(INT)})",
            (lambda: f"({v} + 1 if {self.tcond()} else {v})") if self.ok("int_ifexp_tensor") else None,
            lambda: f"min({v}, 3)", lambda: f"max({v}, -2)",
            (lambda: f"h_count(bv, {v})") if self.ok("h_count") else None,
        ])

    def fexpr(self, d=0):
        v = self.r.choice(["z", "q"])
        if d > 1:
            return v
        return self.pick([
            lambda: "z * 0.5", lambda: "z + 1.5", lambda: f"z + {self.iexpr(d + 1)}", lambda: "z - q", lambda: "z / 2",
            lambda: "q", lambda: f"{v} ** 2 % 3", lambda: f"float({self.iexpr(d + 1)})", lambda: "-z", lambda: "abs(z) + 0.25",
            lambda: f"(z if {self.pcond()} else q)",
            (lambda: f"(z * 0.5 if {self.tcond()} else z)") if self.ok("float_ifexp_tensor") else None,
        ])

    def bexpr(self):
        return self.pick([
            lambda: "not flag", lambda: f"flag and {self.iexpr(1)} > 1", lambda: f"{self.iexpr(1)} < p",
            lambda: "flag or z > 0", lambda: "f", lambda: f"{self.iexpr(1)} == {self.iexpr(1)}",
            lambda: f"z >= {self.fexpr(1)}",
        ])

    def pcond(self):
        return self.pick([
            lambda: f"{self.r.choice(INT)} < {self.r.choice(['2', '3', 'p'])}", lambda: "flag", lambda: "z > 0.5",
            lambda: "p > 1 and not flag", lambda: "f or k == 0", lambda: f"{self.r.choice(INT)} % 2 == 0",
        ])

    # ---- tensor expressions -------------------------------------------------------
    def mat(self, d=0):
        r = self.r
        v = r.choice(MAT + ["X"])
        if d > 1:
            return v
        return self.pick([
            lambda: f"({v} + {self.vec(d + 1)})", lambda: f"({v} * {self.fexpr(1)})",
            lambda: f"({v} - {self.iexpr(1)})", lambda: f"ops.matmul({v}, Y)", lambda: f"({v} @ Y * 0.25)",
            lambda: f"ops.tanh({self.mat(d + 1)})", lambda: f"ops.where({v} > 0, {v}, {v} * 0.5)",
            lambda: f"{v}.transpose().transpose()", lambda: f"({v} * iv)", lambda: f"({v} + bv)",
            lambda: f"({v} + {v}.sum(axis=0, keepdims=True) * 0.5)",
            lambda: f"({v} - {v}.mean(axis=1, keepdims=True))",
            lambda: f"({v} * {v}.max(axis=1, keepdims=True))",
            lambda: f"ops.stack([{self.vec(d + 1)}, {self.vec(d + 1)}])",
            lambda: f"{v}[::-1]", lambda: f"({v} ** 2 * 0.5)", lambda: f"({v} // 1.5)", lambda: f"({v} % 2.0)",
            lambda: f"({v} if {self.cond()} else {r.choice(MAT)} * 2)",
            lambda: f"ops.maximum({v}, {self.mat(d + 1)})", lambda: f"ops.clamp({v}, -4.0, 4.0)",
            lambda: f"ops.concat([{v}[:, 1:], {v}[:, :1]], 1)",
            lambda: f"({v} * flag)", lambda: f"({v} / (abs({v}) + 1))",
        ])

    def idx2(self):
        return self.pick([lambda: f"{self.r.choice(INT + self.loopvars_int)} % 2", lambda: "0", lambda: "1", lambda: "-1"])

    def idx3(self):
        return self.pick([lambda: f"{self.r.choice(INT + self.loopvars_int)} % 3", lambda: "0", lambda: "2", lambda: "-1"])

    def vec(self, d=0):
        r = self.r
        v = r.choice(VEC + self.loopvars_vec)
        if d > 1:
            return v
        m = r.choice(MAT + ["X"])
        return self.pick([
            lambda: f"{m}[{self.idx2()}]", lambda: f"{m}.sum(axis=0)", lambda: f"{m}.max(axis=0)",
            lambda: f"Y[:, {self.idx3()}]", lambda: f"ops.matmul({v}, Y)", lambda: f"({v} + {self.iexpr(1)})",
            lambda: f"({v} * {self.fexpr(1)})", lambda: f"({v} // 2)", lambda: f"({v} % 2.0)", lambda: f"({v} ** 2)",
            lambda: f"abs({v})", lambda: f"({v} + iv)", lambda: f"({v} * bv)", lambda: f"ops.tanh({self.vec(d + 1)})",
            (lambda: f"h_clip({v}, {self.fexpr(1)})") if self.ok("h_clip") else None,
            (lambda: f"h_rows({m}, z)") if self.ok("h_rows") else None,
            lambda: f"ops.concat([{v}[1:], {v}[:1]])", lambda: f"({v} - {v}[{self.idx3()}])",
            lambda: f"({v} if {self.cond()} else {r.choice(VEC)} - 1)",
            lambda: f"(iv / 2)", lambda: f"ops.cast(bv, ms.float32)", lambda: f"{m}.mean(axis=0)",
            lambda: f"({v} + {m}[:, {self.idx3()}].sum())",
            lambda: f"ops.where(bv, {v}, {r.choice(VEC)})", lambda: f"({v} - {self.vec(d + 1)})",
            lambda: f"{m}.transpose()[{self.idx3()}].sum() + {v}",
        ])

    def ivec(self, d=0):
        v = self.r.choice(["iv", "V"])
        if d > 1:
            return v
        return self.pick([
            lambda: f"({v} + {self.iexpr(1)})", lambda: f"({v} * 2)", lambda: f"({v} // 2)", lambda: f"({v} % 3)",
            lambda: f"-{v}", lambda: f"({v} - V)", lambda: f"abs({v})", lambda: f"ops.maximum({v}, V)",
            lambda: f"(({v} % 4) ** 2)", lambda: f"ops.where(bv, {v}, V)", lambda: f"ops.cast(bv, ms.int32)",
            lambda: f"ops.clamp({v}, -20, 20)", lambda: f"({v} * flag)",
            (lambda: f"h_int({v}, {self.iexpr(1)})") if self.ok("h_int") else None,
            lambda: f"({v} if {self.cond()} else V)", lambda: f"({v} + {self.ivec(d + 1)}) % 11",
            lambda: f"{v}[::-1]",
        ])

    def bvec(self, d=0):
        v = self.r.choice(["bv", "B"])
        if d > 1:
            return v
        return self.pick([
            lambda: f"({self.vec(1)} > 0)", lambda: f"(iv > {self.iexpr(1)})", lambda: f"({v} & ({self.vec(1)} < z))",
            lambda: f"~{v}", lambda: f"({v} | B)", lambda: f"(iv % 2 == 0)", lambda: f"({self.mat(1)}[0] > {self.mat(1)}[1])",
            lambda: f"({v} & flag)", lambda: f"({v} != B)", lambda: f"({v} if {self.cond()} else ~B)",
            lambda: f"({self.mat(1)} > 0).any(axis=0)",
        ])

    def tscalar(self):
        return self.pick([
            lambda: f"{self.vec(1)}.sum()", lambda: f"{self.mat(1)}.sum()", lambda: "iv.sum()", lambda: f"{self.mat(1)}.max()",
            lambda: f"{self.vec(1)}.mean()", lambda: f"{self.vec(1)}[{self.idx3()}]",
            lambda: f"{self.mat(1)}[{self.idx2()}, {self.idx3()}]", lambda: "n", lambda: "bv.sum()",
        ])

    def tcond(self):
        r = self.r
        return self.pick([
            lambda: f"{self.tscalar()} > {r.choice(['0', 'z', 'k', '1.5', '-1'])}",
            lambda: "bv.any()", lambda: "(iv > 0).all()", lambda: f"iv.sum() > {r.choice(INT)}",
            lambda: f"{r.choice(VEC)}[0] < {r.choice(VEC)}[1]", lambda: f"n > {r.choice(INT + ['1'])}",
            lambda: f"{self.tscalar()} <= {self.fexpr(1)}",
        ])

    def cond(self):
        c = self.r.randrange(10)
        if c < 5:
            return self.tcond()
        if c < 7:
            return self.pcond()
        if c == 7:
            return f"{self.tcond()} and {self.pcond()}"
        if c == 8:
            return f"{self.pcond()} or {self.tcond()}"
        return f"not ({self.tcond()})"

    # ---- statements ---------------------------------------------------------------
    def assign(self, depth):
        r = self.r
        kind = r.choice(["mat", "vec", "vec", "ivec", "bvec", "int", "float", "bool"])
        if kind == "mat":
            self.emit(depth, f"{r.choice(MAT)} = {self.mat()}")
        elif kind == "vec":
            self.emit(depth, f"{r.choice(VEC)} = {self.vec()}")
        elif kind == "ivec":
            self.emit(depth, f"iv = {self.ivec()}")
        elif kind == "bvec":
            self.emit(depth, f"bv = {self.bvec()}")
        elif kind == "int":
            self.emit(depth, f"{r.choice(INT)} = {self.iexpr()}")
        elif kind == "float":
            self.emit(depth, f"z = {self.fexpr()}")
        else:
            self.emit(depth, f"flag = {self.bexpr()}")

    def augassign(self, depth):
        r = self.r
        self.emit(depth, self.pick([
            lambda: f"{r.choice(MAT)} += {self.vec(1)}", lambda: f"{r.choice(MAT)} *= {self.fexpr(1)}",
            lambda: f"{r.choice(VEC)} -= {self.vec(1)}", lambda: f"{r.choice(VEC)} *= 0.5",
            lambda: f"iv += {self.iexpr(1)}", lambda: "iv //= 2", lambda: "iv %= 5", lambda: "iv -= V",
            lambda: f"bv &= {self.bvec(1)}", lambda: f"bv |= {self.bvec(1)}",
            lambda: f"{r.choice(INT)} += {self.iexpr(1)}", lambda: f"{r.choice(INT)} -= 1",
            lambda: f"{r.choice(INT)} //= 2", lambda: f"{r.choice(INT)} %= 4", lambda: "z *= 0.5",
            lambda: f"z += {self.iexpr(1)}", lambda: "z -= q", lambda: f"{r.choice(MAT)} -= {self.iexpr(1)}",
        ]))

    def tupassign(self, depth):
        r = self.r
        self.emit(depth, self.pick([
            lambda: "u, u2 = u2, u", lambda: "k, m = m, k", lambda: "A, Am = Am, A",
            lambda: f"A, u = {self.mat(1)}, {self.vec(1)}",
            lambda: f"k, z = {self.iexpr(1)}, {self.fexpr(1)}",
            lambda: f"iv, bv = {self.ivec(1)}, {self.bvec(1)}",
            (lambda: f"u, u2, k = h_pair(u, u2, k)") if self.ok("h_pair") else None,
            lambda: f"u, (k, m) = {self.vec(1)}, (m, {self.iexpr(1)})",
        ]))

    def block(self, depth, in_loop, n=None):
        for _ in range(n or self.r.randint(1, 3)):
            self.stmt(depth, in_loop)

    def ret(self, depth):
        self.emit(depth, f"return {self.mat(1)}, {self.vec(1)}, {self.ivec(1)}, "
                         f"{self.bvec(1)}, {self.iexpr(1)}, {self.fexpr(1)}, {self.bexpr()}")

    def stmt(self, depth, in_loop):
        r = self.r
        level = depth - 1
        choices = ["assign"] * 4 + ["aug", "aug", "tup"]
        if level < self.max_depth:
            choices += ["if", "if", "fortuple", "forrange", "forrows", "enumerate", "zip",
                        "while", "whilepy", "append"]
            if self.ok("forrange_tensor"):
                choices.append("forrange_tensor")
            if self.ok("whiletensor"):
                choices.append("whiletensor")
        if in_loop:
            choices += ["break", "continue"]
        if r.random() < 0.12:
            choices.append("return")
        choices += [c for c in ("leavebind", "fnchoice", "varlist", "raise", "member",
                                "boolindex", "with") if self.ok(c)]
        kind = r.choice(choices)
        if kind == "assign":
            self.assign(depth)
        elif kind == "aug":
            self.augassign(depth)
        elif kind == "tup":
            self.tupassign(depth)
        elif kind == "if":
            self.emit(depth, f"if {self.cond()}:")
            self.block(depth + 1, in_loop)
            if r.random() < 0.3:
                self.emit(depth, f"elif {self.cond()}:")
                self.block(depth + 1, in_loop)
            if r.random() < 0.6:
                self.emit(depth, "else:")
                self.block(depth + 1, in_loop)
        elif kind == "fortuple":
            t = f"t{depth}"
            self.emit(depth, f"for {t} in ({self.vec(1)}, {r.choice(VEC)}, X[1]):")
            self.loopvars_vec.append(t)
            self.block(depth + 1, True)
            self.loopvars_vec.pop()
        elif kind == "forrange":
            i = f"i{depth}"
            self.emit(depth, f"for {i} in range({r.choice(['2', '3', 'p', '1, 3'])}):")
            self.loopvars_int.append(i)
            self.block(depth + 1, True)
            self.loopvars_int.pop()
        elif kind == "forrange_tensor":
            i = f"i{depth}"
            self.emit(depth, f"for {i} in range(n):")
            self.emit(depth + 1, f"{r.choice(VEC)} = {r.choice(VEC)} + {i}")
            self.block(depth + 1, True)
        elif kind == "forrows":
            t = f"row{depth}"
            self.emit(depth, f"for {t} in {r.choice(MAT + ['X', 'Y'])}:")
            self.loopvars_vec.append(t)
            self.block(depth + 1, True)
            self.loopvars_vec.pop()
        elif kind == "enumerate":
            e, t = f"e{depth}", f"row{depth}"
            self.emit(depth, f"for {e}, {t} in enumerate({r.choice(MAT + ['Y'])}):")
            self.loopvars_vec.append(t)
            self.loopvars_int.append(e)
            self.block(depth + 1, True)
            self.loopvars_vec.pop()
            self.loopvars_int.pop()
        elif kind == "zip":
            t, s = f"ra{depth}", f"rb{depth}"
            if r.random() < 0.5:
                self.emit(depth, f"for {t}, {s} in zip({r.choice(MAT)}, Y):")
                self.loopvars_vec += [t, s]
                self.block(depth + 1, True)
                del self.loopvars_vec[-2:]
            else:
                self.emit(depth, f"for {t}, {s} in zip((u, u2), (1, {self.iexpr(1)})):")
                self.loopvars_vec.append(t)
                self.loopvars_int.append(s)
                self.block(depth + 1, True)
                self.loopvars_vec.pop()
                self.loopvars_int.pop()
        elif kind in ("while", "whiletensor", "whilepy"):
            self.uid += 1
            w = f"w{self.uid}"
            if kind == "whilepy":
                self.emit(depth, f"{w} = 0")
                self.emit(depth, f"while {w} < {r.choice(['2', '3', 'p'])}:")
            elif kind == "while":
                self.emit(depth, f"{w} = 0")
                self.emit(depth, f"while {w} < {r.choice(['2', '3', 'p'])} and ({self.cond()}):")
            else:
                self.emit(depth, f"{w} = n * 0")
                self.emit(depth, f"while {w} < {r.choice(['n', '2', 'min(k, 3)'])}:")
            self.emit(depth + 1, f"{w} += 1")
            self.block(depth + 1, True)
        elif kind == "append":
            self.uid += 1
            lst = f"outs{self.uid}"
            j = f"j{depth}"
            self.emit(depth, f"{lst} = [{r.choice(VEC)}]")
            self.emit(depth, f"for {j} in range({r.choice(['2', '3', 'p'])}):")
            self.loopvars_int.append(j)
            self.block(depth + 1, False, 1)
            self.emit(depth + 1, f"{lst}.append({self.vec(1)} * {j})")
            self.loopvars_int.pop()
            self.emit(depth, f"{r.choice(VEC)} = ops.stack({lst}).sum(0)")
            if r.random() < 0.3:
                self.emit(depth, f"{r.choice(MAT)} = {r.choice(MAT)} + ops.stack({lst})[-1]")
        elif kind == "break":
            self.emit(depth, f"if {self.cond()}:")
            self.emit(depth + 1, "break")
        elif kind == "continue":
            self.emit(depth, f"if {self.cond()}:")
            self.emit(depth + 1, "continue")
        elif kind == "return":
            self.emit(depth, f"if {self.cond()}:")
            self.ret(depth + 1)
        elif kind == "leavebind":
            self.leavebind(depth, in_loop)
        elif kind == "raise":
            self.raise_(depth)
        elif kind == "member":
            self.member(depth)
        elif kind == "boolindex":
            self.boolindex(depth)
        elif kind == "with":
            self.with_(depth, in_loop)
        elif kind == "fnchoice":
            self.uid += 1
            g = f"g{self.uid}"
            f1, f2 = r.choice(FUNCS), r.choice(FUNCS)
            if r.random() < 0.5:
                self.emit(depth, f"{g} = {f1} if {self.tcond()} else {f2}")
            else:
                self.emit(depth, f"if {self.cond()}:")
                self.emit(depth + 1, f"{g} = {f1}")
                self.emit(depth, "else:")
                self.emit(depth + 1, f"{g} = {f2}")
            if r.random() < 0.5:
                self.emit(depth, f"{r.choice(VEC)} = {g}({self.vec(1)})")
            else:
                self.emit(depth, f"{r.choice(MAT)} = {g}({self.mat(1)})")
        elif kind == "varlist":
            self.uid += 1
            ls = f"ls{self.uid}"
            n1, n2 = r.sample([1, 2, 3], 2)
            items = [self.vec(1) for _ in range(3)]
            self.emit(depth, f"if {self.tcond()}:")
            self.emit(depth + 1, f"{ls} = [{', '.join(items[:n1])}]")
            self.emit(depth, "else:")
            self.emit(depth + 1, f"{ls} = [{', '.join(items[:n2])}]")
            use = r.randrange(4)
            v = r.choice(VEC)
            if use == 0:
                self.emit(depth, f"{v} = ops.stack({ls}).sum(0)")
            elif use == 1:
                self.emit(depth, f"{v} = {ls}[-1] + {ls}[0]")
            elif use == 2:
                self.emit(depth, f"{r.choice(INT)} = len({ls})")
            else:
                self.emit(depth, f"for t{self.uid} in {ls}:")
                self.emit(depth + 1, f"{v} = {v} * 0.5 + t{self.uid}")

    def raise_(self, depth):
        """raise or assert under a tensor condition, with a message eager mode formats
        from the values it has (the check compares type and text)."""
        r = self.r
        self.uid += 1
        tag = f"fuzz-raise-{self.uid}"
        exc = r.choice(["ValueError", "KeyError", "IndexError", "RuntimeError", "TypeError"])
        msg = r.choice([f'f"{tag} {{k}} {{z}} {{u}}"', f'"{tag} %d %s" % (k, flag)',
                        f'"{tag} {{}}".format(iv)', f'"{tag}"'])
        if r.random() < 0.3:
            self.emit(depth, f"assert not ({self.tcond()}), {msg}")
            return
        self.emit(depth, f"if {self.tcond()}:")
        if r.random() < 0.3:
            self.block(depth + 1, False, 1)
        self.emit(depth + 1, f"raise {exc}({msg})")

    def member(self, depth):
        r = self.r
        items = r.sample(["n", "k", "'a'", "2", "iv[0]", "None", "m"], 3)
        self.emit(depth, self.pick([
            lambda: f"flag = {r.choice(['n', 'iv[1]', 'k', 'V[0]'])} "
                    f"{r.choice(['in', 'not in'])} [{', '.join(items)}]",
            lambda: f"{r.choice(INT)} = [{', '.join(items)}, n].count("
                    f"{r.choice(['n', 'k', '2', 'iv[0]'])})",
        ]))

    def boolindex(self, depth):
        r = self.r
        self.emit(depth, self.pick([
            lambda: f"{r.choice(VEC)} = ({self.vec(1)}, {self.vec(1)})[{self.tcond()}]",
            lambda: f"{r.choice(INT)} = ({self.iexpr(1)}, {self.iexpr(1)}, 3)"
                    f"[True if {self.tcond()} else False]",
            lambda: f"{r.choice(VEC)} = [u, u2][n > {r.choice(INT)}] * 0.5",
        ]))

    def with_(self, depth, in_loop):
        self.uid += 1
        c, w = f"cm{self.uid}", f"wz{self.uid}"
        self.emit(depth, f"{c} = HCtx(z)")
        self.emit(depth, f"with {c} as {w}:")
        self.emit(depth + 1, f"z = {w} * 0.25")
        self.block(depth + 1, in_loop, 1)
        self.emit(depth, f"k = k + {c}.n")

    def leave(self, depth, in_loop):
        kind = self.r.choice(["return"] + (["break", "continue"] if in_loop else []))
        if kind == "return":
            self.ret(depth)
        else:
            self.emit(depth, kind)

    def leavebind(self, depth, in_loop):
        """A name first bound after a tensor-conditioned leave, read after it."""
        r = self.r
        self.uid += 1
        nb = f"nb{self.uid}"
        if r.random() < 0.5:
            self.emit(depth, f"if {self.tcond()}:")
            self.leave(depth + 1, in_loop)
            self.emit(depth, f"{nb} = {self.vec(1)}")
        else:                      # the shape of issue 9
            self.emit(depth, f"if {self.tcond()}:")
            self.emit(depth + 1, f"{nb} = {self.vec(1)}")
            self.emit(depth, "else:")
            self.emit(depth + 1, f"if {self.cond()}:")
            self.leave(depth + 2, in_loop)
            self.emit(depth + 1, f"{nb} = {self.vec(1)}")
        self.emit(depth, f"{r.choice(VEC)} = {nb} * 0.5")

    def program(self, name="prog") -> str:
        self.lines = []
        self.loopvars_int = []
        self.loopvars_vec = []
        self.emit(0, HELPERS)
        self.emit(0, f"def {name}(X, Y, V, B, n, p, q, f):")
        for line in ["A = X", "Am = X * 0.5", "u = X[0]", "u2 = Y[1]", "iv = V", "bv = B",
                     "k = p", "m = 1", "z = q", "flag = f"]:
            self.emit(1, line)
        self.block(1, False, self.r.randint(2, 5))
        self.emit(1, "return A, u, iv, bv, k, z, flag")
        return "\n".join(self.lines) + "\n"
