"""ONNX node -> graphjit nodes: the losses (NegativeLogLikelihoodLoss,
SoftmaxCrossEntropyLoss), composed of GatherD, Gather, LogSoftmax and reductions as
the ONNX reference computes them (its weighting of a 'mean' included)."""
from __future__ import annotations

from ..ir import dtypes as D
from .import_nn import _rank
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS


def _nll(cx: NodeCx, logp, target, weight, reduction: str, ignore, mask_unweighted: bool):
    """The loss of log-probabilities logp (N, C, d...) at target (N, d...): -logp at the
    target class times its weight (0 where target == ignore); 'mean' divides the sum by
    the sum of the weights when there are any (mask_unweighted: an ignore_index makes
    0/1 weights even without a weight input)."""
    if _rank(cx, logp) < 2 or target.shape is None or len(target.shape) != len(logp.shape) - 1:
        raise cx.where.damaged(f"the input {logp.type} and target {target.type} do not fit "
                               f"(N, C, d...) and (N, d...)")
    if not target.dtype.is_integer:
        raise cx.where.damaged(f"the target must be integers, got {target.type}")
    if reduction not in ("none", "sum", "mean"):
        raise cx.where.damaged(f"reduction must be 'none', 'sum' or 'mean', got {reduction!r}")
    t = cx.keep(target, D.int64)
    ignored = None
    if ignore is not None:
        ignored = cx.emit("Equal", t, cx.array(ignore, D.int64))
        t = cx.emit("Select", ignored, cx.array(0, D.int64), t)
    picked = cx.emit("GatherD", logp, cx.emit("ExpandDims", t, axis=1), dim=1)
    loss = cx.emit("Neg", cx.emit("Squeeze", picked, axis=1))
    w = None
    if weight is not None:
        c = logp.shape[1]
        if c is None:
            raise cx.refuse("a weighted loss needs the class count known while building")
        clipped = cx.emit("Minimum", cx.emit("Maximum", t, cx.array(0, D.int64)),
                          cx.array(c - 1, D.int64))
        w = cx.emit("Gather", weight, clipped, axis=0)
    elif ignored is not None and mask_unweighted:
        w = cx.emit("OnesLike", loss)
    if ignored is not None:
        loss = cx.emit("Select", ignored, cx.scalar(0, loss), loss)
        if w is not None:
            w = cx.emit("Select", ignored, cx.scalar(0, w), w)
    if w is not None:
        loss = cx.emit("Mul", w, loss)
        if reduction == "mean":
            return cx.emit("RealDiv", cx.emit("ReduceSum", loss, axis=None, keep_dims=False),
                           cx.emit("ReduceSum", w, axis=None, keep_dims=False))
    if reduction == "mean":
        return cx.emit("ReduceMean", loss, axis=None, keep_dims=False)
    if reduction == "sum":
        return cx.emit("ReduceSum", loss, axis=None, keep_dims=False)
    return loss


def _ignore(cx):
    return cx.attrs.int("ignore_index") if cx.attrs.has("ignore_index") else None


@op("NegativeLogLikelihoodLoss")
def _nll_loss(cx):
    x = cx.x(0)
    ignore = _ignore(cx)
    y = _nll(cx, x, cx.x(1), cx.opt(2), cx.attrs.string("reduction", "mean"), ignore,
             mask_unweighted=ignore != -1)
    return [cx.keep(y, x.dtype)]


@op("SoftmaxCrossEntropyLoss")
def _sce_loss(cx):
    x = cx.x(0)
    if not x.dtype.is_floating:
        raise cx.where.damaged(f"the scores must be floats, got {x.type}")
    _rank(cx, x)
    logp = cx.emit("LogSoftmax", x, axis=1)
    y = _nll(cx, logp, cx.x(1), cx.opt(2), cx.attrs.string("reduction", "mean"), _ignore(cx),
             mask_unweighted=True)
    return [cx.keep(y, x.dtype), logp]

