"""Argument checks shared by the layers (MindSpore's `mindspore._checkparam`):
positive ints, data formats and input ranks."""
from __future__ import annotations

from .ops._dispatch import to_tensor

__all__ = ["check_rank"]


def _positive_int(v, what, layer):
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise TypeError(f"{layer}: {what} must be a positive int, got {v!r}")
    return v


def _check_format(data_format, layer):
    if data_format != "NCHW":
        raise ValueError(f"{layer}: only data_format='NCHW' is supported, got {data_format!r}")


def check_rank(x, ranks, layer):
    """Refuse an input whose rank is not one of `ranks` (an unknown rank passes)."""
    r = to_tensor(x).type.rank
    if r is not None and r not in ranks:
        want = " or ".join(str(n) for n in ranks)
        raise ValueError(f"{layer} expects an input of rank {want}, got {to_tensor(x).type}")


# -- MindSpore 2.x's public checks (`from mindspore import _checkparam as validator`): the
# functions model code calls in __init__ to check its arguments -------------------------------
EQ, NE, LT, LE, GT, GE = 1, 2, 3, 4, 5, 6
INC_NEITHER, INC_LEFT, INC_RIGHT, INC_BOTH = 7, 8, 9, 10

_REL = {EQ: ("==", lambda x, v: x == v), NE: ("!=", lambda x, v: x != v),
        LT: ("<", lambda x, v: x < v), LE: ("<=", lambda x, v: x <= v),
        GT: (">", lambda x, v: x > v), GE: (">=", lambda x, v: x >= v)}
_RANGE = {INC_NEITHER: ("({}, {})", lambda x, lo, hi: lo < x < hi),
          INC_LEFT: ("[{}, {})", lambda x, lo, hi: lo <= x < hi),
          INC_RIGHT: ("({}, {}]", lambda x, lo, hi: lo < x <= hi),
          INC_BOTH: ("[{}, {}]", lambda x, lo, hi: lo <= x <= hi)}


def _who(arg_name, prim_name):
    prefix = f"For '{prim_name}', the" if prim_name else "The"
    return f"{prefix} '{arg_name}'" if arg_name else f"{prefix} input value"


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_value_type(arg_name, arg_value, valid_types, prim_name=None):
    """arg_value if it is an instance of one of valid_types (a bool is not an int)."""
    valid = tuple(valid_types) if isinstance(valid_types, (list, tuple)) else (valid_types,)
    if isinstance(arg_value, bool) and bool not in valid:
        ok = False
    else:
        ok = isinstance(arg_value, valid)
    if not ok:
        names = [getattr(t, "__name__", str(t)) for t in valid]
        raise TypeError(f"{_who(arg_name, prim_name)} must be type of {names}, but got "
                        f"'{type(arg_value).__name__}'.")
    return arg_value


def _compare(arg_value, value, rel, kind, arg_name, prim_name):
    if rel not in _REL:
        raise ValueError(f"unknown comparison {rel!r}")
    sym, ok = _REL[rel]
    if not ok(arg_value, value):
        raise ValueError(f"{_who(arg_name, prim_name)} must be {kind}{sym} {value}, but got "
                         f"{arg_value}.")
    return arg_value


def check_number(arg_value, value, rel, arg_name=None, prim_name=None):
    if not _is_number(arg_value):
        raise TypeError(f"{_who(arg_name, prim_name)} must be a number, but got "
                        f"'{type(arg_value).__name__}'.")
    return _compare(arg_value, value, rel, "", arg_name, prim_name)


def check_int(arg_value, value, rel, arg_name=None, prim_name=None):
    check_is_int(arg_value, arg_name, prim_name)
    return _compare(arg_value, value, rel, "", arg_name, prim_name)


def check_equal_int(arg_value, value, arg_name=None, prim_name=None):
    return check_int(arg_value, value, EQ, arg_name, prim_name)


def check_is_int(arg_value, arg_name=None, prim_name=None):
    if not _is_int(arg_value):
        raise TypeError(f"{_who(arg_name, prim_name)} must be int, but got "
                        f"'{type(arg_value).__name__}'.")
    return arg_value


def check_is_float(arg_value, arg_name=None, prim_name=None):
    if not isinstance(arg_value, float):
        raise TypeError(f"{_who(arg_name, prim_name)} must be float, but got "
                        f"'{type(arg_value).__name__}'.")
    return arg_value


def check_positive_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, GT, arg_name, prim_name)


def check_non_negative_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, GE, arg_name, prim_name)


def check_negative_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, LT, arg_name, prim_name)


def check_positive_float(arg_value, arg_name=None, prim_name=None):
    check_is_float(arg_value, arg_name, prim_name)
    return _compare(arg_value, 0, GT, "", arg_name, prim_name)


def check_non_negative_float(arg_value, arg_name=None, prim_name=None):
    check_is_float(arg_value, arg_name, prim_name)
    return _compare(arg_value, 0, GE, "", arg_name, prim_name)


def check_number_range(arg_value, lower_limit, upper_limit, rel, value_type, arg_name=None,
                       prim_name=None):
    """arg_value if it is a value_type inside the range rel (INC_NEITHER, INC_LEFT,
    INC_RIGHT, INC_BOTH) makes of the limits."""
    if isinstance(arg_value, bool) or not isinstance(arg_value, value_type):
        raise TypeError(f"{_who(arg_name, prim_name)} must be {value_type.__name__}, but got "
                        f"'{type(arg_value).__name__}'.")
    if rel not in _RANGE:
        raise ValueError(f"unknown range {rel!r}")
    fmt, ok = _RANGE[rel]
    if not ok(arg_value, lower_limit, upper_limit):
        raise ValueError(f"{_who(arg_name, prim_name)} must be in range of "
                         f"{fmt.format(lower_limit, upper_limit)}, but got {arg_value}.")
    return arg_value


def check_int_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    return check_number_range(arg_value, lower_limit, upper_limit, rel, int, arg_name, prim_name)


def check_float_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    return check_number_range(arg_value, lower_limit, upper_limit, rel, float,
                              arg_name, prim_name)


def check_bool(arg_value, arg_name=None, prim_name=None):
    if not isinstance(arg_value, bool):
        raise TypeError(f"{_who(arg_name, prim_name)} must be bool, but got "
                        f"'{type(arg_value).__name__}'.")
    return arg_value


def check_string(arg_value, valid_values, arg_name=None, prim_name=None):
    if isinstance(arg_value, str) and arg_value in valid_values:
        return arg_value
    raise ValueError(f"{_who(arg_name, prim_name)} must be str and must be in {list(valid_values)}"
                     f", but got '{arg_value}'.")


def check_isinstance(arg_name, arg_value, classes):
    if not isinstance(arg_value, classes):
        raise ValueError(f"The '{arg_name}' must be {classes}, but got {type(arg_value)}.")
    return arg_value


__all__ += ["EQ", "NE", "LT", "LE", "GT", "GE", "INC_NEITHER", "INC_LEFT", "INC_RIGHT",
            "INC_BOTH", "check_value_type", "check_number", "check_int", "check_equal_int",
            "check_is_int", "check_is_float", "check_positive_int", "check_non_negative_int",
            "check_negative_int", "check_positive_float", "check_non_negative_float",
            "check_number_range", "check_int_range", "check_float_range", "check_bool",
            "check_string", "check_isinstance"]
