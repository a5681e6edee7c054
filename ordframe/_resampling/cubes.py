"""Bootstrap replicates drawn as confusion cubes, and leave-one-out (jackknife) values of a metric.

Every hard-label metric is a function of the confusion matrix, and drawing N
samples with replacement from a matrix of N samples and counting them is a
multinomial draw of N over the cells with probabilities ``n_rc / N``. So
replicates are drawn as whole cubes, one ``numpy`` multinomial call for every
matrix and replicate at once, without touching a single row:

* ``stratify=False``: ``multinomial(N, n_rc / N)`` per matrix (rows resampled freely);
* ``stratify=True``: ``multinomial(N_r, n_rc / N_r)`` per true class ``r``
  (each true class keeps its size, as in a stratified bootstrap).

Removing one sample of cell ``(r, c)`` gives the same matrix whichever sample
it is, so the N jackknife values of a matrix are its K^2 leave-one-cell-out
values, each with weight ``n_rc``.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_cube, cube_classes
from ordframe._core.checks import check_count, check_flag, check_replicates, new_dim, rng_of
from ordframe._core.dims import BOOTSTRAP_DIM, CELL_DIM, CUBE_DIMS, PRED, SIZE_COORD, TRUE
from ordframe._core.docstrings import fill_doc
from ordframe._core.drawing import CELLS, CELLS_BY_CLASS, concrete_seed, drawn_record
from ordframe._core.options import check_allocation
from ordframe._core.progress import chunks

# Replicates are drawn in chunks of about this many counts (a progress bar can follow them).
CHUNK_COUNTS = 1 << 22
# The most samples a matrix may hold: multinomial draws count them in int64, exactly up to 2^53 as floats.
MAX_SAMPLES = float(2**53)


def integer_counts(cube: xr.DataArray) -> np.ndarray:
    """The cube's counts as int64 ``(..., K, K)`` (computed if lazy); an error for weights or proportions."""
    values = np.asarray(cube.transpose(..., *CUBE_DIMS).values)
    if values.dtype.kind == "f":
        if not np.isfinite(values).all() or not np.array_equal(values, np.round(values)):
            raise ValueError(
                "a bootstrap resamples samples, so the cube must hold whole counts of samples; this one holds "
                "weights or proportions (non-integer counts). Build the cube without weights to bootstrap it"
            )
    if (values < 0).any():
        raise ValueError("the confusion cube has negative counts; counts must be >= 0")
    with np.errstate(over="ignore"):
        totals = values.reshape(*values.shape[:-2], -1).sum(axis=-1, dtype=np.float64)
    if values.size and not totals.max() < MAX_SAMPLES:
        raise ValueError(
            f"a matrix of the cube holds {totals.max():.3g} samples, more than a bootstrap can draw "
            f"({MAX_SAMPLES:.3g}); these are not counts of samples"
        )
    return values.astype(np.int64)


def _probabilities(counts: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """``counts / totals`` along the last axis, uniform where a total is 0 (nothing is drawn there)."""
    size = counts.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = counts / totals[..., None]
    return np.where(totals[..., None] > 0, p, 1.0 / size)


@fill_doc
def bootstrap_cube(
    cube: xr.DataArray,
    n_resamples: int = 2000,
    *,
    seed=None,
    replicate_dim: str = BOOTSTRAP_DIM,
    stratify: bool = False,
    progress: bool | None = None,
    size: int | None = None,
) -> xr.DataArray:
    """``n_resamples`` bootstrap replicates of every matrix of ``cube``, stacked along a new leading dim ``replicate_dim``.

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube of whole counts; a dask-backed cube is computed first
        (a cube is small: K x K per group).
    {n_resamples}
    {seed_replicates}
    {replicate_dim}
    {stratify}
    {progress}
    size : int, optional
        Draw ``size`` samples per replicate instead of each matrix's N: the m-out-of-n bootstrap (Bickel &
        Sakov 2008), for ``ordframe.ci(..., method="m_out_of_n", cube=cube)``. The result carries a scalar
        coordinate ``bootstrap_size``. Without ``stratify`` only.

    Returns
    -------
    xarray.DataArray
        int64 counts with dims ``(replicate_dim, *cube's other dims, "true", "pred")``; every
        metric runs on it unchanged.

    Raises
    ------
    ValueError, TypeError
        For a cube of weights, a ``replicate_dim`` name already used, or a bad ``n_resamples`` or ``seed``.
    MemoryError
        If the replicates exceed ``max_cube_bytes``.

    Examples
    --------
    >>> import ordframe
    >>> cube = xr.DataArray([[8, 2], [1, 9]], dims=("true", "pred"))
    >>> replicates = cube.ordinal.bootstrap(200, seed=0)
    >>> replicates.dims, int(replicates.sum(("true", "pred")).min())
    (('bootstrap', 'true', 'pred'), 20)
    """
    check_cube(cube)
    cube, _ = cube_classes(cube)
    n_resamples = check_replicates(n_resamples)
    new_dim(replicate_dim, cube.dims, "replicate_dim")
    stratify = check_flag(stratify, "stratify")
    counts = integer_counts(cube)
    stack, k = counts.shape[:-2], counts.shape[-1]
    if size is not None:
        size = check_count(size, "size")
        if stratify:
            raise ValueError("size= (an m-out-of-n bootstrap) cannot be combined with stratify=True; drop one")
        smallest = int(counts.reshape(-1, k * k).sum(axis=-1).min()) if counts.size else 0
        if size > smallest:
            raise ValueError(
                f"size={size} is more samples than the smallest matrix holds ({smallest}); an m-out-of-n bootstrap "
                "draws m < N samples (e.g. m = N ** 0.7)"
            )
    check_allocation(
        n_resamples * math.prod(stack) * k * k * 8, f"{n_resamples} bootstrap replicates of {math.prod(stack)} matrices"
    )
    seed = concrete_seed(seed)
    rng = rng_of(seed)
    draws = np.empty((n_resamples, *stack, k, k), np.int64)
    if stratify:
        totals = counts.sum(axis=-1)
        p = _probabilities(counts, totals)
    else:
        flat = counts.reshape(*stack, k * k)
        totals = flat.sum(axis=-1)
        p = _probabilities(flat, totals)
        if size is not None:
            totals = np.where(totals > 0, size, 0)
    per_chunk = max(1, CHUNK_COUNTS // (math.prod(stack) * k * k))
    for start, stop in chunks(n_resamples, per_chunk, progress=progress, desc="bootstrap"):
        shape = (stop - start, *stack, k) if stratify else (stop - start, *stack)
        draws[start:stop] = rng.multinomial(totals, p, size=shape).reshape(stop - start, *stack, k, k)
    ordered = cube.transpose(..., *CUBE_DIMS)
    coords = {name: c for name, c in ordered.coords.items()}
    if size is not None:
        coords[SIZE_COORD] = size
    record = drawn_record(n_resamples, seed, CELLS_BY_CLASS if stratify else CELLS)
    return xr.DataArray(draws, dims=(replicate_dim, *ordered.dims), coords=coords, name="count", attrs=record)


def jackknife(cube: xr.DataArray, metric, **params) -> tuple[xr.DataArray, xr.DataArray]:
    """The leave-one-out values of ``metric`` on every matrix of ``cube``, and how many samples give each.

    Returns ``(values, weights)`` with a dim ``cell`` of length K^2 (row-major
    over ``(true, pred)``): ``values`` the metric on the matrix less one sample of
    that cell, ``weights`` the cell's count (0 where the cell is empty).

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube of whole counts.
    metric : str or Metric
        A confusion metric (the jackknife removes one sample of the cube: a probability metric needs the
        samples' probabilities, which a cube does not hold).
    **params
        The metric's parameters.

    Raises
    ------
    ValueError
        For a probability metric, or a cube of weights.
    MemoryError
        If the K^2 leave-one-out matrices of every matrix (K^4 counts each, held twice: as counts and
        as the kernels' float64 input) exceed ``max_cube_bytes``.
    """
    from ordframe._registry import manager as registry

    check_cube(cube)
    cube, _ = cube_classes(cube)
    metric = registry.get_metric(metric) if isinstance(metric, str) else metric
    if metric.kind != "confusion":
        raise ValueError(
            f"the jackknife needs a confusion metric: {metric.name!r} is a probability metric, computed from the "
            "samples' class probabilities, which a confusion cube does not hold; for its intervals use "
            "ci(..., method='percentile')"
        )
    k = cube.sizes[TRUE]
    matrices = math.prod(size for d, size in cube.sizes.items() if d not in CUBE_DIMS)
    check_allocation(
        2 * matrices * k**4 * 8,
        f"the jackknife of {matrices} matrices of {k} classes ({k * k} leave-one-out matrices each, held as counts "
        "and as the kernels' float64 input)",
        "compute it on fewer matrices at a time (for BCa: ci(replicates.sel(model=m), method='bca', "
        "cube=cube.sel(model=m)) for each model m, or method='percentile', which needs no jackknife), or ",
    )
    counts = integer_counts(cube)
    removed = counts[..., None, :, :] - np.eye(k * k, dtype=np.int64).reshape(k * k, k, k)
    np.maximum(removed, 0, out=removed)  # an empty cell: no sample to remove (weight 0)
    ordered = cube.transpose(..., *CUBE_DIMS)
    coords = {name: c for name, c in ordered.coords.items()}
    stacked = xr.DataArray(removed, dims=(*ordered.dims[:-2], CELL_DIM, TRUE, PRED), coords=coords)
    values = apply_confusion(metric, stacked, params)
    weights = xr.DataArray(counts.reshape(*counts.shape[:-2], k * k), dims=(*ordered.dims[:-2], CELL_DIM))
    return values, weights.assign_coords({d: c for d, c in values.coords.items() if d != CELL_DIM})
