"""The rank agreement between metrics over a stack of confusion matrices: Kendall's tau-b of their orderings.

Every metric is computed on every cube of the stack (through the same path as
``cube.ordinal.evaluate``) and oriented by its registry direction (a
lower-is-better metric is negated), so tau = +1 means two metrics order the
cubes alike, better to worse. For two oriented metrics x and y over n cubes,
with ``s_x(i, j) = sign(x_i - x_j)``,

    tau_b = sum_ij s_x s_y / sqrt(sum_ij s_x^2 * sum_ij s_y^2)

(Kendall 1945): the numerator is the concordant less the discordant pairs, and
``sum s_x^2`` the pairs not tied on x, so ties are handled as tau-b does. As in
Knight's (1966) algorithm, the pairs are counted without visiting them: the
cubes are sorted by (x, y), the ties are counted from runs of equal values,
and the discordant pairs are the inversions of y in that order, counted while
merging sorted runs of doubling width (each merge a stable sort of two sorted
runs); every pair of metrics and every stack element is one row of one numpy
array, O(M^2 n log n) for M metrics and n cubes.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ordframe._bridge.apply import check_cube
from ordframe._bridge.evaluate import evaluate_cube
from ordframe._core.checks import orientation
from ordframe._core.dims import CUBE_DIMS, METRIC_DIM, REPLICATE_DIM, VERSUS_DIM
from ordframe._core.messages import show, warn

# The rows (pairs of metrics) of one chunk hold about this many values at a time.
_BLOCK_VALUES = 1 << 22


def agreement(cubes: xr.DataArray, *, metrics=None, dim: str = REPLICATE_DIM) -> xr.DataArray:
    """Kendall's tau-b between every two metrics' orderings of the cubes along ``dim``, each metric oriented.

    Every metric is oriented by its direction (``higher_is_better`` in the registry; a lower-is-better one is
    negated; one whose best value is a target, by its distance from it, negated), so +1 means that two metrics rank the cubes the same way from better to worse, -1 the reverse
    way, and 0 no association. For oriented values x and y over the n cubes, with
    ``s_x(i, j) = sign(x_i - x_j)``, ``tau_b = sum s_x s_y / sqrt(sum s_x^2 sum s_y^2)`` (Kendall 1945): ties
    are handled as in tau-b, and the value is that of ``scipy.stats.kendalltau`` on the two metrics' values.
    The pairs of cubes are counted as in Knight's (1966) algorithm, by sorting and merging, without visiting
    them: O(M^2 n log n) for M metrics and n cubes.

    Parameters
    ----------
    cubes : xarray.DataArray
        A confusion cube with the dim ``dim`` (e.g. simulated test sets); other stack dims are kept, each
        element with its own agreement.
    metrics : str, list or dict, optional
        The confusion metrics, as ``metrics=`` of ``cube.ordinal.evaluate`` (default: every registered
        confusion metric).
    dim : str
        The dim of the cubes ranked (reduced over).

    Returns
    -------
    xarray.DataArray
        ``agreement`` with dims ``("metric", "versus", *other stack dims)``, symmetric, 1 on the diagonal.
        A cube on which a metric is NaN is left out of that metric's pairs (tau over the cubes where both
        are defined, as ``nan_policy="omit"``); a metric constant over the cubes gives NaN.

    Raises
    ------
    ValueError
        If ``cubes`` has no dim ``dim``.

    Warns
    -----
    RuntimeWarning
        For metrics that are NaN on some cubes (with their counts), or constant over them.

    Examples
    --------
    >>> import ordframe
    >>> rng = np.random.default_rng(0)
    >>> counts = rng.multinomial(50, rng.dirichlet(np.ones(9), size=200)).reshape(200, 3, 3)
    >>> cubes = xr.DataArray(counts, dims=("replicate", "true", "pred"))
    >>> tau = ordframe.simulate.agreement(cubes, metrics=["accuracy", "mer", "mae"])
    >>> float(tau.sel(metric="accuracy", versus="mer"))
    1.0
    """
    check_cube(cubes)
    if dim not in cubes.dims or dim in CUBE_DIMS:
        stack = [d for d in cubes.dims if d not in CUBE_DIMS]
        raise ValueError(f"dim={dim!r} is not a stack dim of the cubes; their stack dims are {stack}")
    values = evaluate_cube(cubes, metrics)
    names = list(values.data_vars)
    oriented = xr.concat(
        [orientation(name, values[name].attrs).score(values[name].drop_attrs(deep=False)) for name in names],
        dim=xr.DataArray(names, dims=METRIC_DIM, name=METRIC_DIM),
        coords="minimal",
    ).transpose(..., METRIC_DIM, dim)
    _warn_undefined(oriented, dim)
    x = oriented.values
    tau = _tau_b(x.reshape(-1, *x.shape[-2:])).reshape(*x.shape[:-1], len(names))
    constant = np.isnan(np.diagonal(tau, axis1=-2, axis2=-1))
    if constant.any():
        which = [names[m] for m in np.nonzero(constant.reshape(-1, len(names)).any(axis=0))[0]]
        warn(
            f"the metric(s) {show(which)} take a single value over the cubes along {dim!r} (where they are "
            "defined): they order no pair of cubes, so their agreement is NaN",
            RuntimeWarning,
        )
    others = [d for d in oriented.dims[:-2]]
    result = xr.DataArray(
        tau,
        dims=(*others, METRIC_DIM, VERSUS_DIM),
        coords={
            **{d: c for d, c in oriented.coords.items() if dim not in c.dims and METRIC_DIM not in c.dims},
            METRIC_DIM: names,
            VERSUS_DIM: names,
        },
        name="agreement",
    ).transpose(METRIC_DIM, VERSUS_DIM, ...)
    result.attrs = {
        "statistic": "Kendall's tau-b",
        "oriented": "each metric by its direction: +1 means the same order from better to worse",
        "reduced": dim,
    }
    return result


def _tau_b(x: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of every two rows of ``x`` ``(S, M, n)`` over its last axis: ``(S, M, M)``, NaNs left out."""
    s, m, n = x.shape
    first, second = np.triu_indices(m)  # the diagonal too: 1, or NaN for a metric without untied pairs
    a = x[:, first].reshape(-1, n)
    b = x[:, second].reshape(-1, n)
    rows = max(1, _BLOCK_VALUES // max(1, 1 << max(0, int(n - 1).bit_length())))
    tau = np.concatenate([_pair_tau(a[i : i + rows], b[i : i + rows]) for i in range(0, len(a), rows)] or [np.empty(0)])
    out = np.empty((s, m, m))
    out[:, first, second] = out[:, second, first] = tau.reshape(s, -1)
    return out


def _pair_tau(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of ``a[r]`` and ``b[r]`` for every row r of ``(R, n)`` arrays, over the items both define.

    ``tau_b = (n0 - n1 - n2 + n3 - 2 nd) / sqrt((n0 - n1) (n0 - n2))``: n0 pairs, n1 (n2) tied on a (b), n3 on
    both, nd discordant. An item undefined in a or b is given the largest value of both, so that it ties with the
    others like it and adds no discordant pair; the tie counts leave it out.
    """
    rows, n = a.shape
    valid = ~(np.isnan(a) | np.isnan(b))
    count = valid.sum(axis=-1)
    a, b = np.where(valid, a, np.inf), np.where(valid, b, np.inf)
    by_b = np.argsort(b, axis=-1, kind="stable")
    b_sorted = np.take_along_axis(b, by_b, axis=-1)
    new_b = _runs(b_sorted)
    codes = np.empty((rows, n), np.int64)  # dense ranks of b
    np.put_along_axis(codes, by_b, np.cumsum(new_b, axis=-1) - 1, axis=-1)
    order = np.lexsort((b, a), axis=-1)
    a_sorted = np.take_along_axis(a, order, axis=-1)
    y = np.take_along_axis(codes, order, axis=-1)
    new_a = _runs(a_sorted)
    pairs = count * (count - 1) // 2
    tied_a, tied_b = _tied_pairs(new_a, count), _tied_pairs(new_b, count)
    tied_both = _tied_pairs(new_a | _runs(y), count)
    untied = (pairs - tied_a) * (pairs - tied_b).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (pairs - tied_a - tied_b + tied_both - 2 * _discordant(y, n)) / np.sqrt(untied)
    return np.where(untied > 0, np.clip(tau, -1.0, 1.0), np.nan)


def _runs(ordered: np.ndarray) -> np.ndarray:
    """True where a sorted row starts a run of equal values."""
    new = np.ones(ordered.shape, bool)
    new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    return new


def _tied_pairs(new: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The pairs of equal values among the first ``count`` items of every sorted row: sum over runs of t (t - 1) / 2."""
    position = np.broadcast_to(np.arange(new.shape[-1]), new.shape)
    start = np.maximum.accumulate(np.where(new, position, 0), axis=-1)  # where each item's run starts
    return np.where(position < count[:, None], position - start, 0).sum(axis=-1)


def _discordant(y: np.ndarray, top: int) -> np.ndarray:
    """The strict inversions ``#{i < j: y_i > y_j}`` of every row of codes ``y`` ``(R, n)`` in ``[0, top]``.

    Bottom-up merge sort: at width w, each block of 2w holds two sorted runs, and a stable sort merges them
    (left first among equals); a right element is an inversion with every left one merged after it.
    """
    rows, n = y.shape
    length = 1 << max(0, int(n - 1).bit_length())
    current = np.full((rows, length), top + 1, np.int64)  # the padding is larger than all: no inversion
    current[:, :n] = y
    inversions = np.zeros(rows, np.int64)
    width = 1
    while width < length:
        blocks = current.reshape(rows, -1, 2 * width)
        order = np.argsort(blocks, axis=-1, kind="stable")
        left = order < width
        before = np.cumsum(left, axis=-1)  # left elements merged up to each position
        inversions += np.where(left, 0, width - before).reshape(rows, -1).sum(axis=-1)
        current = np.take_along_axis(blocks, order, axis=-1).reshape(rows, length)
        width *= 2
    return inversions


def _warn_undefined(oriented: xr.DataArray, dim: str) -> None:
    """One RuntimeWarning naming the metrics that are NaN on some cubes, with their counts."""
    missing = oriented.isnull().sum([d for d in oriented.dims if d != METRIC_DIM])
    if not bool((missing > 0).any()):
        return
    total = math.prod(size for d, size in oriented.sizes.items() if d != METRIC_DIM)
    counts = {str(name): int(c) for name, c in zip(oriented[METRIC_DIM].values, missing.values) if c}
    warn(
        f"metric(s) undefined on some cubes, left out of their pairs (counts of {total}): "
        + ", ".join(f"{name} {count}" for name, count in counts.items())
        + f"; their agreement is over the cubes along {dim!r} where both metrics are defined",
        RuntimeWarning,
    )
