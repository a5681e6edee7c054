"""Adjusting a family of p-values for multiplicity: along the last axis, or over the pairs of a matrix.

With the m p-values of a family sorted, p_(1) <= ... <= p_(m):

* Holm's (1979) step-down adjustment, which controls the family-wise error rate::

      adjusted p_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))

  A hypothesis is rejected at level alpha when its adjusted p-value is <= alpha (the same as the step-down
  comparison of p_(i) with alpha / (m - i + 1), stopping at the first that is not rejected).
* Benjamini & Hochberg's (1995) step-up adjustment, which controls the false discovery rate of independent
  or positively dependent tests::

      adjusted p_(i) = min(1, min_{j >= i} m p_(j) / j)

NaN p-values (a test without evidence either way) stay NaN and are not counted in m.
"""

from __future__ import annotations

import numpy as np

ADJUSTMENTS = ("holm", "bh")


def holm(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values of the families along the last axis of ``p`` (any leading shape)."""
    return adjusted(p, "holm")


def adjusted(p: np.ndarray, method: str) -> np.ndarray:
    """The p-values of the families along the last axis adjusted by ``method`` (``"holm"`` or ``"bh"``)."""
    p = np.asarray(p, dtype=np.float64)
    order = np.argsort(p, axis=-1, kind="stable")  # NaN last
    ordered = np.take_along_axis(p, order, axis=-1)
    m = (~np.isnan(p)).sum(axis=-1, keepdims=True)
    rank = np.arange(1, p.shape[-1] + 1)
    if method == "holm":
        stepped = np.maximum.accumulate(np.where(rank <= m, (m - rank + 1) * ordered, -np.inf), axis=-1)
    elif method == "bh":
        scaled = np.where(rank <= m, m * ordered / rank, np.inf)
        stepped = np.minimum.accumulate(scaled[..., ::-1], axis=-1)[..., ::-1]
    else:
        raise ValueError(f"adjust must be one of {ADJUSTMENTS} or None, got {method!r}")
    out = np.empty_like(ordered)
    np.put_along_axis(out, order, np.where(rank <= m, np.minimum(1.0, stepped), np.nan), axis=-1)
    return out


def holm_pairs(p: np.ndarray) -> np.ndarray:
    """Holm over the k (k-1) / 2 pairs of every symmetric ``(..., k, k)`` matrix of p-values (1 on the diagonal)."""
    return adjusted_pairs(p, "holm")


def adjusted_pairs(p: np.ndarray, method: str) -> np.ndarray:
    """``adjusted`` over the k (k-1) / 2 pairs of every symmetric ``(..., k, k)`` matrix (the diagonal kept)."""
    k = p.shape[-1]
    rows, cols = np.triu_indices(k, 1)
    family = adjusted(p[..., rows, cols], method)
    out = np.array(p, dtype=np.float64)
    out[..., rows, cols] = family
    out[..., cols, rows] = family
    return out
