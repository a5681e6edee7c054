"""Binomial and multinomial draws of many replicates by inversion of one table of binomial CDFs.

numpy draws a binomial variate in about 100 ns (its BTPE and inversion
algorithms set up their constants for every new n and p, and its inversion
walks the CDF with a division per step). The replicates of a simulation draw
from a few distributions only: one p per step of a multinomial, and counts n
within a narrow range. ``binomials`` tabulates the CDF of Binomial(n, p) for
every n of that range once, then inverts it at one uniform per variate.

Both paths, numpy and compiled, invert the same table at the same uniforms by
the same search, so they give the same variates: from the variate of the
quantile g / 64 just below u (a table of those, found by bisection), a step up
while the next entry is <= u (an entry or two; numpy takes the steps of every
replicate at once, the compiled loop one replicate at a time). Row r of the table
(n = n_lo + r) holds CDF(k) + 2r for k = 0..n_hi (1 + 2r past n): the rows are
increasing one after another, so one ``searchsorted`` of g / 64 + 2r finds
the guide of every row at once. The offset 2r rounds the uniforms and the
CDF to multiples of 2^-53 x 2 n_range, at most 2^-40 here: probabilities below
that are not drawn, a bias far below what a simulation can see.
"""

from __future__ import annotations

import numpy as np

from ordframe._core import options
from ordframe.metrics import _accelerate

GUIDE = 64
"""The search starts at the variate of the nearest quantile g / GUIDE below u, a step or two away."""
TABLE_CELLS = 1 << 21
"""The largest table (rows x columns, 16 MiB); a larger one (n spread over a wide range) uses numpy's binomial."""


def binomials(rng: np.random.Generator, n: np.ndarray, p: float) -> np.ndarray:
    """One Binomial(n_i, p) variate per entry of the int64 array ``n`` (>= 0), ``p`` in [0, 1]."""
    if p <= 0 or not n.size or n.max() == 0:
        return np.zeros(n.shape, np.int64)
    if p >= 1:
        return n.copy()
    low, high = int(n.min()), int(n.max())
    if (high - low + 1) * (high + 1) > TABLE_CELLS or high - low + 1 > 1 << 11:
        return rng.binomial(n, p)
    table = _table(low, high, p)
    u = rng.random(n.shape)
    # where each search starts: the variates at u = 0, 1/GUIDE, 2/GUIDE, ... of each row, by bisection
    width, rows = high + 1, np.arange(high - low + 1)
    guide = _count(table, np.arange(GUIDE) / GUIDE + 2.0 * rows[:, None], rows[:, None], width).ravel()
    if options.COMPILED:
        out = np.empty(n.shape, np.int64)
        _accelerate.invert(table, guide, GUIDE, u, n, low, width, out)
        return out
    # the same walk, every replicate at once: a step up while the next entry is <= u + 2 r (a step or two)
    row = n - low
    base, key = row * width, u + 2.0 * row
    at = guide[row * GUIDE + (u * GUIDE).astype(np.int64)]
    walking = np.flatnonzero(at < width)
    while walking.size:
        walking = walking[table[base[walking] + at[walking]] <= key[walking]]
        at[walking] += 1
        walking = walking[at[walking] < width]
    return np.minimum(at, n)


def _count(table: np.ndarray, key: np.ndarray, row: np.ndarray, width: int) -> np.ndarray:
    """The number of entries <= ``key`` (= u + 2 ``row``) of ``row`` of the table (the rows before it are all below)."""
    return np.searchsorted(table, key, side="right") - row * width


def _table(low: int, high: int, p: float) -> np.ndarray:
    """Rows n = low..high: CDF(k) + 2 (n - low) of Binomial(n, p) for k = 0..high (1 + 2 (n - low) for k >= n), flat."""
    from scipy.special import gammaln

    n = np.arange(low, high + 1, dtype=np.float64)[:, None]
    k = np.arange(high + 1, dtype=np.float64)[None, :]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        log_pmf = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + k * np.log(p) + (n - k) * np.log1p(-p)
    cdf = np.cumsum(np.where(k <= n, np.exp(log_pmf), 0.0), axis=1)
    cdf = np.where(k >= n, 1.0, np.minimum(cdf, 1.0))
    cdf += 2.0 * np.arange(high - low + 1)[:, None]
    return cdf.ravel()


def multinomials(rng: np.random.Generator, n, p: np.ndarray, n_resamples: int) -> np.ndarray:
    """``n_resamples`` multinomial draws of ``n`` (an int, or one per replicate) over the probabilities ``p``
    (summing to 1): ``(n_resamples, len(p))`` int64, one ``binomials`` step per class but the last (class j
    receives Binomial(samples left, p_j / (1 - p_1 - ... - p_(j-1))), the last the samples left)."""
    left = np.broadcast_to(np.asarray(n, dtype=np.int64), (n_resamples,)).copy()
    out = np.empty((len(p), n_resamples), np.int64)  # a class's replicates side by side, transposed at the end
    rest = 1.0
    for j in range(len(p) - 1):  # over the classes, never over replicates
        out[j] = binomials(rng, left, min(1.0, p[j] / rest) if rest > 0 else 0.0)
        left -= out[j]
        rest -= p[j]
    out[-1] = left
    return out.T
