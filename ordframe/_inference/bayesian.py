"""Bayesian comparisons of models with a region of practical equivalence (rope), after Benavoli et al. (2017).

Both tests return, for every pair (model, versus) and in each metric's direction, the posterior
probabilities that ``model`` is better by more than the rope, that the two are practically equivalent
(their difference is within [-rope, rope]), and that ``versus`` is better by more than the rope.

``bayesian_correlated_ttest`` (Corani & Benavoli 2015), on the J fold values of cross-validation: with
d_j = value(model)_j - value(versus)_j, the posterior of the mean difference under a flat prior and the
correlation rho = n_test / n_total between folds is a Student t::

    mu | d ~ t(nu, location = mean(d), scale = sqrt((1/J + n_test/n_train) var(d)))

(the scale of Nadeau & Bengio's corrected t; rho / (1 - rho) = n_test / n_train; nu = J - 1 in the paper,
k - 1 for r repeats of k folds by default here, as in ``corrected_ttest``), so that
P(model better) = P(s mu > rope), P(equivalent) = P(|mu| <= rope), P(versus better) = P(s mu < -rope),
s = +1 where higher is better and -1 where lower is.

``bayesian_signed_rank`` (Benavoli et al. 2014; 2017, section 5), on the values of N data sets: a Dirichlet
process posterior over the distribution of the differences, with a pseudo-observation z_0 = 0 of weight
``prior`` beside z_1..z_N = s d_i of weight 1 each. For every Monte-Carlo draw w ~ Dirichlet(prior, 1, ..., 1),

    theta_model  = sum_ij w_i w_j H(z_i + z_j - 2 rope)
    theta_versus = sum_ij w_i w_j H(-z_i - z_j - 2 rope)
    theta_rope   = 1 - theta_model - theta_versus

with H(x) = 1 for x > 0, 1/2 for x = 0 and 0 otherwise; P(model better) is the share of draws in which
theta_model is the largest of the three (ties split evenly), as in baycomp's ``SignedRankTest``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import xarray as xr

from ordframe._core.checks import check_count, directions, ranking, rng_of
from ordframe._core.dims import DRAW_DIM, FOLD_DIM, METRIC_DIM, MODEL_DIM, REGION_DIM, VERSUS_DIM
from ordframe._core.docstrings import fill_doc
from ordframe._core.messages import show
from ordframe._core.options import check_allocation
from ordframe._inference.ttest import (
    _check_fold_values,
    _check_ratio,
    _fold_dims,
    corrected_scale,
    df_text,
    resolve_df,
)
from ordframe._inference.values import as_dataset, check_complete, check_dims, elementwise

REGIONS = ["model_better", "equivalent", "versus_better"]
_CHUNK = 2**22  # float64 elements of one block of the signed-rank sums (32 MiB)


@fill_doc
def bayesian_correlated_ttest(
    values,
    *,
    model_dim: str = MODEL_DIM,
    dim: str | Sequence[str] = FOLD_DIM,
    test_train_ratio: float,
    rope=0.0,
    df: int | str | None = None,
    higher_is_better=None,
) -> xr.Dataset:
    """The Bayesian correlated t-test (Corani & Benavoli 2015) between every pair of models, on per-fold values.

    The posterior of the mean difference ``value(model) - value(versus)`` over cross-validation folds is a
    Student t located at the mean difference, with the scale of Nadeau & Bengio (2003)'s corrected t,
    ``sqrt((1/J + n_test/n_train) var(d))``, and the degrees of freedom of ``corrected_ttest`` (by default k - 1
    for r repeats of k folds, Bouckaert 2003; J - 1 for one fold dim); the probabilities of the three regions
    follow from its distribution function (no sampling). With ``df=J - 1`` it equals baycomp's
    ``CorrelatedTTest`` (Benavoli et al. 2017). The correlation heuristic is that of ``corrected_ttest``: with
    many repeats of an unstable learner, J - 1 makes the posterior too narrow. With rope 0, "P > 0.975 either
    way" is the t-test's rejection at 5%, with the same degrees of freedom.

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with dims ``model_dim`` and ``dim`` (and any others, kept), one metric per variable.
        Each variable needs a ``higher_is_better`` attr (ordframe results carry it) or ``higher_is_better=``.
    model_dim : str
        The dim of the models compared.
    dim : str or sequence of str
        The dim(s) of the fold values, reduced over; several (``["repeat", "fold"]``) are flattened into J
        values.
    test_train_ratio : float
        ``n_test / n_train`` of one fold: ``1 / (k - 1)`` for k-fold cross-validation (baycomp's ``runs``
        repeats of k folds give the same).
    rope : float or dict
        The half-width r of the region of practical equivalence [-r, r] of the difference, in the metric's
        units (baycomp's ``rope``), e.g. 0.01 for accuracy; a dict gives it by variable name (every variable
        needs one). 0 (default) gives no equivalence region.
    df : None, int or str
        The degrees of freedom, as in [`corrected_ttest`][ordframe.corrected_ttest]: None (default) gives k - 1,
        the length of the last fold dim minus 1 (Bouckaert 2003), or J - 1 with one fold dim; an int or the name
        of a fold dim gives that. ``df=J - 1`` (J = r k) is the paper's and baycomp's choice, too liberal for
        unstable learners with repeats.
    higher_is_better : bool or dict, optional
        Which way is better: None (default) reads each variable's ``higher_is_better`` attr (or its ``best``
        attr: the distances from that target, ``|value - best|``, are compared, lower better); True or False
        for every variable; a dict by variable name.

    Returns
    -------
    xarray.Dataset
        For every pair (dims ``metric``, ``model_dim``, ``versus``, ...): ``p_model_better``,
        ``p_equivalent`` and ``p_versus_better``, which sum to 1; the posterior's ``location`` (the mean
        difference ``value(model) - value(versus)``, in the metric's units), ``scale`` and ``df``. Per metric:
        ``rope`` and ``higher_is_better``. Fold values where either model is NaN are left out of that pair;
        fewer than 2 valid fold values give NaN. Differences that do not vary (scale 0) give a posterior
        that is a point mass at the mean difference (a model against itself: ``p_equivalent`` = 1; baycomp
        gives 1/2 and 1/2 there when rope = 0).

    Raises
    ------
    ValueError
        For a missing dim, fewer than 2 fold values, a negative ratio or rope, a bad ``df``, or a
        variable without a direction.

    Examples
    --------
    >>> from ordframe import bayesian_correlated_ttest
    {fold_values}
    >>> result = bayesian_correlated_ttest(mae, test_train_ratio=1 / 4, rope=0.01)  # 5-fold CV
    >>> part = result.sel(metric="mae", model="b", versus="a")
    >>> [round(float(part[p]), 3) for p in ["p_model_better", "p_equivalent", "p_versus_better"]]
    [0.898, 0.08, 0.022]
    """
    ratio = _check_ratio(test_train_ratio)
    fold_dims = _fold_dims(dim, model_dim)
    data = as_dataset(values)
    df = resolve_df(df, fold_dims, data.sizes)
    names = list(data.data_vars)
    overrides = directions(higher_is_better, names)
    ropes = _ropes(rope, names)
    parts = []
    for name, metric in data.items():
        check_dims(name, metric, [model_dim, *fold_dims])
        _check_fold_values(name, metric, fold_dims)
        oriented = ranking(name, metric.attrs, overrides[name])
        metric = oriented.ranked(metric.drop_attrs(deep=False))
        location, scale, nu = corrected_scale(metric - metric.rename({model_dim: VERSUS_DIM}), fold_dims, ratio, df)
        regions = _t_regions(oriented.sign * location, scale, nu, ropes[name])
        order = (model_dim, VERSUS_DIM, ...)
        parts.append(
            xr.Dataset(
                {
                    **{f"p_{region}": p.transpose(*order) for region, p in zip(REGIONS, regions)},
                    "location": location.transpose(*order),
                    "scale": scale.transpose(*order),
                    "df": nu.transpose(*order),
                    "rope": ropes[name],
                    "higher_is_better": int(oriented.sign > 0),
                }
            ).expand_dims({METRIC_DIM: [name]})
        )
    out = xr.concat(parts, dim=METRIC_DIM)
    out.attrs = {
        "test": "Bayesian correlated t-test (Corani & Benavoli 2015)",
        "fold_dims": ", ".join(fold_dims),
        "test_train_ratio": ratio,
        "df": df_text(df),
    }
    return out


@fill_doc
def bayesian_signed_rank(
    values,
    *,
    model_dim: str = MODEL_DIM,
    dim: str = "dataset",
    rope=0.0,
    prior: float = 0.5,
    n_resamples: int = 50_000,
    seed=None,
    keep_samples: bool = False,
    higher_is_better=None,
) -> xr.Dataset:
    """The Bayesian signed-rank test (Benavoli et al. 2017) between every pair of models over N data sets.

    A Dirichlet-process posterior of the distribution of the differences between two models over data sets,
    the Bayesian counterpart of the Wilcoxon signed-rank test: for each Monte-Carlo draw, the posterior
    probabilities ``theta`` that a further data set's difference (in the metric's direction) lies above the
    rope, within it, or below it (with Walsh averages, as the signed-rank statistic); P(model better) is the
    share of draws in which "above" is the most probable of the three, as in baycomp's ``SignedRankTest``. The
    values are one per data set (e.g. the mean over its folds); the data sets are the independent units.

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with dims ``model_dim`` and ``dim`` (and any others, kept: one test for each of their
        elements), one metric per variable, each with a direction (``higher_is_better`` attr or argument).
    model_dim : str
        The dim of the models compared.
    dim : str
        The dim of the data sets (N >= 2), reduced over.
    rope : float or dict
        The half-width r of the region of practical equivalence [-r, r], in the metric's units; a dict by
        variable name. 0 (default) gives no equivalence region.
    prior : float
        The weight (> 0) of the prior's pseudo-observation, a difference of 0 (baycomp's default 0.5).
    n_resamples : int
        The number of Monte-Carlo draws of the Dirichlet weights. The probabilities are shares of draws: their
        Monte-Carlo standard error is at most ``0.5 / sqrt(n_resamples)`` (0.0022 for 50 000).
    seed : None, int or numpy Generator
        The random draws; the same draws serve every pair and metric, so that the pair (b, a) mirrors (a, b)
        exactly.
    keep_samples : bool
        Also return the draws of ``theta`` as ``samples`` (dims ..., ``draw``, ``region``), e.g. for
        [`ordframe.plot.posterior`][ordframe.plot.posterior]. Bounded by the ``max_cube_bytes`` option.
    higher_is_better : bool or dict, optional
        Which way is better, as in [`bayesian_correlated_ttest`][ordframe.bayesian_correlated_ttest].

    Returns
    -------
    xarray.Dataset
        For every pair (dims ``metric``, ``model_dim``, ``versus``, ...): ``p_model_better``,
        ``p_equivalent``, ``p_versus_better`` (sum 1); per metric ``rope`` and ``higher_is_better``; with
        ``keep_samples=True`` also ``samples``. A model against itself is equivalent (``p_equivalent`` = 1)
        when rope > 0, and splits 1/2, 1/2 when rope = 0.

    Raises
    ------
    ValueError
        For a missing dim, fewer than 2 data sets, NaN values (the test needs every model on every data set),
        a negative rope, a prior <= 0, or a variable without a direction.

    Examples
    --------
    >>> from ordframe import bayesian_signed_rank
    {dataset_values}
    >>> result = bayesian_signed_rank(auc, rope=0.01, seed=0)
    >>> part = result.sel(metric="auc", model="b", versus="a")
    >>> [round(float(part[p]), 2) for p in ["p_model_better", "p_equivalent", "p_versus_better"]]
    [0.88, 0.11, 0.01]
    """
    if isinstance(prior, bool) or not isinstance(prior, numbers.Real) or not (math.isfinite(prior) and prior > 0):
        raise ValueError(f"prior must be a number > 0, the weight of the pseudo-observation at 0, got {prior!r}")
    n_resamples = check_count(n_resamples, "n_resamples")
    if not isinstance(dim, str):
        raise TypeError(f"dim must name the one dim of the data sets, got {dim!r}")
    data = as_dataset(values)
    names = list(data.data_vars)
    overrides = directions(higher_is_better, names)
    ropes = _ropes(rope, names)
    checked = {}
    for name, metric in data.items():
        check_dims(name, metric, [model_dim, dim])
        check_complete(name, metric, model_dim, dim, "the Bayesian signed-rank test", models=1)
        oriented = ranking(name, metric.attrs, overrides[name])
        checked[name] = (oriented.sign, oriented.score(metric.drop_attrs(deep=False)))
    n = data.sizes[dim]
    weights = rng_of(seed).dirichlet(np.r_[float(prior), np.ones(n)], n_resamples)
    if keep_samples:
        pairs = sum(m.size // n * m.sizes[model_dim] for _, m in checked.values())
        check_allocation(
            pairs * n_resamples * 3 * 8, "the kept samples (keep_samples=True)", "draw fewer n_resamples or "
        )
    parts = []
    for name, (sign, better) in checked.items():
        difference = better - better.rename({model_dim: VERSUS_DIM})
        theta = xr.apply_ufunc(
            _signed_rank_theta,
            difference,
            input_core_dims=[[dim]],
            output_core_dims=[[DRAW_DIM, REGION_DIM]],
            kwargs={"weights": weights, "rope": ropes[name]},
        ).assign_coords({REGION_DIM: REGIONS})
        # ties (a model against itself) split evenly; theta carries rounding errors of ~1e-16 per term
        top = theta >= theta.max(REGION_DIM) - 1e-12
        share = (top / top.sum(REGION_DIM)).mean(DRAW_DIM)
        order = (model_dim, VERSUS_DIM, ...)
        variables = {f"p_{region}": share.sel({REGION_DIM: region}, drop=True).transpose(*order) for region in REGIONS}
        if keep_samples:
            variables["samples"] = theta.transpose(*order, DRAW_DIM, REGION_DIM)
        parts.append(
            xr.Dataset({**variables, "rope": ropes[name], "higher_is_better": int(sign > 0)}).expand_dims(
                {METRIC_DIM: [name]}
            )
        )
    out = xr.concat(parts, dim=METRIC_DIM)
    out.attrs = {
        "test": "Bayesian signed-rank test (Benavoli et al. 2017)",
        "blocks_dim": dim,
        "blocks": int(n),
        "prior": float(prior),
        "n_resamples": n_resamples,
    }
    return out


# --------------------------------------------------------------------------- helpers


def _ropes(rope, names: Sequence[Hashable]) -> dict[Hashable, float]:
    """``rope=`` per variable: one half-width for all, or a dict that gives one for every variable."""
    if isinstance(rope, Mapping):
        unknown = [key for key in rope if key not in names]
        absent = [name for name in names if name not in rope]
        if unknown or absent:
            raise ValueError(
                f"rope= as a dict needs one half-width for every variable ({show(names)}); "
                + (f"it names {show(unknown)}, which are not variables" if unknown else f"it lacks {show(absent)}")
            )
        return {name: _rope(rope[name], f"rope[{name!r}]") for name in names}
    width = _rope(rope, "rope")
    return dict.fromkeys(names, width)


def _rope(value, what: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not (math.isfinite(value) and float(value) >= 0)
    ):
        raise ValueError(
            f"{what} must be a number >= 0, the half-width of the region of practical equivalence in the metric's "
            f"units (e.g. 0.01), got {value!r}"
        )
    return float(value)


def _t_regions(location: xr.DataArray, scale: xr.DataArray, nu: xr.DataArray, rope: float):
    """P(mu > rope), P(|mu| <= rope), P(mu < -rope) for mu ~ t(nu, location, scale); a point mass where scale = 0."""
    import scipy.stats  # imported when needed: it takes half a second

    spread = scale.where(scale > 0)
    above = elementwise(scipy.stats.t.sf, (rope - location) / spread, nu)
    below = elementwise(scipy.stats.t.cdf, (-rope - location) / spread, nu)
    inside = elementwise(scipy.stats.t.cdf, (rope - location) / spread, nu) - below
    point = scale == 0
    regions = [
        xr.where(point, (location > rope).astype(float), above),
        xr.where(point, (abs(location) <= rope).astype(float), inside),
        xr.where(point, (location < -rope).astype(float), below),
    ]
    return [r.where(scale.notnull() & location.notnull()) for r in regions]


def _signed_rank_theta(differences: np.ndarray, *, weights: np.ndarray, rope: float) -> np.ndarray:
    """The draws ``(..., S, 3)`` of (theta_model, theta_rope, theta_versus) for differences ``(..., N)``.

    With z sorted, each row i of H(z_i + z_j - 2 rope) is 0, then 1/2 (ties), then 1 along j, so
    ``sum_j w_j H(...)`` is a suffix sum of the sorted weights: O(N) per draw instead of O(N^2).
    """
    lead = differences.shape[:-1]
    z = np.concatenate([np.zeros((*lead, 1)), differences], axis=-1).reshape(-1, differences.shape[-1] + 1)
    order = np.argsort(z, axis=-1, kind="stable")
    z = np.take_along_axis(z, order, axis=-1)
    walsh = z[:, :, None] + z[:, None, :]  # (P, N+1, N+1): the sums z_i + z_j, twice the Walsh averages
    size = z.shape[-1]
    # row i of "above" is 1 from column size - n_one on, 1/2 from size - n_some; "below" mirrors it
    above_one, above_some = (walsh > 2 * rope).sum(-1), (walsh >= 2 * rope).sum(-1)
    below_one, below_some = (-walsh > 2 * rope).sum(-1), (-walsh >= 2 * rope).sum(-1)
    n_pairs, n_draws = z.shape[0], weights.shape[0]
    theta = np.empty((n_pairs, 3, n_draws))
    pair = np.arange(n_pairs)[:, None]
    step = max(1, _CHUNK // (n_pairs * (size + 1)))
    for start in range(0, n_draws, step):  # blocks of draws bound the (P, N+2, draws) sums
        w = weights[start : start + step].T[order]  # (P, N+1, s): each pair's weights in its sorted order
        prefix = np.concatenate([np.zeros((n_pairs, 1, w.shape[-1])), np.cumsum(w, axis=1)], axis=1)  # sum_{m < k}
        suffix = prefix[:, -1:] - prefix  # sum_{m >= k}

        def rows(sums, one, some):
            full = sums[pair, one]
            return full + 0.5 * (sums[pair, some] - full)

        block = slice(start, start + step)
        theta[:, 0, block] = (w * rows(suffix, size - above_one, size - above_some)).sum(1)
        theta[:, 2, block] = (w * rows(prefix, below_one, below_some)).sum(1)
    theta = theta.transpose(0, 2, 1)
    theta[..., 1] = 0.0 if rope == 0 else 1.0 - theta[..., 0] - theta[..., 2]
    if rope == 0:
        theta[..., 2] = 1.0 - theta[..., 0]
    return theta.reshape(*lead, n_draws, 3)
