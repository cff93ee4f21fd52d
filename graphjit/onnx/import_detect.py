"""ONNX node -> graphjit nodes: NonMaxSuppression. The greedy selection is sequential,
so it is unrolled over the (static) boxes of each batch and class, in the order of
descending score (ties: the lower index first, as the ONNX reference); the selected
(batch, class, box) rows are masked out of the table of all of them (their count known
only at run time). Too many boxes for an unrolled graph are refused."""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from .import_math import _static
from .import_ops import NodeCx, op

__all__: list = []    # the translations register themselves in import_ops.OPS

_MAX_STEPS = 4096        # boxes x classes x batches unrolled


def _corners(cx, boxes, center):
    """(x_min, x_max, y_min, y_max) of boxes (..., 4), each (..., 1)."""
    col = lambda i: cx.emit("Index", boxes, index=(("slice", None, None, None),) *  # noqa
                            (len(boxes.shape) - 1) + (("slice", i, i + 1, None),))
    if center:
        half = cx.scalar(0.5, boxes)
        cxs, cys = col(0), col(1)
        hw, hh = cx.emit("Mul", col(2), half), cx.emit("Mul", col(3), half)
        return (cx.emit("Sub", cxs, hw), cx.emit("Add", cxs, hw), cx.emit("Sub", cys, hh),
                cx.emit("Add", cys, hh))
    y1, x1, y2, x2 = col(0), col(1), col(2), col(3)
    return (cx.emit("Minimum", x1, x2), cx.emit("Maximum", x1, x2),
            cx.emit("Minimum", y1, y2), cx.emit("Maximum", y1, y2))


def _suppresses(cx, boxes, center, thr):
    """(B, B) bool: box i and box j overlap with IoU above thr (the reference's
    suppress_by_iou: no intersection or an empty box never suppresses)."""
    x0, x1, y0, y1 = _corners(cx, boxes, center)          # (B, 1) each
    t = lambda v: cx.emit("Transpose", v, perm=(1, 0))     # noqa: E731
    ix = cx.emit("Sub", cx.emit("Minimum", x1, t(x1)), cx.emit("Maximum", x0, t(x0)))
    iy = cx.emit("Sub", cx.emit("Minimum", y1, t(y1)), cx.emit("Maximum", y0, t(y0)))
    zero = cx.scalar(0, boxes)
    inter = cx.emit("Mul", ix, iy)
    area = cx.emit("Mul", cx.emit("Sub", x1, x0), cx.emit("Sub", y1, y0))
    union = cx.emit("Sub", cx.emit("Add", area, t(area)), inter)
    ok = cx.emit("LogicalAnd", cx.emit("Greater", ix, zero), cx.emit("Greater", iy, zero))
    ok = cx.emit("LogicalAnd", ok, cx.emit("Greater", inter, zero))
    ok = cx.emit("LogicalAnd", ok, cx.emit("LogicalAnd", cx.emit("Greater", area, zero),
                                           cx.emit("Greater", t(area), zero)))
    ok = cx.emit("LogicalAnd", ok, cx.emit("Greater", union, zero))
    safe = cx.emit("Select", ok, union, cx.scalar(1, boxes))
    return cx.emit("LogicalAnd", ok, cx.emit("Greater", cx.emit("RealDiv", inter, safe),
                                             cx.scalar(thr, boxes)))


@op("NonMaxSuppression")
def _nms(cx: NodeCx):
    boxes, scores = cx.x(0), cx.x(1)
    nb, nbox, four = _static(cx, boxes, "boxes")
    nb2, ncls, nbox2 = _static(cx, scores, "scores")
    if four != 4 or nb2 != nb or nbox2 != nbox:
        raise cx.where.damaged(f"boxes {boxes.type} and scores {scores.type} do not fit")
    if nb * ncls * nbox > _MAX_STEPS:
        raise cx.refuse(f"NonMaxSuppression of {nbox} boxes x {ncls} classes x {nb} batches "
                        f"is too large for graphjit's unrolled form (at most {_MAX_STEPS})")
    first = lambda c: None if c is None or c.size == 0 else c.reshape(-1)[0].item()  # noqa
    limit = first(cx.const(2, "max_output_boxes_per_class"))
    limit = 0 if limit is None else max(int(limit), 0)
    thr = first(cx.const(3, "iou_threshold"))
    thr = 0.0 if thr is None else float(thr)
    score_thr = first(cx.const(4, "score_threshold"))
    center = cx.attrs.int("center_point_box", 0)
    rows, keeps = [], []
    for b in range(nb):
        bx = cx.emit("Index", boxes, index=(b,))
        supp = _suppresses(cx, bx, center, thr)
        for c in range(ncls):
            s = cx.emit("Index", scores, index=(b, c))
            vals, order = cx.emit("TopK", s, k=nbox, axis=-1, largest=True, sorted=True)
            order = cx.keep(order, D.int64)
            ss = cx.emit("Gather", cx.emit("Gather", supp, order, axis=0), order, axis=1)
            kept, count = [], cx.array(np.int64(0))
            for i in range(nbox):
                ok = cx.emit("Less", count, cx.array(np.int64(limit)))
                if score_thr is not None:
                    ok = cx.emit("LogicalAnd", ok, cx.emit(
                        "Greater", cx.emit("Index", vals, index=(i,)),
                        cx.scalar(score_thr, vals)))
                if kept:
                    before = cx.emit("Stack", *kept, axis=0)
                    hit = cx.emit("LogicalAnd", before, cx.emit(
                        "Index", ss, index=(i, ("slice", 0, i, None))))
                    blocked = cx.emit("Cast", cx.emit("ReduceMax", cx.emit(
                        "Cast", hit, dtype=D.int32), axis=0, keep_dims=False), dtype=D.bool_)
                    ok = cx.emit("LogicalAnd", ok, cx.emit("LogicalNot", blocked))
                kept.append(ok)
                count = cx.emit("Add", count, cx.emit("Cast", ok, dtype=D.int64))
            keeps.append(cx.emit("Stack", *kept, axis=0))
            lead = cx.array(np.array([[b, c]] * nbox, np.int64))
            rows.append(cx.emit("Concat", lead, cx.emit("ExpandDims", order, axis=1), axis=1))
    table = rows[0] if len(rows) == 1 else cx.emit("Concat", *rows, axis=0)
    mask = keeps[0] if len(keeps) == 1 else cx.emit("Concat", *keeps, axis=0)
    return [cx.emit("BooleanMask", table, mask)]
