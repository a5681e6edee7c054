"""Confidence intervals from bootstrap replicates: percentile, basic, BCa (Efron 1987), m-out-of-n, calibrated
(a double bootstrap, Hall 1986), for shares of samples Jeffreys, and for the worst of per-class values
intersection bounds (Chernozhukov, Lee & Rosen 2013).

``ci`` turns replicates of a metric (a DataArray or Dataset with a bootstrap
dim) into an interval with a dim ``bound`` (``low``, ``high``). ``method=None``
takes each metric's ``interval`` (``Metric.interval``, chosen by the coverage
suite ``benchmarks/bench_coverage.py``). The methods, what each needs and where
it applies are the table ``INTERVAL_METHODS`` (``ordframe._registry.interval_methods``):
``ci`` and ``frame_ci`` (behind ``df.ordinal.ci``) resolve a method by one rule,
``interval_method``, and compute its bounds through one dispatcher, ``interval``,
which calls the function that the table names with what the door gives beyond
the replicates (``OnData``: from ``cube=``, or from the frame). Every method but the percentile
interval also needs the metric's value on the original cube (BCa its
jackknife values, the calibrated interval replicates of its replicates,
``double_bootstrap``), computed on the cube: the metric and its parameters are
read from the replicates' attrs, which every ordframe result carries.

BCa, as in Efron & Tibshirani (1993, ch. 14) and ``scipy.stats.bootstrap``::

    z0 = Phi^-1( (#{theta_b < theta} + #{theta_b <= theta}) / (2 B) )
    a  = sum_i (mean - theta_i)^3 / (6 (sum_i (mean - theta_i)^2)^(3/2))     (jackknife values theta_i)
    alpha_j = Phi( z0 + (z0 + z_j) / (1 - a (z0 + z_j)) ),  z_j = Phi^-1(alpha/2), Phi^-1(1 - alpha/2)

and the bounds are the ``alpha_1`` and ``alpha_2`` quantiles of the replicates
(linear interpolation). Its core, ``bca_bounds(values, estimate, acceleration)``,
takes the estimate and the acceleration as labelled arrays from any source:
``acceleration_of`` computes ``a`` from jackknife values (the cube's
leave-one-cell-out values with their counts as weights), and
``mean_score_acceleration`` from per-sample scores grouped by element (the
per-sample jackknife of a mean score such as RPS, for the frame front end and
for paired differences of mean scores). Check replicates with ``valid_share``
first, as ``ci`` does.

Replicates that are NaN (a metric undefined on a replicate) are left out with
a warning that counts them; below ``min_valid`` valid replicates in an element
``ci`` raises, and an element with fewer than two valid replicates has NaN
bounds.

The cube must be the one the replicates were drawn from: the same stack dims
and coordinates (the replicates' dims less the replicate dim), the same
classes in the same order, and the replicates must record the metric's
parameters; the metric must be a confusion metric (the jackknife leaves one
sample out of the cube). Where BCa is degenerate, as in
``scipy.stats.bootstrap(method="BCa")``, a ``DegenerateIntervalWarning`` says
why: replicates that are all equal to the estimate v (a perfect model) give
the interval ``[v, v]``, every quantile of the replicates (the correction is
0/0 there, and any level gives v); an estimate outside every replicate (z0
infinite), a metric that is NaN on the cube, or jackknife values that are NaN
or all equal (acceleration undefined) give NaN bounds.
"""

from __future__ import annotations

import functools
import json
import numbers
from collections.abc import Callable, Hashable
from typing import Protocol

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_cube, cube_classes
from ordframe._bridge.evaluate import selection_request
from ordframe._core.checks import check_count, check_level, rng_of
from ordframe._core.dims import (
    BOOTSTRAP_DIM,
    BOUND_DIM,
    CELL_DIM,
    CLASS_DIM,
    CUBE_DIMS,
    FOLD_DIM,
    LEFT_OUT_DIM,
    METRIC_DIM,
    MODEL_DIM,
    OBSERVED_DIM,
    SIZE_COORD,
    TRUE,
    VERSUS_DIM,
)
from ordframe._core.docstrings import fill_doc
from ordframe._core.drawing import Resampling, clustered
from ordframe._core.messages import show, warn
from ordframe._inference.double_bootstrap import INNER, calibration_shares
from ordframe._inference.worst_class import class_replicates
from ordframe._inputs.selection import Selection
from ordframe._registry import manager as registry
from ordframe._registry.interval_methods import INTERVAL_METHODS, METRIC_FIELDS, choices, methods
from ordframe._registry.metric import Metric
from ordframe._resampling.cubes import jackknife
from ordframe._resampling.paired import frame_replicates

#: Fewer replicates than this give a warning: the tails of the interval rest on a handful of values.
MIN_REPLICATES = 100
#: The default of ``min_valid``: below this share of valid (non-NaN) replicates ``ci`` refuses.
MIN_VALID = 0.5
# Dims that ordframe names for roles other than replicates: an interval over one of them is a mistake.
_NOT_REPLICATES = (MODEL_DIM, FOLD_DIM, VERSUS_DIM, METRIC_DIM, BOUND_DIM, CLASS_DIM, CELL_DIM, OBSERVED_DIM)

# Replicates that differ by less than this (relative to their size) are equal: a metric of different matrices
# that all give the same value can differ in the last bits.
_EQUAL = 1e-9


class DegenerateIntervalWarning(RuntimeWarning):
    """A BCa interval whose correction is undefined (as scipy's ``DegenerateDataWarning``).

    Replicates that do not vary (e.g. a perfect model) give the interval ``[v, v]``; an estimate outside
    every replicate, a metric that is NaN on the cube, or jackknife values that are NaN or all equal give
    NaN bounds. The message says which, and for how many elements.
    """


@fill_doc(methods=choices("replicates", none=True))
def ci(
    replicates,
    *,
    dim: str = BOOTSTRAP_DIM,
    level: float = 0.95,
    method: str | None = None,
    cube: xr.DataArray | None = None,
    min_valid: float = MIN_VALID,
    n_inner: int = INNER,
    seed=None,
    progress: bool | None = None,
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
    method : {methods}
        ``None`` (default): each variable's metric's own default, its ``interval`` (shown on every metric's
        page, chosen by the coverage of the intervals on simulated data; ``"percentile"`` for values
        without a registered metric). A default that needs ``cube`` falls back to ``"percentile"`` with a
        warning when no cube is given (or for a probability metric, whose BCa needs the per-sample scores:
        ``df.ordinal.ci(..., method="bca")``). Every method but ``"percentile"`` needs ``cube``,
        the cube the replicates were drawn from; ``"m_out_of_n"`` needs replicates drawn with
        ``bootstrap_cube(cube, n_resamples, size=m)``; ``"jeffreys"`` a metric that is a share of samples
        (``Metric.share``); ``"intersection"`` a metric that is the worst of per-class values
        (``Metric.per_class``: MS, MMAE).
    cube : xarray.DataArray, optional
        For BCa: the original cube (its metric value and jackknife values are computed on it). Its dims
        other than ``true`` and ``pred`` must be the replicates' dims less ``dim``, with the same
        coordinates (in any order), and its classes those of the replicates' ``classes`` attr, in that
        order. The jackknife treats the cube's samples as one unstratified sample: for replicates drawn
        with ``stratify=True`` or ``strata=``, the acceleration is that of the pooled cube. BCa needs
        confusion metrics: for a probability metric (``rps``, ``brier``, ...) use ``"percentile"``.
    min_valid : float
        The smallest share of valid (non-NaN) replicates, in [0, 1], that an element may have: below it
        ``ci`` raises (default 0.5). A metric undefined on some replicates (George's ``d`` on a replicate
        that misses a class) gives an interval conditional on the metric being defined, which is another
        sampling distribution; between ``min_valid`` and 1 a warning gives the count. An element whose
        replicates are all NaN (the metric is undefined on the data) gets NaN bounds.
    n_inner : int
        For ``"calibrated"``: the replicates drawn from each replicate (default 100).
    seed : None, int or numpy.random.Generator
        For ``"calibrated"`` and ``"intersection"``: the seed of the replicates they draw from the cube (the
        double bootstrap; the per-class values of as many replicates as ``replicates`` has) — the same seed
        gives the same interval.
    progress : bool, optional
        For ``"calibrated"`` and ``"intersection"``: show a progress bar of their draws (default: in an
        interactive terminal, for runs longer than a couple of seconds).

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        The bounds along a new dim ``bound`` = ``["low", "high"]``, with the
        replicates' attrs plus ``ci_level``, ``ci_method`` and ``ci_valid_share`` (the smallest share of
        valid replicates over the elements that have any; NaN if none has).

    Raises
    ------
    ValueError
        For a level outside (0, 1), an unknown method, a missing dim, an element with some valid
        replicates but a share of them below ``min_valid``, or BCa without ``cube``, on
        replicates without metric attrs, on a probability metric, or with a cube that does not match the
        replicates (other stack dims, coordinates or classes).
    MemoryError
        If BCa's jackknife (K^2 leave-one-out matrices of every matrix) exceeds ``max_cube_bytes``.

    Warns
    -----
    RuntimeWarning
        For NaN replicates (with their count per variable), fewer than ``MIN_REPLICATES`` (100)
        replicates, or a ``dim`` that ordframe names for something else than replicates (``fold``,
        ``model``, ...: for fold values use [`ordframe.corrected_ci`][ordframe.corrected_ci]).
    DegenerateIntervalWarning
        Where BCa is degenerate: replicates all equal to the estimate (bounds ``[v, v]``), an estimate
        outside every replicate or NaN on the cube, or an undefined acceleration (NaN bounds).

    Notes
    -----
    The percentile interval is the ``alpha/2`` and ``1 - alpha/2`` quantiles ``q`` of the valid replicates
    (``alpha = 1 - level``); the basic interval (Davison & Hinkley 1997, eq. 5.6) reflects them about the
    estimate ``theta`` on the cube, ``[2 theta - q(1 - alpha/2), 2 theta - q(alpha/2)]``, which corrects the
    bootstrap's bias (OC's, a minimum over paths, is downward); the m-out-of-n interval (Bickel, Götze & van
    Zwet 1997; Bickel & Sakov 2008) rescales the spread of replicates of ``m < N`` samples,
    ``[theta - sqrt(m/N) (q*(1 - alpha/2) - theta), theta - sqrt(m/N) (q*(alpha/2) - theta)]``, which stays
    consistent where the statistic is not smooth (a minimum over tied paths). The calibrated interval (Hall 1986;
    Hall & Martin 1988) is the percentile interval at the levels ``v_(alpha/2)`` and ``v_(1 - alpha/2)``,
    quantiles of ``v_b``, the mid-rank share of ``n_inner`` replicates of replicate ``b`` below ``theta``: the
    levels at which the percentile interval covers ``theta`` in the bootstrap world. The Jeffreys interval
    (Brown, Cai & DasGupta 2001) of a share ``p`` is ``Beta(x + 1/2, n - x + 1/2)``'s quantiles, ``x = p n``,
    with ``n = min(N, p (1 - p) / var*)`` from the replicates' variance (Korn & Graubard 1998). The
    intersection interval of a worst-class metric (Chernozhukov, Lee & Rosen 2013) bounds the worst class
    jointly over the classes that may be worst (``intersection_bounds``): valid whichever classes tie, and
    conservative where several do. BCa (Efron 1987;
    Efron & Tibshirani 1993, ch. 14) moves those levels to
    ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z = Phi^-1(alpha/2), Phi^-1(1 - alpha/2)``, with the
    bias correction ``z0 = Phi^-1((#{theta_b < theta} + #{theta_b <= theta}) / (2 B))`` from the estimate
    ``theta`` on the cube and the acceleration ``a`` from the jackknife values on the cube, as
    ``scipy.stats.bootstrap(method="BCa")`` does. Where BCa is degenerate the result is that of scipy
    (NaN bounds), except for replicates all equal to the estimate v, whose every quantile is v: ``[v, v]``.

    Examples
    --------
    >>> import ordframe
    >>> cube = xr.DataArray([[40, 10], [5, 45]], dims=("true", "pred"))
    >>> boot = cube.ordinal.bootstrap(2000, seed=1).ordinal.accuracy()
    >>> ordframe.ci(boot).round(2).values.tolist()
    [0.77, 0.92]
    """
    level = check_level(level)
    min_valid = _check_share(min_valid)
    _check_method(method, "replicates")
    if isinstance(replicates, xr.Dataset):
        if method == "bca":
            _check_confusion_variables(replicates)
        arrays = dict(replicates.items())
    elif isinstance(replicates, xr.DataArray):
        arrays = {replicates.name: replicates}
    else:
        raise TypeError(f"replicates must be an xarray DataArray or Dataset, got {type(replicates).__name__}")
    values, chosen = {}, {}
    for name, array in arrays.items():
        if dim not in array.dims:
            raise ValueError(f"dim {dim!r} is not a dim of the replicates {tuple(array.dims)}")
        values[name] = array.transpose(..., dim)
        chosen[name] = interval_method(
            _registered(array.attrs), method, clusters=clustered(array.attrs), cube=cube is not None, name=name
        )
    calibrated = [name for name, m in chosen.items() if m == "calibrated"]
    shares = _calibration(values, calibrated, dim, cube, n_inner, seed, progress) if calibrated else {}
    bounds = {
        name: interval(
            v,
            dim,
            level,
            chosen[name],
            _OnCube(v, dim, cube, name, chosen[name], shares.get(name), seed, progress),
            min_valid,
        )
        for name, v in values.items()
    }
    if isinstance(replicates, xr.DataArray):
        return bounds[replicates.name]
    return xr.Dataset(bounds, attrs=replicates.attrs)


def percentile(values: xr.DataArray, dim: str, alpha: float) -> list[xr.DataArray]:
    """The ``alpha`` and ``1 - alpha`` quantiles of the valid replicates along ``dim`` (the last dim)."""
    probabilities = xr.full_like(values.isel({dim: 0}, drop=True), alpha, dtype=np.float64)
    return [_quantiles(values, probabilities), _quantiles(values, 1 - probabilities)]


def reflected(low, high, estimate, scale) -> list[xr.DataArray]:
    """The basic (``scale`` 1) or m-out-of-n interval: the quantiles reflected about the estimate."""
    return [estimate - scale * (high - estimate), estimate - scale * (low - estimate)]


def interval_of(low, high, replicates: xr.DataArray, level: float, method: str, share: float) -> xr.DataArray:
    """The bounds along ``bound``, named and with the attrs of ``ci``'s result."""
    out = xr.concat([low, high], dim=xr.DataArray(["low", "high"], dims=BOUND_DIM, name=BOUND_DIM))
    out = out.transpose(BOUND_DIM, ...)
    out.attrs = {**replicates.attrs, "ci_level": float(level), "ci_method": method, "ci_valid_share": share}
    return out.rename(replicates.name)


def frame_ci(
    df,
    selection: Selection,
    draws: Resampling,
    metrics=None,
    *,
    level: float = 0.95,
    method: str | None = None,
    min_valid: float = MIN_VALID,
) -> xr.Dataset:
    """Intervals of every metric of a frame's models from their paired bootstrap (strata drawn apart, scored together).

    As ``ci``, with what replicates alone cannot give: the estimates on the data (basic, Jeffreys), the data's
    cube (the calibrated interval's double bootstrap, Jeffreys' N) and the jackknife of the samples or clusters
    (BCa: a per-sample jackknife for probability metrics, leave-one-cluster-out with ``cluster=``).
    """
    level, min_valid = check_level(level), _check_share(min_valid)
    _check_method(method, "frame")
    request = selection_request(metrics, selection)
    chosen = {
        name: interval_method(metric, method, clusters=draws.cluster is not None, frame=True, name=name)
        for name, (metric, _) in request.items()
    }
    for name, (metric, _) in request.items():
        _check_kind(metric, chosen[name])
    needs = {need for m in chosen.values() for need in INTERVAL_METHODS[m].needs}
    replicates, estimate, jackknife, cube = frame_replicates(
        df, selection, draws, metrics, jackknife="jackknife" in needs, cube="cube" in needs
    )
    own_stream = rng_of(draws.seed).spawn(1)[0]  # the cube's draws: a stream of their own, whatever the replicates took
    calibrated = [name for name, m in chosen.items() if m == "calibrated"]
    shares = {}
    if calibrated:
        assert cube is not None  # asked for above
        calibration = {name: (*request[name], estimate[name]) for name in calibrated}
        shares = calibration_shares(
            cube,
            calibration,
            n_resamples=draws.n_resamples,
            n_inner=INNER,
            equal=_EQUAL,
            seed=own_stream,
            progress=draws.progress,
        )
    bounds = {}
    for name, values in replicates.items():
        metric, params = request[name]
        on_data = _OnFrame(
            metric, params, estimate[name], jackknife.get(name), cube, shares.get(name), own_stream, draws.progress
        )
        bounds[name] = interval(
            values.transpose(..., BOOTSTRAP_DIM), BOOTSTRAP_DIM, level, chosen[name], on_data, min_valid
        )
    return xr.Dataset(bounds)


def interval_method(
    metric: Metric | None, method: str | None, *, clusters: bool, frame: bool = False, cube: bool = True, name=None
) -> str:
    """The interval of ``metric``'s replicates, by one rule for ``ci`` and ``df.ordinal.ci``.

    ``method`` given: itself, or an error where the replicates' design rules it out (with ``clusters``: a
    method that draws from the cube sample by sample, the calibrated and intersection intervals, and on
    replicates alone one that needs the jackknife, BCa, whose acceleration must leave one cluster out).
    ``None``: the metric's ``interval`` (``"percentile"`` for values of no registered metric), except where the
    design rules it out wherever it is called, where it is its table entry's ``instead``: on a frame, whose
    replicates are of N samples, m-out-of-n is BCa; with ``clusters``, the calibrated and intersection intervals
    are basic. On replicates alone, where they cannot give it but a frame or a cube could (no ``cube``; a
    probability metric, whose BCa needs the per-sample scores; BCa of clusters), the percentile interval, or
    the basic one with a cube, and a warning that says why.
    """
    if method is not None:
        entry = INTERVAL_METHODS[method]
        if clusters and not entry.clusters(frame=frame):
            raise ValueError(
                f"method={method!r} is not valid for replicates that drew whole clusters: "
                + (
                    "it draws from the data's cube sample by sample, not cluster by cluster; use method='basic'"
                    + (" or 'bca'" if frame else "")
                    if "draws" in entry.needs
                    else "its jackknife must leave one cluster out, which the cube cannot; call it on the frame, "
                    f"df.ordinal.ci(..., cluster=..., method={method!r}), or use method='basic'"
                )
                + (f" ({_label(name)})" if name is not None else "")
            )
        return method
    if metric is None:
        return "percentile"
    chosen = metric.interval
    entry = INTERVAL_METHODS[chosen]
    place = "frame" if frame else "replicates"
    if entry.instead is not None and (place not in entry.places or (clusters and not entry.clusters(frame=frame))):
        return entry.instead
    if frame or not entry.needs:
        return chosen
    if metric.kind != "confusion":
        why = (
            f"its BCa needs the per-sample scores, which replicates do not hold: call it on the frame, "
            f'df.ordinal.ci(..., method="{chosen}")'
        )
    elif not cube:
        why = "it needs the estimate on the data: pass cube=, the cube the replicates were drawn from"
    elif clusters and not entry.clusters(frame=False):
        why = "its acceleration must leave one cluster out, which the cube cannot: call it on the frame, df.ordinal.ci(..., cluster=...)"
    else:
        return chosen
    fallback = "basic" if cube and metric.kind == "confusion" else "percentile"
    warn(
        f"{_label(name)} get the {fallback} interval, not the default of {metric.name!r}, {chosen!r} (chosen by "
        f"coverage; the {fallback} interval of {metric.name!r} can cover less than its level): {why}",
        UserWarning,
    )
    return fallback


def _check_method(method: str | None, place: str) -> None:
    """An error for a ``method`` that does not apply at ``place`` (``"replicates"``: ``ci``; ``"frame"``)."""
    if method is None or method in methods(place):
        return
    entry = INTERVAL_METHODS.get(method)
    raise ValueError(
        f"method must be None (each metric's default) or one of {methods(place)}"
        + (" for a frame" if place == "frame" else "")
        + f", got {method!r}"
        + (f"; {method} replicates come from {entry.drawn_by}" if entry is not None and entry.drawn_by else "")
    )


def interval(values: xr.DataArray, dim: str, level: float, method: str, data: OnData, min_valid: float) -> xr.DataArray:
    """The interval of ``method`` of replicates ``values`` (``dim`` last), from what ``data`` gives beyond them.

    The one dispatcher of ``ci`` and ``df.ordinal.ci``: the replicates checked (``valid_share``), then the bounds
    function that the method's entry of ``INTERVAL_METHODS`` names.
    """
    share = valid_share(values, dim, min_valid, values.name)
    low, high = bounds_function(method)(values, dim, (1 - level) / 2, data)
    return interval_of(low, high, values, level, method, share)


def bounds_function(method: str) -> Callable[[xr.DataArray, str, float, OnData], list[xr.DataArray]]:
    """The function of this module that ``method``'s entry of ``INTERVAL_METHODS`` names (its ``bounds``)."""
    return globals()[INTERVAL_METHODS[method].bounds]


class OnData(Protocol):
    """What the interval methods take beyond the replicates: the estimate and the cube of the data, and more.

    ``ci`` takes them from ``cube=`` (``_OnCube``), ``df.ordinal.ci`` from the frame (``_OnFrame``); each is
    computed when a method first asks for it.
    """

    @property
    def name(self) -> Hashable: ...
    @property
    def metric(self) -> Metric: ...
    @property
    def shares(self) -> xr.DataArray | None: ...  # the calibrated interval's (``calibration_shares``)
    @property
    def estimate(self) -> xr.DataArray: ...
    @property
    def acceleration(self) -> xr.DataArray: ...
    @property
    def samples(self) -> xr.DataArray: ...
    def class_replicates(self, n_resamples: int) -> tuple[xr.DataArray, xr.DataArray]: ...


class _OnCube:
    """``OnData`` from the cube the replicates were drawn from (``ci``'s ``cube=``), checked when first used."""

    def __init__(
        self, values: xr.DataArray, dim: str, cube, name, method: str, shares: xr.DataArray | None, seed, progress
    ):
        self.values, self.dim, self.cube, self.name, self.method = values, dim, cube, name, method
        self.shares, self.seed, self.progress = shares, seed, progress

    @functools.cached_property
    def _checked(self) -> tuple[Metric, dict, xr.DataArray]:
        metric, params, cube = _checked_cube(self.values, self.dim, self.cube, self.name, self.method)
        _check_kind(metric, self.method)
        return metric, params, cube

    @property
    def metric(self) -> Metric:
        return self._checked[0]

    @functools.cached_property
    def estimate(self) -> xr.DataArray:
        metric, params, cube = self._checked
        return _estimate_on(self.values, self.dim, metric, params, cube, self.name)

    @property
    def acceleration(self) -> xr.DataArray:
        metric, params, cube = self._checked
        theta, weights = jackknife(cube, metric, **params)
        return acceleration_of(theta, weights, CELL_DIM)

    @property
    def samples(self) -> xr.DataArray:
        return self._checked[2].sum(CUBE_DIMS)

    def class_replicates(self, n_resamples: int) -> tuple[xr.DataArray, xr.DataArray]:
        metric, params, cube = self._checked
        return class_replicates(cube, metric, params, n_resamples=n_resamples, seed=self.seed, progress=self.progress)


class _OnFrame:
    """``OnData`` of a frame's paired bootstrap: its estimates, jackknife and cube (``frame_replicates``)."""

    def __init__(
        self,
        metric: Metric,
        params: dict,
        estimate: xr.DataArray,
        left_out: tuple[xr.DataArray, xr.DataArray | None] | None,
        cube: xr.DataArray | None,
        shares: xr.DataArray | None,
        seed,
        progress,
    ):
        self.name, self.metric, self.params = estimate.name, metric, params
        self.estimate = estimate.drop_attrs(deep=False)
        self.left_out, self.cube, self.shares, self.seed, self.progress = left_out, cube, shares, seed, progress

    @property
    def acceleration(self) -> xr.DataArray:
        assert self.left_out is not None  # frame_ci asks for the jackknife where a method needs it
        theta, weights = self.left_out
        return acceleration_of(theta, weights, LEFT_OUT_DIM)

    @property
    def data_cube(self) -> xr.DataArray:
        assert self.cube is not None  # frame_ci asks for the cube where a method needs it
        return self.cube

    @property
    def samples(self) -> xr.DataArray:
        return self.data_cube.sum(CUBE_DIMS)

    def class_replicates(self, n_resamples: int) -> tuple[xr.DataArray, xr.DataArray]:
        return class_replicates(
            self.data_cube, self.metric, self.params, n_resamples=n_resamples, seed=self.seed, progress=self.progress
        )


# The bounds functions of ``INTERVAL_METHODS`` (its ``bounds``): replicates ``values`` with ``dim`` last, the level of
# each tail ``alpha``, and what the method takes beyond the replicates, ``data``.


def percentile_interval(values: xr.DataArray, dim: str, alpha: float, data: OnData) -> list[xr.DataArray]:
    return percentile(values, dim, alpha)


def basic_interval(values: xr.DataArray, dim: str, alpha: float, data: OnData) -> list[xr.DataArray]:
    low, high = percentile(values, dim, alpha)
    return reflected(low, high, data.estimate, 1.0)


def m_out_of_n_interval(values: xr.DataArray, dim: str, alpha: float, data: OnData) -> list[xr.DataArray]:
    low, high = percentile(values, dim, alpha)
    estimate = data.estimate
    if SIZE_COORD not in values.coords:
        raise ValueError(
            "method='m_out_of_n' needs replicates of m < N samples, drawn with ordframe.bootstrap_cube(cube, "
            f"n_resamples, size=m) (they carry a {SIZE_COORD!r} coordinate); {_label(data.name)} have none"
        )
    size = values.coords[SIZE_COORD].astype(np.float64)
    return reflected(low, high, estimate, np.sqrt(size / data.samples.drop_attrs(deep=False)))


def bca_interval(values: xr.DataArray, dim: str, alpha: float, data: OnData) -> list[xr.DataArray]:
    return bca_bounds(values, data.estimate, data.acceleration, dim=dim, alpha=alpha, name=data.name)


def calibrated_interval(values: xr.DataArray, dim: str, alpha: float, data: OnData) -> list[xr.DataArray]:
    assert data.shares is not None  # drawn for every calibrated variable at once, before the intervals
    return calibrated_bounds(values, data.shares, dim, alpha)


def jeffreys_interval(values: xr.DataArray, dim: str, alpha: float, data: OnData) -> list[xr.DataArray]:
    return jeffreys_bounds(values, data.estimate, data.samples, dim, alpha)


def intersection_interval(values: xr.DataArray, dim: str, alpha: float, data: OnData) -> list[xr.DataArray]:
    estimates, draws = data.class_replicates(values.sizes[dim])
    return intersection_bounds(estimates, draws, data.samples, alpha, data.metric)


def _registered(attrs) -> Metric | None:
    """The registered metric that the attrs name, or None (not an ordframe metric result)."""
    try:
        return registry.get_metric(attrs["metric"])
    except (KeyError, ValueError):
        return None


def _check_share(min_valid) -> float:
    if isinstance(min_valid, bool) or not isinstance(min_valid, numbers.Real) or not 0 <= float(min_valid) <= 1:
        raise ValueError(f"min_valid must be a share in [0, 1], e.g. 0.5, got {min_valid!r}")
    return float(min_valid)


def valid_share(
    values: xr.DataArray,
    dim: str,
    min_valid: float = MIN_VALID,
    name=None,
    *,
    undefined: str = "the metric is undefined on them",
    adjustable: bool = True,
) -> float:
    """The smallest share of valid (non-NaN) replicates over the elements that have any, checked as ``ci`` does.

    Parameters
    ----------
    values : xarray.DataArray
        Replicates along ``dim``.
    dim : str
        The replicate dim.
    min_valid : float
        Below this share of valid replicates in an element that has some: an error.
    name : hashable, optional
        The variable's name, for the messages.
    undefined : str
        Why a replicate is NaN, for the warning (a skill score is undefined where the reference is perfect too).
    adjustable : bool
        Whether the caller takes ``min_valid=`` (the error then offers a lower one).

    Returns
    -------
    float
        The smallest share (NaN if no element has a valid replicate): ``ci``'s ``ci_valid_share`` attr.

    Raises
    ------
    ValueError
        For an element with valid replicates below ``min_valid``.

    Warns
    -----
    RuntimeWarning
        With the count of NaN replicates; for fewer than ``MIN_REPLICATES`` replicates; for a ``dim`` that
        ordframe names for something else (``fold``, ``model``, ...).
    """
    of = f" of {name!r}" if name is not None else ""
    size = values.sizes[dim]
    if dim in _NOT_REPLICATES:
        warn(
            f"ci treats the values{of} along {dim!r} as bootstrap replicates, but ordframe names {dim!r} for "
            f"something else; an interval over fold values is not a bootstrap interval (use ordframe.corrected_ci "
            f"for cross-validation folds), and a bootstrap's replicates lie along {BOOTSTRAP_DIM!r}",
            RuntimeWarning,
        )
    if size < MIN_REPLICATES:
        warn(
            f"only {size} replicates{of} along {dim!r}: the bounds of an interval from fewer than "
            f"{MIN_REPLICATES} replicates rest on a handful of values; draw more (1000-2000, or at least 2000 for "
            "BCa)",
            RuntimeWarning,
        )
    valid = values.notnull().sum(dim).values
    share = valid / size if size else np.zeros(valid.shape)
    some = valid > 0
    if (some & (share < min_valid)).any():
        worst = int(valid[some].min())
        raise ValueError(
            f"only {worst} of {size} replicates{of} are valid (not NaN) in an element, below "
            f"{'min_valid=' if adjustable else 'the smallest share accepted, '}{min_valid} ({int((some & (share < min_valid)).sum())} of {valid.size} element(s) below it): "
            "the metric is undefined on most replicates (e.g. a class missing from them), so an interval from the "
            "rest would describe another sampling distribution. Pool more data (e.g. folds), use a metric defined "
            "on these data, or draw with stratify=True so that every true class keeps its samples"
            + (
                "; or pass a lower min_valid to accept an interval conditional on the metric being defined"
                if adjustable
                else ""
            )
        )
    partly = some & (valid < size)  # an element with no valid replicate is NaN already: its own metric said why
    if partly.any():
        missing = int((size - valid[partly]).sum())
        where = f" in {int(partly.sum())} of {valid.size} element(s)" if valid.size > 1 else ""
        warn(
            f"{missing} of {size * int(some.sum())} replicates{of} are NaN{where} ({undefined})"
            "; they are left out, so the interval is conditional on the metric being defined",
            RuntimeWarning,
        )
    return float(share[some].min()) if some.any() else float("nan")


def _quantiles(values: xr.DataArray, q: xr.DataArray) -> xr.DataArray:
    """The ``q`` quantile of ``values`` along its last dim, ``q`` one per element (NaN replicates left out)."""

    def quantile(x, q):
        x = np.sort(x, axis=-1)  # NaN last
        valid = (~np.isnan(x)).sum(axis=-1)
        defined = (valid >= 2) & np.isfinite(q)  # a NaN level (degenerate BCa) is never cast to an index
        position = np.where(defined, np.clip(q, 0, 1) * (valid - 1), 0.0)
        below = np.floor(position).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(valid - 1, 0))
        lo = np.take_along_axis(x, below[..., None], -1)[..., 0]
        hi = np.take_along_axis(x, above[..., None], -1)[..., 0]
        with np.errstate(invalid="ignore"):  # inf - inf where both neighbours are infinite
            out = lo + (position - below) * (hi - lo)
        return np.where(defined, out, np.nan)

    return xr.apply_ufunc(
        quantile, values, q, input_core_dims=[[values.dims[-1]], []], dask="parallelized", output_dtypes=[np.float64]
    )


def _label(name) -> str:
    return f"the replicates {name!r}" if name is not None else "the replicates"


def _metric_of(name, attrs, method: str = "bca") -> Metric:
    """The registered confusion metric that the replicates' attrs name; an error for a probability metric."""
    metric_name = attrs.get("metric")
    if metric_name is None:
        raise ValueError(f"method={method!r} needs replicates with a 'metric' attr (ordframe results carry one)")
    metric = registry.get_metric(metric_name)
    if metric.kind != "confusion":
        if method != "bca":
            raise ValueError(
                f"method={method!r} needs a confusion metric (its estimate is computed on the cube): "
                f"{_label(name)} hold the probability metric {metric.name!r}; use method='percentile'"
            )
        raise ValueError(
            f"method='bca' needs a confusion metric: {_label(name)} hold the probability metric "
            f"{metric.name!r}, and BCa's jackknife leaves one sample out of the confusion cube, which holds no "
            "probabilities. BCa of a probability metric needs the per-sample scores: call it on the frame, "
            "df.ordinal.ci(..., method=\"bca\"); from replicates alone use method='percentile'"
        )
    return metric


def _check_confusion_variables(replicates: xr.Dataset) -> None:
    """For BCa on a Dataset: an error that sorts the variables into confusion and probability metrics."""
    kinds: dict[str, list[str]] = {"confusion": [], "proba": []}
    for name, values in replicates.items():
        try:
            kind = registry.get_metric(values.attrs["metric"]).kind
        except KeyError:  # no metric attr, or not a registered metric: the variable's own call says so
            continue
        kinds.setdefault(kind, []).append(str(name))
    if kinds["proba"]:
        confusion = kinds["confusion"]
        some = (
            f"; the confusion variables {show(confusion)} can use BCa: ci(replicates[{confusion!r}], "
            "method='bca', cube=cube)"
            if confusion
            else ""
        )
        raise ValueError(
            f"method='bca' needs confusion metrics: the variables {show(kinds['proba'])} hold probability metrics, "
            "and BCa's jackknife leaves one sample out of the confusion cube, which holds no probabilities. BCa of a "
            "probability metric needs the per-sample scores: call it on the frame, df.ordinal.ci(..., "
            f"method=\"bca\"); from replicates alone use method='percentile' for them, e.g. "
            f"ci(replicates[{kinds['proba']!r}], method='percentile'){some}"
        )


def _matching_cube(cube, values: xr.DataArray, dim: str, name) -> xr.DataArray:
    """``cube`` if it is the cube the replicates were drawn from (stack dims, coordinates, classes); else an error.

    A cube whose stack coordinates list the replicates' labels in another order is reordered to theirs.
    """
    check_cube(cube)
    label = _label(name)
    expected = [d for d in values.dims if d != dim]
    stack = [d for d in cube.dims if d not in CUBE_DIMS]
    extra = [d for d in stack if d not in expected]
    lacking = [d for d in expected if d not in stack]
    if extra or lacking:
        problems = []
        if extra:
            problems.append(
                f"the cube has the dims {extra} that the replicates lack (sum them out, e.g. cube.sum({extra!r}), "
                "if the replicates pooled them, or select the element the replicates were drawn from)"
            )
        if lacking:
            problems.append(f"the replicates have the dims {lacking} that the cube lacks")
        raise ValueError(
            f"ci: the cube does not match {label}: {'; '.join(problems)}. Pass the cube the replicates "
            f"were drawn from: its dims other than 'true' and 'pred' must be the replicates' dims less {dim!r}, "
            f"{expected}; this cube's are {stack}"
        )
    for d in expected:
        ours, theirs = values.indexes.get(d), cube.indexes.get(d)
        if ours is None or theirs is None:
            if ours is not None or theirs is not None:
                which = "the replicates" if ours is not None else "the cube"
                raise ValueError(
                    f"ci: only {which} label the dim {d!r}; the cube must have the coordinates of "
                    f"{label} (give both the same labels, e.g. cube.assign_coords({d}=replicates[{d!r}].values))"
                )
            if values.sizes[d] != cube.sizes[d]:
                raise ValueError(
                    f"ci: the cube has {cube.sizes[d]} elements along {d!r}, {label} have "
                    f"{values.sizes[d]}; pass the cube the replicates were drawn from"
                )
            continue
        if ours.equals(theirs):
            continue
        if ours.is_unique and theirs.is_unique and len(ours) == len(theirs) and theirs.isin(ours).all():
            cube = cube.reindex({d: ours})  # the same labels in another order
            continue
        missing, unexpected = list(ours[~ours.isin(theirs)]), list(theirs[~theirs.isin(ours)])
        differences = [
            *([f"lacks {show(missing)}"] if missing else []),
            *([f"has {show(unexpected)} too"] if unexpected else []),
        ] or ["lists a label more than once"]
        raise ValueError(
            f"ci: the cube's {d!r} coordinate ({show(theirs)}) is not that of {label} "
            f"({show(ours)}): it {' and '.join(differences)}. Pass the cube the replicates were drawn from, "
            f"e.g. cube.sel({d}=replicates[{d!r}].values)"
        )
    declared = values.attrs.get("classes")
    if declared is not None:
        try:
            classes = json.loads(declared) if isinstance(declared, str) else [str(c) for c in declared]
        except (TypeError, ValueError):
            classes = None  # not an ordframe attr: nothing to compare with
        if classes is not None:
            _, index = cube_classes(cube)
            if index is None:
                raise ValueError(
                    f"ci: the cube has no class labels, and {label} were computed with the classes "
                    f"{classes}; label its 'true' and 'pred' dims with them, in that order"
                )
            found = [str(c) for c in index]
            if found != classes:
                raise ValueError(
                    f"ci: the cube's classes {found} are not those of {label}, {classes} (in this "
                    "order). The order of the classes sets the distances that ordinal metrics measure, and the "
                    "metric's parameters (e.g. a cost matrix) are stored in the replicates' class order: build "
                    f"the cube with labels={classes}"
                )
    return cube


def _checked_cube(values: xr.DataArray, dim: str, cube, name, method: str) -> tuple[Metric, dict, xr.DataArray]:
    """The replicates' metric and parameters and the cube they were drawn from, checked; errors say what differs."""
    if cube is None:
        raise ValueError(f"method={method!r} needs cube=, the confusion cube the replicates were drawn from")
    if method != "m_out_of_n" and SIZE_COORD in values.coords:
        raise ValueError(
            f"method={method!r}: {_label(name)} are m-out-of-n replicates ({SIZE_COORD!r} coordinate), whose spread "
            "is that of m samples, not of the data's N; use method='m_out_of_n'"
        )
    metric = _metric_of(name, values.attrs, method)
    return metric, parameters_of(metric, values.attrs, name), _matching_cube(cube, values, dim, name)


def _estimate_on(values: xr.DataArray, dim: str, metric: Metric, params, cube: xr.DataArray, name) -> xr.DataArray:
    """The metric on the cube the replicates were drawn from; an error where it lies outside every replicate.

    Replicates drawn from a cube surround its value (or equal it); an estimate outside all of them says that
    the two are on different scales, or that the replicates came from another cube.
    """
    estimate = apply_confusion(metric, cube, params)
    valid = values.notnull().sum(dim) >= 2
    lowest, highest = values.min(dim), values.max(dim)
    tolerance = _EQUAL * np.maximum(1.0, np.maximum(abs(lowest), abs(highest)))
    outside = valid & ((estimate < lowest - tolerance) | (estimate > highest + tolerance))
    if bool(outside.any()):
        mask, v, lo, hi = xr.broadcast(outside, estimate.drop_attrs(deep=False), lowest, highest)
        where = mask.values
        e, low, high = (round(float(x.transpose(*mask.dims).values[where][0]), 6) for x in (v, lo, hi))
        raise ValueError(
            f"ci: in {int(outside.sum())} of {int(valid.sum())} element(s) the value of {metric.name!r} on the cube "
            f"lies outside every one of {_label(name)} (e.g. {e}, replicates in [{low}, {high}]): the replicates "
            "and the cube are on different scales (xarray keeps a metric's attrs through arithmetic such as "
            "x * 100, so scaled replicates still look like the metric), or the replicates were not drawn from "
            "this cube. Pass the replicates as the metric gave them, or use method='percentile', which needs no cube"
        )
    return estimate


def _calibration(values: dict, names: list, dim: str, cube, n_inner, seed, progress) -> dict[Hashable, xr.DataArray]:
    """The double bootstrap's shares of the variables ``names``, from one set of draws of ``cube`` for them all."""
    n_inner = check_count(n_inner, "n_inner", low=2)
    request = {}
    for name in names:
        metric, params, checked = _checked_cube(values[name], dim, cube, name, "calibrated")
        request[name] = (metric, params, _estimate_on(values[name], dim, metric, params, checked, name))
    n_resamples = max(values[name].sizes[dim] for name in names)
    return calibration_shares(
        checked, request, n_resamples=n_resamples, n_inner=n_inner, equal=_EQUAL, seed=seed, progress=progress
    )


def jeffreys_bounds(values: xr.DataArray, estimate, samples, dim: str, alpha: float) -> list[xr.DataArray]:
    """The Jeffreys interval of a share of samples at the bootstrap's effective sample size.

    The ``alpha`` and ``1 - alpha`` quantiles of ``Beta(x + 1/2, n - x + 1/2)``, ``x = p n``, with the lower
    bound 0 at ``p = 0`` and the upper 1 at ``p = 1`` (Brown, Cai & DasGupta 2001), at the effective sample
    size ``n = min(N, p (1 - p) / var*)`` of Korn & Graubard (1998), ``var*`` the variance of the replicates
    (``N`` where it is 0): a cluster bootstrap's wider spread widens the interval.
    """
    from scipy.special import betaincinv  # imported when needed: it takes a fifth of `import ordframe`

    p = estimate if isinstance(estimate, xr.DataArray) else xr.DataArray(estimate)
    n = samples.astype(np.float64)
    spread = values.var(dim, skipna=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        n = xr.where(spread > 0, np.minimum(n, p * (1 - p) / spread), n)
        a, b = p * n + 0.5, (1 - p) * n + 0.5
        low = xr.where(p > 0, xr.apply_ufunc(betaincinv, a, b, alpha), 0.0).where(p.notnull())
        high = xr.where(p < 1, xr.apply_ufunc(betaincinv, a, b, 1 - alpha), 1.0).where(p.notnull())
    return [low, high]


def intersection_bounds(
    estimates: xr.DataArray, replicates: xr.DataArray, samples, alpha: float, metric: Metric
) -> list[xr.DataArray]:
    """The intersection interval of the worst of per-class values (Chernozhukov, Lee & Rosen 2013).

    For ``theta = min_k theta_k`` (a maximum is negated) with per-class estimates ``theta_k`` (dim ``true``),
    their replicates ``theta*_bk`` (last dim), spreads ``s_k`` (standard deviations of the replicates) and
    ``T*_bk = (theta*_bk - theta_k) / s_k`` (0 where ``s_k`` is 0)::

        kappa = the (1 - 0.1 / log N) quantile of  max_k -T*_bk
        V     = {k : theta_k <= min_j (theta_j + kappa s_j) + 2 kappa s_k}     the classes that may be worst
        high  = min_k (theta_k + c s_k),   c = the (1 - alpha) quantile of  max_{k in V} -T*_bk
        low   = min_k q*_k(alpha)                       the per-class percentile bounds (q*_k: quantiles of theta*_k)

    ``high`` bounds the worst class jointly over ``V`` (CLR's bound, with their adaptive selection of
    ``V``); ``low`` holds for the class that is worst. The interval covers at least its level whichever
    classes tie, exactly where one class is clearly worst, and more where several tie or nearly tie. Classes
    whose estimate is NaN are left out; ``samples`` is the cube's total ``N``, per element; the bounds are
    clipped to the ``metric``'s range.
    """
    sign = 1.0 if metric.higher_is_better else -1.0
    theta, draws = sign * estimates, sign * replicates
    dim = draws.dims[-1]
    valid = theta.notnull()
    spread = draws.std(dim, ddof=1)
    studentized = xr.where(spread > 0, (draws - theta) / spread.where(spread > 0), 0.0).where(draws.notnull())

    def quantile(values: xr.DataArray, level) -> xr.DataArray:
        return _quantiles(values.transpose(..., dim), xr.full_like(values.isel({dim: 0}, drop=True), 1.0) * level)

    def worst_over(classes: xr.DataArray) -> xr.DataArray:  # max_{k in classes} -T*_bk, NaN where none is valid
        gap = (-studentized).where(classes, -np.inf).fillna(-np.inf).max(TRUE)
        return gap.where(np.isfinite(gap))

    def smallest(values: xr.DataArray) -> xr.DataArray:  # the minimum over the valid classes, NaN where none is
        low = values.where(valid, np.inf).fillna(np.inf).min(TRUE)
        return low.where(np.isfinite(low))

    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.clip(1 - 0.1 / np.log(samples.astype(np.float64)), 0.5, 1.0)
    kappa = quantile(worst_over(valid), gamma)
    may_be_worst = valid & (theta <= smallest(theta + kappa * spread) + 2 * kappa * spread)
    high = smallest(theta + quantile(worst_over(may_be_worst), 1 - alpha) * spread)
    low = smallest(quantile(draws, alpha))
    bounds = [low, high] if metric.higher_is_better else [0.0 - high, 0.0 - low]  # 0 - x: no -0.0
    return [b.clip(*metric.bounds) for b in bounds]


def _check_kind(metric: Metric, method: str) -> None:
    """A method whose entry names a ``Metric`` field (``share``: Jeffreys; ``per_class``: intersection) is for the
    metrics that set it; one that draws from the confusion cube is not for a score metric; the others are for any
    metric."""
    if metric.kind == "score" and "cube" in INTERVAL_METHODS[method].needs:
        raise ValueError(
            f"method={method!r} draws from the confusion cube, which holds no scores, and {metric.name!r} is a score "
            "metric: use 'percentile', 'basic' or 'bca'"
        )
    field = INTERVAL_METHODS[method].metric
    if field is not None and not getattr(metric, field):
        kind, setting, _ = METRIC_FIELDS[field]
        fitting = [m for m in registry.metric_names("confusion") if getattr(registry.get_metric(m), field)]
        raise ValueError(
            f"method={method!r} is an interval of {kind} (a metric registered with {setting}: {show(fitting)}); "
            f"{metric.name!r} is not one"
        )


def calibrated_bounds(values: xr.DataArray, shares: xr.DataArray, dim: str, alpha: float) -> list[xr.DataArray]:
    """The quantiles of the replicates at the calibrated levels, the ``alpha`` and ``1 - alpha`` quantiles of the shares."""
    return [_quantiles(values, level) for level in percentile(shares, BOOTSTRAP_DIM, alpha)]


def parameters_of(metric: Metric, attrs, name) -> dict:
    """The metric's parameters that the replicates record (``parameters`` attr): all of them, and only its own."""
    recorded = attrs.get("parameters")
    if recorded is None:
        if metric.defaults:
            raise ValueError(
                f"ci: {_label(name)} do not record the parameters of {metric.name!r} (no 'parameters' "
                f"attr), so the estimate and the jackknife on the cube could use other ones than the replicates "
                f"(its defaults are {dict(metric.defaults)}). Compute the replicates with ordframe, which records "
                "them, or set replicates.attrs['parameters'] = json.dumps({...}) with every parameter"
            )
        return {}
    try:
        params = json.loads(recorded) if isinstance(recorded, str) else dict(recorded)
    except (TypeError, ValueError):
        raise ValueError(
            f"ci: the 'parameters' attr of {_label(name)} is not the JSON object of parameters that "
            f"ordframe records, got {recorded!r}"
        ) from None
    unknown = sorted(set(params) - set(metric.defaults))
    lacking = sorted(set(metric.defaults) - set(params))
    if unknown or lacking:
        problems = [
            *([f"names {unknown}, which {metric.name!r} does not take"] if unknown else []),
            *([f"lacks {lacking}"] if lacking else []),
        ]
        raise ValueError(
            f"ci: the parameters recorded with {_label(name)}, {params}, are not those of the registered "
            f"metric {metric.name!r} (parameters: {list(metric.defaults) or 'none'}): the record "
            f"{' and '.join(problems)}. Were the replicates computed by another version of the metric or its "
            "plugin? Recompute them with the registered metric"
        )
    return params


def acceleration_of(jackknife_values: xr.DataArray, weights: xr.DataArray | None, dim: str) -> xr.DataArray:
    """BCa's acceleration from jackknife values along ``dim`` (Efron & Tibshirani 1993, eq. 14.15).

    ``a = sum_i w_i (m - theta_i)^3 / (6 (sum_i w_i (m - theta_i)^2)^(3/2))`` with ``m`` the weighted mean
    of the leave-one-out values ``theta_i``, as ``scipy.stats.bootstrap(method="BCa")`` computes it.

    Parameters
    ----------
    jackknife_values : xarray.DataArray
        The statistic with one sample (or one group of identical samples) left out, along ``dim``.
    weights : xarray.DataArray, optional
        How many samples give each value (the cell counts of [`ordframe.jackknife`][ordframe.jackknife]);
        ``None``: one each. Values of weight 0 are ignored, even where NaN.
    dim : str
        The leave-one-out dim (``"cell"`` for the cube's jackknife).

    Returns
    -------
    xarray.DataArray
        The acceleration, NaN where the jackknife values are NaN or all equal.
    """
    if weights is None:
        weights = xr.ones_like(jackknife_values)
    used = weights > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (jackknife_values * weights).where(used, 0.0).sum(dim, skipna=False) / weights.sum(dim)
        deviation = (mean - jackknife_values).where(used, 0.0)
        third = (weights * deviation**3).sum(dim, skipna=False)
        return third / (6 * (weights * deviation**2).sum(dim, skipna=False) ** 1.5)


def mean_score_acceleration(scores: np.ndarray, element: np.ndarray, n_elements: int) -> np.ndarray:
    """BCa's acceleration of a mean score, per element, from the per-sample scores (the per-sample jackknife).

    Leaving sample ``i`` out of an element of ``N`` samples with mean ``theta`` gives
    ``theta_(i) = (N theta - s_i) / (N - 1)``, so ``m - theta_(i) = (s_i - theta) / (N - 1)`` and the
    acceleration of ``acceleration_of`` is

        a = sum_i (s_i - theta)^3 / (6 (sum_i (s_i - theta)^2)^(3/2))

    (Efron & Tibshirani 1993, eq. 14.15): the skewness of the scores over ``6 sqrt(N)``. One pass over the
    samples with ``numpy.bincount``, for every element at once.

    Parameters
    ----------
    scores : numpy.ndarray
        Per-sample scores ``(n_samples,)`` (e.g. RPS), finite.
    element : numpy.ndarray
        The element (model, group, ...) of each sample, integers in ``[0, n_elements)``, ``(n_samples,)``.
    n_elements : int
        The number of elements.

    Returns
    -------
    numpy.ndarray
        ``(n_elements,)``: the acceleration; NaN for an element with fewer than two samples or constant scores.

    Examples
    --------
    >>> from ordframe._inference.intervals import mean_score_acceleration
    >>> scores, element = np.array([0.0, 0.0, 1.0, 0.4, 0.4, 0.2, 0.7]), np.array([0, 0, 0, 1, 1, 1, 2])
    >>> mean_score_acceleration(scores, element, 3).round(4)  # one sample in element 2: undefined
    array([ 0.068, -0.068,    nan])
    """
    scores = np.asarray(scores, dtype=np.float64)
    element = np.asarray(element, dtype=np.intp)
    if scores.shape != element.shape or scores.ndim != 1:
        raise ValueError(
            f"scores and element must be 1-d arrays of the same length, got shapes {scores.shape} and {element.shape}"
        )
    count = np.bincount(element, minlength=n_elements)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.bincount(element, scores, minlength=n_elements) / count
        deviation = scores - mean[element]
        second = np.bincount(element, deviation**2, minlength=n_elements)
        third = np.bincount(element, deviation**3, minlength=n_elements)
        tiny = second <= (np.finfo(np.float64).eps * np.abs(mean)) ** 2 * count  # constant up to rounding
        return np.where((count >= 2) & ~tiny, third / (6 * second**1.5), np.nan)


def bca_bounds(
    values: xr.DataArray,
    estimate: xr.DataArray,
    acceleration: xr.DataArray,
    *,
    dim: str = BOOTSTRAP_DIM,
    alpha: float = 0.025,
    name=None,
) -> list[xr.DataArray]:
    """The BCa bounds of replicates from an estimate and an acceleration of any source (Efron 1987).

    The core of ``ci(method="bca")``: the cube's jackknife gives the acceleration of a confusion metric;
    a per-sample jackknife (``mean_score_acceleration``)
    that of a probability metric; the jackknife of a difference of two models' values that of a paired
    difference. ``z0 = Phi^-1((#{theta_b < theta} + #{theta_b <= theta}) / (2 B))`` over the valid
    replicates, and the bounds are the ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` quantiles of the replicates
    for ``z = Phi^-1(alpha)``, ``Phi^-1(1 - alpha)``; degenerate cases as the module docstring says (with a
    ``DegenerateIntervalWarning``). Check the replicates first with
    ``valid_share``, as ``ci`` does.

    Parameters
    ----------
    values : xarray.DataArray
        The replicates, with ``dim``.
    estimate, acceleration : xarray.DataArray or float
        The statistic on the data and BCa's acceleration, labelled like ``values`` less ``dim``
        (broadcast against it).
    dim : str
        The replicate dim.
    alpha : float
        The level of each tail (``(1 - level) / 2``).
    name : hashable, optional
        The variable's name, for the warnings.

    Returns
    -------
    list of xarray.DataArray
        ``[low, high]``, labelled like ``values`` less ``dim``.
    """
    from scipy.special import ndtr, ndtri  # imported when needed: it takes a fifth of `import ordframe`

    values = values.transpose(..., dim)
    estimate, acceleration = (x if isinstance(x, xr.DataArray) else xr.DataArray(x) for x in (estimate, acceleration))
    valid = values.notnull()
    n = valid.sum(dim)
    below = ((values < estimate) & valid).sum(dim) + ((values <= estimate) & valid).sum(dim)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = xr.apply_ufunc(ndtri, below / (2 * n))
    bounds = []
    for z in (ndtri(alpha), ndtri(1 - alpha)):
        with np.errstate(divide="ignore", invalid="ignore"):
            q = xr.apply_ufunc(ndtr, z0 + (z0 + z) / (1 - acceleration * (z0 + z)))
        bounds.append(_quantiles(values, q))
    return _degenerate(bounds, values, dim, estimate.drop_attrs(deep=False), n, name)


def _degenerate(bounds: list, values: xr.DataArray, dim: str, estimate: xr.DataArray, n, name) -> list:
    """The BCa bounds where BCa is degenerate (see the module docstring), with one warning that says why."""
    enough = n >= 2
    lowest, highest = values.min(dim), values.max(dim)
    tolerance = _EQUAL * np.maximum(1.0, np.maximum(abs(lowest), abs(highest)))
    missing = enough & estimate.isnull()
    near = (estimate >= lowest - tolerance) & (estimate <= highest + tolerance)
    constant = enough & (highest - lowest <= tolerance) & near
    outside = enough & ~missing & ~constant & ((estimate < lowest) | (estimate > highest))
    low = bounds[0].where(~constant, lowest).where(~outside)
    high = bounds[1].where(~constant, highest).where(~outside)
    undefined = enough & ~missing & ~constant & ~outside & (low.isnull() | high.isnull())
    reasons = []
    count = int(enough.sum())

    def first(mask, *arrays):
        """The values of ``arrays`` at the first element where ``mask`` holds, for the message."""
        mask, *arrays = xr.broadcast(mask, *arrays)
        where = mask.values
        return [show([round(float(x.transpose(*mask.dims).values[where][0]), 6)]) for x in arrays]

    if bool(constant.any()):
        (v,) = first(constant, lowest)
        reasons.append(
            f"in {int(constant.sum())} of {count} element(s) every replicate equals the estimate (e.g. {v}: a "
            "perfect model): the interval is [v, v], every quantile of the replicates (BCa's correction is 0/0 "
            "there). Replicates that do not vary do not mean there is no uncertainty: with N samples all right, "
            "the error rate can still be up to about 3/N (95%)"
        )
    if bool(outside.any()):
        v, lo, hi = first(outside, estimate, lowest, highest)
        reasons.append(
            f"in {int(outside.sum())} of {count} element(s) the estimate on the cube lies outside every replicate "
            f"(e.g. {v}, replicates in [{lo}, {hi}]): the bias correction z0 is infinite and the bounds are NaN. "
            "Were the replicates drawn from this cube, and are they on the metric's own scale (attrs survive "
            "arithmetic such as x * 100)? method='percentile' needs no cube"
        )
    if bool(missing.any()):
        reasons.append(
            f"in {int(missing.sum())} of {count} element(s) the metric is NaN on the cube (undefined there): "
            "the bounds are NaN"
        )
    if bool(undefined.any()):
        reasons.append(
            f"in {int(undefined.sum())} of {count} element(s) the jackknife values are NaN or all equal (the "
            "metric is undefined on a leave-one-out matrix, or does not change), so the acceleration is "
            "undefined and the bounds are NaN; method='percentile' does not need it"
        )
    if reasons:
        warn(f"BCa interval of {_label(name)}: " + "; ".join(reasons), DegenerateIntervalWarning)
    return [low, high]
