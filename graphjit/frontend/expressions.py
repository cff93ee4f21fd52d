"""Expressions: names, attributes, operators, subscripts, literals, comprehensions,
lambdas and calls, evaluated as Python (constant folding) or recorded as graph nodes."""
from __future__ import annotations

import ast
import builtins

from ..ir.errors import (GraphJitError, ShapeInferenceError, UndefinedVariableError,
                         UnregisteredParameterError,
                         UnsupportedSyntaxError)
from .. import ops
from ..nn import Cell, CellList, SequentialCell
from ..nn.cell import is_registered
from ..common.parameter import Parameter, ParameterTuple
from ..common.tensor import Tensor, TensorLike
from .control_flow import build_boolop, build_compare, build_ifexp, condition_value
from .indexing import index_dict, index_dict_by_text, index_sequence
from .operators import BINOPS, UNOPS
from .strings import RuntimeString, formatted, has_runtime, percent
from .values import (DynamicList, GraphTensor, Lent, LocalFunction, MaybeUndefined, Switch,
                     Undefined, active, as_graph, set_loc)

__all__ = ["ExpressionBuilder", "LocalFunction", "Switch", "note_location"]


class _FoldedDivisionByZero(ZeroDivisionError, ValueError):
    """Python numbers divided by zero while building: Python's ZeroDivisionError, and
    the ValueError MindSpore raises for it."""


class ExpressionBuilder:
    """The expression half of FunctionBuilder (statements are in builder.py)."""

    def eval(self, node):
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise UnsupportedSyntaxError(
                f"the expression `{type(node).__name__}` is not supported in graph mode",
                loc=self.loc(node))
        loc = self.loc(node)
        old = set_loc(loc) if loc is not None else None
        try:
            return method(node)
        except GraphJitError as e:
            if e.loc is None:
                e.loc = loc
            if isinstance(e, ShapeInferenceError) and not e.names:
                self._name_operands(e, node)
            raise
        except RecursionError:
            raise
        except Exception as e:
            note_location(e, loc)
            raise
        finally:
            if loc is not None:
                set_loc(old)

    def _name_operands(self, e, node):
        """Name the user's variables an operator was given (for its shape errors)."""
        if isinstance(node, ast.Call):
            children = list(node.args) + [k.value for k in node.keywords]
        elif isinstance(node, ast.BinOp):
            children = [node.left, node.right]
        elif isinstance(node, ast.Compare):
            children = [node.left] + list(node.comparators)
        else:
            return
        found = []
        for c in children:
            if isinstance(c, ast.Name):
                v = self.env.get(c.id)
                if isinstance(v, (GraphTensor, Tensor)):
                    found.append((c.id, v))
        if found:
            e.names = tuple(n for n, _ in found)
            e.with_context(detail="; ".join(
                f"'{n}' is {v.type if isinstance(v, GraphTensor) else v.type}"
                for n, v in found))

    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def lookup(self, name, node=None):
        b = self
        while b is not None:
            if name in b.env:
                v = b.env[name]
                if isinstance(v, Lent):       # a nonlocal a running function changes
                    v = v.current()
                if isinstance(v, Undefined):
                    raise v.error(self.loc(node) if node is not None else None)
                if isinstance(v, MaybeUndefined):
                    return v.read()
                return v
            if name in b.closure:
                v = b.closure[name]
                self.c.guard_contents(v)
                return self.c.note_external(v)
            b = b.enclosing
        if name in self.globals:
            v = self.globals[name]
            self.c.guard_global(self.globals, name, v)
            return self.c.note_external(v)
        if hasattr(builtins, name):
            return getattr(builtins, name)
        import difflib
        known = set(self.globals) | set(dir(builtins))
        b = self
        while b is not None:
            known |= {k for k in b.env if k.isidentifier()} | set(b.closure)
            b = b.enclosing
        close = difflib.get_close_matches(name, sorted(known), n=1)
        raise UndefinedVariableError(f"name '{name}' is not defined",
                                     loc=self.loc(node) if node is not None else None,
                                     names=(name,),
                                     hint=f"did you mean '{close[0]}'?" if close else
                                     f"define '{name}' before this line")

    def visit_Attribute(self, node):
        obj = self.eval(node.value)
        if isinstance(obj, DynamicList) and node.attr != "append":
            raise UnsupportedSyntaxError(
                f"'.{node.attr}' of a list whose length is known only at run time",
                loc=self.loc(node), hint="use ops.stack(lst)")
        value = getattr(obj, node.attr)
        if isinstance(obj, Cell) or getattr(type(obj), "_graphjit_jit_class", False):
            self.c.guard_attr(obj, node.attr, value)
        if id(obj) not in self.c.created:
            self.c.note_external(value)
            if isinstance(value, (Parameter, tuple, list)):
                self._note_state(obj, node, value)
        if isinstance(obj, Cell) and isinstance(value, (Parameter, tuple, list)):
            value = obj._cast_parameter(value)      # to_float: read in the Cell's type
        return value

    def _note_state(self, obj, node, value):
        """A Parameter (or tuple of them) found as an attribute: bound through obj at
        each call, and named after the expression that found it."""
        self.c.note_attr_state(obj, node.attr, value)
        path = ast.unparse(node)
        path = path[5:] if path.startswith("self.") else path
        if isinstance(obj, Cell) and not isinstance(value, (Parameter, ParameterTuple)):
            for i, v in enumerate(value):
                if isinstance(v, Parameter) and not is_registered(v):
                    raise UnregisteredParameterError(
                        f"'{ast.unparse(node)}[{i}]' is a Parameter ('{v.name}') that "
                        f"{type(obj).__name__} does not register: a {type(value).__name__} "
                        f"of Parameters is not, so it would be left out of "
                        f"trainable_params(), optimizers and checkpoints",
                        loc=self.loc(node), names=(node.attr,),
                        hint=f"hold them in a ParameterTuple (self.{node.attr} = "
                             f"ParameterTuple([...])), or set each as an attribute")
        ctx = active()
        if isinstance(value, Parameter):
            ctx.note_ref_name(value, path)
        else:
            for i, v in enumerate(value):
                if isinstance(v, Parameter):
                    ctx.note_ref_name(v, v.name or f"{path}[{i}]")

    def getitem(self, obj, key):
        if isinstance(key, GraphTensor) and (
                isinstance(obj, (CellList, SequentialCell)) or
                isinstance(obj, (list, tuple)) and obj and all(callable(x) and not isinstance(
                    x, TensorLike) for x in obj)):
            return Switch(list(obj), key)
        if isinstance(obj, (list, tuple)) and isinstance(key, GraphTensor):
            return index_sequence(self, obj, key)
        if isinstance(obj, dict) and isinstance(key, GraphTensor):
            return index_dict(self, obj, key)
        if isinstance(obj, dict) and isinstance(key, RuntimeString):
            return index_dict_by_text(self, obj, key)
        if isinstance(key, slice) and any(isinstance(v, GraphTensor) for v in
                                          (key.start, key.stop, key.step)):
            raise UnsupportedSyntaxError(
                "a slice whose bounds are tensor values (the result's shape would be known "
                "only at run time)", hint="use Python ints for slice bounds, or ops.gather")
        if isinstance(key, tuple) and any(isinstance(k, slice) and any(
                isinstance(v, GraphTensor) for v in (k.start, k.stop, k.step)) for k in key):
            raise UnsupportedSyntaxError(
                "a slice whose bounds are tensor values", hint="use Python ints for slice "
                                                               "bounds, or ops.gather")
        if isinstance(key, slice) and isinstance(obj, (list, tuple, str)):
            try:
                return obj[key]
            except TypeError as e:     # MindSpore's sentence, then Python's
                raise TypeError(f"Slice indices must be integers or bool. ({e})") from None
            except ValueError as e:
                raise ValueError(f"Slice step cannot be zero. ({e})") from None
        return obj[key]

    def visit_Subscript(self, node):
        obj = self.eval(node.value)
        key = self.eval(node.slice)
        out = self.getitem(obj, key)
        if id(obj) in self.c.external:     # an item of a list from outside is from outside
            self.c.note_external(out)
        return out

    def visit_Slice(self, node):
        return slice(None if node.lower is None else self.eval(node.lower),
                     None if node.upper is None else self.eval(node.upper),
                     None if node.step is None else self.eval(node.step))

    def visit_Index(self, node):  # Python < 3.9
        return self.eval(node.value)

    def visit_Tuple(self, node):
        return tuple(self._elts(node.elts))

    def visit_List(self, node):
        return list(self._elts(node.elts))

    def visit_Set(self, node):
        return set(self._elts(node.elts))

    def _elts(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.eval(e.value)
                out.extend(self.unpack(v, None, e) if isinstance(v, GraphTensor) else v)
            else:
                out.append(self.eval(e))
        return out

    def visit_Dict(self, node):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                out.update(self.eval(v))
            else:
                key = self.eval(k)
                if isinstance(key, GraphTensor):
                    raise UnsupportedSyntaxError("a tensor value as a dict key",
                                                 loc=self.loc(k))
                out[key] = self.eval(v)
        return out

    def apply_op(self, fn, a, b):
        if type(a) in (list, dict, set):
            self.refuse_external_mutation(a, None)
        return fn(a, b)

    def visit_BinOp(self, node):
        a = self.eval(node.left)
        b = self.eval(node.right)
        if isinstance(node.op, ast.Mult) and (
                isinstance(a, (list, tuple, str)) and isinstance(b, GraphTensor) or
                isinstance(b, (list, tuple, str)) and isinstance(a, GraphTensor)):
            raise UnsupportedSyntaxError(
                "repeating a Python sequence a number of times known only when the graph "
                "runs", loc=self.loc(node),
                hint="use a Python int for the count, or build a tensor with ops.tile")
        if isinstance(node.op, ast.Mod) and isinstance(a, str) and has_runtime(b):
            return percent(a, b)
        try:
            return BINOPS[type(node.op)](a, b)
        except ZeroDivisionError as e:
            # Python numbers folded while building: MindSpore's words, then Python's
            what = ("Cannot perform modulo operation on zero." if isinstance(node.op, ast.Mod)
                    else "The divisor could not be zero.")
            raise _FoldedDivisionByZero(f"{what} ({e})") from None

    def visit_UnaryOp(self, node):
        v = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            c = condition_value(self, v, node.operand)
            if isinstance(c, GraphTensor):
                out = ops.logical_not(c)
                out.weak = True
                return out
            return not c
        return UNOPS[type(node.op)](v)

    def visit_BoolOp(self, node):
        return build_boolop(self, node)

    def visit_Compare(self, node):
        return build_compare(self, node)

    def visit_IfExp(self, node):
        return build_ifexp(self, node)

    def visit_NamedExpr(self, node):
        v = self.eval(node.value)
        self.bind(node.target.id, v, self.loc(node))
        return v

    def visit_JoinedStr(self, node):
        out = ""
        for v in node.values:
            out = out + (str(v.value) if isinstance(v, ast.Constant) else self.eval(v))
        return out

    def visit_FormattedValue(self, node):
        v = self.eval(node.value)
        spec = "" if node.format_spec is None else self.eval(node.format_spec)
        if has_runtime(v):       # formatted when the graph runs, where it is used
            conv = "" if node.conversion in (None, -1) else chr(node.conversion)
            return formatted(v, conv, spec)
        if node.conversion == ord("r"):
            v = repr(v)
        elif node.conversion == ord("s"):
            v = str(v)
        elif node.conversion == ord("a"):
            v = ascii(v)
        return format(v, spec)

    def visit_Lambda(self, node):
        f = LocalFunction(self, node, "<lambda>")
        f.defaults = [self.eval(d) for d in node.args.defaults]
        return f

    def visit_ListComp(self, node):
        return list(self._comprehension(node, lambda: self.eval(node.elt)))

    def visit_GeneratorExp(self, node):
        return list(self._comprehension(node, lambda: self.eval(node.elt)))

    def visit_SetComp(self, node):
        return set(self._comprehension(node, lambda: self.eval(node.elt)))

    def visit_DictComp(self, node):
        return dict(self._comprehension(node, lambda: (self.eval(node.key),
                                                       self.eval(node.value))))

    def _comprehension(self, node, make):
        saved = dict(self.env)
        out = []

        def loop(gens):
            if not gens:
                out.append(make())
                return
            g = gens[0]
            it = as_graph(self.eval(g.iter))
            if isinstance(it, (GraphTensor, DynamicList)) or type(it).__name__.startswith(
                    "Graph"):
                items = self.unpack(it, None, g.iter) if isinstance(it, GraphTensor) else None
                if items is None:
                    raise UnsupportedSyntaxError(
                        "a comprehension over values known only at run time",
                        loc=self.loc(g.iter), hint="use a for loop with list.append")
            else:
                items = list(it)
            for item in items:
                self.assign(g.target, item, g)
                ok = True
                for cond in g.ifs:
                    c = condition_value(self, self.eval(cond), cond)
                    if isinstance(c, GraphTensor):
                        raise UnsupportedSyntaxError(
                            "a comprehension filter that depends on a tensor value (the "
                            "list's length would be known only at run time)",
                            loc=self.loc(cond), hint="use ops.where, or a for loop")
                    if not c:
                        ok = False
                        break
                if ok:
                    loop(gens[1:])
        try:
            loop(node.generators)
        finally:
            for k in list(self.env):
                if k not in saved:
                    del self.env[k]
            self.env.update({k: v for k, v in saved.items()})
        return out

    def visit_Starred(self, node):
        return self.eval(node.value)

    def visit_Await(self, node):
        raise UnsupportedSyntaxError("await is not supported in graph mode", loc=self.loc(node))

    def visit_Yield(self, node):
        raise UnsupportedSyntaxError("yield (a generator) cannot be compiled into a graph",
                                     loc=self.loc(node),
                                     hint="return a tuple or list instead of yielding")

    visit_YieldFrom = visit_Yield


def note_location(e: BaseException, loc) -> None:
    if loc is None or getattr(e, "_graphjit_noted", False):
        return
    try:
        e.add_note(f"(while building the graph)\n{loc.render()}")
        e._graphjit_noted = True
    except AttributeError:
        pass
