"""The AST builder: one visit method per node kind, Python evaluated as Python.

Everything that does not depend on a tensor value is computed while the graph is
built (constant folding is just running Python); graph values (GraphTensor)
overload the same operators as eager Tensors, so one expression serves both.
Control flow is decided in control_flow.py: a Python condition builds only the
taken branch, a graph condition builds an If or a Loop.
"""
from __future__ import annotations

import ast
import types
from typing import Any, Dict, Optional

from .. import ops
from ..ir.errors import GraphJitError, UnsupportedSyntaxError
from ..common.parameter import Parameter
from ..common.tensor import Tensor, TensorLike
from ..nn import Cell
from .calls import call
from .control_flow import (build_guarded, build_if_stmt, certainly_left, condition_value,
                           finish_return)
from .expressions import ExpressionBuilder, LocalFunction, note_location as _note
from .loops import build_for, build_while
from .attributes import change_container, set_object_attr
from .raising import build_assert, build_raise, mark_raised
from .withs import build_with
from .operators import IBINOPS
from .source import FunctionSource, get_source, refuse_iterator_function
from .recursion import (Activation, Recursion, deepest_recursion, default_name,
                        find_recursion, recursion_error, static_key, tail_loop)
from .recursion_linear import frame_constants, linear_loop
from .state import BRK, CONT, FLAGS, RAISED, RET, RETVAL, Compiler
from .values import (DynamicList, GraphTensor, Lent as _Lent, Undefined, active, as_graph,
                     current_loc, set_loc)

__all__ = ["FunctionBuilder", "build_function"]


class FunctionBuilder(ExpressionBuilder):
    """Builds one function's body into the active graph context."""

    def __init__(self, compiler: Compiler, src: FunctionSource, env: Dict[str, Any],
                 globals_: Dict[str, Any], closure: Dict[str, Any],
                 enclosing: Optional["FunctionBuilder"] = None, node=None):
        self.c = compiler
        self.src = src
        self.node = src.node if node is None else node
        self.env = env
        self.locs: Dict[str, Any] = {}
        self.globals = globals_
        self.closure = closure
        self.enclosing = enclosing
        # for a function of graphjit's own (a built-in layer's construct), the line
        # that called it: its locations carry it, so errors name the user's line first
        self.caller = enclosing.caller if enclosing is not None else None
        self._locs: Dict[int, Any] = {}
        self.loop_depth = 0
        # nonlocal names: their value is lent to this builder while it runs (a variable
        # of its own: joined and carried like any), and given back when it returns
        self.lent: Dict[str, tuple] = {}     # name -> (lender, value before)

    # -- entry -------------------------------------------------------------------------------
    def run(self):
        node = self.node
        if isinstance(node, ast.Lambda):
            return self.eval(node.body)
        self.env[RET] = False
        self.env[RETVAL] = None
        try:
            self.exec_block(node.body)
            out = finish_return(self, node)
            raised = self.env.get(RAISED) is True
        except BaseException:
            for name, (lender, before) in self.lent.items():
                lender.env[name] = before
            raise
        for name, (lender, _) in self.lent.items():
            lender.env[name] = self.env.get(name, Undefined(name))
        if raised:
            self.c.raised_call = True    # the caller's path raises too
        return out

    def loc(self, node):
        loc = self.src.loc(node)
        if self.caller is None or loc is None:
            return loc
        hit = self._locs.get(id(node))
        if hit is None or hit[0] is not node:
            hit = (node, loc.with_caller(self.caller))
            self._locs[id(node)] = hit
        return hit[1]

    # -- statements --------------------------------------------------------------------------
    def stop_state(self, flags=FLAGS):
        """True if a return/break/continue (of `flags`) certainly happened, a graph bool
        if it may have, False if not."""
        if self.env.get(RAISED) is True:
            return True
        graph_flags = []
        for f in flags:
            v = self.env.get(f, False)
            if v is True:
                return True
            if isinstance(v, GraphTensor):
                graph_flags.append(v)
        if not graph_flags:
            return False
        out = graph_flags[0]
        for g in graph_flags[1:]:
            out = ops.logical_or(out, g)
        return out

    def exec_block(self, stmts):
        for i, stmt in enumerate(stmts):
            if certainly_left(self.env):
                return
            state = self.stop_state()
            if state is not False:
                build_guarded(self, state, stmts[i:])
                return
            self.exec(stmt)

    def exec(self, stmt):
        loc = self.loc(stmt)
        old = set_loc(loc)
        try:
            method = getattr(self, "visit_" + type(stmt).__name__, None)
            if method is None:
                raise UnsupportedSyntaxError(
                    f"the statement `{type(stmt).__name__}` is not supported in graph mode",
                    loc=loc, hint="rewrite it with if/for/while and assignments, or run in "
                                  "PYNATIVE_MODE")
            outer, self.c.raised_call = self.c.raised_call, False
            try:
                method(stmt)
                mine = self.c.raised_call   # it called a function that raises on every path
            finally:
                self.c.raised_call = outer
            if mine:
                mark_raised(self)
        except GraphJitError as e:
            if e.loc is None:
                e.loc = loc
            raise
        except RecursionError:
            rec = deepest_recursion(self.c.stack, loc)
            if rec is not None:      # a function that calls itself: try it as a Loop
                raise rec from None
            raise UnsupportedSyntaxError(
                "the program nests too deeply to build (Python recursion limit)", loc=loc,
                hint="reduce recursion or nesting depth") from None
        except Exception as e:
            _note(e, loc)
            raise
        finally:
            set_loc(old)

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant):
            return  # docstrings and bare constants
        self.eval(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Assign(self, node):
        value = self.eval(node.value)
        for target in node.targets:
            self.assign(target, value, node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.eval(node.value), node)

    def visit_AugAssign(self, node):
        fn = IBINOPS[type(node.op)]
        t = node.target
        if isinstance(t, ast.Name):
            cur = self.lookup(t.id, t)
            self.assign(t, self.apply_op(fn, cur, self.eval(node.value)), node)
        elif isinstance(t, ast.Attribute):
            obj = self.eval(t.value)
            cur = getattr(obj, t.attr)
            self.set_attr(obj, t.attr, self.apply_op(fn, cur, self.eval(node.value)), node)
        elif isinstance(t, ast.Subscript):
            obj = self.eval(t.value)
            key = self.eval(t.slice)
            cur = self.getitem(obj, key)
            self.setitem(t, obj, key, self.apply_op(fn, cur, self.eval(node.value)), node)
        else:
            raise UnsupportedSyntaxError("unsupported augmented assignment target",
                                         loc=self.loc(node))

    def assign(self, target, value, stmt):
        if isinstance(target, ast.Name):
            self.bind(target.id, value, self.loc(stmt))
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(value, len(target.elts), target)
            starred = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
            if starred:
                s = starred[0]
                n_after = len(target.elts) - s - 1
                items = list(items)
                head, mid = items[:s], items[s:len(items) - n_after]
                tail = items[len(items) - n_after:]
                for e, v in zip(target.elts[:s], head):
                    self.assign(e, v, stmt)
                self.assign(target.elts[s].value, list(mid), stmt)
                for e, v in zip(target.elts[s + 1:], tail):
                    self.assign(e, v, stmt)
                return
            if len(items) != len(target.elts):
                raise ValueError(f"cannot unpack {len(items)} values into "
                                 f"{len(target.elts)} names")
            for e, v in zip(target.elts, items):
                self.assign(e, v, stmt)
        elif isinstance(target, ast.Attribute):
            self.set_attr(self.eval(target.value), target.attr, value, stmt)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value)
            self.setitem(target, obj, self.eval(target.slice), value, stmt)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, list(value), stmt)
        else:
            raise UnsupportedSyntaxError(f"cannot assign to {type(target).__name__}",
                                         loc=self.loc(stmt))

    def bind(self, name, value, loc):
        self.env[name] = value
        self.locs[name] = loc

    def unpack(self, value, n, node):
        value = as_graph(value)
        if isinstance(value, GraphTensor):
            s = value.type.shape
            if s is None or not s or s[0] is None:
                raise UnsupportedSyntaxError(
                    f"cannot unpack a tensor whose first dim is not known ({value.type})",
                    loc=self.loc(node), hint="index it explicitly: a, b = x[0], x[1]")
            return [value[i] for i in range(s[0])]
        if isinstance(value, DynamicList):
            raise UnsupportedSyntaxError("cannot unpack a list whose length is known only at "
                                         "run time", loc=self.loc(node))
        return list(value)

    def set_attr(self, obj, attr, value, stmt):
        if id(obj) in self.c.created:      # made by this function: its state is ours
            setattr(obj, attr, value)
            return
        cur = getattr(obj, attr, None)
        if isinstance(cur, Parameter) and isinstance(value, TensorLike) and \
                not isinstance(value, Parameter):
            # `self.p = v` on a Parameter attribute updates the Parameter (MindSpore's
            # Cell.__setattr__ does set_data): an Assign, when the graph runs
            ops.assign(cur, value)
            return
        set_object_attr(self, obj, attr, value, stmt)

    def setitem(self, target, obj, key, value, stmt):
        if isinstance(obj, Parameter):
            # p[i] = v updates the Parameter in place, as eager mode does
            ops.assign(obj, ops.functional.index_update(obj, key, value))
            return
        if isinstance(obj, (GraphTensor, Tensor)):
            if isinstance(obj, Tensor):
                self.refuse_external_mutation(obj, stmt, target.value)
            if not isinstance(target.value, ast.Name):
                raise UnsupportedSyntaxError(
                    "item assignment into a tensor that is not a plain variable",
                    loc=self.loc(stmt), hint="assign to a variable first: y = ...; y[i] = v")
            new = ops.functional.index_update(obj, key, value)
            self.bind(target.value.id, new, self.loc(stmt))
            return
        if isinstance(obj, (list, dict)):
            self.refuse_external_mutation(obj, stmt, target.value)
            if isinstance(key, GraphTensor):
                raise UnsupportedSyntaxError(
                    "indexing a Python list or dict with a tensor value in an assignment",
                    loc=self.loc(stmt), hint="use a Python int index, or keep the values in a "
                                             "tensor")
            obj[key] = value
            return
        obj[key] = value

    def refuse_external_mutation(self, obj, node, expr=None):
        """Changing a container that outlives the call (attributes.change_container)."""
        change_container(self, obj, node, expr)

    def visit_Delete(self, node):
        for t in node.targets:
            if isinstance(t, ast.Name):
                self.lookup(t.id, t)     # deleting an unbound name is a NameError, as in Python
                self.env[t.id] = Undefined(t.id, f"deleted at line {self.loc(node).line}")
            elif isinstance(t, ast.Subscript):
                obj = self.eval(t.value)
                if isinstance(obj, (list, dict)):
                    del obj[self.eval(t.slice)]
                else:
                    raise UnsupportedSyntaxError("del of a tensor item", loc=self.loc(node))
            else:
                raise UnsupportedSyntaxError("unsupported del target", loc=self.loc(node))

    def visit_Return(self, node):
        value = None if node.value is None else self.eval(node.value)
        self.env[RETVAL] = value
        self.locs[RETVAL] = self.loc(node)
        self.env[RET] = True

    def visit_If(self, node):
        build_if_stmt(self, node)

    def visit_For(self, node):
        build_for(self, node)

    def visit_While(self, node):
        build_while(self, node)

    def visit_Break(self, node):
        if self.loop_depth == 0:
            raise UnsupportedSyntaxError("'break' outside a loop", loc=self.loc(node))
        self.env[BRK] = True

    def visit_Continue(self, node):
        if self.loop_depth == 0:
            raise UnsupportedSyntaxError("'continue' outside a loop", loc=self.loc(node))
        self.env[CONT] = True

    def visit_Assert(self, node):
        build_assert(self, node)

    def visit_Raise(self, node):
        build_raise(self, node)

    def visit_With(self, node):
        build_with(self, node)

    def visit_Import(self, node):
        for alias in node.names:
            mod = __import__(alias.name)
            if alias.asname:
                for part in alias.name.split(".")[1:]:
                    mod = getattr(mod, part)
                self.env[alias.asname] = mod
            else:
                self.env[alias.name.split(".")[0]] = mod

    def visit_ImportFrom(self, node):
        if node.level:
            raise UnsupportedSyntaxError("relative import inside a compiled function",
                                         loc=self.loc(node), hint="import at module level")
        mod = __import__(node.module, fromlist=[a.name for a in node.names])
        for alias in node.names:
            self.env[alias.asname or alias.name] = getattr(mod, alias.name)

    def visit_FunctionDef(self, node):
        if node.decorator_list:
            raise UnsupportedSyntaxError("decorators on a function defined inside a compiled "
                                         "function", loc=self.loc(node),
                                         hint="define it at module level")
        f = LocalFunction(self, node, node.name)
        f.defaults = [self.eval(d) for d in node.args.defaults]
        f.kw_defaults = {a.arg: self.eval(d) for a, d in zip(node.args.kwonlyargs,
                                                               node.args.kw_defaults)
                         if d is not None}
        self.bind(node.name, f, self.loc(node))

    def _refuse(what, hint):
        def visit(self, node):
            raise UnsupportedSyntaxError(f"{what} is not supported in graph mode",
                                         loc=self.loc(node), hint=hint)
        return visit

    visit_AsyncFunctionDef = _refuse("async def", "define it outside the compiled function")
    visit_ClassDef = _refuse("a class definition inside a compiled function",
                             "define the class at module level (mark it @jit_class)")
    visit_Try = _refuse("try/except", "move the try outside the compiled function; graph "
                                      "mode cannot catch errors of graph values")
    visit_TryStar = visit_Try
    visit_AsyncWith = _refuse("async with", "move the with-block outside the compiled "
                                            "function")
    visit_AsyncFor = _refuse("async for", "use a plain for loop")
    def visit_Global(self, node):
        names = ", ".join(node.names)
        raise UnsupportedSyntaxError(
            f"global {names}: a compiled function cannot rebind module variables (the change "
            f"would happen once, while the graph is built)", loc=self.loc(node),
            names=tuple(node.names),
            hint=f"pass {names} in as an argument and return the new value")

    def visit_Nonlocal(self, node):
        """Functions defined inside the compiled one are built inline, so their nonlocal
        names are the enclosing builder's variables (joined and carried like any)."""
        for name in node.names:
            owner = self.enclosing
            while owner is not None and name not in owner.env:
                owner = owner.enclosing
            if owner is None:
                raise UnsupportedSyntaxError(
                    f"nonlocal {name}: no enclosing function of the compiled code binds it",
                    loc=self.loc(node), names=(name,),
                    hint="define the function inside the compiled function")
            value = owner.env[name]
            while isinstance(value, _Lent):      # lent on to a function running now
                owner = value.borrower
                value = owner.env[name]
            if name not in self.lent:
                self.lent[name] = (owner, value)
                owner.env[name] = _Lent(name, self)
                self.env[name] = value

    visit_Match = _refuse("match", "use if/elif")
    del _refuse

    # -- calls ---------------------------------------------------------------------------------
    def visit_Call(self, node):
        func = self.eval(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value)
                args.extend(self.unpack(v, None, a) if isinstance(v, GraphTensor) else v)
            else:
                args.append(self.eval(a))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.eval(kw.value))
            else:
                kwargs[kw.arg] = self.eval(kw.value)
        return call(self, func, args, kwargs, node)

    def build_call(self, fn, args, kwargs, self_obj=None):
        """Build a call of a user function (a method, with self_obj) into this graph."""
        return build_function(self.c, fn, args, kwargs, self_obj=self_obj)

    def call_local(self, f: LocalFunction, args, kwargs):
        node = f.node
        env = _bind_ast_args(node.args, args, kwargs, f.defaults, f.kw_defaults, f.__name__)
        sub = FunctionBuilder(self.c, self.src, env, self.globals, {}, enclosing=self, node=node)
        if isinstance(node, ast.Lambda):
            return sub.eval(node.body)
        self.c.depth += 1
        try:
            if self.c.depth > self.c.max_depth:
                raise UnsupportedSyntaxError(
                    f"calls nest deeper than {self.c.max_depth} while building the graph "
                    f"(recursion must end at build time)", loc=self.loc(node))
            return sub.run()
        finally:
            self.c.depth -= 1


def _bind_ast_args(a: ast.arguments, args, kwargs, defaults, kw_defaults, name):
    names = [x.arg for x in a.posonlyargs + a.args]
    env = {}
    if len(args) > len(names) and a.vararg is None:
        raise TypeError(f"{name}() takes {len(names)} positional arguments but {len(args)} "
                        f"were given")
    for n, v in zip(names, args):
        env[n] = v
    if a.vararg is not None:
        env[a.vararg.arg] = tuple(args[len(names):])
    first_default = len(names) - len(defaults)
    extra = {}
    for k, v in kwargs.items():
        if k in names:
            if k in env:
                raise TypeError(f"{name}() got multiple values for argument '{k}'")
            env[k] = v
        elif k in [x.arg for x in a.kwonlyargs]:
            env[k] = v
        elif a.kwarg is not None:
            extra[k] = v
        else:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
    for i, n in enumerate(names):
        if n not in env:
            if i >= first_default:
                env[n] = defaults[i - first_default]
            else:
                raise TypeError(f"{name}() missing required argument '{n}'")
    for x in a.kwonlyargs:
        if x.arg not in env:
            if x.arg in kw_defaults:
                env[x.arg] = kw_defaults[x.arg]
            else:
                raise TypeError(f"{name}() missing keyword-only argument '{x.arg}'")
    if a.kwarg is not None:
        env[a.kwarg.arg] = extra
    return env


def closure_of(fn) -> Dict[str, Any]:
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None) or ()
    out = {}
    if code is not None:
        for name, cell in zip(code.co_freevars, cells):
            try:
                out[name] = cell.cell_contents
            except ValueError:
                continue   # a cell not filled yet (the name is assigned later)
    return out


def build_function(compiler: Compiler, fn, args, kwargs, self_obj=None):
    """Build a user function (or method, with self_obj) from its source and return
    the value it returns (graph values, Python values or structures of both)."""
    if isinstance(fn, types.MethodType):
        self_obj, fn = fn.__self__, fn.__func__
    src = get_source(fn)
    refuse_iterator_function(fn, src)
    if self_obj is not None:
        if isinstance(self_obj, Cell) and fn is getattr(type(self_obj), "construct", None):
            args, kwargs = self_obj._cast_inputs(args, kwargs)     # to_float's input casts
        args = [self_obj] + list(args)
    sig_defaults = fn.__defaults__ or ()
    kw_defaults = fn.__kwdefaults__ or {}
    node = src.node
    env = _bind_ast_args(node.args, list(args), dict(kwargs), list(sig_defaults),
                         dict(kw_defaults), fn.__name__)
    closure = closure_of(fn)
    act = Activation(fn.__code__, fn.__name__, 0 if self_obj is None else id(self_obj),
                     static_key(args, kwargs), active())
    rec = find_recursion(compiler.stack, act, current_loc())
    if rec is not None:      # building this call would repeat an unfinished build forever
        raise rec
    b = FunctionBuilder(compiler, src, env, fn.__globals__, closure)
    b.caller = _caller_of(src)
    compiler.depth += 1
    compiler.stack.append(act)
    n_nodes, n_records = len(act.ctx.graph.nodes), len(compiler.records)
    try:
        if compiler.depth > compiler.max_depth:
            rec = deepest_recursion(compiler.stack, current_loc())
            if rec is not None:
                raise rec
            raise UnsupportedSyntaxError(
                f"calls nest deeper than {compiler.max_depth} while building the graph "
                f"(recursion must end at build time)")
        try:
            out = b.run()
        except Recursion as r:
            if r.first is not act:
                raise
            out = _recursion_as_loop(compiler, fn, src, self_obj, args, kwargs, closure, r,
                                     n_nodes, n_records)
        if compiler.depth == 1:
            compiler.return_loc = b.locs.get(RETVAL)
        return out
    finally:
        compiler.depth -= 1
        compiler.stack.pop()


def _caller_of(src: FunctionSource):
    """The line calling a function of graphjit's own (None for the user's functions,
    whose lines are what errors name already)."""
    loc = current_loc()
    if loc is None or not _is_library_file(src.file):
        return None
    return loc


def _is_library_file(path: str) -> bool:
    from ..ir.loc import SourceLoc
    return SourceLoc(path, 0).in_library


def _recursion_as_loop(compiler, fn, src, self_obj, args, kwargs, closure, r: Recursion,
                       n_nodes, n_records):
    """Build fn again, its recursive tail calls as the iterations of a Loop (after a
    build that found recursion whose depth depends on a tensor value)."""
    if not r.under_condition:
        raise UnsupportedSyntaxError(
            f"'{r.name}' calls itself with the same arguments, and no condition that depends "
            f"on a tensor value stops it: the recursion never ends", loc=r.loc,
            names=(r.name,), hint="add a base case that returns without calling itself")
    active().truncate(n_nodes)          # what the first build left behind
    del compiler.records[n_records:]
    try:
        node = tail_loop(src.node, fn.__name__, self_obj is not None, r.loc)
    except UnsupportedSyntaxError as not_tail:     # one call per path: a stack of frames
        node = linear_loop(src.node, fn.__name__, self_obj is not None, r.loc, not_tail)
        closure = {**(closure or {}), **frame_constants(node)}
    env = _bind_ast_args(node.args, list(args), dict(kwargs), list(fn.__defaults__ or ()),
                         dict(fn.__kwdefaults__ or {}), fn.__name__)
    params = node.args.posonlyargs + node.args.args
    for p, d in zip(params[len(params) - len(fn.__defaults__ or ()):], fn.__defaults__ or ()):
        env[default_name(p.arg)] = d
    for k, d in (fn.__kwdefaults__ or {}).items():
        env[default_name(k)] = d
    b = FunctionBuilder(compiler, src, env, fn.__globals__, closure, node=node)
    b.caller = _caller_of(src)
    try:
        return b.run()
    except Recursion as again:
        if again.first is not r.first:
            raise
        raise recursion_error(r.name, again.loc, "it still calls itself after its tail "
                                                 "calls became a loop") from None


