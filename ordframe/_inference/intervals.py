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

The cube must be the one the replicates were drawn from: the same stack dims
and coordinates (the replicates' dims less the replicate dim) and the same
classes in the same order; the metric must be a confusion metric (the
jackknife leaves one sample out of the cube). Where BCa is degenerate, as in
``scipy.stats.bootstrap(method="BCa")``, a ``DegenerateIntervalWarning`` says
why: replicates that are all equal to the estimate v (a perfect model) give
the interval ``[v, v]``, every quantile of the replicates (the correction is
0/0 there, and any level gives v); an estimate outside every replicate (z0
infinite), a metric that is NaN on the cube, or jackknife values that are NaN
or all equal (acceleration undefined) give NaN bounds.
"""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_cube, cube_classes
from ordframe._core.checks import check_level
from ordframe._core.dims import BOOTSTRAP_DIM, BOUND_DIM, CELL_DIM, CUBE_DIMS
from ordframe._core.messages import show, warn
from ordframe._registry import manager as registry
from ordframe._registry.metric import Metric
from ordframe._resampling.cubes import jackknife

METHODS = ("percentile", "bca")

# Replicates that differ by less than this (relative to their size) are equal: a metric of different matrices
# that all give the same value can differ in the last bits.
_EQUAL = 1e-9


class DegenerateIntervalWarning(RuntimeWarning):
    """A BCa interval whose correction is undefined (as scipy's ``DegenerateDataWarning``).

    Replicates that do not vary (e.g. a perfect model) give the interval ``[v, v]``; an estimate outside
    every replicate, a metric that is NaN on the cube, or jackknife values that are NaN or all equal give
    NaN bounds. The message says which, and for how many elements.
    """


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
        For BCa: the original cube (its metric value and jackknife values are computed on it). Its dims
        other than ``true`` and ``pred`` must be the replicates' dims less ``dim``, with the same
        coordinates (in any order), and its classes those of the replicates' ``classes`` attr, in that
        order. The jackknife treats the cube's samples as one unstratified sample: for replicates drawn
        with ``stratify=True`` or ``strata=``, the acceleration is that of the pooled cube. BCa needs
        confusion metrics: for a probability metric (``rps``, ``brier``, ...) use ``"percentile"``.

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        The bounds along a new dim ``bound`` = ``["low", "high"]``, with the
        replicates' attrs plus ``ci_level`` and ``ci_method``.

    Raises
    ------
    ValueError
        For a level outside (0, 1), an unknown method, a missing dim, or BCa without ``cube``, on
        replicates without metric attrs, on a probability metric, or with a cube that does not match the
        replicates (other stack dims, coordinates or classes).
    MemoryError
        If BCa's jackknife (K^2 leave-one-out matrices of every matrix) exceeds ``max_cube_bytes``.

    Warns
    -----
    DegenerateIntervalWarning
        Where BCa is degenerate: replicates all equal to the estimate (bounds ``[v, v]``), an estimate
        outside every replicate or NaN on the cube, or an undefined acceleration (NaN bounds).

    Notes
    -----
    The percentile interval is the ``alpha/2`` and ``1 - alpha/2`` quantiles of the valid replicates
    (``alpha = 1 - level``). BCa (Efron 1987; Efron & Tibshirani 1993, ch. 14) moves those levels to
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
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if isinstance(replicates, xr.Dataset):
        if method == "bca":
            _check_confusion_variables(replicates)
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
        low, high = _bca(values, dim, alpha, cube, replicates.name)
    out = xr.concat([low, high], dim=xr.DataArray(["low", "high"], dims=BOUND_DIM, name=BOUND_DIM))
    out = out.transpose(BOUND_DIM, ...)
    out.attrs = {**replicates.attrs, "ci_level": float(level), "ci_method": method}
    return out.rename(replicates.name)


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


def _metric_of(name, attrs) -> Metric:
    """The registered confusion metric that the replicates' attrs name; an error for a probability metric."""
    metric_name = attrs.get("metric")
    if metric_name is None:
        raise ValueError("method='bca' needs replicates with a 'metric' attr (ordframe results carry one)")
    metric = registry.get_metric(metric_name)
    if metric.kind != "confusion":
        raise ValueError(
            f"method='bca' needs a confusion metric: {_label(name)} hold the probability metric "
            f"{metric.name!r}, and BCa's jackknife leaves one sample out of the confusion cube, which holds no "
            "probabilities. Use method='percentile' for it (a per-sample jackknife for probability metrics is "
            "not available yet)"
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
        kinds[kind].append(str(name))
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
            "and BCa's jackknife leaves one sample out of the confusion cube, which holds no probabilities. Use "
            f"method='percentile' for them, e.g. ci(replicates[{kinds['proba']!r}]){some}"
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
            f"method='bca': the cube does not match {label}: {'; '.join(problems)}. Pass the cube the replicates "
            f"were drawn from: its dims other than 'true' and 'pred' must be the replicates' dims less {dim!r}, "
            f"{expected}; this cube's are {stack}"
        )
    for d in expected:
        ours, theirs = values.indexes.get(d), cube.indexes.get(d)
        if ours is None or theirs is None:
            if ours is not None or theirs is not None:
                which = "the replicates" if ours is not None else "the cube"
                raise ValueError(
                    f"method='bca': only {which} label the dim {d!r}; the cube must have the coordinates of "
                    f"{label} (give both the same labels, e.g. cube.assign_coords({d}=replicates[{d!r}].values))"
                )
            if values.sizes[d] != cube.sizes[d]:
                raise ValueError(
                    f"method='bca': the cube has {cube.sizes[d]} elements along {d!r}, {label} have "
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
            f"method='bca': the cube's {d!r} coordinate ({show(theirs)}) is not that of {label} "
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
                    f"method='bca': the cube has no class labels, and {label} were computed with the classes "
                    f"{classes}; label its 'true' and 'pred' dims with them, in that order"
                )
            found = [str(c) for c in index]
            if found != classes:
                raise ValueError(
                    f"method='bca': the cube's classes {found} are not those of {label}, {classes} (in this "
                    "order). The order of the classes sets the distances that ordinal metrics measure, and the "
                    "metric's parameters (e.g. a cost matrix) are stored in the replicates' class order: build "
                    f"the cube with labels={classes}"
                )
    return cube


def _bca(values: xr.DataArray, dim: str, alpha: float, cube: xr.DataArray | None, name=None):
    from scipy.special import ndtr, ndtri  # imported when needed: it takes a fifth of `import ordframe`

    if cube is None:
        raise ValueError("method='bca' needs cube=, the confusion cube the replicates were drawn from")
    metric = _metric_of(name, values.attrs)
    cube = _matching_cube(cube, values, dim, name)
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
    return _degenerate(bounds, values, dim, estimate.drop_attrs(), n, name)


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
