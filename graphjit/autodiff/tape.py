"""The PYNATIVE tape: eager operators record themselves while a gradient is taken,
and the backward pass runs the registry's gradient rules over the records in
reverse (graphjit.ir.grad), on numpy arrays.

    with Tape() as tape:
        x = tape.watch(x)                  # a source: its gradient is wanted
        y = fn(x)                          # every eager op on tracked tensors records
    (dx,) = tape.gradients([(y, ones)], [x])

Python control flow needs nothing here: eager mode runs the branch taken and each
iteration, and the tape sees only the operators that ran. A record keeps the
arrays its rule may read. Tensors are tracked by identity (a slot per value), so
item assignment, which changes a tensor in place, rebinds the tensor to a new slot
(`rebind`) and the values saved before stay intact.
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..ir.errors import MissingGradientError
from ..ir.loc import SourceLoc
from ..ir.registry import NOT_DIFFERENTIABLE, get_op
from .eager import EagerBuilder, EagerNode

__all__ = ["Tape", "current", "missing_gradient"]

_state = threading.local()
# how many threads are recording a tape: while none is, current() needs no look-up of
# the thread's state (every eager operator asks)
_recording = 0
_recording_lock = threading.Lock()
_CUSTOM = "<custom gradient>"      # record_custom's records: attrs is the backward
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def current() -> Optional["Tape"]:
    """The tape recording in this thread, if any."""
    return getattr(_state, "tape", None) if _recording else None


def missing_gradient(op: str, loc=None) -> MissingGradientError:
    return MissingGradientError(
        f"cannot differentiate through op '{op}': it declares no gradient", loc=loc,
        hint=f"declare one (ops.register_op('{op}', ..., grad=rule)), or keep its result "
             f"out of what is differentiated (ops.stop_gradient)")


def _user_loc() -> Optional[SourceLoc]:
    """The innermost frame of the user's code (outside graphjit)."""
    f = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PACKAGE):
        f = f.f_back
    if f is None:
        return None
    import linecache
    return SourceLoc(f.f_code.co_filename, f.f_lineno, 0, function=f.f_code.co_name,
                     text=linecache.getline(f.f_code.co_filename, f.f_lineno))


class _Record:
    __slots__ = ("op", "attrs", "in_slots", "inputs", "out_slots", "outputs", "loc")

    def __init__(self, op, attrs, in_slots, inputs, out_slots, outputs, loc):
        self.op, self.attrs = op, attrs
        self.in_slots, self.inputs = in_slots, inputs
        self.out_slots, self.outputs = out_slots, outputs
        self.loc = loc


class Tape:
    """Records eager ops on tracked tensors in one thread (see the module docstring)."""

    def __init__(self):
        self.records: List[_Record] = []
        self.slot_of: Dict[int, int] = {}
        self.keep: List[object] = []      # every tracked tensor: ids stay unique
        self.n_slots = 0
        # each source's slot when it was watched: an in-place update (x[i] = v) rebinds
        # the tensor to the update's output, but the gradient asked for is x's as it came in
        self.source_slot: Dict[int, int] = {}

    def __enter__(self):
        if current() is not None:
            raise NotImplementedError(
                "a gradient was asked while another gradient is being taken (higher-order "
                "gradients are not supported in PYNATIVE mode)")
        global _recording
        with _recording_lock:
            _recording += 1
        _state.tape = self
        return self

    def __exit__(self, *exc):
        global _recording
        _state.tape = None
        with _recording_lock:
            _recording -= 1

    # -- recording --------------------------------------------------------------------------
    def _new_slot(self, tensor) -> int:
        s = self.n_slots
        self.n_slots += 1
        self.slot_of[id(tensor)] = s
        self.keep.append(tensor)
        return s

    def watch(self, tensor):
        """Make `tensor` a source; returns it."""
        self.source_slot[id(tensor)] = self._new_slot(tensor)
        return tensor

    def tracks(self, x) -> bool:
        return id(x) in self.slot_of

    def slot(self, x) -> Optional[int]:
        return self.slot_of.get(id(x))

    def record(self, op: str, attrs, inputs: Sequence, arrays: Sequence, outputs: Sequence):
        """Called by every eager op (after it ran): keep it if a tracked tensor went in
        and a tensor that is not bool came out."""
        slot_of = self.slot_of
        in_slots = [slot_of.get(id(x)) for x in inputs]
        if all(s is None for s in in_slots):
            return
        opdef = get_op(op)
        if opdef.grad is NOT_DIFFERENTIABLE:
            return
        out_slots = [self._new_slot(o) if o.dtype.is_differentiable else None for o in outputs]
        if all(s is None for s in out_slots):
            return
        loc = _user_loc() if opdef.grad is None else None
        self.records.append(_Record(op, attrs, in_slots, list(arrays),
                                    out_slots, [o._data for o in outputs], loc))

    def record_custom(self, inputs: Sequence, outputs: Sequence, backward) -> None:
        """Keep a record whose gradient is `backward(output_grads) -> input_grads`
        (lists of numpy arrays or None, one per output / input): the boundary of a Cell
        with backward hooks (common.cell_hooks). The outputs are new tensors (of slots of their
        own); inputs that are not tracked get no gradient."""
        in_slots = [self.slot_of.get(id(x)) for x in inputs]
        out_slots = [self._new_slot(o) if o.dtype.is_differentiable else None
                     for o in outputs]
        self.records.append(_Record(_CUSTOM, backward, in_slots, [], out_slots,
                                    [o._data for o in outputs], None))

    def rebind(self, tensor, new) -> None:
        """`tensor` now holds the value of `new` (after an in-place update)."""
        s = self.slot_of.get(id(new))
        if s is None:
            self.slot_of.pop(id(tensor), None)
        else:
            self.slot_of[id(tensor)] = s
            self.keep.append(tensor)

    # -- the backward pass --------------------------------------------------------------------
    def gradients(self, seeds: Sequence[Tuple[object, np.ndarray]],
                  sources: Sequence[object]) -> List[Optional[np.ndarray]]:
        """The adjoint of each source given the seed adjoint of some outputs; None where
        no gradient reached a source.

        Raises:
            MissingGradientError: a gradient reached an op that declares none (at the
                user's line that ran it).
        """
        b = EagerBuilder()
        adj: Dict[int, np.ndarray] = {}

        def add(slot, g):
            cur = adj.get(slot)
            adj[slot] = g if cur is None else b.add(cur, g)

        for t, seed in seeds:
            s = self.slot_of.get(id(t))
            if s is not None:
                add(s, seed)
        src = [self.source_slot.get(id(x), self.slot_of.get(id(x))) for x in sources]
        wanted = set(src)
        for rec in reversed(self.records):
            gs = [None if s is None else adj.get(s) for s in rec.out_slots]
            if all(g is None for g in gs):
                continue
            if rec.op is _CUSTOM:
                grads = rec.attrs(gs)
            else:
                opdef = get_op(rec.op)
                if opdef.grad is None:
                    raise missing_gradient(rec.op, rec.loc)
                n = EagerNode(b, rec.op, rec.attrs, rec.inputs, rec.outputs, gs,
                              [s is not None for s in rec.in_slots])
                grads = opdef.grad(b, n)
            for s, g in zip(rec.in_slots, grads):
                if s is not None and g is not None:
                    add(s, g)
            for s in rec.out_slots:      # consumed: free what no source needs
                if s is not None and s not in wanted:
                    adj.pop(s, None)
        return [None if s is None else adj.get(s) for s in src]
