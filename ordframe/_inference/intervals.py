"""Confidence intervals from bootstrap replicates: percentile and BCa (Efron 1987).

``ci`` turns replicates of a metric (a DataArray or Dataset with a bootstrap
dim) into an interval with a dim ``bound`` (``low``, ``high``). The bias
corrected and accelerated (BCa) interval also needs the metric's value on
the original cube and its jackknife values, which the jackknife
computes on the cube: the metric and its parameters are read from the
replicates' attrs, which every ordframe result carries.

BCa, as in Efron & Tibshirani (1993, ch. 14) and ``scipy.stats.bootstrap``::

    z0 = Phi^-1( (#{theta_b < theta} + #{theta_b <= theta}) / (2 B) )
    a  = sum_i (mean - theta_i)^3 / (6 (sum_i (mean - theta_i)^2)^(3/2))     (jackknife values theta_i)
    alpha_j = Phi( z0 + (z0 + z_j) / (1 - a (z0 + z_j)) ),  z_j = Phi^-1(alpha/2), Phi^-1(1 - alpha/2)

and the bounds are the ``alpha_1`` and ``alpha_2`` quantiles of the replicates
(linear interpolation). Replicates that are NaN (a metric undefined on a
replicate) are left out; an element with fewer than two valid replicates has
NaN bounds.
"""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion
from ordframe._core.checks import check_level
from ordframe._core.dims import BOOTSTRAP_DIM, BOUND_DIM, CELL_DIM
from ordframe._registry import manager as registry
from ordframe._resampling.cubes import jackknife

METHODS = ("percentile", "bca")


def ci(
    replicates,
    *,
    dim: str = BOOTSTRAP_DIM,
    level: float = 0.95,
    method: str = "percentile",
    cube: xr.DataArray | None = None,
):
    """A confidence interval for every element of ``replicates`` (a DataArray or Dataset), over ``dim``.

    Parameters
    ----------
    replicates : xarray.DataArray or xarray.Dataset
        Metric values with a bootstrap dim, e.g. ``cube.ordinal.bootstrap(2000).ordinal.oc()``.
    dim : str
        The bootstrap dim.
    level : float
        The confidence level, in (0, 1).
    method : {"percentile", "bca"}
        ``"bca"`` also needs ``cube``, the cube the replicates were drawn from.
    cube : xarray.DataArray, optional
        For BCa: the original cube (its metric value and jackknife values are computed on it). The
        jackknife treats the cube's samples as one unstratified sample: for replicates drawn with
        ``stratify=True`` or ``strata=``, the acceleration is that of the pooled cube.

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        The bounds along a new dim ``bound`` = ``["low", "high"]``, with the
        replicates' attrs plus ``ci_level`` and ``ci_method``.

    Raises
    ------
    ValueError
        For a level outside (0, 1), an unknown method, a missing dim, or BCa without ``cube``
        or on replicates without metric attrs.

    Examples
    --------
    >>> import ordframe
    >>> cube = xr.DataArray([[40, 10], [5, 45]], dims=("true", "pred"))
    >>> boot = cube.ordinal.bootstrap(2000, seed=1).ordinal.accuracy()
    >>> ordframe.ci(boot).round(2).values.tolist()
    [0.77, 0.92]
    """
    level = check_level(level)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if isinstance(replicates, xr.Dataset):
        bounds = {name: ci(v, dim=dim, level=level, method=method, cube=cube) for name, v in replicates.items()}
        return xr.Dataset(bounds, attrs=replicates.attrs)
    if not isinstance(replicates, xr.DataArray):
        raise TypeError(f"replicates must be an xarray DataArray or Dataset, got {type(replicates).__name__}")
    if dim not in replicates.dims:
        raise ValueError(f"dim {dim!r} is not a dim of the replicates {tuple(replicates.dims)}")
    alpha = (1 - level) / 2
    values = replicates.transpose(..., dim)
    if method == "percentile":
        probabilities = xr.full_like(values.isel({dim: 0}, drop=True), alpha, dtype=np.float64)
        low, high = _quantiles(values, probabilities), _quantiles(values, 1 - probabilities)
    else:
        low, high = _bca(values, dim, alpha, cube)
    out = xr.concat([low, high], dim=xr.DataArray(["low", "high"], dims=BOUND_DIM, name=BOUND_DIM))
    out = out.transpose(BOUND_DIM, ...)
    out.attrs = {**replicates.attrs, "ci_level": float(level), "ci_method": method}
    return out.rename(replicates.name)


def _quantiles(values: xr.DataArray, q: xr.DataArray) -> xr.DataArray:
    """The ``q`` quantile of ``values`` along its last dim, ``q`` one per element (NaN replicates left out)."""

    def quantile(x, q):
        x = np.sort(x, axis=-1)  # NaN last
        valid = (~np.isnan(x)).sum(axis=-1)
        position = np.clip(q, 0, 1) * (valid - 1)
        below = np.floor(position).astype(np.int64).clip(0, None)
        above = np.minimum(below + 1, np.maximum(valid - 1, 0))
        lo = np.take_along_axis(x, below[..., None], -1)[..., 0]
        hi = np.take_along_axis(x, above[..., None], -1)[..., 0]
        out = lo + (position - below) * (hi - lo)
        return np.where(valid >= 2, out, np.nan)

    return xr.apply_ufunc(
        quantile, values, q, input_core_dims=[[values.dims[-1]], []], dask="parallelized", output_dtypes=[np.float64]
    )


def _bca(values: xr.DataArray, dim: str, alpha: float, cube: xr.DataArray | None):
    from scipy.special import ndtr, ndtri  # imported when needed: it takes a fifth of `import ordframe`

    if cube is None:
        raise ValueError("method='bca' needs cube=, the confusion cube the replicates were drawn from")
    name = values.attrs.get("metric")
    if name is None:
        raise ValueError("method='bca' needs replicates with a 'metric' attr (ordframe results carry one)")
    metric = registry.get_metric(name)
    params = json.loads(values.attrs.get("parameters", "{}"))
    estimate = apply_confusion(metric, cube, params)
    estimate = estimate if isinstance(estimate, xr.DataArray) else xr.DataArray(estimate)
    theta, weights = jackknife(cube, metric, **params)
    valid = values.notnull()
    n = valid.sum(dim)
    below = ((values < estimate) & valid).sum(dim) + ((values <= estimate) & valid).sum(dim)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = xr.apply_ufunc(ndtri, below / (2 * n))
        mean = (theta * weights).sum(CELL_DIM) / weights.sum(CELL_DIM)
        deviation = (mean - theta).where(weights > 0, 0.0)  # every sample of a cell leaves the same matrix
        a = (weights * deviation**3).sum(CELL_DIM) / (6 * (weights * deviation**2).sum(CELL_DIM) ** 1.5)
    bounds = []
    for z in (ndtri(alpha), ndtri(1 - alpha)):
        with np.errstate(divide="ignore", invalid="ignore"):
            q = xr.apply_ufunc(ndtr, z0 + (z0 + z) / (1 - a * (z0 + z)))
        bounds.append(_quantiles(values, q))
    return bounds
