"""Small helpers shared by confusion kernels (all vectorised over leading axes)."""

import numpy as np


def class_index(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column class indices ``(K, 1)`` and ``(1, K)`` for a ``(..., K, K)`` array."""
    k = counts.shape[-1]
    return np.arange(k)[:, None], np.arange(k)[None, :]


def index_distance(k: int, power: float = 1.0) -> np.ndarray:
    """The ``(K, K)`` matrix ``|r - c| ** power`` of index distances."""
    r = np.arange(k)
    return np.abs(r[:, None] - r[None, :]).astype(np.float64) ** power


def total(counts: np.ndarray) -> np.ndarray:
    """N, the sum of every matrix."""
    return counts.sum(axis=(-2, -1))


def suffix_sum(counts: np.ndarray, axis: int) -> np.ndarray:
    """Sums from each position to the end along ``axis`` (inclusive)."""
    return np.flip(np.cumsum(np.flip(counts, axis), axis), axis)
