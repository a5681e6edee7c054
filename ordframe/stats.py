"""Significance tests for cross-validation and for several data sets, and George et al.'s selection rule.

``corrected_ttest``: the corrected resampled t-test of Nadeau & Bengio (2003,
Machine Learning 52:239-281), for J fold values of every model (J random
train/test splits, or r repeats of k-fold cross-validation, J = r k, as in
Bouckaert & Frank 2004). The fold values share training data, so they are
correlated and the naive paired t-test is too liberal; the variance of the
mean difference is inflated by the ratio of test to training set sizes::

    d_j = value_a,j - value_b,j                        (j = 1..J)
    t   = mean(d) / sqrt((1/J + n_test/n_train) var(d))    (var with ddof = 1)
    p   = 2 T_{J-1}(-|t|),   interval: mean(d) -/+ t_{J-1, 1-alpha/2} sqrt((1/J + n_test/n_train) var(d))

``friedman``: the Friedman test and its post-hoc tests as recommended by
Demšar (2006, JMLR 7:1-30) for k models on N data sets. The models are ranked
within each data set (rank 1 = best, in each metric's direction; ties get the
average rank), R_j is the average rank of model j::

    chi2_F = 12 N / (k (k+1)) (sum_j R_j^2 - k (k+1)^2 / 4)      ~ chi2(k-1)
             divided by 1 - sum(t^3 - t) / (N k (k^2 - 1)) over the groups of t tied values (unless tie_correction=False)
    F_F    = (N-1) chi2_F / (N (k-1) - chi2_F)                    ~ F(k-1, (k-1)(N-1))   (Iman & Davenport 1980)
    z_ij   = (R_i - R_j) / sqrt(k (k+1) / (6 N))
    CD     = q_alpha sqrt(k (k+1) / (6 N)),   q_alpha = studentized range quantile(1-alpha, k, inf) / sqrt(2)

with Nemenyi p-values from the studentized range distribution (``sf(|z| sqrt 2, k, inf)``)
and Holm's step-down adjustment (Holm 1979) of the normal p-values ``2 Phi(-|z|)``.

``george_rank``: George, Lu & Chang (2016) choose the classifier with the
smallest d and break ties in d by the larger chance distance.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence

import numpy as np
import xarray as xr

from .dims import OBSERVED_DIM
from .intervals import BOUND_DIM

METRIC_DIM = "metric"
VERSUS_DIM = "versus"


def corrected_ttest(
    values,
    *,
    dim: str = "model",
    folds: str | Sequence[str] = "fold",
    test_train_ratio: float,
    level: float = 0.95,
) -> xr.Dataset:
    """Nadeau & Bengio's corrected resampled t-test between every pair of models, on per-fold metric values.

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with dims ``dim`` and ``folds`` (and any others, kept), one metric per variable of a
        Dataset, e.g. ``cube.ordinal.evaluate(metrics=["mae", "qwk"])`` on a cube with a fold dim.
    dim : str
        The dim of the models compared.
    folds : str or sequence of str
        The dim(s) of the fold values; several dims (e.g. ``["repeat", "fold"]`` for repeated
        cross-validation) are flattened into J = their product fold values.
    test_train_ratio : float
        ``n_test / n_train`` of one fold: ``1 / (k - 1)`` for k-fold cross-validation; 0 gives the
        uncorrected (too liberal) paired t-test, for comparison.
    level : float
        The confidence level of the intervals, in (0, 1).

    Returns
    -------
    xarray.Dataset
        For every pair of models (a, b) (dims ``metric``, ``dim``, ``versus``, ...): ``difference``,
        the mean over folds of ``value(a) - value(b)``; ``t``; ``p_value`` (two-sided, J - 1 degrees of
        freedom); ``interval``, the corrected confidence interval of the difference (dim ``bound`` =
        ``["low", "high"]``). Fold values where either model is NaN are left out of that pair (J counts
        the others). A pair whose differences are all zero (a model against itself) has t = 0 and
        p = 1; differences that are constant but not zero have t = +-inf and p = 0.

    Raises
    ------
    ValueError
        For ``test_train_ratio < 0``, a level outside (0, 1), a missing dim, or fewer than 2 fold values.

    Examples
    --------
    >>> from ordframe.stats import corrected_ttest
    >>> mae = xr.DataArray(
    ...     [[0.50, 0.52, 0.47, 0.55, 0.49], [0.45, 0.50, 0.46, 0.49, 0.47]],
    ...     dims=("model", "fold"),
    ...     coords={"model": ["a", "b"]},
    ...     name="mae",
    ... )
    >>> result = corrected_ttest(mae, test_train_ratio=1 / 4)  # 5-fold cross-validation
    >>> part = result.sel(metric="mae", model="a", versus="b")
    >>> round(float(part["difference"]), 3), round(float(part["t"]), 2), round(float(part["p_value"]), 3)
    (0.032, 2.2, 0.093)
    >>> part["interval"].round(3).values.tolist()
    [-0.008, 0.072]
    """
    ratio = _check_ratio(test_train_ratio)
    _check_level(level)
    fold_dims = _fold_dims(folds, dim)
    parts = []
    for name, metric in _as_dataset(values).items():
        _check_dims(name, metric, [dim, *fold_dims])
        _check_fold_values(name, metric, fold_dims)
        metric = metric.drop_attrs()
        mean, t, p_value, interval = _corrected_t(metric - metric.rename({dim: VERSUS_DIM}), fold_dims, ratio, level)
        order = (dim, VERSUS_DIM, ...)
        parts.append(
            xr.Dataset(
                {
                    "difference": mean.transpose(*order),
                    "t": t.transpose(*order),
                    "p_value": p_value.transpose(*order),
                    "interval": interval.transpose(BOUND_DIM, *order),
                }
            ).expand_dims({METRIC_DIM: [name]})
        )
    out = xr.concat(parts, dim=METRIC_DIM)
    out["interval"] = out["interval"].transpose(METRIC_DIM, BOUND_DIM, ...)
    out.attrs = {
        "test": "corrected resampled t-test (Nadeau & Bengio 2003)",
        "ci_level": float(level),
        "folds": ", ".join(fold_dims),
        "test_train_ratio": ratio,
    }
    return out


def corrected_ci(values, *, folds: str | Sequence[str] = "fold", test_train_ratio: float, level: float = 0.95):
    """Nadeau & Bengio's corrected confidence interval of a metric's mean over cross-validation folds.

    The interval of the expected value of a model's metric from J fold values, widened for the
    correlation between folds that share training data (Nadeau & Bengio 2003)::

        mean(v) -/+ t_{J-1, 1-alpha/2} sqrt((1/J + n_test/n_train) var(v))      (var with ddof = 1)

    the one-sample form of ``corrected_ttest``.

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with the dim(s) ``folds`` (any others are kept), e.g.
        ``df.ordinal.evaluate("y", "yhat", by=["model", "fold"])``.
    folds : str or sequence of str
        The dim(s) of the fold values, reduced together (``["repeat", "fold"]`` for repeated
        cross-validation: J = their product).
    test_train_ratio : float
        ``n_test / n_train`` of one fold: ``1 / (k - 1)`` for k-fold cross-validation; 0 gives the
        uncorrected (too narrow) t-interval.
    level : float
        The confidence level, in (0, 1).

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        The bounds along a new dim ``bound`` = ``["low", "high"]`` (without the fold dims), with the
        values' attrs plus ``ci_level`` and ``ci_method``. NaN fold values are left out (J counts the
        others); fewer than two valid values give NaN bounds.

    Raises
    ------
    ValueError
        For ``test_train_ratio < 0``, a level outside (0, 1), a missing fold dim, or fewer than 2 fold
        values.

    Examples
    --------
    >>> import ordframe
    >>> mae = xr.DataArray([0.50, 0.52, 0.47, 0.55, 0.49], dims="fold", name="mae")
    >>> ordframe.corrected_ci(mae, test_train_ratio=1 / 4).round(3).values.tolist()  # 5-fold CV
    [0.449, 0.563]
    """
    ratio = _check_ratio(test_train_ratio)
    _check_level(level)
    fold_dims = _fold_dims(folds)
    parts = {}
    for name, metric in _as_dataset(values).items():
        _check_dims(name, metric, fold_dims, pairwise=False)
        _check_fold_values(name, metric, fold_dims)
        if BOUND_DIM in metric.dims:
            raise ValueError(f"{name!r} already has a dim {BOUND_DIM!r}, the dim of the interval's bounds")
        interval = _corrected_t(metric, fold_dims, ratio, level)[3]
        parts[name] = interval.transpose(BOUND_DIM, ...).assign_attrs(
            metric.attrs, ci_level=float(level), ci_method="corrected t (Nadeau & Bengio 2003)"
        )
    if isinstance(values, xr.DataArray):
        return parts[next(iter(parts))].rename(values.name)
    return xr.Dataset(parts, attrs=values.attrs)


def friedman(
    values,
    *,
    dim: str = "model",
    over: str = "dataset",
    alpha: float = 0.05,
    tie_correction: bool = True,
) -> xr.Dataset:
    """The Friedman test of k models on N data sets, with Nemenyi and Holm post-hoc tests (Demšar 2006).

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with dims ``dim`` and ``over`` (and any others, kept: one test for each of their
        elements), one metric per variable of a Dataset. Each variable needs a ``higher_is_better`` attr
        (ordframe results carry it): rank 1 goes to the best model in that direction.
    dim : str
        The dim of the models (k >= 2).
    over : str
        The dim of the blocks, the data sets (N >= 2).
    alpha : float
        The significance level of the Nemenyi critical difference, in (0, 1).
    tie_correction : bool
        Divide the Friedman statistic by the correction for ties within data sets,
        ``1 - sum(t^3 - t) / (N k (k^2 - 1))``, as ``scipy.stats.friedmanchisquare`` and R's
        ``friedman.test`` do. ``False`` gives the formula printed by Demšar (2006); both agree when no
        data set has tied values.

    Returns
    -------
    xarray.Dataset
        ``average_rank`` (dims ``metric``, ``dim``, ...); ``statistic`` (the Friedman chi-square),
        ``p_value``, ``iman_davenport``, ``iman_davenport_p_value``, ``critical_difference`` (dims
        ``metric``, ...); ``nemenyi_p_value``, ``holm_p_value`` (dims ``metric``, ``dim``, ``versus``,
        ...; 1 on the diagonal). When every data set ties every model, the statistics are 0 and the
        p-values 1 (``scipy.stats.friedmanchisquare`` gives NaN there).

    Raises
    ------
    ValueError
        If a dim is missing or too short, a variable has no direction, has NaN values (the Friedman
        test needs complete blocks), or alpha is outside (0, 1).

    Examples
    --------
    >>> from ordframe.stats import friedman
    >>> auc = xr.DataArray(
    ...     [[0.70, 0.72, 0.75], [0.61, 0.66, 0.65], [0.80, 0.83, 0.86], [0.55, 0.57, 0.60], [0.91, 0.90, 0.95]],
    ...     dims=("dataset", "model"),
    ...     coords={"model": ["a", "b", "c"]},
    ...     name="auc",
    ...     attrs={"higher_is_better": 1},
    ... )
    >>> result = friedman(auc)
    >>> result["average_rank"].sel(metric="auc").values.tolist()
    [2.8, 2.0, 1.2]
    >>> part = result.sel(metric="auc")
    >>> round(float(part["statistic"]), 2), round(float(part["p_value"]), 3)
    (6.4, 0.041)
    >>> round(float(part["critical_difference"]), 3)
    1.482
    """
    import scipy.stats  # imported when needed: it takes half a second

    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1), e.g. 0.05, got {alpha!r}")
    parts = []
    for name, metric in _as_dataset(values).items():
        _check_dims(name, metric, [dim, over])
        better = _direction(name, metric)
        k, n = metric.sizes[dim], metric.sizes[over]
        if k < 2 or n < 2:
            raise ValueError(
                f"{name!r} has {k} models along {dim!r} and {n} blocks along {over!r}; Friedman needs >= 2 of each"
            )
        missing = int(metric.isnull().sum())
        if missing:
            raise ValueError(
                f"{name!r} has {missing} missing (NaN) values out of {metric.size}; the Friedman test needs complete "
                f"blocks (every model scored on every {over!r}): drop the incomplete ones, e.g. "
                f"values.dropna({over!r}), or fill them"
            )
        ranks = xr.apply_ufunc(
            scipy.stats.rankdata,
            -better * metric.drop_attrs(),
            input_core_dims=[[dim]],
            output_core_dims=[[dim]],
            kwargs={"axis": -1},
            dask="parallelized",
            output_dtypes=[np.float64],
        )
        average = ranks.mean(over)
        statistic = 12 * n / (k * (k + 1)) * ((average - (k + 1) / 2) ** 2).sum(dim)  # = Demšar's form, >= 0
        if tie_correction:
            group_size = (ranks == ranks.rename({dim: VERSUS_DIM})).sum(VERSUS_DIM)  # t of each element's tie group
            ties = (group_size**2 - 1).sum([dim, over])  # sum over groups of t^3 - t
            correction = 1 - ties / (n * k * (k * k - 1))  # 0 when every data set ties every model: statistic 0
            statistic = (statistic / correction.where(correction > 0)).fillna(0.0)
        p_value = _scipy(scipy.stats.chi2.sf, statistic, k - 1)
        room = n * (k - 1) - statistic  # 0 when every data set ranks the models alike: F = inf
        f_statistic = xr.where(room > 0, (n - 1) * statistic / room.where(room > 0), np.inf)
        f_p_value = _scipy(scipy.stats.f.sf, f_statistic, k - 1, (k - 1) * (n - 1))
        se = math.sqrt(k * (k + 1) / (6 * n))
        q_alpha = scipy.stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)
        z = (average - average.rename({dim: VERSUS_DIM})) / se
        nemenyi = _scipy(scipy.stats.studentized_range.sf, np.abs(z) * math.sqrt(2), k, np.inf)
        normal = np.minimum(1.0, 2 * _scipy(scipy.stats.norm.sf, np.abs(z)))
        holm = xr.apply_ufunc(
            _holm,
            normal,
            input_core_dims=[[dim, VERSUS_DIM]],
            output_core_dims=[[dim, VERSUS_DIM]],
            dask="parallelized",
            output_dtypes=[np.float64],
        )
        pairs = (dim, VERSUS_DIM, ...)
        parts.append(
            xr.Dataset(
                {
                    "average_rank": average.transpose(dim, ...),
                    "statistic": statistic,
                    "p_value": p_value,
                    "iman_davenport": f_statistic,
                    "iman_davenport_p_value": f_p_value,
                    "critical_difference": xr.full_like(statistic, q_alpha * se),
                    "nemenyi_p_value": nemenyi.transpose(*pairs),
                    "holm_p_value": holm.transpose(*pairs),
                }
            ).expand_dims({METRIC_DIM: [name]})
        )
    out = xr.concat(parts, dim=METRIC_DIM)
    out.attrs = {
        "test": "Friedman (Demšar 2006)",
        "over": over,
        "blocks": int(n),
        "alpha": float(alpha),
        "tie_correction": int(tie_correction),
    }
    return out


def george_rank(
    d: xr.DataArray, chance_distance: xr.DataArray, *, dim: str = "model", tol: float = 1e-12
) -> xr.DataArray:
    """Rank models by George, Lu & Chang's rule: the smallest d first, ties in d broken by the larger chance distance.

    Parameters
    ----------
    d : xarray.DataArray
        George's d of every model (``cube.ordinal.d()``), lower is better.
    chance_distance : xarray.DataArray
        The chance distance of every model (``cube.ordinal.chance_distance()``), computed with the same cost.
    dim : str
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
        If ``dim`` is missing, ``tol`` is negative, or the attrs show other metrics or different costs.

    Examples
    --------
    George et al. (2016), Table 4(b): d 0.327 and 0.325, chance distances 0.12 and 0.04; at the
    precision the paper compares d, the classifier farther from the line of chance wins:

    >>> from ordframe.stats import george_rank
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
        _check_dims(name, values, [dim])
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
        d.drop_attrs(),
        chance_distance.drop_attrs(),
        input_core_dims=[[dim], [dim]],
        output_core_dims=[[dim]],
        kwargs={"tol": float(tol)},
        dask="parallelized",
        output_dtypes=[np.float64],
    )
    rank.attrs = {"ranking": "George, Lu & Chang (2016): smallest d, ties broken by the larger chance distance"}
    return rank.transpose(*d.dims, ...).rename("rank")


# --------------------------------------------------------------------------- helpers


def _as_dataset(values) -> xr.Dataset:
    if isinstance(values, xr.DataArray):
        name = values.name if values.name is not None else values.attrs.get("metric", "value")
        return values.to_dataset(name=name)
    if not isinstance(values, xr.Dataset):
        raise TypeError(f"values must be an xarray DataArray or Dataset, got {type(values).__name__}")
    return values


def _check_dims(name: Hashable, values: xr.DataArray, dims: Sequence[str], pairwise: bool = True) -> None:
    for d in dims:
        if d not in values.dims:
            hint = (
                f" (results of observed=True stack the groups in the dim {OBSERVED_DIM!r}: "
                f"use .unstack({OBSERVED_DIM!r}) first)"
                if OBSERVED_DIM in values.dims
                else ""
            )
            raise ValueError(f"{name!r} has no dim {d!r}; its dims are {tuple(values.dims)}{hint}")
    if pairwise and VERSUS_DIM in values.dims:
        raise ValueError(f"{name!r} already has a dim {VERSUS_DIM!r}, the name the pairwise results use")


def _check_ratio(test_train_ratio: float) -> float:
    if (
        isinstance(test_train_ratio, bool)
        or not isinstance(test_train_ratio, numbers.Real)
        or not (math.isfinite(test_train_ratio) and test_train_ratio >= 0)
    ):
        raise ValueError(
            f"test_train_ratio must be a number >= 0, n_test / n_train of one fold (1 / (k - 1) for k-fold "
            f"cross-validation; 0 gives the uncorrected t-test), got {test_train_ratio!r}"
        )
    return float(test_train_ratio)


def _fold_dims(folds, dim: str | None = None) -> list[str]:
    """``folds`` as a list of distinct dim names (other than the model dim ``dim``)."""
    fold_dims = [folds] if isinstance(folds, str) else list(folds) if isinstance(folds, (list, tuple)) else None
    if (
        not fold_dims
        or not all(isinstance(d, str) for d in fold_dims)
        or len(set(fold_dims)) < len(fold_dims)
        or dim in fold_dims
    ):
        other = f" other than the model dim {dim!r}" if dim is not None else ""
        raise ValueError(f"folds must name one or more different dims{other} (a str or a list of str), got {folds!r}")
    return fold_dims


def _check_fold_values(name: Hashable, values: xr.DataArray, fold_dims: Sequence[str]) -> None:
    n_folds = math.prod(values.sizes[d] for d in fold_dims)
    if n_folds < 2:
        raise ValueError(f"{name!r} has {n_folds} fold value along {fold_dims}; at least 2 are needed")
    if values.dtype.kind not in "biuf":
        raise TypeError(f"{name!r} holds {values.dtype} values; the fold values must be real numbers")


def _corrected_t(values: xr.DataArray, fold_dims: Sequence[str], ratio: float, level: float):
    """Mean, t, two-sided p-value and interval of Nadeau & Bengio's corrected t over the fold dims."""
    import scipy.stats  # imported when needed: it takes half a second

    n = values.notnull().sum(fold_dims)  # the fold dims are reduced together: J = the valid fold values
    mean = values.mean(fold_dims)
    with np.errstate(invalid="ignore"):  # an infinite fold value: NaN spread, so NaN bounds
        se = np.sqrt((1 / n + ratio) * values.var(fold_dims, ddof=1))
    df = n - 1
    # values that do not vary: t = +-inf, or 0 (p = 1) when they are all zero (a model against itself)
    t = xr.where(se > 0, mean / se.where(se > 0), xr.where(mean == 0, 0.0, np.copysign(np.inf, mean)))
    t = t.where(se.notnull())
    p_value = 2 * _scipy(scipy.stats.t.sf, np.abs(t), df)
    half = _scipy(scipy.stats.t.ppf, 0.5 + level / 2, df) * se
    interval = xr.concat([mean - half, mean + half], dim=xr.DataArray(["low", "high"], dims=BOUND_DIM))
    return mean, t, p_value, interval


def _check_level(level: float) -> None:
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), e.g. 0.95, got {level!r}")


def _direction(name: Hashable, values: xr.DataArray) -> float:
    if "higher_is_better" not in values.attrs:
        raise ValueError(
            f"{name!r} does not say which direction is better (no 'higher_is_better' attr); ordframe results "
            "carry it: compute the values with an ordframe metric, or set values.attrs['higher_is_better']"
        )
    return 1.0 if int(values.attrs["higher_is_better"]) else -1.0


def _scipy(function, *args) -> xr.DataArray:
    """An elementwise scipy function applied to DataArrays (and scalars)."""
    return xr.apply_ufunc(function, *args, dask="parallelized", output_dtypes=[np.float64])


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of the k (k-1) / 2 pairs of every symmetric ``(..., k, k)`` matrix of p-values."""
    k = p.shape[-1]
    rows, cols = np.triu_indices(k, 1)
    family = p[..., rows, cols]
    m = family.shape[-1]
    order = np.argsort(family, axis=-1, kind="stable")
    stepped = (m - np.arange(m)) * np.take_along_axis(family, order, axis=-1)
    adjusted = np.minimum(1.0, np.maximum.accumulate(stepped, axis=-1))
    unsorted = np.empty_like(adjusted)
    np.put_along_axis(unsorted, order, adjusted, axis=-1)
    out = np.ones_like(p, dtype=np.float64)
    out[..., rows, cols] = unsorted
    out[..., cols, rows] = unsorted
    return out


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
