"""The operator registry: one OpDef per op, looked up by name in one global table.

An OpDef declares everything about an operator once (seed 004, TensorFlow's
REGISTER_OP): its inputs, its attributes with defaults, an inference function
from input types to output types, a family tag used by fusion, a numpy kernel,
and a docstring. Eager mode runs the kernel; graph mode records a node whose
type the inference function gives.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .errors import MissingInferenceError, OpNotFoundError, ShapeInferenceError
from .types import TensorType

__all__ = ["OpDef", "register_op", "get_op", "has_op", "all_ops", "set_grad", "REQUIRED",
           "FAMILIES", "EFFECTS", "NOT_DIFFERENTIABLE"]

REQUIRED = object()  # marks an attribute without a default


class _NotDifferentiable:
    """The `grad` of an op whose outputs carry no gradient back to its inputs: integer,
    bool and shape results, piecewise-constant functions (Floor, Sign), StopGradient."""

    def __repr__(self):
        return "NOT_DIFFERENTIABLE"


NOT_DIFFERENTIABLE = _NotDifferentiable()
FAMILIES = ("elementwise", "reduction", "shape", "creation", "extern", "control")

# What an op may do besides computing its outputs (OpDef.effects; None: nothing, the op
# is pure). A node with effects is never removed, duplicated, merged with an equal
# one, or moved by a pass, so nodes with effects keep their order; "read" alone
# (reading state, as a Parameter read) may still be removed when nothing uses it.
EFFECTS = {
    "io": "writes outside the graph (Print)",
    "check": "raises an error on some inputs (Assert, run-time checks)",
    "read": "reads state that other nodes may write (a Parameter)",
    "write": "updates state (Assign, optimizer updates of a Parameter)",
    "random": "draws random numbers (each run differs)",
    "collective": "exchanges data with the other processes of a group (AllReduce)",
}
# The kinds of value an input takes, spelled after its name as in the seed's
# REGISTER_OP (`"var: resource"`): a tensor (no annotation), a ref to a Parameter
# (`ref`, or `resource` as TensorFlow spells it), the state token (`state`), or any
# kind (`any`: If and Loop operands, which pass state values into their subgraphs).
_INPUT_KINDS = {"tensor": "tensor", "ref": "ref", "resource": "ref", "state": "state",
                "any": "any"}

InferFn = Callable[[Sequence[TensorType], Dict[str, Any]], Any]


@dataclass(eq=False)
class OpDef:
    """Everything graphjit knows about one operator.

    Attributes:
        name: PascalCase op name (`Add`, `ReduceSum`, `Loop`).
        inputs: input names; a name starting with `*` takes any number of values
            (only the last input may).
        attrs: attribute name to default value (`REQUIRED` if none).
        infer: (input types, attrs) -> output type or tuple of output types.
        kernel: numpy function (*arrays, **attrs) -> array or tuple of arrays.
        family: one of FAMILIES.
        kernel_factory: optional (input types, output types, attrs) -> callable of
            the arrays, for ops whose best kernel depends on the types.
        exact_dtype: the kernel always returns the inferred dtypes (no cast needed).
        infer_takes_consts: infer is also given `consts`, a tuple parallel to the
            inputs holding the numpy value of each input a Const node makes (else None).
        effects: None for a pure op (its outputs depend only on its inputs and
            attributes, and running it does nothing else), else one of EFFECTS.
        input_kinds: per input (the variadic one's applies to all it takes): "tensor",
            "ref" (a Parameter the op reads or updates when it runs), "state" (the state
            token) or "any"; checked before `infer` runs, so an op never sees a kind
            it does not declare.
        grad: the reverse-mode rule `grad(b, n) -> [adjoint of each input or None]`,
            written against graphjit.ir.grad (GradBuilder `b`, GradNode `n`), so one
            rule builds backward graph nodes and runs on eager arrays alike;
            NOT_DIFFERENTIABLE for ops whose outputs carry no gradient; None when no
            gradient is declared (differentiating through the op is then an error).
    """

    name: str
    inputs: Tuple[str, ...] = ()
    attrs: Dict[str, Any] = field(default_factory=dict)
    infer: Optional[InferFn] = None
    kernel: Optional[Callable] = None
    family: str = "extern"
    doc: str = ""
    kernel_factory: Optional[Callable] = None
    exact_dtype: bool = False
    infer_takes_consts: bool = False
    effects: Optional[str] = None
    input_kinds: Tuple[str, ...] = ()
    grad: Optional[Callable] = None

    @property
    def variadic(self) -> bool:
        return bool(self.inputs) and self.inputs[-1].startswith("*")

    def check_arity(self, n: int) -> None:
        fixed = len(self.inputs) - (1 if self.variadic else 0)
        if (n < fixed) if self.variadic else (n != fixed):
            want = f"at least {fixed}" if self.variadic else str(fixed)
            raise ShapeInferenceError(
                f"op '{self.name}' takes {want} input(s) ({', '.join(self.inputs)}), got {n}")

    def kind_of_input(self, i: int) -> str:
        """The kind input i takes (see input_kinds)."""
        if not self.input_kinds:
            return "tensor"
        return self.input_kinds[min(i, len(self.input_kinds) - 1)] if self.variadic else \
            self.input_kinds[i]

    def check_kinds(self, input_types: Sequence[TensorType]) -> None:
        """Every input is of the kind the op declares for it.

        Raises:
            ShapeInferenceError: naming the input, what it is and what the op takes.
        """
        for i, t in enumerate(input_types):
            want = self.kind_of_input(i)
            if want == "any" or t.kind == want:
                continue
            name = self.inputs[min(i, len(self.inputs) - 1)].lstrip("*")
            what = {"ref": "a ref to a Parameter", "state": "the state token",
                    "tensor": "a tensor"}
            raise ShapeInferenceError(
                f"op '{self.name}' input {i} ({name}) must be {what[want]}, got {t}"
                + (" (refs and the state token go only to state ops)" if t.kind != "tensor"
                   else ""))

    def normalize_attrs(self, attrs: Dict[str, Any]) -> Dict[str, Any]:
        """Attrs with defaults filled in; unknown or missing attributes are errors."""
        unknown = set(attrs) - set(self.attrs)
        if unknown:
            raise ShapeInferenceError(
                f"op '{self.name}' has no attribute(s) {sorted(unknown)}; its attributes are "
                f"{sorted(self.attrs) or 'none'}")
        out = {}
        for k, default in self.attrs.items():
            if k in attrs:
                out[k] = attrs[k]
            elif default is REQUIRED:
                raise ShapeInferenceError(f"op '{self.name}' needs the attribute '{k}'")
            else:
                out[k] = default
        return out

    def infer_types(self, input_types: Sequence[TensorType], attrs: Dict[str, Any],
                    consts: Optional[Sequence] = None) -> Tuple[TensorType, ...]:
        """Output types for these inputs; attrs must be normalized.

        Raises:
            MissingInferenceError: the op has no inference function.
            ShapeInferenceError: the inputs do not fit the op.
        """
        if self.infer is None:
            raise MissingInferenceError(
                f"No shape inference function exists for op '{self.name}', did you forget "
                f"to define it?",
                hint=f"pass infer=... to ops.register_op('{self.name}', ...)")
        self.check_arity(len(input_types))
        self.check_kinds(input_types)
        if self.infer_takes_consts:
            consts = tuple(consts) if consts is not None else (None,) * len(input_types)
            out = self.infer(tuple(input_types), attrs, consts=consts)
        else:
            out = self.infer(tuple(input_types), attrs)
        if isinstance(out, TensorType):
            return (out,)
        return tuple(out)

    def make_kernel(self, input_types: Sequence[TensorType],
                    output_types: Sequence[TensorType], attrs: Dict[str, Any]) -> Callable:
        """A callable of the input arrays returning the output array (one output)
        or a tuple of arrays, with exactly the inferred dtypes."""
        if self.kernel_factory is not None:
            return self.kernel_factory(tuple(input_types), tuple(output_types), attrs)
        if self.kernel is None:
            raise ShapeInferenceError(f"op '{self.name}' has no kernel and cannot run")
        kernel = self.kernel
        fn = (lambda *a: kernel(*a, **attrs)) if attrs else kernel
        if self.exact_dtype:
            return fn
        return cast_outputs(fn, [t.dtype.np for t in output_types])


def cast_outputs(fn: Callable, np_dtypes: Sequence) -> Callable:
    """Wrap fn so its outputs are numpy values of exactly these dtypes."""
    if len(np_dtypes) == 1:
        dt = np_dtypes[0]

        def one(*a):
            r = fn(*a)
            if getattr(r, "dtype", None) != dt:
                r = np.asarray(r, dtype=dt)
            return r
        return one

    def many(*a):
        return tuple(r if getattr(r, "dtype", None) == dt else np.asarray(r, dtype=dt)
                     for r, dt in zip(fn(*a), np_dtypes))
    return many


_REGISTRY: Dict[str, OpDef] = {}


def register_op(name: str, inputs: Sequence[str] = (), attrs: Optional[Dict[str, Any]] = None,
                infer: Optional[InferFn] = None, kernel: Optional[Callable] = None,
                family: str = "extern", doc: str = "", kernel_factory=None,
                exact_dtype: bool = False, replace: bool = False,
                infer_takes_consts: bool = False, effects: Optional[str] = None,
                grad: Optional[Callable] = None) -> OpDef:
    """Declare an operator and add it to the global registry.

    Args:
        name: the op's name; must be new unless `replace` is true.
        inputs: input names (`"*xs"` for a variadic last input), each optionally
            followed by its kind: `"var: resource"` (or `ref`) for a Parameter the op
            reads or updates, `"state: state"` for the state token (see OpDef).
        attrs: attribute defaults (`REQUIRED` for none).
        infer: shape-and-dtype inference function (input types, attrs) -> type(s).
            An op without one can be registered, but building a node of it fails
            with "No shape inference function exists for op 'NAME'".
        kernel: numpy kernel (*arrays, **attrs) -> array(s).
        family: elementwise, reduction, shape, creation, extern or control.
        doc: what the op computes.
        effects: None if the op is pure, else what else it does: one of EFFECTS
            ("io", "check", "read", "write", "random", "collective"). Passes never remove, merge,
            duplicate or move a node with effects (a "read" node may be removed
            when unused).
        grad: its gradient rule, or NOT_DIFFERENTIABLE (see OpDef).

    Returns:
        The OpDef.

    Raises:
        ValueError: the name is taken, or the family or effects value is unknown.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"op name must be an identifier, got {name!r}")
    if family not in FAMILIES:
        raise ValueError(f"unknown op family '{family}'; use one of {', '.join(FAMILIES)}")
    if effects is not None and effects not in EFFECTS:
        raise ValueError(f"unknown effects value {effects!r}; use None (a pure op) or one of "
                         f"{', '.join(EFFECTS)}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"op '{name}' is already registered (pass replace=True to redefine it)")
    inputs, kinds = _parse_inputs(name, inputs)
    if any(i.startswith("*") for i in inputs[:-1]):
        raise ValueError("only the last input of an op may be variadic ('*name')")
    op = OpDef(name, inputs, dict(attrs or {}), infer, kernel, family, doc, kernel_factory,
               exact_dtype, infer_takes_consts, effects, kinds, grad)
    replaced = name in _REGISTRY
    _REGISTRY[name] = op
    if replaced:
        for fn in ON_REPLACE:
            fn(name)
    return op


#: Called with an op's name when register_op(..., replace=True) redefines it (what was
#: worked out from the old definition, an eager op's kernel say, is stale).
ON_REPLACE: List[Callable[[str], None]] = []


def _parse_inputs(op: str, inputs: Sequence[str]):
    """(names, kinds): "var: resource" is the input `var` of kind ref."""
    names, kinds = [], []
    for spec in inputs:
        name, _, kind = (x.strip() for x in str(spec).partition(":"))
        kind = kind or "tensor"
        if kind not in _INPUT_KINDS:
            raise ValueError(f"op '{op}': input '{spec}' has an unknown kind '{kind}'; use "
                             f"one of {', '.join(_INPUT_KINDS)}")
        names.append(name)
        kinds.append(_INPUT_KINDS[kind])
    return tuple(names), (tuple(kinds) if any(k != "tensor" for k in kinds) else ())


def get_op(name: str) -> OpDef:
    """The OpDef registered under `name`.

    Raises:
        OpNotFoundError: no such op (the message suggests close names).
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=3)
        hint = f"did you mean {', '.join(repr(c) for c in close)}?" if close else \
            "register it with ops.register_op(...)"
        raise OpNotFoundError(f"no operator named '{name}' is registered", hint=hint) from None


def set_grad(name: str, grad) -> None:
    """Declare the gradient rule of a registered op (see OpDef.grad)."""
    if not (grad is NOT_DIFFERENTIABLE or callable(grad)):
        raise TypeError(f"the gradient of '{name}' must be a function or NOT_DIFFERENTIABLE, "
                        f"got {grad!r}")
    get_op(name).grad = grad


def has_op(name: str) -> bool:
    return name in _REGISTRY


def all_ops() -> Dict[str, OpDef]:
    return dict(_REGISTRY)
