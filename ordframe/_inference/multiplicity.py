"""Holm's (1979) step-down adjustment of a family of p-values: along the last axis, or over the pairs of a matrix.

With the m p-values of a family sorted, p_(1) <= ... <= p_(m)::

    adjusted p_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))

and a hypothesis is rejected at level alpha when its adjusted p-value is <= alpha (the same as the step-down
comparison of p_(i) with alpha / (m - i + 1), stopping at the first that is not rejected).
"""

from __future__ import annotations

import numpy as np


def holm(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values of the families along the last axis of ``p`` (any leading shape)."""
    p = np.asarray(p, dtype=np.float64)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    stepped = (m - np.arange(m)) * np.take_along_axis(p, order, axis=-1)
    adjusted = np.minimum(1.0, np.maximum.accumulate(stepped, axis=-1))
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def holm_pairs(p: np.ndarray) -> np.ndarray:
    """Holm over the k (k-1) / 2 pairs of every symmetric ``(..., k, k)`` matrix of p-values (1 on the diagonal)."""
    k = p.shape[-1]
    rows, cols = np.triu_indices(k, 1)
    adjusted = holm(p[..., rows, cols])
    out = np.ones_like(p, dtype=np.float64)
    out[..., rows, cols] = adjusted
    out[..., cols, rows] = adjusted
    return out
