"""MindSpore's `mindspore.nn.optim.optimizer`: Optimizer, the base of the optimizers."""
from __future__ import annotations

import numbers
import numpy as np

from ... import ops
from ...common.parameter import ParameterTuple
from ..cell import Cell
from ..learning_rate_schedule import LearningRateSchedule
from ...ops.composite import HyperMap, Map
from ...common.parameter import Parameter
from ...common.tensor import Tensor

__all__ = ["Optimizer"]


def _number(v, what, cls, low=0.0, low_ok=True):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{cls}: {what} must be a number, got {v!r}")
    v = float(v)
    if v < low or (v == low and not low_ok):
        raise ValueError(f"{cls}: {what} must be {'>=' if low_ok else '>'} {low}, got {v}")
    return v


def _lr_parameter(lr, name, cls):
    """A learning rate as a Parameter: 0-d for a fixed one, 1-D for one per step (a
    list or a 1-D Tensor: step i takes value i, the last one after the end)."""
    if isinstance(lr, Tensor):
        arr = lr.asnumpy().astype(np.float32)
    elif isinstance(lr, (list, tuple)):
        arr = np.asarray(lr, np.float32)
    else:
        arr = np.asarray(_number(lr, "learning_rate", cls), np.float32)
    if arr.ndim > 1 or arr.size == 0 or np.any(arr < 0):
        raise ValueError(f"{cls}: learning_rate must be a non-negative number or a non-empty "
                         f"1-D sequence of them, got {lr!r}")
    return Parameter(arr, name=name, requires_grad=False), arr.ndim == 1


def opt_init_args_register(fn):
    """MindSpore's decorator of optimizer __init__ methods: records the arguments
    (init_args) the optimizer was made with."""
    import functools
    import inspect

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        bound = inspect.signature(fn).bind(self, *args, **kwargs)
        bound.apply_defaults()
        init_args = dict(bound.arguments)
        init_args.pop("self", None)
        object.__setattr__(self, "init_args", init_args)
        return fn(self, *args, **kwargs)
    return wrapper


class Optimizer(Cell):
    """Base of optimizers: the Parameters (or groups of them, dicts with 'params' and
    optionally 'lr' and 'weight_decay'; a dict with 'order_params' fixes the order),
    the learning rate (fixed or per step), weight decay (L2, for Parameters whose names
    hold neither 'beta' nor 'gamma' unless grouped) and loss scale (gradients are
    divided by it)."""

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__()
        cls = type(self).__name__
        params, lrs, decays, flags, order = [], [], [], [], None
        items = list(parameters) if parameters is not None else []
        if not items:
            raise ValueError(f"{cls}: the optimizer got no Parameters")
        grouped = isinstance(items[0], dict)
        weight_decay = _number(weight_decay, "weight_decay", cls)
        self.loss_scale = _number(loss_scale, "loss_scale", cls, 0.0, low_ok=False)
        lr_index = []
        for g in items if grouped else [{"params": items}]:
            if not isinstance(g, dict):
                raise TypeError(f"{cls}: parameter groups are dicts, got {type(g).__name__}")
            if "order_params" in g:
                order = list(g["order_params"])
                continue
            group = list(g["params"])
            for p in group:
                if not isinstance(p, Parameter):
                    raise TypeError(f"{cls}: parameters must be Parameters, got "
                                    f"{type(p).__name__}")
            lrs.append(g.get("lr", learning_rate))
            wd = _number(g.get("weight_decay", weight_decay), "weight_decay", cls)
            for p in group:
                params.append(p)
                lr_index.append(len(lrs) - 1)
                flag = wd > 0 if grouped else ("beta" not in str(p.name) and
                                               "gamma" not in str(p.name))
                flags.append(flag)
                decays.append(wd if flag else 0.0)
        if order is not None:
            pos = {id(p): i for i, p in enumerate(params)}
            missing = [p.name for p in order if id(p) not in pos]
            if missing or len(order) != len(params):
                raise ValueError(f"{cls}: order_params must hold exactly the grouped "
                                 f"Parameters (not grouped: {missing})")
            perm = [pos[id(p)] for p in order]
            params = [params[i] for i in perm]
            lr_index = [lr_index[i] for i in perm]
            decays = [decays[i] for i in perm]
            flags = [flags[i] for i in perm]
        made = [(lr, True) if isinstance(lr, LearningRateSchedule) else
                _lr_parameter(lr, "learning_rate" if len(lrs) == 1 else
                              f"learning_rate_group_{i}", cls) for i, lr in enumerate(lrs)]
        dynamic = {d for _, d in made}
        if len(dynamic) > 1:
            raise ValueError(f"{cls}: give every group a fixed learning rate or every group "
                             f"one per step, not both")
        self.parameters = self._parameters = ParameterTuple(params)
        rates = tuple(p for p, _ in made)
        if all(isinstance(r, Parameter) for r in rates):
            # registered (MindSpore's group rates are a ParameterTuple too): a construct
            # built from source reads them as the Cell's state
            self.learning_rates = ParameterTuple(rates)
        elif any(isinstance(r, Parameter) for r in rates):
            raise ValueError(f"{cls}: give every group a LearningRateSchedule or none")
        else:
            self.learning_rates = rates
        self.learning_rate = self.learning_rates[0]
        self.dynamic_lr = dynamic.pop()
        self.is_group_lr = len(lrs) > 1
        self.lr_index = tuple(lr_index)
        self.decays = tuple(decays)
        # MindSpore's Optimizer attributes that subclasses (mindcv's AdamW, ...) read
        self.is_group = grouped
        self.decay_flags = tuple(bool(f) for f in flags)
        self.optim_filter = (True,) * len(params)
        self.param_length = len(params)
        self.use_parallel = False
        self.map_ = Map()
        self.map_reverse = Map(None, True)
        self.hyper_map = HyperMap()
        self.hyper_map_reverse = HyperMap(None, True)
        self.weight_decay = weight_decay
        self.exec_weight_decay = any(d > 0 for d in decays)
        self.need_scale = self.loss_scale != 1.0
        self.reciprocal_scale = 1.0 / self.loss_scale
        self.global_step = Parameter(np.zeros((1,), np.int32), name="global_step",
                                     requires_grad=False)

    def broadcast_params(self, optim_result):
        """The updated Parameters shared among the devices of a parallel optimizer
        (MindSpore); one process: the result itself."""
        return optim_result

    def decay_weight(self, gradients):
        """gradient + weight_decay * parameter, for the Parameters that decay."""
        if not self.exec_weight_decay:
            return gradients
        out = ()
        for i in range(len(self._parameters)):
            g = gradients[i]
            if self.decays[i] > 0:
                g = g + self._parameters[i] * self.decays[i]
            out += (g,)
        return out

    def scale_grad(self, gradients):
        """The gradients divided by the loss scale."""
        if not self.need_scale:
            return gradients
        return tuple(g * self.reciprocal_scale for g in gradients)

    def flatten_gradients(self, gradients):
        if len(gradients) != len(self._parameters):
            raise ValueError(f"{type(self).__name__} updates {len(self._parameters)} "
                             f"Parameters but got {len(gradients)} gradients")
        return gradients

    def get_lr(self):
        """The learning rate of this step (a tuple of one per group with grouped rates);
        one per step advances the step count."""
        if not self.dynamic_lr:
            return self.learning_rates if self.is_group_lr else self.learning_rate
        step = self.global_step
        lrs = ()
        for lr in self.learning_rates:
            if isinstance(lr, LearningRateSchedule):    # the rate of this step, computed
                lrs += (ops.reshape(lr(step), ()),)
                continue
            last = lr.shape[0] - 1
            lrs += (ops.reshape(ops.gather(lr, ops.minimum(step, last), 0), ()),)
        ops.assign_add(self.global_step, 1)
        return lrs if self.is_group_lr else lrs[0]

    # built from source when a construct calls it (frontend.calls), as the user's code: a
    # schedule's construct is then built like any called Cell's (its `if` on the step too)
    get_lr._graphjit_from_source = True

    def lr_of(self, lr, i):
        """The learning rate of Parameter i, from get_lr's value."""
        if self.is_group_lr:
            return lr[self.lr_index[i]]
        return lr

    def prepare(self, gradients):
        """The gradients each update takes: counted, decayed and scaled."""
        gradients = self.flatten_gradients(gradients)
        gradients = self.decay_weight(gradients)
        return self.scale_grad(gradients)
