"""Comparing models on bootstrap replicates: paired differences, intervals, p-values, ranks.

``compare`` takes metric values with a model dim and a replicate dim, e.g.
from ``df.ordinal.bootstrap(...).ordinal.evaluate(...)`` (paired replicates:
every model scored on the same resample of samples), and for every pair of
models (a, b) reports, per metric:

* ``difference``: ``value(a) - value(b)`` on the data (``estimate=``), or the
  mean over replicates of it when no estimate is given;
* ``interval``: the percentile interval of the replicates' differences (dim ``bound``);
* ``p_value``: the two-sided bootstrap p-value of "no difference",
  ``min(1, 2 (min(#{d <= 0}, #{d >= 0}) + 1) / (B + 1))`` over the B
  replicates d where both models are defined (the +1 keeps it from being 0
  with finitely many replicates; Davison & Hinkley 1997, ch. 4); NaN when
  B = 0, e.g. a model without probabilities scored with a probability metric;
* ``adjusted_p_value``: ``p_value`` adjusted over the k (k - 1) / 2 pairs of
  models (Holm 1979 by default, or Benjamini & Hochberg 1995);
* ``bootstrap_share_better``: the share of replicates in which a is better
  than b (ties count half), in the metric's own direction. It is a bootstrap
  proportion (one minus a one-sided bootstrap p-value), not the probability
  that a is better: under no difference at all it is uniform, and one of
  two equal models reaches 0.95 in about one data set in ten. For a
  posterior probability see the Bayesian tests;

and per model ``mean`` (the estimate, or the mean over replicates) and
``rank`` (1 = best, ties share the average rank).

These compare the fitted models on this data set. They say nothing about the
learning algorithms that produced them: for that, see the corrected and
Bayesian t-tests over cross-validation folds. Directions come from the values' attrs, which every
ordframe result carries, so the higher-is-better indices and the
lower-is-better ones are ranked each the right way round; xarray keeps attrs
through arithmetic, so a variable named unlike its ``metric`` attr (e.g.
``(1 - accuracy).rename("error_rate")``) warns unless ``higher_is_better=``
says which way is better. A metric whose best value is a target (a ``best``
attr: the mean signed error's 0) is compared by its distance from it,
``|value - best|``, lower better: ``difference``, ``interval``, the p-values,
``bootstrap_share_better`` and ``rank`` are those of the distances, ``mean``
is the metric's value.
"""

from __future__ import annotations

import math
from collections import ChainMap

import numpy as np
import xarray as xr

from ordframe._bridge.evaluate import selection_request
from ordframe._core.checks import check_level, directions, ranking
from ordframe._core.dims import BOOTSTRAP_DIM, BOUND_DIM, LEFT_OUT_DIM, METRIC_DIM, MODEL_DIM, VERSUS_DIM
from ordframe._core.drawing import Resampling, drawn_of
from ordframe._core.messages import show, warn
from ordframe._core.version import VERSION_ATTR, ordframe_version
from ordframe._inference.intervals import (
    MIN_VALID,
    acceleration_of,
    bca_bounds,
    interval_of,
    percentile,
    reflected,
    valid_share,
)
from ordframe._inference.multiplicity import ADJUSTMENTS, adjusted_pairs
from ordframe._inference.values import as_dataset
from ordframe._inputs.selection import Selection
from ordframe._registry.interval_methods import INTERVAL_METHODS, methods
from ordframe._resampling.paired import frame_replicates

#: The intervals of a paired difference: the calibrated one has no double bootstrap of differences.
DIFFERENCE_METHODS = methods("differences")


def compare(
    result,
    *,
    model_dim: str = MODEL_DIM,
    dim: str = BOOTSTRAP_DIM,
    level: float = 0.95,
    estimate=None,
    adjust: str | None = "holm",
    higher_is_better=None,
    method: str = "percentile",
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
    estimate : xarray.DataArray, xarray.Dataset or "replicates", optional
        The metrics' values on the data itself (without ``dim``), e.g.
        ``df.ordinal.evaluate(...)`` with the same ``by`` and ``strata``: ``difference``, ``mean`` and
        ``rank`` are those of the data. Its dims other than ``dim`` must be those of the replicates, with
        every label of their coordinates (in any order; other labels are left out). Without it they are
        the means over the replicates, which a biased index shifts (OC is a minimum over paths, biased
        downward), and a warning says so; ``"replicates"`` asks for those means without the warning.
        [`df.ordinal.compare`][ordframe._accessors.pandas.OrdinalFrameAccessor.compare] passes the estimate.
    adjust : {"holm", "bh"} or None
        The adjustment of ``adjusted_p_value`` over the pairs of models of each metric (and of each element of
        the other dims): Holm's step-down (family-wise error rate), Benjamini–Hochberg (false discovery
        rate), or None (the p-values as they are).
    higher_is_better : bool or dict, optional
        Which way is better: None (default) reads each variable's ``higher_is_better`` attr (or its ``best``
        attr: the distance from that target ranks); True or False applies to every variable; a dict gives it
        by variable name (the others read their attrs). Given, it replaces the attrs, a target too.
    method : {"percentile", "basic"}
        The interval of the differences: the percentile interval of the replicates' differences, or the
        basic one, reflected about the difference on the data (needs ``estimate=``; it corrects the
        bootstrap's bias). [`df.ordinal.compare`][ordframe._accessors.pandas.OrdinalFrameAccessor.compare]
        also gives BCa, from the jackknife of the samples.

    Returns
    -------
    xarray.Dataset
        Variables ``difference``, ``interval``, ``p_value``, ``adjusted_p_value``,
        ``bootstrap_share_better`` (dims ``metric``, ``model_dim``, ``versus``, ...) and ``mean``, ``rank``
        (dims ``metric``, ``model_dim``, ...); attrs ``estimate`` (``"data"`` or ``"replicate mean"``),
        ``adjust``, the replicates' record of how they were drawn (``n_resamples``, ``seed``, ``method``,
        ...) and ``ordframe_version``. A pair with no replicate where both models are defined has NaN ``p_value``,
        ``adjusted_p_value``, ``bootstrap_share_better`` and ``interval``, and is left out of the adjustment.

    Raises
    ------
    ValueError
        If a dim is missing, a variable has no direction (no ``higher_is_better`` or ``best`` attr and no
        ``higher_is_better=``), ``estimate=`` lacks a dim or a label of the replicates, or ``adjust`` is unknown.

    Warns
    -----
    RuntimeWarning
        Once per variable with pairs of models that have no valid replicate, naming them and why.
    UserWarning
        For a variable named unlike its ``metric`` attr (its direction may be stale), unless
        ``higher_is_better=`` is given; without ``estimate=`` (the replicate means are reported).

    Notes
    -----
    Over the B replicates d = value(a) - value(b) where both models are defined, the two-sided p-value is
    ``min(1, 2 (min(#{d <= 0}, #{d >= 0}) + 1) / (B + 1))`` (Davison & Hinkley 1997, ch. 4), NaN for
    B = 0; the interval is the percentile interval of d (see ``ci``).

    Examples
    --------
    >>> import ordframe
    >>> df = pd.DataFrame({"y": [0, 1, 2, 2] * 25, "yhat": [0, 1, 2, 1] * 25, "model": "a"})
    >>> both = pd.concat([df, df.assign(yhat=0, model="b")])
    >>> boot = both.ordinal.bootstrap("y", "yhat", model="model", n_resamples=500, seed=0)
    >>> observed = both.ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])
    >>> result = ordframe.compare(boot.ordinal.evaluate(metrics=["mae"]), estimate=observed)
    >>> result["rank"].sel(metric="mae").values.tolist()
    [1.0, 2.0]
    >>> float(result["difference"].sel(metric="mae", model="a", versus="b"))
    -1.0
    >>> float(result["bootstrap_share_better"].sel(metric="mae", model="a", versus="b"))
    1.0
    """
    return _compare(result, model_dim, dim, level, estimate, adjust, higher_is_better, method, accelerations=None)


def _compare(result, model_dim, dim, level, estimate, adjust, higher_is_better, method, accelerations) -> xr.Dataset:
    """``compare``, with BCa's accelerations of the differences when ``accelerations`` (by variable) is given."""
    import scipy.stats  # imported when needed: it takes half a second

    level = check_level(level)
    methods = tuple(  # on replicates alone, none that needs the jackknife
        m for m in DIFFERENCE_METHODS if accelerations is not None or "jackknife" not in INTERVAL_METHODS[m].needs
    )
    if method not in methods:
        raise ValueError(f"method must be one of {methods} for the intervals of the differences, got {method!r}")
    if method != "percentile" and (estimate is None or isinstance(estimate, str)):
        raise ValueError(f"method={method!r} reflects the replicates about the difference on the data: pass estimate=")
    if not isinstance(result, (xr.DataArray, xr.Dataset)):
        raise TypeError(f"result must be an xarray DataArray or Dataset, got {type(result).__name__}")
    data = as_dataset(result)
    if adjust is not None and adjust not in ADJUSTMENTS:
        raise ValueError(f"adjust must be one of {ADJUSTMENTS} or None, got {adjust!r}")
    means = isinstance(estimate, str)
    if means and estimate != "replicates":
        raise ValueError(f"estimate= must be the metrics' values on the data or 'replicates', got {estimate!r}")
    on_data = estimate is not None and not means
    versus = VERSUS_DIM
    parts = []
    overrides = directions(higher_is_better, list(data.data_vars))
    for name, values in data.items():
        for d in (model_dim, dim):
            if d not in values.dims:
                raise ValueError(f"{name!r} has no dim {d!r}; its dims are {tuple(values.dims)}")
        _check_unique_models(values, model_dim, name)
        oriented = ranking(name, values.attrs, overrides[name])
        ranked = oriented.ranked(values)  # a target metric's distances from its best value
        difference = ranked - ranked.rename({model_dim: versus})
        valid = difference.notnull()
        n = valid.sum(dim)
        some = n.where(n > 0)  # no valid replicate: NaN p-value and win probability, not "no difference"
        below, above = (difference <= 0).where(valid).sum(dim), (difference >= 0).where(valid).sum(dim)
        p_value = np.minimum(1.0, 2 * (np.minimum(below, above) + 1) / (some + 1))
        signed = oriented.sign * difference
        wins = ((signed > 0) + 0.5 * (signed == 0)).where(valid).sum(dim) / some
        _warn_unpaired(name, values, n, model_dim, dim)
        mean = _estimate(estimate, name, values, dim) if on_data else values.mean(dim)
        ranked_mean = oriented.ranked(mean)
        observed = ranked_mean - ranked_mean.rename({model_dim: versus})
        interval = _difference_interval(difference, observed, model_dim, dim, level, method, accelerations, name)
        p_value = p_value.transpose(..., model_dim, versus)
        if adjust is None:
            p_adjusted = p_value
        else:
            p_adjusted = p_value.copy(data=adjusted_pairs(p_value.values, adjust))
        rank = xr.apply_ufunc(
            scipy.stats.rankdata,
            -oriented.score(mean),
            input_core_dims=[[model_dim]],
            output_core_dims=[[model_dim]],
            kwargs={"axis": -1, "nan_policy": "omit"},
        )
        variables = {
            "difference": observed if on_data else difference.mean(dim),
            "interval": interval,
            "p_value": p_value,
            "adjusted_p_value": p_adjusted,
            "bootstrap_share_better": wins,
            "mean": mean,
            "rank": rank.transpose(*mean.dims),
        }
        # A metric's attrs would survive the concatenation on every variable, which spans every metric.
        parts.append(
            xr.Dataset({k: v.drop_attrs(deep=False) for k, v in variables.items()}).expand_dims({METRIC_DIM: [name]})
        )
    out = xr.concat(parts, dim=METRIC_DIM, coords="minimal", compat="override")
    out["interval"] = out["interval"].transpose(METRIC_DIM, BOUND_DIM, ...)
    if estimate is None:
        warn(
            "compare() without estimate=: difference, mean and rank are the means over the replicates, which a "
            "biased index shifts (OC, a minimum over paths, is biased downward). Pass estimate= (the metrics on "
            "the data, e.g. df.ordinal.evaluate(...) with the same by= and strata=), use df.ordinal.compare(...), "
            "or estimate='replicates' for the means without this warning",
            UserWarning,
        )
    out.attrs = {
        "ci_level": float(level),
        "ci_method": method,
        "replicates": dim,
        "estimate": "data" if on_data else "replicate mean",
        "adjust": "none" if adjust is None else adjust,
        **drawn_of(ChainMap(*(v.attrs for v in data.values()), data.attrs)),  # how the replicates were drawn
        VERSION_ATTR: ordframe_version(),
    }
    return out


def _difference_interval(difference, observed, model_dim, dim, level, method, accelerations, name) -> xr.DataArray:
    """The interval of the differences of every pair (of a model against itself, ``[0, 0]`` where it is defined)."""
    itself = difference[model_dim] == difference[VERSUS_DIM]
    values = difference.where(~itself).transpose(..., dim)
    share = valid_share(values, dim, MIN_VALID, name, adjustable=False)
    alpha = (1 - level) / 2
    if method == "bca":
        low, high = bca_bounds(values, observed, accelerations[name], dim=dim, alpha=alpha, name=name)
    else:
        low, high = percentile(values, dim, alpha)
        if method == "basic":
            low, high = reflected(low, high, observed, 1.0)
    zero = xr.zeros_like(low).where(difference.notnull().any(dim))  # a model against itself, NaN if never defined
    low, high = (bound.where(~itself, zero) for bound in (low, high))
    return interval_of(low, high, difference, level, method, share)


def _check_unique_models(values: xr.DataArray, model_dim: str, name) -> None:
    """An error naming the labels of ``model_dim`` that occur more than once (two runs concatenated, say)."""
    labels = values.indexes.get(model_dim)
    if labels is not None and not labels.is_unique:
        twice = list(dict.fromkeys(labels[labels.duplicated()]))
        raise ValueError(
            f"{name!r}: the {model_dim!r} label(s) {show(twice)} occur more than once ({show(list(labels))}), so a "
            f"pair of models would be one model compared with another of the same name. Give every model its own "
            f"label, e.g. concatenate runs along a new coordinate: xr.concat(runs, dim=pd.Index([...], name={model_dim!r}))"
        )


def _warn_unpaired(name, values: xr.DataArray, n: xr.DataArray, model_dim: str, dim: str) -> None:
    """One RuntimeWarning naming the pairs of models with no replicate where both are defined, and why."""
    empty = (n == 0).transpose(model_dim, VERSUS_DIM, ...)
    if not bool(empty.any()):
        return
    others = [d for d in empty.dims if d not in (model_dim, VERSUS_DIM)]
    labels = values[model_dim].values
    pairs = [f"{labels[i]!s}-{labels[j]!s}" for i, j in zip(*np.nonzero(empty.any(others).values)) if i < j]
    undefined = values.isnull().all(dim).any([d for d in values.dims if d not in (model_dim, dim)])
    models = list(labels[undefined.transpose(model_dim).values])
    metric = values.attrs.get("metric")
    what = f"{name!r}" + (f" (metric {metric!r})" if metric is not None and str(metric) != str(name) else "")
    which = f"the pair(s) {', '.join(pairs)}" if pairs else f"{model_dim} {show(list(labels))} against itself"
    if others:
        some = int(empty.any([model_dim, VERSUS_DIM]).sum())
        which += f" in {some} of {math.prod(empty.sizes[d] for d in others)} element(s) along {others}"
    why = (
        f"{model_dim} {show(models)} is NaN in every replicate{' of some elements' if others else ''}, e.g. a "
        "model without probabilities scored with a probability metric, or a metric undefined on every replicate "
        "of its cube"
        if models
        else "the metric is undefined on some replicates of each model, and never on the same ones"
    )
    warn(
        f"{what} has no replicate where both models are defined for {which}: {why}. Their p_value, "
        "adjusted_p_value, bootstrap_share_better and interval are NaN (no evidence either way)",
        RuntimeWarning,
    )


def _estimate(estimate, name, values: xr.DataArray, dim: str) -> xr.DataArray:
    """The value of metric ``name`` on the data, from a DataArray or a Dataset of estimates, on the replicates' labels."""
    if isinstance(estimate, xr.Dataset) and name not in estimate:
        raise ValueError(f"estimate= has no variable {name!r}; it has {show(list(estimate.data_vars))}")
    given = estimate[name] if isinstance(estimate, xr.Dataset) else estimate
    if not isinstance(given, xr.DataArray) or dim in given.dims:
        raise ValueError(f"estimate= must hold the values of {name!r} on the data, without the {dim!r} dim")
    shared = [d for d in values.dims if d != dim]
    missing = [d for d in shared if d not in given.dims]
    if missing:
        raise ValueError(f"estimate= of {name!r} lacks the dims {missing} of the replicates")
    extra = [d for d in given.dims if d not in shared]
    if extra:
        raise ValueError(
            f"estimate= of {name!r} has the dims {extra} that the replicates lack; select or reduce them first"
        )
    for d in shared:
        ours, theirs = values.indexes.get(d), given.indexes.get(d)
        if ours is None and theirs is None:
            if values.sizes[d] != given.sizes[d]:
                raise ValueError(
                    f"estimate= of {name!r} has {given.sizes[d]} elements along {d!r}, the replicates {values.sizes[d]}"
                )
            continue
        if ours is None or theirs is None:
            which = "the replicates" if ours is not None else "estimate="
            raise ValueError(
                f"only {which} of {name!r} label the dim {d!r}; give both the same labels to match the estimate "
                f"to the replicates (e.g. estimate.assign_coords({d}=replicates[{d!r}].values))"
            )
        if ours.equals(theirs):
            continue
        lacking = list(ours[~ours.isin(theirs)])
        if lacking:
            raise ValueError(
                f"estimate= of {name!r} lacks the {d!r} label(s) {show(lacking)} of the replicates "
                f"({show(list(ours))}); give the estimate of every one"
            )
        if not theirs.is_unique:
            raise ValueError(f"estimate= of {name!r} lists a {d!r} label more than once: {show(list(theirs))}")
        given = given.sel({d: ours})  # the replicates' labels, in their order
    return given.drop_attrs(deep=False)


def frame_compare(
    df,
    selection: Selection,
    draws: Resampling,
    metrics=None,
    *,
    level: float = 0.95,
    adjust: str | None = "holm",
    method: str = "percentile",
) -> xr.Dataset:
    """``compare`` of the models in ``selection.by`` on paired replicates of a frame, with the estimates on the data.

    The strata are drawn apart and scored together (``pool``), as the estimate on the whole frame is. BCa's
    acceleration of a difference comes from the jackknife of the samples (or clusters), each left out of
    every model's cube at once.
    """
    check_level(level)  # the arguments' mistakes are said before the replicates are drawn
    if adjust is not None and adjust not in ADJUSTMENTS:
        raise ValueError(f"adjust must be one of {ADJUSTMENTS} or None, got {adjust!r}")
    if method not in DIFFERENCE_METHODS:
        raise ValueError(
            f"method must be one of {DIFFERENCE_METHODS} for the intervals of the differences, got {method!r}"
        )
    models = selection.by
    if len(models) != 1:
        raise ValueError(
            f"model= must name the one column of the models compared, got {show(models)}; combine several columns into "
            "one first, or use ordframe.compare on df.ordinal.evaluate(..., n_resamples=...) with model_dim="
        )
    replicates, estimate, jackknife, _ = frame_replicates(df, selection, draws, metrics, jackknife=method == "bca")
    model_dim = str(models[0])
    request = selection_request(metrics, selection)
    ranked = {name: metric.orientation.ranked for name, (metric, _) in request.items()}
    accelerations = {
        name: acceleration_of(
            ranked[name](theta) - ranked[name](theta).rename({model_dim: VERSUS_DIM}), weights, LEFT_OUT_DIM
        )
        for name, (theta, weights) in jackknife.items()
    }
    # named by the caller, so given; None for a metric whose best value is a target: its attrs carry that value
    better = {name: metric.higher_is_better for name, (metric, _) in request.items()}
    return _compare(replicates, model_dim, BOOTSTRAP_DIM, level, estimate, adjust, better, method, accelerations)
