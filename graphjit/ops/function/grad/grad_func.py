"""MindSpore's `mindspore.ops.function.grad.grad_func`: grad, value_and_grad and
stop_gradient, in both modes. Integer inputs are differentiated like real ones through
the same rules, the gradient in their dtype (MindSpore's convention); bool inputs get
zeros."""
from __future__ import annotations

import numpy as np
from typing import Any, List, Optional, Tuple

from ..._dispatch import apply
from ....context import compiler, get_context, GRAPH_MODE
from ....tracebacks import user_facing
from ....autodiff.tape import Tape
from ....common.parameter import Parameter
from ....common.tensor import SymbolicTensor, Tensor, TensorLike

__all__ = ["GradFunction", "grad", "value_and_grad", "tensor_leaves", "map_leaves",
           "stop_gradient", "get_grad", "record_forward"]


def tensor_leaves(x) -> List[Any]:
    """The tensors in x (a tensor, or tuples, lists and dicts of them) in order."""
    if isinstance(x, TensorLike):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in tensor_leaves(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in tensor_leaves(v)]
    return []


def map_leaves(x, fn):
    """x with each tensor replaced by fn(tensor)."""
    if isinstance(x, TensorLike):
        return fn(x)
    if isinstance(x, tuple):
        return tuple(map_leaves(v, fn) for v in x)
    if isinstance(x, list):
        return [map_leaves(v, fn) for v in x]
    if isinstance(x, dict):
        return {k: map_leaves(v, fn) for k, v in x.items()}
    return x


class GradFunction:
    """The gradient function of `fn` (see the module docstring).

    Attributes:
        fn: the function or Cell differentiated.
        positions: indices of the positional arguments differentiated (None: none).
        weights: the Parameters differentiated (None: none).
        has_aux: only fn's first output is differentiated; the others are returned.
        get_value: also return fn's output (value_and_grad).
        sens_param: the last positional argument weights fn's output (its "sens").
        single_position / single_weight: return one tensor rather than a tuple.
    """

    def __init__(self, fn, positions: Optional[Tuple[int, ...]], weights, *,
                 has_aux=False, get_value=False, sens_param=False, single_position=False,
                 single_weight=False, return_ids=False):
        if not callable(fn):
            raise TypeError(f"the function to differentiate must be a function or a Cell, "
                            f"got {type(fn).__name__}")
        self.fn = fn
        self.positions = positions
        self.weights = weights
        self.has_aux = has_aux
        self.get_value = get_value
        self.sens_param = sens_param
        self.single_position = single_position
        self.single_weight = single_weight
        self.return_ids = return_ids

    def config(self) -> tuple:
        """What, besides fn, weights and the inputs, decides the gradient graph."""
        return (self.positions, self.has_aux, self.get_value, self.sens_param,
                self.single_position, self.single_weight, self.return_ids)

    # -- calling ------------------------------------------------------------------------------
    # GRAPH_MODE's generated call of the entry that ran last (jit.grad_entry): None
    # for calls it does not take
    _graphjit_fast = None

    def __call__(self, *args, **kwargs):
        fast = self._graphjit_fast
        if fast is not None and not kwargs:
            try:
                out = fast(args)
            except Exception as e:
                raise user_facing(e)
            if out is not None:
                return out
        try:
            if _has_graph_value(args) or (kwargs and _has_graph_value(kwargs.values())):
                raise TypeError("a gradient function got graph values outside the graph "
                                "builder; call it from the construct being compiled")
            if get_context("mode") == GRAPH_MODE:
                return compiler.call_grad(self, args, kwargs)
            return self.eager(args, kwargs)
        except Exception as e:   # raised from here: the one graphjit frame users see
            raise user_facing(e)

    def split_sens(self, args, kwargs):
        """(args, kwargs, sens): the sensitivity taken off the arguments."""
        if not self.sens_param:
            return list(args), dict(kwargs), None
        kwargs = dict(kwargs)
        if "sens" in kwargs:
            return list(args), kwargs, kwargs.pop("sens")
        if not args:
            raise TypeError("sens_param=True: pass the sensitivity (the gradient of the "
                            "output) as the last argument")
        return list(args[:-1]), kwargs, args[-1]

    def check_positions(self, args) -> None:
        for p in self.positions or ():
            if not -len(args) <= p < len(args):
                raise ValueError(f"grad_position {p} is out of range: the function got "
                                 f"{len(args)} positional argument(s)")
            if not tensor_leaves(args[p]):
                raise TypeError(f"grad_position {p}: the argument is "
                                f"{type(args[p]).__name__}, not a Tensor (or tuple of "
                                f"Tensors) to differentiate")

    def split_output(self, out):
        """(the part differentiated, aux or None)."""
        if not self.has_aux:
            return out, None
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise TypeError("has_aux=True: the function must return more than one output "
                            "(the first is differentiated, the others are returned as aux)")
        return out[0], tuple(out[1:])

    def assemble(self, args, pos_grads, weight_grads, out, aux):
        """The return value from the gradients (MindSpore's conventions; with
        return_ids each gradient is (position, gradient) or (Parameter.name, gradient))."""
        if self.return_ids:
            pos_grads = [(p, g) for p, g in zip(self.positions or (), pos_grads)]
            weight_grads = [(w.name, g) for w, g in zip(self.weights or (), weight_grads)]
        gp = None
        if self.positions is not None:
            gp = pos_grads[0] if self.single_position else tuple(pos_grads)
        gw = None
        if self.weights is not None:
            gw = weight_grads[0] if self.single_weight else tuple(weight_grads)
        if gp is not None and gw is not None:
            grads = (gp, gw)
        else:
            grads = gp if gp is not None else gw
        if self.get_value:
            return out, grads
        if self.has_aux:
            return grads, aux
        return grads

    # -- PYNATIVE --------------------------------------------------------------------------------
    def eager(self, args, kwargs):
        if isinstance(self.fn, GradFunction):
            # a gradient of a gradient function: the tape runs backward passes on arrays,
            # which no tape records; the graph of the inner gradient is differentiated
            # instead (the same rules, so the values eager differentiation would give)
            return compiler.call_grad(self, args, kwargs)
        args, kwargs, sens = self.split_sens(args, kwargs)
        self.check_positions(args)
        weights = list(self.weights or ())
        reused = _take_forward(self, args, kwargs, weights)
        if reused is not None:
            tape, out = reused
            diff, aux = self.split_output(out)
            pos_leaves = [tensor_leaves(args[p]) for p in self.positions or ()]
            sources = [t for leaves in pos_leaves for t in leaves] + weights
            found = tape.gradients(_seeds(diff, sens), sources)
            grads = [Tensor._wrap(g if g is not None else np.zeros_like(s._data))
                     for g, s in zip(found, sources)]
            it = iter(grads)
            pos_grads = [map_leaves(args[p], lambda t: next(it)) for p in self.positions or ()]
            weight_grads = [next(it) for _ in weights]
            return self.assemble(args, pos_grads, weight_grads, out, aux)
        with Tape() as tape:
            # each differentiated argument gets tensors of its own (an argument passed
            # twice is two sources), sharing the caller's arrays
            for p in self.positions or ():
                args[p] = map_leaves(args[p], lambda t: tape.watch(Tensor._wrap(t._data)))
            for w in weights:
                tape.watch(w)
            out = self.fn(*args, **kwargs)
        diff, aux = self.split_output(out)
        seeds = _seeds(diff, sens)
        pos_leaves = [tensor_leaves(args[p]) for p in self.positions or ()]
        sources = [t for leaves in pos_leaves for t in leaves] + weights
        found = tape.gradients(seeds, sources)
        grads = [Tensor._wrap(g if g is not None else np.zeros_like(s._data))
                 for g, s in zip(found, sources)]
        it = iter(grads)
        pos_grads = [map_leaves(args[p], lambda t: next(it)) for p in self.positions or ()]
        weight_grads = [next(it) for _ in weights]
        return self.assemble(args, pos_grads, weight_grads, out, aux)


def record_forward(cell, args, kwargs):
    """Run a Cell marked with set_grad() eagerly while a tape records it (its trainable
    Parameters and tensor arguments watched), and keep the record: a gradient of the
    same Cell asked next with the same arguments (TrainOneStep-style code: `loss =
    net(x)` then `grad(net, weights)(x, sens)`) reuses this forward instead of running
    the network again, as MindSpore's PyNative mode does; so state the forward updates
    (BatchNorm's moving statistics) is updated once, and random draws are the loss's."""
    weights = cell.trainable_params()
    leaves = tensor_leaves(list(args) + list(kwargs.values()))
    with Tape() as tape:
        for w in weights:
            tape.watch(w)
        for t in leaves:
            if not tape.tracks(t):
                tape.watch(t)
        out = cell.construct(*args, **kwargs)
    object.__setattr__(cell, "_graphjit_forward",
                       (tape, tuple(args), dict(kwargs), out, weights,
                        [w._data for w in weights]))
    return out


def _take_forward(gf, args, kwargs, weights):
    """(tape, output) of the forward record_forward kept for gf's Cell, if it ran on
    these very arguments, watched every weight asked, and no weight changed since; the
    record is used once."""
    rec = getattr(gf.fn, "__dict__", {}).get("_graphjit_forward")
    if rec is None:
        return None
    object.__setattr__(gf.fn, "_graphjit_forward", None)
    tape, r_args, r_kwargs, out, r_weights, r_data = rec
    same = len(args) == len(r_args) and all(a is b for a, b in zip(args, r_args)) and \
        r_kwargs.keys() == kwargs.keys() and all(kwargs[k] is r_kwargs[k] for k in kwargs)
    if not same or any(w._data is not d for w, d in zip(r_weights, r_data)):
        return None
    watched = {id(w) for w in r_weights}
    if any(id(w) not in watched for w in weights):
        return None
    leaves = [t for p in gf.positions or () for t in tensor_leaves(args[p])]
    if len({id(t) for t in leaves}) != len(leaves):     # one tensor at two positions
        return None
    return tape, out


def _has_graph_value(items) -> bool:
    for a in items:
        if type(a) is Tensor:
            continue
        if isinstance(a, SymbolicTensor):
            return True
        if isinstance(a, (tuple, list)) and _has_graph_value(a):
            return True
        if isinstance(a, dict) and _has_graph_value(a.values()):
            return True
    return False


def _seeds(diff, sens):
    """(tensor, seed array) for each output tensor that is not bool."""
    outs = tensor_leaves(diff)
    if sens is None:
        weights = [None] * len(outs)
    else:
        weights = tensor_leaves(sens)
        if len(weights) != len(outs):
            raise ValueError(f"sens_param: the sensitivity holds {len(weights)} tensor(s) but "
                             f"the function returns {len(outs)}")
    seeds = []
    for t, w in zip(outs, weights):
        if not isinstance(t, Tensor) or not t.dtype.is_differentiable:
            continue
        if w is None:
            seeds.append((t, np.ones_like(t._data)))
        else:
            arr = np.asarray(w._data if isinstance(w, Tensor) else w, dtype=t.dtype.np)
            if arr.shape != t._data.shape:
                # a sens of the output's size in another shape ([1] for a scalar loss, as
                # MindSpore's loss-scale cells pass) is reshaped; else broadcast
                arr = arr.reshape(t._data.shape) if arr.size == t._data.size else \
                    np.broadcast_to(arr, t._data.shape)
            seeds.append((t, arr))
    return seeds


# -- the MindSpore entry points ----------------------------------------------------------------------
def _positions(grad_position) -> Tuple[Optional[Tuple[int, ...]], bool]:
    if grad_position is None:
        return None, False
    if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple, list)):
        raise TypeError(f"grad_position must be an int, a tuple of ints or None, got "
                        f"{grad_position!r}")
    if isinstance(grad_position, int):
        if grad_position < 0:
            raise ValueError("grad_position must be >= 0")
        return (grad_position,), True
    out = []
    for p in grad_position:
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"grad_position holds ints, got {p!r}")
        if p < 0:
            raise ValueError("the elements of grad_position must be >= 0")
        out.append(p)
    return tuple(out), False


def _weights(weights) -> Tuple[Optional[tuple], bool]:
    if weights is None:
        return None, False
    if isinstance(weights, Parameter):
        return (weights,), True
    if isinstance(weights, Tensor):
        raise TypeError("weights must be Parameters (net.trainable_params()), got a Tensor")
    try:
        items = tuple(weights)
    except TypeError:
        raise TypeError(f"weights must be a Parameter or a list of Parameters, got "
                        f"{type(weights).__name__}") from None
    for w in items:
        if not isinstance(w, Parameter):
            raise TypeError(f"weights must be Parameters, got {type(w).__name__}")
    return items, False


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """The function computing the gradient of fn with respect to the inputs at
    grad_position and to weights (see the module docstring for what it returns).

    Raises:
        ValueError: grad_position and weights are both None.
        TypeError: a bad grad_position or weights.
    """
    return _make(fn, grad_position, weights, has_aux, return_ids, get_value=False)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """Like grad, but the function returns (fn's output, gradients)."""
    return _make(fn, grad_position, weights, has_aux, return_ids, get_value=True)


def _make(fn, grad_position, weights, has_aux, return_ids, get_value):
    if grad_position is None and weights is None:
        raise ValueError("`grad_position` and `weights` can not be None at the same time")
    if not isinstance(return_ids, bool):
        raise TypeError(f"return_ids must be a bool, got {return_ids!r}")
    if not isinstance(has_aux, bool):
        raise TypeError(f"has_aux must be a bool, got {has_aux!r}")
    positions, single_p = _positions(grad_position)
    ws, single_w = _weights(weights)
    return GradFunction(fn, positions, ws, has_aux=has_aux, get_value=get_value,
                        single_position=single_p, single_weight=single_w,
                        return_ids=return_ids)


def get_grad(gradients, identifier):
    """The gradient for `identifier` (a position, or a Parameter) in what a gradient
    function made with return_ids=True returned (MindSpore's get_grad).

    Raises:
        TypeError: identifier is neither an int nor a Parameter.
        RuntimeError: no gradient for it.
    """
    if isinstance(identifier, bool) or not isinstance(identifier, (int, Parameter)):
        raise TypeError(f"get_grad: identifier must be an int position or a Parameter, got "
                        f"{type(identifier).__name__}")
    key = identifier.name if isinstance(identifier, Parameter) else identifier

    def search(g):
        if isinstance(g, tuple) and len(g) == 2 and isinstance(g[0], (int, str)) and \
                not isinstance(g[0], bool) and isinstance(g[1], TensorLike):
            return g[1] if g[0] == key and type(g[0]) is type(key) else None
        if isinstance(g, (tuple, list)):
            for item in g:
                found = search(item)
                if found is not None:
                    return found
        return None
    found = search(gradients)
    if found is None:
        raise RuntimeError(f"get_grad: no gradient for {identifier!r} (make the gradient "
                           f"function with return_ids=True and differentiate it)")
    return found


def stop_gradient(input):
    """The input itself, through which no gradient flows (tuples and lists: each
    tensor in them)."""
    if isinstance(input, (tuple, list)):
        return type(input)(stop_gradient(x) for x in input)
    if not isinstance(input, TensorLike):
        return input
    return apply("StopGradient", input)
