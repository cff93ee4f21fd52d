"""MindSpore's checkpoint functions: save_checkpoint, load_checkpoint and
load_param_into_net, over MindSpore's own `.ckpt` format (graphjit.train.ckpt_format:
the protobuf Checkpoint message, read and written by hand), so checkpoints move both
ways between MindSpore and graphjit. Entries are keyed on Parameter.name (the full cell
path, `layer1.0.conv1.weight`). Older graphjit checkpoints (a numpy .npz under a .ckpt
name) are still read; nothing on load executes code (no pickle).

A checkpoint is written to a temporary file beside it and renamed into place, so a
reader never sees half of one (nor does a crash leave half of one behind). In a
data-parallel job (graphjit.communication.init under mpirun) only rank 0 writes:
every process holds the same Parameters."""
from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from ..ir.errors import ModelFileError
from ..ir.defs.collective import WORLD_GROUP, communicator
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..nn import Cell
from .ckpt_format import decode_checkpoint, encode_checkpoint

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "write_atomically"]

_ZIP = b"PK\x03\x04"       # an .npz (graphjit's checkpoints before the .ckpt format)


def _path(name):
    name = os.fspath(name)
    if not isinstance(name, str) or not name:
        raise ValueError(f"the checkpoint file name must be a non-empty str, got {name!r}")
    return name if name.endswith("ckpt") else name + ".ckpt"


def _items(save_obj):
    if isinstance(save_obj, Cell):
        return [(p.name, p) for _, p in save_obj.parameters_and_names()]
    if isinstance(save_obj, dict):
        return list(save_obj.items())
    if isinstance(save_obj, (list, tuple)):
        out = []
        for d in save_obj:
            if isinstance(d, Parameter):              # net.trainable_params()
                out.append((d.name, d))
                continue
            if not isinstance(d, dict) or set(d) != {"name", "data"}:
                raise TypeError("save_checkpoint: a list holds Parameters or dicts "
                                "{'name': ..., 'data': ...}")
            out.append((d["name"], d["data"]))
        return out
    raise TypeError(f"save_checkpoint: save_obj must be a Cell, a dict or a list, got "
                    f"{type(save_obj).__name__}")


def _value(name, v):
    """The array (or str) saved for v, in MindSpore's dtypes (a Python int is Int64 and a
    float Float32, as Tensor(v) makes them)."""
    if isinstance(v, (Tensor, Parameter)):
        return np.asarray(v.asnumpy())
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return np.asarray(v)
    if isinstance(v, int):
        return np.asarray(v, np.int64)
    if isinstance(v, float):
        return np.asarray(v, np.float32)
    if isinstance(v, (np.ndarray, np.number, np.bool_)):
        return np.asarray(v)
    raise TypeError(f"save_checkpoint: the value of {name!r} must be a Tensor, a Parameter, "
                    f"a number, a str or an array, got {type(v).__name__}")


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    crc_check=False, format="ckpt", **kwargs):
    """Write the Parameters of a Cell (by Parameter.name; or the items of a dict, a list
    of Parameters or of {'name', 'data'} dicts), plus append_dict's entries, to
    ckpt_file_name in MindSpore's .ckpt format (".ckpt" added when missing).
    choice_func(name) keeps the names it returns True for; crc_check appends a CRC."""
    if format != "ckpt":
        raise ValueError(f"save_checkpoint: graphjit writes format='ckpt' only, got "
                         f"{format!r}")
    if enc_key is not None:
        raise NotImplementedError("save_checkpoint: encrypted checkpoints (enc_key) are not "
                                  "supported")
    items = OrderedDict()
    for name, v in _items(save_obj) + list((append_dict or {}).items()):
        if not isinstance(name, str) or not name:
            raise ValueError(f"save_checkpoint: names must be non-empty strs, got {name!r}")
        if choice_func is not None and not choice_func(name):
            continue
        if name in items:
            raise ValueError(f"save_checkpoint: the name {name!r} appears twice (two "
                             f"Parameters with one name: see Cell.check_names)")
        items[name] = _value(name, v)
    data = encode_checkpoint(items, crc_check=bool(crc_check))
    path = _path(ckpt_file_name)
    if communicator(WORLD_GROUP).rank != 0:
        return          # data-parallel: rank 0 writes what every process holds
    write_atomically(path, lambda f: f.write(data))


def write_atomically(path: str, write) -> None:
    """write(file) into a temporary file beside path (named after this process, so two
    writers never share one), then rename it to path; nothing is left on failure."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _read(path, crc_check):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == _ZIP:                      # a graphjit .npz checkpoint (no pickle)
        try:
            with np.load(path, allow_pickle=False) as z:
                return OrderedDict((k, np.array(z[k])) for k in z.files)
        except Exception as e:   # a damaged archive: zipfile and numpy raise many kinds
            raise ModelFileError(f"the checkpoint {path!r} (a graphjit .npz checkpoint) is "
                                 f"damaged: {type(e).__name__}: {e}") from None
    try:
        return decode_checkpoint(data, crc_check=crc_check)
    except ModelFileError as e:
        raise e.with_context(prefix=f"load_checkpoint({path!r}): ") from None


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    crc_check=False, remove_redundancy=False, format="ckpt", **kwargs):
    """The checkpoint as a dict name -> Parameter (a str for a string entry), in file
    order: only the names that start with specify_prefix, without those that start with
    filter_prefix, or those choice_func(name) keeps; loaded into net too when given.

    Raises:
        ValueError: no such file, or nothing left after the filters.
        ModelFileError (a ValueError): the file is damaged or not a checkpoint.
    """
    if dec_key is not None:
        raise NotImplementedError("load_checkpoint: encrypted checkpoints (dec_key) are not "
                                  "supported")
    path = os.fspath(ckpt_file_name)
    if not os.path.exists(path) and os.path.exists(path + ".ckpt"):
        path += ".ckpt"
    if not os.path.isfile(path):
        raise ValueError(f"load_checkpoint: the checkpoint file {path!r} does not exist")

    def prefixes(p):
        return () if p is None else ((p,) if isinstance(p, str) else tuple(p))
    drop, keep = prefixes(filter_prefix), prefixes(specify_prefix)
    out = OrderedDict()
    for name, v in _read(path, bool(crc_check)).items():
        if drop and name.startswith(drop) or keep and not name.startswith(keep):
            continue
        if not drop and not keep and choice_func is not None and not choice_func(name):
            continue
        out[name] = v if isinstance(v, str) else Parameter(v, name=name)
    if not out:
        raise ValueError("load_checkpoint: the loaded parameter dict is empty after "
                         "filter_prefix, specify_prefix or choice_func")
    if net is not None:
        load_param_into_net(net, out, strict_load)
    return out


def _update(p, name, v, strict_load):
    """MindSpore's _update_param: the shapes must agree, except that a value with extra
    trailing dimensions of size 1 is reshaped to the net's ((12, 2048, 1, 1) into
    (12, 2048)); a value of another float (or signed int) width is converted unless
    strict_load."""
    arr = v.asnumpy() if isinstance(v, Tensor) else np.asarray(v)
    shape = tuple(p.shape)
    if arr.shape != shape:
        extra = arr.shape[len(shape):]
        # MindSpore checks only the extra dimensions (and would reshape (3, 2, 1) into
        # (2, 3)); graphjit also wants the leading ones equal: never a silent reshuffle
        if arr.shape[:len(shape)] == shape and extra and all(d == 1 for d in extra):
            arr = arr.reshape(shape)
        else:
            raise RuntimeError(
                f"For 'load_param_into_net', {name} in the argument 'net' should have the same "
                f"shape as {name} in the argument 'parameter_dict'. But got its shape {shape} in"
                f" the argument 'net' and shape {arr.shape} in the argument 'parameter_dict'."
                f"May you need to check whether the checkpoint you loaded is correct or the "
                f"batch size and so on in the 'net' and 'parameter_dict' are same.")
    want = p.asnumpy().dtype
    if arr.dtype != want:
        same_kind = arr.dtype.kind == want.kind and want.kind in "fi"
        if strict_load or not same_kind:
            raise RuntimeError(
                f"For 'load_param_into_net', {name} in the argument 'net' should have the same "
                f"type as {name} in the argument 'parameter_dict'. but got its type {p.dtype} in "
                f"the argument 'net' and type {_dtype_name(arr.dtype)} in the argument "
                f"'parameter_dict'.May you need to check whether the checkpoint you loaded is "
                f"correct.")
    p._set_data_unchecked(arr)


def _dtype_name(np_dtype):
    try:
        return str(Tensor(np.zeros((), np_dtype)).dtype)
    except (TypeError, ValueError):
        return str(np_dtype)


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy the dict's values into the Parameters of net with the same names
    (Parameter.name; a compiled graph reads them at its next run). Without strict_load,
    names still missing are matched once more after dropping a prefix the dict's names
    share (as MindSpore does), and a float value of another width is converted.

    Returns:
        (param_not_load, ckpt_not_load): the net's Parameter names that got no value,
        and the dict's names that went nowhere (MindSpore 2.x).
    """
    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, got "
                        f"{type(parameter_dict).__name__}")
    params = [p for _, p in net.parameters_and_names()]
    ckpt_not_load = list(parameter_dict)
    param_not_load = []
    for p in params:
        v = parameter_dict.get(p.name)
        if v is None or isinstance(v, str):
            param_not_load.append(p.name)
            continue
        _update(p, p.name, v, strict_load)
        if p.name in ckpt_not_load:     # two Parameters of one name take one value
            ckpt_not_load.remove(p.name)
    if param_not_load and not strict_load:
        prefix = _common_prefix(parameter_dict, param_not_load)
        if prefix:
            for p in params:
                key = prefix + p.name
                if p.name in param_not_load and key in parameter_dict and \
                        not isinstance(parameter_dict[key], str):
                    _update(p, key, parameter_dict[key], strict_load)
                    param_not_load.remove(p.name)
                    if key in ckpt_not_load:
                        ckpt_not_load.remove(key)
    return param_not_load, ckpt_not_load


def _common_prefix(parameter_dict, missing):
    """The prefix that makes a dict name end in a missing Parameter's name ('backbone.'
    for 'backbone.fc.weight' and 'fc.weight'), or ''."""
    for name in missing:
        for key in parameter_dict:
            if key != name and key.endswith("." + name):
                return key[:-len(name)]
    return ""
