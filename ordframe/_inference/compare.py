"""Comparing models on bootstrap replicates: paired differences, intervals, p-values, win probabilities, ranks.

``compare`` takes metric values with a model dim and a replicate dim, e.g.
from ``df.ordinal.bootstrap(...).ordinal.evaluate(...)`` (paired replicates:
every model scored on the same resample of samples), and for every pair of
models (a, b) reports, per metric:

* ``difference``: the mean over replicates of ``value(a) - value(b)``;
* ``interval``: its percentile interval (dim ``bound``);
* ``p_value``: the two-sided bootstrap p-value of "no difference",
  ``min(1, 2 (min(#{d <= 0}, #{d >= 0}) + 1) / (B + 1))`` over the B
  replicates d (the +1 keeps it from being 0 with finitely many replicates;
  Davison & Hinkley 1997, ch. 4);
* ``win_probability``: the share of replicates in which a is *better* than b
  (ties count half), in the metric's own direction;

and per model ``mean`` (over replicates) and ``rank`` (1 = best, ties share
the average rank). Directions come from the values' attrs, which every
ordframe result carries, so the higher-is-better indices and the
lower-is-better ones are ranked each the right way round.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ordframe._core.checks import better_sign
from ordframe._core.dims import BOOTSTRAP_DIM, BOUND_DIM, METRIC_DIM, MODEL_DIM, VERSUS_DIM
from ordframe._inference.intervals import ci


def compare(
    result, *, model_dim: str = MODEL_DIM, dim: str = BOOTSTRAP_DIM, level: float = 0.95, estimate=None
) -> xr.Dataset:
    """Pairwise comparison of the models along ``model_dim``, over the replicates along ``dim``.

    Parameters
    ----------
    result : xarray.DataArray or xarray.Dataset
        Metric values with dims ``model_dim`` and ``dim`` (and any others, kept).
    model_dim : str
        The dim of the models compared.
    dim : str
        The replicate dim, reduced over.
    level : float
        The confidence level of the intervals.
    estimate : xarray.DataArray or xarray.Dataset, optional
        The metrics' values on the data itself (without ``dim``). When given,
        ``difference``, ``mean`` and ``rank`` use them instead of the mean over
        replicates, which a biased index (OC is a minimum over paths) can shift.

    Returns
    -------
    xarray.Dataset
        Variables ``difference``, ``interval``, ``p_value``, ``win_probability``
        (dims ``metric``, ``model_dim``, ``versus``, ...) and ``mean``, ``rank``
        (dims ``metric``, ``model_dim``, ...).

    Raises
    ------
    ValueError
        If a dim is missing, or a variable has no direction (no ``higher_is_better`` attr).

    Examples
    --------
    >>> import ordframe
    >>> df = pd.DataFrame({"y": [0, 1, 2, 2] * 25, "yhat": [0, 1, 2, 1] * 25, "model": "a"})
    >>> both = pd.concat([df, df.assign(yhat=0, model="b")])
    >>> boot = both.ordinal.bootstrap("y", "yhat", by="model", n=500, seed=0)
    >>> result = ordframe.compare(boot.ordinal.evaluate(metrics=["mae"]))
    >>> result["rank"].sel(metric="mae").values.tolist()
    [1.0, 2.0]
    >>> float(result["win_probability"].sel(metric="mae", model="a", versus="b"))
    1.0
    """
    import scipy.stats  # imported when needed: it takes half a second

    data = result.to_dataset() if isinstance(result, xr.DataArray) else result
    if not isinstance(data, xr.Dataset):
        raise TypeError(f"result must be an xarray DataArray or Dataset, got {type(result).__name__}")
    versus = VERSUS_DIM
    parts = []
    for name, values in data.items():
        for d in (model_dim, dim):
            if d not in values.dims:
                raise ValueError(f"{name!r} has no dim {d!r}; its dims are {tuple(values.dims)}")
        better = better_sign(name, values.attrs)
        other = values.rename({model_dim: versus})
        difference = values - other
        valid = difference.notnull()
        n = valid.sum(dim)
        below, above = (difference <= 0).where(valid).sum(dim), (difference >= 0).where(valid).sum(dim)
        p_value = np.minimum(1.0, 2 * (np.minimum(below, above) + 1) / (n + 1))
        signed = better * difference
        wins = ((signed > 0) + 0.5 * (signed == 0)).where(valid).sum(dim) / n
        interval = ci(difference.assign_attrs(values.attrs), dim=dim, level=level)
        mean = values.mean(dim) if estimate is None else _estimate(estimate, name, values.dims, dim)
        rank = xr.apply_ufunc(
            scipy.stats.rankdata,
            -better * mean,
            input_core_dims=[[model_dim]],
            output_core_dims=[[model_dim]],
            kwargs={"axis": -1, "nan_policy": "omit"},
        )
        parts.append(
            xr.Dataset(
                {
                    "difference": difference.mean(dim) if estimate is None else mean - mean.rename({model_dim: versus}),
                    "interval": interval.drop_attrs(),
                    "p_value": p_value,
                    "win_probability": wins,
                    "mean": mean.drop_attrs(),
                    "rank": rank.transpose(*mean.dims),
                }
            ).expand_dims({METRIC_DIM: [name]})
        )
    out = xr.concat(parts, dim=METRIC_DIM, coords="minimal", compat="override")
    out["interval"] = out["interval"].transpose(METRIC_DIM, BOUND_DIM, ...)
    out.attrs = {"ci_level": float(level), "replicates": dim}
    return out


def _estimate(estimate, name, dims, dim: str) -> xr.DataArray:
    """The value of metric ``name`` on the data, from a DataArray or a Dataset of estimates."""
    values = estimate[name] if isinstance(estimate, xr.Dataset) else estimate
    if not isinstance(values, xr.DataArray) or dim in values.dims:
        raise ValueError(f"estimate= must hold the values of {name!r} on the data, without the {dim!r} dim")
    missing = [d for d in dims if d != dim and d not in values.dims]
    if missing:
        raise ValueError(f"estimate= of {name!r} lacks the dims {missing} of the replicates")
    return values.drop_attrs()
