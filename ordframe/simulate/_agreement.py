"""The rank agreement between metrics over a stack of confusion matrices: Kendall's tau-b of their orderings.

Every metric is computed on every cube of the stack (through the same path as
``cube.ordinal.evaluate``) and oriented by its registry direction (a
lower-is-better metric is negated), so tau = +1 means two metrics order the
cubes alike, better to worse. For two oriented metrics x and y over n cubes,
with ``s_x(i, j) = sign(x_i - x_j)``,

    tau_b = sum_ij s_x s_y / sqrt(sum_ij s_x^2 * sum_ij s_y^2)

(Kendall 1945): the numerator is the concordant less the discordant pairs, and
``sum s_x^2`` the pairs not tied on x, so ties are handled as tau-b does. The
sign vectors of all the metrics are multiplied at once (a matrix product over
the pairs of cubes, in blocks of rows), which is O(M^2 n^2) for M metrics: the
stack is limited to ``MAX_CUBES`` cubes (see ``agreement``).
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ordframe._bridge.apply import check_cube
from ordframe._bridge.evaluate import evaluate_cube
from ordframe._core.checks import better_sign
from ordframe._core.dims import CUBE_DIMS, METRIC_DIM, REPLICATE_DIM, VERSUS_DIM
from ordframe._core.messages import show, warn

#: The most cubes ``agreement`` compares: every pair of cubes is visited, O(M^2 n^2) for M metrics.
MAX_CUBES = 5000
# Sign blocks hold about this many values (float64) at a time.
_BLOCK_VALUES = 1 << 22


def agreement(cubes: xr.DataArray, *, metrics=None, dim: str = REPLICATE_DIM) -> xr.DataArray:
    """Kendall's tau-b between every two metrics' orderings of the cubes along ``dim``, each metric oriented.

    Every metric is oriented by its direction (``higher_is_better`` in the registry; a lower-is-better one is
    negated), so +1 means that two metrics rank the cubes the same way from better to worse, -1 the reverse
    way, and 0 no association. For oriented values x and y over the n cubes, with
    ``s_x(i, j) = sign(x_i - x_j)``, ``tau_b = sum s_x s_y / sqrt(sum s_x^2 sum s_y^2)`` (Kendall 1945): ties
    are handled as in tau-b, and the value is that of ``scipy.stats.kendalltau`` on the two metrics' values.

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
        If ``cubes`` has no dim ``dim``, or more than ``MAX_CUBES`` (5000) cubes along it: every pair of
        cubes is compared, O(M^2 n^2) for M metrics. A random subsample of 5000 cubes gives tau within
        about 0.02 (its standard error is below sqrt(2 / n)).

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
    n = cubes.sizes[dim]
    if n > MAX_CUBES:
        raise ValueError(
            f"agreement compares every pair of the {n} cubes along {dim!r} (O(n^2)); at most {MAX_CUBES} are "
            f"allowed. A random subsample estimates tau within about 0.02: e.g. cubes.isel({dim}="
            f"np.random.default_rng(0).choice({n}, {MAX_CUBES}, replace=False))"
        )
    values = evaluate_cube(cubes, metrics)
    names = list(values.data_vars)
    oriented = xr.concat(
        [better_sign(name, values[name].attrs) * values[name].drop_attrs() for name in names],
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
    """Kendall's tau-b of every two rows of ``x`` ``(S, M, n)`` over its last axis: ``(S, M, M)``.

    A NaN value is left out of its row's pairs. Sums run over ordered pairs (i, j) in blocks of rows i; each
    unordered pair is counted twice in the numerator and in both denominators, which cancels.
    """
    s, m, n = x.shape
    valid = ~np.isnan(x)
    numerator = np.zeros((s, m, m))
    untied = np.zeros((s, m, m))  # [a, b]: pairs not tied on a, among those where b is defined
    block = max(1, _BLOCK_VALUES // max(1, s * m * n))
    for start in range(0, n, block):  # blocks of rows bound the memory; each block is one matrix product
        stop = min(n, start + block)
        with np.errstate(invalid="ignore"):
            signs = np.nan_to_num(np.sign(x[..., start:stop, None] - x[..., None, :]))
        both = (valid[..., start:stop, None] & valid[..., None, :]).astype(np.float64)
        signs = signs.reshape(s, m, -1)
        both = both.reshape(s, m, -1)
        numerator += signs @ signs.transpose(0, 2, 1)
        untied += np.abs(signs) @ both.transpose(0, 2, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = numerator / np.sqrt(untied * untied.transpose(0, 2, 1))
    return np.where(untied * untied.transpose(0, 2, 1) > 0, np.clip(tau, -1.0, 1.0), np.nan)


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
