"""Operators run for their effect: Print (at run time), Assert and the run-time checks.

Each declares `effects` (see registry.EFFECTS), so no pass removes, merges or moves it."""
from __future__ import annotations

import sys

import numpy as np

from ..registry import NOT_DIFFERENTIABLE, REQUIRED, register_op, set_grad
from ..text import build_exception, decode, exception_class
from .common import fail


def _print_infer(ts, attrs):
    return ()


def _print_factory(in_types, out_types, attrs):
    template, sep, end = attrs["template"], attrs["sep"], attrs["end"]

    dtypes = [t.dtype for t in in_types]

    def k(*xs):
        parts = [p if isinstance(p, str) else str(np.asarray(xs[p])) if isinstance(p, int)
                 else decode(p, xs, dtypes) for p in template]
        sys.stdout.write(sep.join(parts) + end)
    return k


register_op("Print", ("*xs",), {"template": REQUIRED, "sep": " ", "end": "\n"},
            infer=_print_infer, kernel=None, kernel_factory=_print_factory, family="extern",
            effects="io",
            doc="print the pieces of `template` (strings, indices of the inputs, or run-time "
                "strings described as in graphjit.ir.text) at run time")


def _raise_infer(ts, attrs):
    for key in ("exception", "cause"):
        spec = attrs[key]
        if spec is None and key == "cause":
            continue
        if not (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str)
                and exception_class(spec[0]) is not None):
            raise fail("Raise", f"{key} must be (name of a built-in exception class, args), "
                                f"got {spec!r}")
    return ()


def _raise_factory(in_types, out_types, attrs):
    dtypes = [t.dtype for t in in_types]
    spec, cause, from_none = attrs["exception"], attrs["cause"], attrs["from_none"]

    def k(*xs):
        e = build_exception(spec, xs, dtypes)
        e._graphjit_raised = True        # the user's own exception: raised as it is
        e._graphjit_noted = True
        if from_none:
            e.__cause__ = None
            e.__suppress_context__ = True
        elif cause is not None:
            e.__cause__ = build_exception(cause, xs, dtypes)
        raise e
    return k


register_op("Raise", ("*xs",), {"exception": REQUIRED, "cause": None, "from_none": False},
            infer=_raise_infer, kernel_factory=_raise_factory, family="extern",
            effects="check",
            doc="raise the user's exception (a built-in class; its args described as in "
                "graphjit.ir.text, over the inputs) whenever it runs: the run-time form of a "
                "`raise` reached on a path chosen by tensor values")


def _assert_infer(ts, attrs):
    if not ts[0].dtype.is_bool:
        raise fail("Assert", f"the condition must be bool, got {ts[0]}")
    return ()


def _assert_factory(in_types, out_types, attrs):
    msg, note = attrs["message"], attrs["note"]

    def k(c):
        if not bool(np.all(c)):
            e = AssertionError(msg) if msg else AssertionError()
            if note:                    # where: a note, so str(e) is Python's text
                e.add_note(note)
            e._graphjit_noted = True    # the user's own assertion
            e._graphjit_raised = True
            raise e
    return k


register_op("Assert", ("condition",), {"message": "", "note": ""}, infer=_assert_infer,
            kernel_factory=_assert_factory, family="extern", effects="check",
            doc="raise AssertionError(message) at run time if the condition is false (note: "
                "where the assert is, added to the exception as a note)")


def _nonzero_factory(in_types, out_types, attrs):
    msg = attrs["message"]

    def k(x):
        if not np.all(x):
            raise ZeroDivisionError(msg)
        return x
    return k


register_op("CheckNonZero", ("x",), {"message": "division by zero"},
            infer=lambda ts, attrs: ts[0], kernel_factory=_nonzero_factory, family="extern",
            effects="check",
            doc="x itself; raises ZeroDivisionError when it has a zero (Python's rule for "
                "dividing Python numbers)")


# binary -> (Python's exact operation, its symbol)
_EXACT = {"Add": (lambda a, b: a + b, "+"), "Sub": (lambda a, b: a - b, "-"),
          "Mul": (lambda a, b: a * b, "*")}


def _int_overflow_factory(in_types, out_types, attrs):
    exact, symbol = _EXACT[attrs["binary"]]

    def k(r, a, b):
        if r.ndim == 0 and int(r) != exact(int(a), int(b)):
            raise OverflowError(f"a Python int computed in the graph left int64: "
                                f"{int(a)} {symbol} {int(b)} = {exact(int(a), int(b))}")
        return r
    return k


def _int_overflow_infer(ts, attrs):
    if attrs["binary"] not in _EXACT:
        raise fail("CheckIntOverflow", f"binary must be one of {sorted(_EXACT)}, got "
                                       f"{attrs['binary']!r}")
    return ts[0]


register_op("CheckIntOverflow", ("result", "x", "y"), {"binary": REQUIRED},
            infer=_int_overflow_infer, kernel_factory=_int_overflow_factory,
            family="extern", effects="check",
            doc="result itself, the int64 result of `x binary y` for values standing for Python "
                "ints; raises OverflowError where it wrapped (a Python int grows instead)")


def _bound_factory(in_types, out_types, attrs):
    name = attrs["name"]

    def k(ran):
        if not bool(np.all(ran)):
            e = UnboundLocalError(f"cannot access local variable '{name}' where it is not "
                                  f"associated with a value (the loop that assigns it ran "
                                  f"zero times, or no iteration got to the assignment)")
            e._graphjit_names = (name,)
            e._graphjit_hint = f"assign '{name}' before the loop"
            raise e
    return k


register_op("CheckBound", ("ran",), {"name": REQUIRED}, infer=lambda ts, attrs: (),
            kernel_factory=_bound_factory, family="extern", effects="check",
            doc="raise UnboundLocalError unless `ran` (the loop that binds `name` ran)")


_CHECK_ERRORS = {"KeyError": KeyError, "IndexError": IndexError, "ValueError": ValueError,
                 "RuntimeError": RuntimeError}


def _check_infer(ts, attrs):
    if attrs["error"] not in _CHECK_ERRORS:
        raise ValueError(f"Check: error must be one of {sorted(_CHECK_ERRORS)}, got "
                         f"{attrs['error']!r}")
    return ()


def _check_factory(in_types, out_types, attrs):
    cls, msg = _CHECK_ERRORS[attrs["error"]], attrs["message"]

    def k(ok):
        if not bool(np.all(ok)):
            raise cls(msg)
    return k


register_op("Check", ("ok",), {"error": "ValueError", "message": ""},
            infer=_check_infer, kernel_factory=_check_factory, family="extern",
            effects="check",
            doc="raise error(message) (KeyError, IndexError, ValueError or RuntimeError) "
                "unless ok: the run-time form of a Python check")


# run for their effect (no outputs): nothing to differentiate
for _name in ("Print", "Assert", "CheckBound", "Check", "Raise"):
    set_grad(_name, NOT_DIFFERENTIABLE)
# an int result: its gradient is zero
set_grad("CheckIntOverflow", NOT_DIFFERENTIABLE)
