"""The corrected resampled t-test of cross-validated models, and its interval for one model.

``corrected_ttest``: the corrected resampled t-test of Nadeau & Bengio (2003,
Machine Learning 52:239-281), for J fold values of every model (J random
train/test splits, or r repeats of k-fold cross-validation, J = r k, as in
Bouckaert & Frank 2004). The fold values share training data, so they are
correlated and the naive paired t-test is too liberal; the variance of the
mean difference is inflated by the ratio of test to training set sizes::

    d_j = value_a,j - value_b,j                        (j = 1..J)
    t   = mean(d) / sqrt((1/J + n_test/n_train) var(d))    (var with ddof = 1)
    p   = 2 T_nu(-|t|),   interval: mean(d) -/+ t_{nu, 1-alpha/2} sqrt((1/J + n_test/n_train) var(d))

with nu = k - 1 degrees of freedom by default for r repeats of k folds (Bouckaert 2003), J - 1 for one
k-fold cross-validation or J random splits (Nadeau & Bengio 2003). The correction is a heuristic:
with many repeats of an unstable learner, J - 1 is too liberal (under an algorithm-level null it
rejected up to 12% at 5%: a tree and 1-nearest-neighbour at 10 x 10, 12.2% and 10.6%), while k - 1
rejected at most 7.4% (s.e. 1.2%) in every cell of ``benchmarks/bench_cv_size.py``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import xarray as xr

from ordframe._core.checks import check_level
from ordframe._core.dims import BOUND_DIM, FOLD_DIM, METRIC_DIM, MODEL_DIM, VERSUS_DIM
from ordframe._core.docstrings import fill_doc
from ordframe._inference.values import as_dataset, check_dims, elementwise

_DF = """\
df : None, int or str
    The degrees of freedom nu of the t distribution. None (default): k - 1, the length of the last fold dim
    minus 1, e.g. 4 for ``dim=["repeat", "fold"]`` with repeats of 5-fold cross-validation (Bouckaert 2003;
    list the fold dim last); with one fold dim (one k-fold cross-validation, or J random splits) or a last one
    of length 1, J - 1 (Nadeau & Bengio 2003), with J the fold values that are not NaN (of both models, for a
    pair). An int >= 1 gives that number (J - 1 = r k - 1 with repeats is the df of Bouckaert & Frank 2004);
    the name of a fold dim gives its length minus 1. With repeats, J - 1 is too liberal for unstable learners:
    under an algorithm-level null (``benchmarks/bench_cv_size.py``) it rejected up to 12% at 5% (a tree at
    10 x 10 cross-validation), k - 1 at most 7.4% in every cell (1-nearest-neighbour at 10 x 10), at a cost in
    power: about half of J - 1's at 5 x 5. Only the t quantiles change, not the mean (or difference) and its standard
    error."""
"""The ``df`` parameter of the corrected t-test and interval."""


@fill_doc(df=_DF)
def corrected_ttest(
    values,
    *,
    model_dim: str = MODEL_DIM,
    dim: str | Sequence[str] = FOLD_DIM,
    test_train_ratio: float,
    level: float = 0.95,
    df: int | str | None = None,
) -> xr.Dataset:
    """Nadeau & Bengio's corrected resampled t-test between every pair of models, on per-fold metric values.

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with dims ``model_dim`` and ``dim`` (and any others, kept), one metric per variable of a
        Dataset, e.g. ``cube.ordinal.evaluate(metrics=["mae", "qwk"])`` on a cube with a fold dim.
    model_dim : str
        The dim of the models compared.
    dim : str or sequence of str
        The dim(s) of the fold values, reduced over; several dims (e.g. ``["repeat", "fold"]`` for repeated
        cross-validation) are flattened into J = their product fold values.
    test_train_ratio : float
        ``n_test / n_train`` of one fold: ``1 / (k - 1)`` for k-fold cross-validation; 0 gives the
        uncorrected (too liberal) paired t-test, for comparison.
    level : float
        The confidence level of the intervals, in (0, 1).
    {df}

    Returns
    -------
    xarray.Dataset
        For every pair of models (a, b) (dims ``metric``, ``model_dim``, ``versus``, ...): ``difference``,
        the mean over the folds of ``value(a) - value(b)``; ``t``; ``p_value`` (two-sided, ``df`` degrees of
        freedom); ``interval``, the corrected confidence interval of the difference (dim ``bound`` =
        ``["low", "high"]``). Fold values where either model is NaN are left out of that pair (J counts
        the others). A pair whose differences are all zero (a model against itself) has t = 0 and
        p = 1; differences that are constant but not zero have t = +-inf and p = 0.

    Raises
    ------
    ValueError
        For ``test_train_ratio < 0``, a level outside (0, 1), a missing dim, fewer than 2 fold values, or a
        ``df`` that is not None, an int >= 1 or a fold dim.

    Examples
    --------
    >>> from ordframe import corrected_ttest
    {fold_values}
    >>> result = corrected_ttest(mae, test_train_ratio=1 / 4)  # 5-fold cross-validation
    >>> part = result.sel(metric="mae", model="a", versus="b")
    >>> round(float(part["difference"]), 3), round(float(part["t"]), 2), round(float(part["p_value"]), 3)
    (0.032, 2.2, 0.093)
    >>> part["interval"].round(3).values.tolist()
    [-0.008, 0.072]
    """
    ratio = _check_ratio(test_train_ratio)
    check_level(level)
    fold_dims = _fold_dims(dim, model_dim)
    data = as_dataset(values)
    df = resolve_df(df, fold_dims, data.sizes)
    parts = []
    for name, metric in data.items():
        check_dims(name, metric, [model_dim, *fold_dims])
        _check_fold_values(name, metric, fold_dims)
        metric = metric.drop_attrs(deep=False)
        mean, t, p_value, interval = _corrected_t(
            metric - metric.rename({model_dim: VERSUS_DIM}), fold_dims, ratio, level, df
        )
        order = (model_dim, VERSUS_DIM, ...)
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
        "fold_dims": ", ".join(fold_dims),
        "test_train_ratio": ratio,
        "df": df_text(df),
    }
    return out


@fill_doc(df=_DF)
def corrected_ci(
    values,
    *,
    dim: str | Sequence[str] = FOLD_DIM,
    test_train_ratio: float,
    level: float = 0.95,
    df: int | str | None = None,
):
    """Nadeau & Bengio's corrected confidence interval of a metric's mean over cross-validation folds.

    The interval of the expected value of a model's metric from J fold values, widened for the
    correlation between folds that share training data (Nadeau & Bengio 2003)::

        mean(v) -/+ t_{nu, 1-alpha/2} sqrt((1/J + n_test/n_train) var(v))      (var with ddof = 1)

    the one-sample form of ``corrected_ttest``, with its default nu: k - 1 for r repeats of k folds
    (Bouckaert 2003), J - 1 for one fold dim. With J - 1, repeats of an unstable learner make it too narrow
    (about 88% coverage at 95% for 1-nearest-neighbour with 10 x 10 cross-validation).

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with the dim(s) ``dim`` (any others are kept), e.g.
        ``df.ordinal.evaluate("y", "yhat", by=["model", "fold"])``.
    dim : str or sequence of str
        The dim(s) of the fold values, reduced together (``["repeat", "fold"]`` for repeated
        cross-validation: J = their product).
    test_train_ratio : float
        ``n_test / n_train`` of one fold: ``1 / (k - 1)`` for k-fold cross-validation; 0 gives the
        uncorrected (too narrow) t-interval.
    level : float
        The confidence level, in (0, 1).
    {df}

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        The bounds along a new dim ``bound`` = ``["low", "high"]`` (without the fold dims), with the
        values' attrs plus ``ci_level`` and ``ci_method``. NaN fold values are left out (J counts the
        others); fewer than two valid values give NaN bounds.

    Raises
    ------
    ValueError
        For ``test_train_ratio < 0``, a level outside (0, 1), a missing fold dim, fewer than 2 fold
        values, or a ``df`` that is not None, an int >= 1 or a fold dim.

    Examples
    --------
    >>> import ordframe
    >>> mae = xr.DataArray([0.50, 0.52, 0.47, 0.55, 0.49], dims="fold", name="mae")
    >>> ordframe.corrected_ci(mae, test_train_ratio=1 / 4).round(3).values.tolist()  # 5-fold CV
    [0.449, 0.563]
    """
    ratio = _check_ratio(test_train_ratio)
    check_level(level)
    fold_dims = _fold_dims(dim)
    data = as_dataset(values)
    df = resolve_df(df, fold_dims, data.sizes)
    parts = {}
    for name, metric in data.items():
        check_dims(name, metric, fold_dims, pairwise=False)
        _check_fold_values(name, metric, fold_dims)
        if BOUND_DIM in metric.dims:
            raise ValueError(f"{name!r} already has a dim {BOUND_DIM!r}, the dim of the interval's bounds")
        interval = _corrected_t(metric, fold_dims, ratio, level, df)[3]
        parts[name] = interval.transpose(BOUND_DIM, ...).assign_attrs(
            metric.attrs, ci_level=float(level), ci_method="corrected t (Nadeau & Bengio 2003)", ci_df=df_text(df)
        )
    if isinstance(values, xr.DataArray):
        return parts[next(iter(parts))].rename(values.name)
    return xr.Dataset(parts, attrs=values.attrs)


# --------------------------------------------------------------------------- helpers


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
        raise ValueError(
            f"dim must name one or more different fold dims{other} (a str or a list of str), got {folds!r}"
        )
    return fold_dims


def _check_fold_values(name: Hashable, values: xr.DataArray, fold_dims: Sequence[str]) -> None:
    n_folds = math.prod(values.sizes[d] for d in fold_dims)
    if n_folds < 2:
        raise ValueError(f"{name!r} has {n_folds} fold value along {fold_dims}; at least 2 are needed")
    if values.dtype.kind not in "biuf":
        raise TypeError(f"{name!r} holds {values.dtype} values; the fold values must be real numbers")


def resolve_df(df, fold_dims: Sequence[str], sizes: Mapping[Hashable, int]):
    """``df=`` of the corrected t, checked, with the default resolved (the one place it is): None gives the last
    fold dim, k - 1 of r repeats of k folds (Bouckaert 2003), or stays None (J - 1 over the valid fold values)
    with one fold dim or a last one of length 1."""
    if df is None:
        return fold_dims[-1] if len(fold_dims) > 1 and sizes.get(fold_dims[-1], 0) > 1 else None
    if isinstance(df, str) and df in fold_dims:
        return df
    if isinstance(df, bool) or not isinstance(df, numbers.Integral) or df < 1:
        raise ValueError(
            f"df must be None (the default: the length of the last fold dim minus 1, k - 1 for repeated k-fold "
            f"cross-validation), an int >= 1, or the name of a fold dim ({', '.join(map(repr, fold_dims))}) "
            f"whose length minus 1 is used, got {df!r}"
        )
    return df


def df_text(df) -> str:
    """How the degrees of freedom were chosen, for the result's attrs."""
    if df is None:
        return "J - 1"
    return f"len({df}) - 1" if isinstance(df, str) else str(int(df))


def corrected_scale(values: xr.DataArray, fold_dims: Sequence[str], ratio: float, df):
    """Mean, corrected standard error and degrees of freedom of fold values over the fold dims (NaN left out)."""
    n = values.notnull().sum(fold_dims)  # the fold dims are reduced together: J = the valid fold values
    mean = values.mean(fold_dims)
    with np.errstate(invalid="ignore"):  # an infinite fold value: NaN spread, so NaN bounds
        se = np.sqrt((1 / n + ratio) * values.var(fold_dims, ddof=1))
    if df is None:
        nu = (n - 1).astype(np.float64)
    else:
        if isinstance(df, str) and values.sizes[df] < 2:
            raise ValueError(f"df={df!r} names a dim of length {values.sizes[df]}: its length minus 1 is no df")
        nu = xr.full_like(n, values.sizes[df] - 1 if isinstance(df, str) else int(df), dtype=np.float64)
    return mean, se, nu.where(n >= 2)


def _corrected_t(values: xr.DataArray, fold_dims: Sequence[str], ratio: float, level: float, df=None):
    """Mean, t, two-sided p-value and interval of Nadeau & Bengio's corrected t over the fold dims."""
    import scipy.stats  # imported when needed: it takes half a second

    mean, se, df = corrected_scale(values, fold_dims, ratio, df)
    # values that do not vary: t = +-inf, or 0 (p = 1) when they are all zero (a model against itself)
    t = xr.where(se > 0, mean / se.where(se > 0), xr.where(mean == 0, 0.0, np.copysign(np.inf, mean)))
    t = t.where(se.notnull())
    p_value = 2 * elementwise(scipy.stats.t.sf, np.abs(t), df)
    half = elementwise(scipy.stats.t.ppf, 0.5 + level / 2, df) * se
    interval = xr.concat([mean - half, mean + half], dim=xr.DataArray(["low", "high"], dims=BOUND_DIM))
    return mean, t, p_value, interval
