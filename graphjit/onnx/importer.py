"""ONNX -> graphjit IR: `import_model(path)` reads an ONNX model into a CompiledModel.

ONNX bodies (If branches, Loop and Scan bodies) read outer values implicitly;
graphjit's subgraphs are closed, so each outer value a body reads, at any depth of
nesting, becomes an explicit operand of the If or an invariant input of the Loop:

    ONNX:  y = If(c) then={ z = Add(x, w) } else={ z = Neg(x) }      (x, w outer)
    IR:    %y = If(%c, %x, %w) then=@then(%x, %w) else=@else(%x, %w)

Constants (initializers, Constant nodes) are not passed in: a body that reads one
gets its own Const. Op translations live in import_ops.py, Loop and Scan in
import_control.py, the checks of the file in import_read.py.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import onnx

from ..ir.errors import GraphJitError, ModelFileError
from ..ir.graph import Graph, Value
from ..ir.model_format import MAX_DEPTH
from ..ir.types import TensorType
from ..ir.verifier import verify
from ..jit.compiled_model import CompiledModel
from ..passes.eliminate_dead_values import eliminate_dead_values
from .import_patterns import (GROUP_NAME, collapse_group, fold_indexes, fold_loop_ports,
                              fold_stacks)
from .import_read import (DEFAULT_DOMAINS, NeedsConstantError, OnnxImportError,
                          UnsupportedOnnxOpError, Where, opset_version, read_proto,
                          tensor_array, value_type)

__all__ = ["import_model", "import_graph", "OnnxImportError", "UnsupportedOnnxOpError",
           "NeedsConstantError"]

Binding = Union[Value, np.ndarray]   # a value of the graph being built, or a constant


def import_model(model, config: Optional[dict] = None) -> CompiledModel:
    """Read an ONNX model into a CompiledModel whose inputs keep the ONNX input names.

    Args:
        model: a path to a `.onnx` file, its bytes, or an `onnx.ModelProto`.
        config: CompiledModel configuration keys.

    Returns:
        A CompiledModel taking one array per ONNX graph input (initializers that are
        also listed as inputs are constants) and giving one per output.

    Raises:
        ModelFileError: the file is damaged, or not a sound ONNX model.
        UnsupportedOnnxOpError: ops graphjit cannot express (every one is listed).
        OnnxImportError: a sound model graphjit cannot take (a dtype it lacks...).
        OSError: the file cannot be read.
    """
    graph, label = import_graph(model)
    try:
        return CompiledModel(graph, name=graph.name, config=config)
    except (TypeError, ValueError) as e:
        if isinstance(e, GraphJitError):
            raise
        raise ModelFileError(f"the graph cannot be planned for execution: "
                             f"{type(e).__name__}: {e}", path=label) from e


def import_graph(model) -> Tuple[Graph, str]:
    """The verified graphjit Graph of an ONNX model and the label used in messages
    (see import_model)."""
    proto, label, base_dir = read_proto(model)
    where = Where(label)
    opset = opset_version(proto, where)
    tr = Translator(label, base_dir, opset)
    try:
        tr.check_ops(proto.graph, where / "graph", 0)
        graph = tr.main_graph(proto.graph, where / f"graph '{_text(proto.graph.name) or 'main'}'")
    except RecursionError:
        raise where.damaged("graphs are nested too deeply") from None
    except GraphJitError:
        raise
    except Exception as e:  # what the file holds met a check it should have had
        raise where.damaged(f"the model cannot be read ({type(e).__name__}: {e})") from e
    eliminate_dead_values(graph)
    _drop_folded(graph)
    fold_loop_ports(graph)
    fold_stacks(graph)
    fold_indexes(graph)
    eliminate_dead_values(graph)
    try:
        verify(graph)
    except GraphJitError as e:
        raise ModelFileError(f"the imported graph does not verify: {type(e).__name__}: {e}",
                             path=label) from e
    return graph, label


def _drop_folded(graph: Graph) -> None:
    """Remove unused nodes that only computed a constant (a Loop's trip count from a
    static shape, say): the dead-value pass keeps an op that may fail at run time, and
    these were evaluated already, so they cannot."""
    from .import_ops import evaluate
    for g in [graph] + [sub for n in graph.walk() for sub in n.subgraphs()]:
        changed = True
        while changed:
            changed = False
            results = {id(r) for r in g.results}
            for node in reversed(list(g.nodes)):
                if node.subgraphs() or node.effects():
                    continue
                if any(o.users or id(o) in results for o in node.outputs):
                    continue
                if all(evaluate(o) is not None for o in node.outputs):
                    g.erase_node(node)
                    changed = True


class Scope:
    """The ONNX names visible in one graphjit graph being built."""

    def __init__(self, graph: Graph, where: Where, names: Dict[str, Binding]):
        self.graph = graph
        self.where = where
        self.names = names
        self._consts: Dict[int, Value] = {}

    def value(self, name: str, where: Where) -> Value:
        """The Value of a name; a constant becomes a Const node of this graph."""
        b = self.names.get(name)
        if b is None:
            raise where.damaged(f"reads '{name}', which no node, input or initializer "
                                f"defines before it")
        if isinstance(b, Value):
            return b
        v = self._consts.get(id(b))
        if v is None:
            v = self.graph.apply("Const", value=b)
            self._consts[id(b)] = v
        return v


class Translator:
    """Translates the graphs of one model; see the module docstring."""

    def __init__(self, label: str, base_dir: Optional[str], opset: int):
        self.label = label
        self.base_dir = base_dir
        self.opset = opset
        self._free: Dict[int, Tuple[onnx.GraphProto, Tuple[str, ...]]] = {}
        self._graph_names: Dict[str, int] = {}

    # -- checks over the whole file ---------------------------------------------------------------
    def check_ops(self, gp: onnx.GraphProto, where: Where, depth: int) -> None:
        """Raise UnsupportedOnnxOpError listing every op the model uses that graphjit
        cannot express (nested bodies included)."""
        from .import_ops import OPS
        from .import_control import CONTROL
        missing: Dict[str, List[str]] = {}

        def walk(g, d):
            if d > MAX_DEPTH:
                raise where.damaged("graphs are nested too deeply")
            for i, n in enumerate(g.node):
                key = n.op_type if n.domain in DEFAULT_DOMAINS else f"{n.domain}.{n.op_type}"
                if key not in OPS and (n.domain not in DEFAULT_DOMAINS or
                                       n.op_type not in CONTROL):
                    missing.setdefault(key, []).append(n.name or f"node {i}")
                for a in n.attribute:
                    if a.type == onnx.AttributeProto.GRAPH:
                        walk(a.g, d + 1)
                    elif a.type == onnx.AttributeProto.GRAPHS:
                        for sub in a.graphs:
                            walk(sub, d + 1)
        walk(gp, depth)
        if missing:
            raise UnsupportedOnnxOpError(missing, self.label)

    def free_names(self, gp: onnx.GraphProto) -> Tuple[str, ...]:
        """The names a graph (or a body nested in it) reads and does not define, in the
        order they are first read."""
        key = id(gp)
        hit = self._free.get(key)
        if hit is not None and hit[0] is gp:     # the entry keeps gp alive: ids stay unique
            return hit[1]
        defined = {i.name for i in gp.input} | {t.name for t in gp.initializer}
        for n in gp.node:
            defined.update(o for o in n.output if o)
        seen: Dict[str, None] = {}
        for n in gp.node:
            reads = [i for i in n.input if i]
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    reads.extend(self.free_names(a.g))
            for r in reads:
                if r not in defined:
                    seen[r] = None
        for o in gp.output:
            if o.name not in defined:
                seen[o.name] = None
        self._free[key] = (gp, tuple(seen))
        return tuple(seen)

    def graph_name(self, base: str) -> str:
        n = self._graph_names.get(base, 0)
        self._graph_names[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    # -- graphs -------------------------------------------------------------------------------------
    def main_graph(self, gp: onnx.GraphProto, where: Where) -> Graph:
        g = Graph(self.graph_name(_identifier(gp.name) or "main"))
        names: Dict[str, Binding] = {}
        for t in gp.initializer:
            if t.name in names:
                raise where.damaged(f"two initializers are named '{t.name}'")
            names[t.name] = tensor_array(t, where / f"initializer '{t.name}'", self.base_dir)
        if gp.sparse_initializer:
            raise where.cannot("sparse initializers are not supported")
        seen = set()
        for vi in gp.input:
            if vi.name in seen:
                raise where.damaged(f"two inputs are named '{vi.name}'")
            seen.add(vi.name)
            if vi.name in names:        # an initializer listed as an input: a constant
                continue
            names[vi.name] = g.add_param(value_type(vi, where / f"input '{vi.name}'"),
                                         vi.name)
        scope = Scope(g, where, names)
        self.nodes(scope, gp, where)
        if not gp.output:
            raise where.damaged("the graph has no outputs")
        g.set_results([scope.value(o.name, where / f"output '{o.name}'") for o in gp.output])
        for o, r in zip(gp.output, g.results):
            self._check_declared(o, r, where)
        return g

    def _check_declared(self, vi, r: Value, where: Where) -> None:
        """A declared output dtype must be the one computed (a silent cast would hide a
        translation that differs)."""
        if not vi.HasField("type") or vi.type.WhichOneof("value") != "tensor_type":
            return
        code = vi.type.tensor_type.elem_type
        if code == 0:
            return
        t = value_type(vi, where / f"output '{vi.name}'")
        if t.dtype is not r.type.dtype:
            raise where.damaged(f"output '{vi.name}' is declared {t.dtype} but computes "
                                f"{r.type.dtype}")

    def body(self, outer: Scope, gp: onnx.GraphProto, where: Where, base: str,
             params: Sequence[Tuple[Optional[str], TensorType]],
             extra_free: Sequence[str] = (),
             prelude=None) -> Tuple[Graph, List[Value], List[Binding]]:
        """Build a closed subgraph of an ONNX body.

        Args:
            outer: the scope the body's implicit reads come from.
            gp: the body; its own inputs are `params` (name None: a parameter whose
                ONNX input the body never reads is still made, unnamed).
            params: (ONNX input name, type) of each formal parameter, in order.
            extra_free: outer names to pass in first, besides the body's own free
                names (both branches' free names, for an If: one operand list).
            prelude: `prelude(graph, formal_params) -> {ONNX name: Value}`: nodes to add
                before the body's own and the names they bind (Scan's squeezed slices).

        Returns:
            The graph (its params: the formal ones, then one per outer Value passed
            in), its formal params, and the outer bindings passed in.
        """
        if gp.sparse_initializer:
            raise where.cannot("sparse initializers are not supported")
        g = Graph(self.graph_name(base))
        names: Dict[str, Binding] = {}
        for name, t in params:
            p = g.add_param(t, name)
            if name:
                names[name] = p
        formal = list(g.params)
        own = {n for n, _ in params if n}
        passed: List[Value] = []
        order = list(dict.fromkeys(list(extra_free) + list(self.free_names(gp))))
        for name in order:
            if name in own:
                continue
            b = outer.names.get(name)
            if b is None:
                raise where.damaged(f"reads '{name}', which no enclosing graph defines")
            if isinstance(b, Value):
                from .import_ops import evaluate
                c = evaluate(b)     # a Constant node's value, or one folded from constants
                b = b if c is None else c       # and static shapes: not passed in
            if isinstance(b, Value):
                names[name] = g.add_param(b.type, name)
                passed.append(b)
            else:
                names[name] = b
        for t in gp.initializer:
            names[t.name] = tensor_array(t, where / f"initializer '{t.name}'", self.base_dir)
        if prelude is not None:
            names.update(prelude(g, formal))
        scope = Scope(g, where, names)
        self.nodes(scope, gp, where)
        g.set_results([scope.value(o.name, where / f"output '{o.name}'") for o in gp.output])
        return g, formal, passed

    def nodes(self, scope: Scope, gp: onnx.GraphProto, where: Where) -> None:
        """Translate the nodes of gp into scope's graph, in a topological order; a
        group of nodes graphjit's exporter made for one op becomes that op again
        (import_patterns)."""
        readers: Dict[str, set] = {}
        for i, n in enumerate(gp.node):
            for x in n.input:
                readers.setdefault(x, set()).add(i)
        outputs = {o.name for o in gp.output}
        group: List[Tuple[int, onnx.NodeProto]] = []
        for i, n in self._ordered(gp, scope, where):
            key = GROUP_NAME.match(_text(n.name))
            if group and (key is None or key.group(0).split("/")[0] !=
                          _text(group[0][1].name).split("/")[0]):
                self._collapse(scope, group, readers, outputs)
                group = []
            if n.op_type == "Identity" and _text(n.name).startswith("gj.result.") and \
                    len(n.input) == 1 and len(n.output) == 1 and n.input[0] and n.output[0]:
                # the exporter's Identity naming a graph output: the value itself
                scope.names[n.output[0]] = scope.names[n.input[0]] \
                    if n.input[0] in scope.names else scope.value(n.input[0], where)
                continue
            self._node(scope, i, n, where)
            if key is not None:
                group.append((i, n))
        if group:
            self._collapse(scope, group, readers, outputs)

    def _collapse(self, scope: Scope, group, readers, outputs) -> None:
        """Replace a gj.Op.n group by Op when they agree (see import_patterns)."""
        op = GROUP_NAME.match(_text(group[0][1].name)).group(1)
        last = group[-1][1]
        members = {i for i, _ in group}
        made = {o for _, n in group for o in n.output if o}
        if len(last.output) != 1 or not last.output[0]:
            return
        for name in made - {last.output[0]}:
            if name in outputs or readers.get(name, set()) - members:
                return
        out = scope.names.get(last.output[0])
        if not isinstance(out, Value) or (len(group) == 1 and out.producer is not None and
                                          out.producer.op == op):
            return
        externals: List[Value] = []
        for _, n in group:
            for x in n.input:
                b = scope.names.get(x)
                if x and x not in made and isinstance(b, Value) and b not in externals and \
                        not (b.producer is not None and b.producer.op == "Const"):
                    externals.append(b)
        new = collapse_group(scope.graph, op, externals, out, [n for _, n in group],
                             lambda name: scope.names.get(name))
        if new is not None:
            new.name = out.name
            scope.names[last.output[0]] = new

    def _node(self, scope: Scope, i: int, n: onnx.NodeProto, where: Where) -> None:
        from .import_ops import NodeCx, translate
        label = f"node {i}" + (f" '{n.name}'" if n.name else "") + f" ({n.op_type})"
        nw = where / label
        cx = NodeCx(self, scope, n, nw)
        try:
            outs = translate(cx)
        except (ModelFileError, OnnxImportError, RecursionError):
            raise
        except GraphJitError as e:
            raise e.with_context(prefix=f"ONNX {nw} in '{self.label}': ")
        except Exception as e:  # numpy or onnx meeting hostile data
            raise nw.damaged(f"cannot be translated ({type(e).__name__}: {e})") from e
        if n.op_type == "Constant":     # a Const where the file has it (the round trip
            outs = [scope.graph.apply("Const", value=v) for v in outs]   # keeps the order)
        wanted = [o for o in n.output]
        if len(outs) < len([o for o in wanted if o]) and \
                any(o for o in wanted[len(outs):]):
            raise nw.cannot(f"graphjit gives {len(outs)} of its {len(wanted)} outputs")
        for name, v in zip(wanted, outs):
            if name:
                if isinstance(v, Value) and v.name is None and v.producer is not None:
                    v.name = _identifier(name)
                scope.names[name] = v

    def _ordered(self, gp: onnx.GraphProto, scope: Scope, where: Where):
        """The nodes in an order where each comes after what it reads (Kahn's algorithm,
        stable: a sorted graph keeps its order); a cycle is a damaged file."""
        producer: Dict[str, int] = {}
        own = {i.name for i in gp.input} | {t.name for t in gp.initializer}
        for i, n in enumerate(gp.node):
            for o in n.output:
                if not o:
                    continue
                if o in own:
                    raise where.damaged(f"node {i} ({n.op_type}) redefines '{o}', an input "
                                        f"or initializer of the graph")
                if o in producer:
                    raise where.damaged(f"'{o}' is an output of node {producer[o]} and of "
                                        f"node {i}")
                producer[o] = i
        deps: List[set] = []
        for i, n in enumerate(gp.node):
            reads = [x for x in n.input if x]
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    reads.extend(self.free_names(a.g))
            d = set()
            for r in reads:
                if r in producer and r not in own:
                    d.add(producer[r])
                elif r not in own and r not in scope.names:
                    label = f"node {i}" + (f" '{n.name}'" if n.name else "") + \
                        f" ({n.op_type})"
                    raise (where / label).damaged(
                        f"reads '{r}', which no node, input or initializer defines")
            if i in d:
                raise where.damaged(f"node {i} ({n.op_type}) reads its own output: a cycle")
            deps.append(d)
        users: Dict[int, List[int]] = {i: [] for i in range(len(gp.node))}
        for i, d in enumerate(deps):
            for j in d:
                users[j].append(i)
        waiting = [len(d) for d in deps]
        import heapq
        ready = [i for i, w in enumerate(waiting) if w == 0]
        heapq.heapify(ready)
        done = 0
        while ready:
            i = heapq.heappop(ready)
            done += 1
            yield i, gp.node[i]
            for u in users[i]:
                waiting[u] -= 1
                if waiting[u] == 0:
                    heapq.heappush(ready, u)
        if done != len(gp.node):
            stuck = [i for i, w in enumerate(waiting) if w > 0]
            raise where.damaged(f"nodes {stuck[:10]} read each other's outputs: a cycle")


def _text(name) -> str:
    """A protobuf string field (bytes when the file holds invalid UTF-8)."""
    return name if isinstance(name, str) else bytes(name).decode("utf-8", "replace")


def _identifier(name: str) -> str:
    """A name for the printed IR: ONNX names may hold any characters."""
    name = _text(name)
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name)[:60]
    return out if out and not out[0].isdigit() else (f"v{out}" if out else "")
