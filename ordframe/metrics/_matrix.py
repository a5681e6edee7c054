"""Small helpers shared by confusion kernels (all vectorised over leading axes)."""

import functools

import numpy as np

from ordframe._registry.metric import Term
from ordframe.metrics import _accelerate

# ``in_blocks`` works on about BLOCK_CELLS counts at a time (256 KiB of float64), so each temporary
# stays in cache and is reused by the allocator, but on at least BLOCK_MATRICES matrices, so the
# Python overhead per block stays small when K is large.
BLOCK_CELLS = 1 << 15
BLOCK_MATRICES = 256


def _all_ranks(counts):
    return _accelerate.pairs(counts, _accelerate.ALL_PAIRS)


#: Spearman's rho, Kendall's tau-b, Somers' D and r_int (and its large-sample form) of one compiled pass over
#: the pairs of cells (``_accelerate.pairs``): computed once for those of them that ``evaluate`` computes.
RANKS = Term("ranks", None, compiled=_all_ranks)


def rank_statistic(counts, want: int, ranks) -> np.ndarray:
    """A rank statistic's compiled value (``want``: ``_accelerate.SPEARMAN``, ...): from one pass of its own, or
    its row of the five of one pass (``RANKS``) when given."""
    return _accelerate.pairs(counts, want) if ranks is None else ranks[want].copy()


def index_distance(k: int, power: float = 1.0) -> np.ndarray:
    """The ``(K, K)`` matrix ``|r - c| ** power`` of index distances."""
    r = np.arange(k)
    return np.abs(r[:, None] - r[None, :]).astype(np.float64) ** power


def cost_matrix(cost, k: int, metric: str, argument: str = "cost") -> np.ndarray:
    """A user cost matrix as a finite float64 ``(K, K)`` array, rows = true class, columns = predicted class.

    A DataArray with dims ``true`` and ``pred`` is put in that order first. ``argument`` is the
    parameter's name in the messages.
    """
    if set(getattr(cost, "dims", ())) == {"true", "pred"}:
        cost = cost.transpose("true", "pred")
    try:
        cost = np.asarray(cost, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{metric}: {argument} must be a {k}x{k} matrix of real numbers, got {cost!r}") from None
    if cost.shape != (k, k):
        raise ValueError(
            f"{metric}: {argument} must be a {k}x{k} matrix (rows = true class, columns = predicted), "
            f"got shape {cost.shape}"
        )
    if not np.isfinite(cost).all() or (cost < 0).any():
        raise ValueError(f"{metric}: {argument} must hold finite numbers >= 0 (a cost, not a gain)")
    return cost


def total(counts: np.ndarray) -> np.ndarray:
    """N, the sum of every matrix."""
    return counts.sum(axis=(-2, -1))


def mean_weight(counts: np.ndarray, weights) -> np.ndarray:
    """sum_rc n_rc w_rc / N of every matrix of ``counts`` ``(..., K, K)`` for the ``(K, K)`` ``weights``."""
    return (counts * weights).sum(axis=(-2, -1)) / total(counts)


def classes_first(counts: np.ndarray) -> np.ndarray:
    """A contiguous float64 copy of ``(..., K, K)`` counts laid out as ``(K, K, ...)``.

    Reducing over, or slicing by, the class axes then runs along the long
    contiguous stack axis: several times faster than working on trailing
    axes of length K, where numpy's inner loops are only K long.
    """
    return np.ascontiguousarray(np.moveaxis(counts, (-2, -1), (0, 1)), dtype=np.float64)


def in_blocks(kernel):
    """Run a ``(..., K, K) -> (..., *trailing)`` kernel on blocks of the flattened stack (cache blocking).

    Each block is computed vectorised. On large stacks this keeps the time per
    matrix flat: temporaries stay small, so they stay in cache and the
    allocator reuses them instead of mapping fresh pages for every operation.
    A million 5 x 5 matrices take 800 iterations.
    """

    @functools.wraps(kernel)
    def blocked(counts, *args, **kwargs):
        counts = np.asarray(counts)
        k = counts.shape[-1]
        flat = counts.reshape(-1, k, k)
        step = max(BLOCK_MATRICES, BLOCK_CELLS // (k * k))
        if len(flat) <= step:
            return kernel(counts, *args, **kwargs)
        first = np.asarray(kernel(flat[:step], *args, **kwargs))
        out = np.empty((len(flat),) + first.shape[1:])  # a kernel may return more than one value per matrix
        out[:step] = first
        for start in range(step, len(flat), step):
            out[start : start + step] = kernel(flat[start : start + step], *args, **kwargs)
        return out.reshape(counts.shape[:-2] + first.shape[1:])

    return blocked


def suffix_sum(counts: np.ndarray, axis: int) -> np.ndarray:
    """Sums from each position to the end along ``axis`` (inclusive); K - 1 vectorised additions."""
    out = np.array(counts)
    view = np.moveaxis(out, axis, 0)
    for i in range(view.shape[0] - 2, -1, -1):
        view[i] += view[i + 1]
    return out
