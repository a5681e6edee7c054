"""``george_rank``: George, Lu & Chang (2016) choose the classifier with the
smallest d and break ties in d by the larger chance distance.
"""

from __future__ import annotations

import numbers

import numpy as np
import xarray as xr

from ordframe._core.dims import MODEL_DIM
from ordframe._inference.values import check_dims


def george_rank(
    d: xr.DataArray, chance_distance: xr.DataArray, *, model_dim: str = MODEL_DIM, tol: float = 1e-12
) -> xr.DataArray:
    """Rank models by George, Lu & Chang's rule: the smallest d first, ties in d broken by the larger chance distance.

    Parameters
    ----------
    d : xarray.DataArray
        George's d of every model (``cube.ordinal.d()``), lower is better.
    chance_distance : xarray.DataArray
        The chance distance of every model (``cube.ordinal.chance_distance()``), computed with the same cost.
    model_dim : str
        The dim of the models.
    tol : float
        d values within ``tol`` of each other (chained: sorted neighbours at most ``tol`` apart) count as
        tied, and so do chance distances within ``tol``. The default only merges values that differ by
        rounding error; George et al. compare d values as printed, which a tolerance such as 0.01 follows.

    Returns
    -------
    xarray.DataArray
        The rank of every model (1 = best); models tied on both keys share the average rank, and a model
        whose d or chance distance is NaN has rank NaN and is left out of the others' ranks.

    Raises
    ------
    ValueError
        If ``model_dim`` is missing, ``tol`` is negative, or the attrs show other metrics or different costs.

    Examples
    --------
    George et al. (2016), Table 4(b): d 0.327 and 0.325, chance distances 0.12 and 0.04; at the
    precision the paper compares d, the classifier farther from the line of chance wins:

    >>> from ordframe import george_rank
    >>> acc70 = [[539, 53, 33, 52], [19, 3, 24, 0], [42, 2, 3, 0], [0, 8, 7, 15]]
    >>> acc80 = [[589, 4, 3, 1], [0, 4, 25, 17], [4, 14, 6, 8], [7, 44, 33, 41]]
    >>> cube = xr.DataArray(
    ...     np.transpose([acc70, acc80], (0, 2, 1)), dims=("model", "true", "pred"), coords={"model": ["acc70", "acc80"]}
    ... )
    >>> george_rank(cube.ordinal.d(), cube.ordinal.chance_distance()).values.tolist()
    [2.0, 1.0]
    >>> george_rank(cube.ordinal.d(), cube.ordinal.chance_distance(), tol=0.01).values.tolist()
    [1.0, 2.0]
    """
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not tol >= 0:
        raise ValueError(f"tol must be a number >= 0, got {tol!r}")
    for name, values, metric in (("d", d, "d"), ("chance_distance", chance_distance, "chance_distance")):
        if not isinstance(values, xr.DataArray):
            raise TypeError(f"{name} must be an xarray DataArray, got {type(values).__name__}")
        check_dims(name, values, [model_dim])
        if values.attrs.get("metric", metric) != metric:
            raise ValueError(f"{name} holds values of the metric {values.attrs['metric']!r}, expected {metric!r}")
    if (
        "parameters" in d.attrs
        and "parameters" in chance_distance.attrs
        and d.attrs["parameters"] != chance_distance.attrs["parameters"]
    ):
        raise ValueError(
            f"d and chance_distance were computed with different parameters ({d.attrs['parameters']} and "
            f"{chance_distance.attrs['parameters']}); compute both with the same cost"
        )
    rank = xr.apply_ufunc(
        _george,
        d.drop_attrs(deep=False),
        chance_distance.drop_attrs(deep=False),
        input_core_dims=[[model_dim], [model_dim]],
        output_core_dims=[[model_dim]],
        kwargs={"tol": float(tol)},
        dask="parallelized",
        output_dtypes=[np.float64],
    )
    rank.attrs = {"ranking": "George, Lu & Chang (2016): smallest d, ties broken by the larger chance distance"}
    return rank.transpose(*d.dims, ...).rename("rank")


def _george(d: np.ndarray, distance: np.ndarray, tol: float) -> np.ndarray:
    """Ranks along the last axis: d ascending (chained ties within ``tol``), then chance distance descending."""
    valid = ~(np.isnan(d) | np.isnan(distance))
    key = np.where(valid, d, np.inf)
    order = np.argsort(key, axis=-1, kind="stable")
    ordered = np.take_along_axis(key, order, axis=-1)
    with np.errstate(invalid="ignore"):
        starts = np.diff(ordered, axis=-1) > tol  # a new tie group of d starts after a gap larger than tol
    groups = np.concatenate([np.zeros_like(starts[..., :1]), starts], axis=-1).cumsum(axis=-1)
    group = np.empty_like(groups)
    np.put_along_axis(group, order, groups, axis=-1)
    same = group[..., :, None] == group[..., None, :]
    gap = distance[..., None, :] - distance[..., :, None]  # [i, j]: how much farther j is than i
    both = valid[..., :, None] & valid[..., None, :]
    better = both & ((group[..., None, :] < group[..., :, None]) | (same & (gap > tol)))
    tied = both & same & (np.abs(gap) <= tol)
    rank = 1 + better.sum(axis=-1) + 0.5 * (tied.sum(axis=-1) - 1)
    return np.where(valid, rank, np.nan)
