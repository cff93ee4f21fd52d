"""A Cell's own `bprop` (MindSpore: "a Cell that defines bprop(self, *inputs, out, dout)
gets its gradient from it, not from its construct"), in both modes.

The Cell's construct runs (or is built) as usual; its outputs then go through one
`CellBprop` node: the identity forward, whose gradient rule gives the construct's
outputs no adjoint (so nothing flows back through the construct, nor to the Cell's
Parameters) and gives each tensor input the adjoint the Cell's bprop returns, computed
by a `CellBpropGrad` node whose kernel calls bprop eagerly (PYNATIVE) when the backward
pass runs. One gradient rule serves the eager tape and graph-mode autodiff, so the two
modes agree. bprop may leave out `out`: bprop(self, *inputs, dout), as MindSpore accepts
(mindcv's Swish).
"""
from __future__ import annotations

import inspect
import itertools
import threading
import weakref

import numpy as np

from ..ir import registry as _registry
from ..ir.types import TensorType

__all__ = ["has_bprop", "wrap_outputs"]

_CELLS: "weakref.WeakValueDictionary[int, object]" = weakref.WeakValueDictionary()
_CONSTS: dict = {}                  # call key -> (positions of tensor args, the args' Python values)
_KEYS = itertools.count(1)
_LOCK = threading.Lock()


def has_bprop(cell) -> bool:
    return callable(getattr(type(cell), "bprop", None))


def _n_params(cell) -> int:
    params = list(inspect.signature(type(cell).bprop).parameters.values())[1:]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return -1
    return len(params)


def wrap_outputs(cell, args, out, apply, is_tensor):
    """out (a tensor or a tuple of tensors) passed through a CellBprop node of `cell`
    with the tensor args as inputs; out unchanged if it holds no tensor."""
    outs = out if isinstance(out, tuple) else (out,)
    if not outs or not all(is_tensor(o) for o in outs):
        raise TypeError(f"Cell '{type(cell).__name__}' defines bprop: its construct must "
                        f"return a tensor or a tuple of tensors, got {type(out).__name__}")
    n = _n_params(cell)
    positions = tuple(i for i, a in enumerate(args) if is_tensor(a))
    consts = tuple(None if i in positions else a for i, a in enumerate(args))
    with _LOCK:
        _CELLS[id(cell)] = cell
        key = next(_KEYS)
        _CONSTS[key] = (positions, consts, len(args), n)
    ys = apply("CellBprop", *[args[i] for i in positions], *outs, cell=id(cell), key=key,
               n_in=len(positions), tuple_out=isinstance(out, tuple))
    ys = ys if isinstance(ys, tuple) else (ys,)
    return ys if isinstance(out, tuple) else ys[0]


# -- the ops ----------------------------------------------------------------------------------
def _pass_infer(types, attrs):
    outs = types[attrs["n_in"]:]
    return tuple(outs) if len(outs) > 1 else outs[0]


def _pass_kernel(*arrays, cell, key, n_in, tuple_out):
    outs = arrays[n_in:]
    return tuple(outs) if len(outs) > 1 else outs[0]


def _bprop_rule(b, n):
    n_in = n.attrs["n_in"]
    _check_arity(n.attrs["cell"], n.attrs["key"])
    n_out = len(n.out_types)
    wanted = [n.differentiable(i) for i in range(n_in)]
    if not any(wanted):
        return [None] * (n_in + n_out)
    gs = [g if g is not None else b.zeros(n.out_types[k]) for k, g in enumerate(n.gs)]
    xs = [n.x(i) for i in range(n_in)]
    ys = [n.y(k) for k in range(n_out)]
    grads = b.apply("CellBpropGrad", *xs, *ys, *gs, cell=n.attrs["cell"], key=n.attrs["key"],
                    n_in=n_in, tuple_out=n.attrs["tuple_out"])
    grads = grads if isinstance(grads, tuple) else (grads,)
    return [n.like(g, i) if wanted[i] else None for i, g in enumerate(grads)] + [None] * n_out


def _check_arity(cell_id, key):
    cell = _CELLS.get(cell_id)
    _, _, n_args, n = _CONSTS[key]
    if cell is not None and n not in (-1, n_args + 1, n_args + 2):
        raise TypeError(f"Cell '{type(cell).__name__}': bprop takes {n} arguments besides "
                        f"self; it must take the construct's {n_args} inputs, then out "
                        f"(may be left out) and dout")


def _grad_infer(types, attrs):
    ins = types[:attrs["n_in"]]
    return tuple(ins) if len(ins) > 1 else ins[0]


def _grad_kernel(*arrays, cell, key, n_in, tuple_out):
    from .tensor import Tensor
    from ..context import PYNATIVE_MODE, _context
    owner = _CELLS.get(cell)
    if owner is None:
        raise RuntimeError("the Cell whose bprop this gradient calls no longer exists")
    positions, consts, n_args, n_params = _CONSTS[key]
    n_out = (len(arrays) - n_in) // 2
    xs = [Tensor(np.array(a)) for a in arrays[:n_in]]
    ys = [Tensor(np.array(a)) for a in arrays[n_in:n_in + n_out]]
    gs = [Tensor(np.array(a)) for a in arrays[n_in + n_out:]]
    args = list(consts)
    for p, x in zip(positions, xs):
        args[p] = x
    out = tuple(ys) if tuple_out else ys[0]
    dout = tuple(gs) if tuple_out else gs[0]
    call = args + ([dout] if n_params == n_args + 1 else [out, dout])
    mode = _context["mode"]
    _context["mode"] = PYNATIVE_MODE      # the bprop runs as Python over eager tensors
    try:
        res = owner.bprop(*call)
    finally:
        _context["mode"] = mode
    res = res if isinstance(res, tuple) else (res,)
    if len(res) < n_args:
        raise ValueError(f"Cell '{type(owner).__name__}': bprop returned {len(res)} "
                         f"gradients for {n_args} inputs")
    out_arrays = []
    for p, x in zip(positions, arrays[:n_in]):
        g = res[p]
        g = np.zeros_like(x) if g is None else np.asarray(g.asnumpy() if hasattr(g, "asnumpy") else g)
        if g.shape != x.shape:
            try:
                g = np.broadcast_to(g, x.shape)
            except ValueError:
                raise ValueError(f"Cell '{type(owner).__name__}': bprop returned a gradient "
                                 f"of shape {g.shape} for an input of shape {x.shape}") from None
        out_arrays.append(np.ascontiguousarray(g, dtype=x.dtype))
    return tuple(out_arrays) if len(out_arrays) > 1 else out_arrays[0]


_ATTRS = {"cell": _registry.REQUIRED, "key": _registry.REQUIRED, "n_in": _registry.REQUIRED,
          "tuple_out": False}
_registry.register_op("CellBprop", ["*xs"], dict(_ATTRS), _pass_infer, _pass_kernel,
                      family="extern", grad=_bprop_rule, replace=True,
                      doc="the outputs of a Cell with its own bprop (identity forward)")
_registry.register_op("CellBpropGrad", ["*xs"], dict(_ATTRS), _grad_infer, _grad_kernel,
                      family="extern", replace=True, grad=_registry.NOT_DIFFERENTIABLE,
                      doc="the input gradients a Cell's bprop returns")
