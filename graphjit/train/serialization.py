"""MindSpore's checkpoint functions: save_checkpoint, load_checkpoint and
load_param_into_net. A checkpoint is a numpy .npz archive (no pickle) of the
Parameters by their names in the Cell (`fc1.weight`, as parameters_and_names gives
them), under the file name given (".ckpt" added when it has no suffix, as MindSpore)."""
from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from ..nn import Cell
from ..common.parameter import Parameter
from ..common.tensor import Tensor

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]


def _path(name):
    name = os.fspath(name)
    if not isinstance(name, str) or not name:
        raise ValueError(f"the checkpoint file name must be a non-empty str, got {name!r}")
    return name if name.endswith(".ckpt") else name + ".ckpt"


def _items(save_obj):
    if isinstance(save_obj, Cell):
        return [(p.name, p) for _, p in save_obj.parameters_and_names()]
    if isinstance(save_obj, dict):
        return list(save_obj.items())
    if isinstance(save_obj, (list, tuple)):
        out = []
        for d in save_obj:
            if not isinstance(d, dict) or set(d) != {"name", "data"}:
                raise TypeError("save_checkpoint: a list holds dicts {'name': ..., 'data': "
                                "...}")
            out.append((d["name"], d["data"]))
        return out
    raise TypeError(f"save_checkpoint: save_obj must be a Cell, a dict or a list of dicts, "
                    f"got {type(save_obj).__name__}")


def _array(name, v):
    if isinstance(v, (Tensor, Parameter)):
        return np.asarray(v.asnumpy())
    if isinstance(v, (bool, int, float, np.ndarray, np.number)):
        return np.asarray(v)
    raise TypeError(f"save_checkpoint: the value of {name!r} must be a Tensor, a Parameter, "
                    f"a number or an array, got {type(v).__name__}")


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, **kwargs):
    """Write the Parameters of a Cell (or the name/data pairs of a dict or a list of
    {'name', 'data'} dicts), plus append_dict's entries, to ckpt_file_name."""
    arrays = OrderedDict()
    for name, v in _items(save_obj) + list((append_dict or {}).items()):
        if not isinstance(name, str) or not name:
            raise ValueError(f"save_checkpoint: names must be non-empty strs, got {name!r}")
        if name in arrays:
            raise ValueError(f"save_checkpoint: the name {name!r} appears twice")
        arrays[name] = _array(name, v)
    with open(_path(ckpt_file_name), "wb") as f:
        np.savez(f, **arrays)


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    specify_prefix=None, **kwargs):
    """The checkpoint as an OrderedDict name -> Parameter (without the names that start
    with filter_prefix, or only those that start with specify_prefix); loaded into net
    too when it is given."""
    path = os.fspath(ckpt_file_name)
    if not os.path.exists(path) and os.path.exists(path + ".ckpt"):
        path += ".ckpt"
    if not os.path.exists(path):
        raise ValueError(f"load_checkpoint: the checkpoint file {path!r} does not exist")

    def prefixes(p):
        return () if p is None else ((p,) if isinstance(p, str) else tuple(p))
    drop, keep = prefixes(filter_prefix), prefixes(specify_prefix)
    out = OrderedDict()
    with np.load(path, allow_pickle=False) as z:
        for name in z.files:
            if drop and name.startswith(drop) or keep and not name.startswith(keep):
                continue
            out[name] = Parameter(np.array(z[name]), name=name)
    if net is not None:
        load_param_into_net(net, out, strict_load)
    return out


def load_param_into_net(net, parameter_dict, strict_load=False):
    """Copy the checkpoint's values into the Parameters of net with the same names (a
    compiled graph reads them at its next run). Returns (param_not_load,
    ckpt_not_load): the net's Parameter names that got no value, and the checkpoint's
    names that went nowhere. A value of another shape is a RuntimeError."""
    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, got "
                        f"{type(parameter_dict).__name__}")
    used, param_not_load = set(), []
    for _, p in net.parameters_and_names():
        name = p.name
        v = parameter_dict.get(name)
        if v is None:
            param_not_load.append(name)
            continue
        arr = _array(name, v)
        if arr.shape != tuple(p.shape):
            raise RuntimeError(f"load_param_into_net: {name!r} has shape {tuple(p.shape)} in "
                               f"the net but {arr.shape} in the checkpoint")
        p.set_data(arr)
        used.add(name)
    ckpt_not_load = [n for n in parameter_dict if n not in used]
    return param_not_load, ckpt_not_load
