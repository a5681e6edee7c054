"""How often each metric prefers, of two confusion matrices, the one a reference criterion prefers."""

from __future__ import annotations

import numbers

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_cube, confusion_counts
from ordframe._core.checks import check_level, dims_list
from ordframe._core.dims import BOUND_DIM, CUBE_DIMS, METRIC_DIM
from ordframe._core.messages import warn
from ordframe._registry.request import metric_request

_SHARES = ("agree", "disagree", "tie", "undefined")


def prefers(a, b, *, metrics=None, reference="cost", cost=None, dim=None, level=0.95, tol=1e-9) -> xr.Dataset:
    """The share of pairs of confusion matrices in which each metric prefers the matrix the reference prefers.

    Matrix ``a[...]`` is paired with ``b[...]`` at the same position of the stack dims. For a metric M
    with values M_a, M_b, M *prefers* ``a`` if M_a is better than M_b in M's direction (the registry's
    ``higher_is_better``; for a metric whose best value is a target, ``best``, the nearer to it), *prefers* ``b``
    if worse, and *ties* if |M_a - M_b| <= tol max(1, |M_a|, |M_b|) (with a target, of the distances
    |M - best|).
    The reference criterion R prefers a matrix the same way. Pairs where R ties or is NaN are left out
    (and counted); on the others, M *agrees* if it prefers the matrix R prefers, *disagrees* if it
    prefers the other, *ties*, or is *undefined* (NaN on either matrix). The four shares sum to 1. A tie
    in M is not an agreement: this is George, Lu & Chang's (2016) "percent of instances where [the
    metric] favor[s] the confusion matrix with lower cost" (their Table 3); ``agree + tie / 2`` counts a
    tie as half.

    The interval is the Clopper–Pearson interval of the agreement share (the number of agreements
    is binomial given the pairs compared, the pairs being independent draws), by scipy's beta
    quantiles: [B(alpha/2; x, m - x + 1), B(1 - alpha/2; x + 1, m - x)] for x agreements in m pairs,
    alpha = 1 - level.

    Parameters
    ----------
    a, b : xarray.DataArray
        Confusion cubes (dims ``true`` and ``pred``, rows = true class) with the same dims and coordinates,
        e.g. two draws of ``ordframe.simulate.confusion_cubes``.
    metrics : str, list or dict, optional
        The confusion metrics to score, as in ``evaluate`` (names, ``"oc[beta=0.25]"``, or
        ``{output: (name, params)}``); default every registered confusion metric.
    reference : str or (str, dict)
        ``"cost"``: the lower total misclassification cost TC = sum C[t, p] n_tp with George's cost
        (``ordframe.george_cost`` of each matrix's true class sizes, or ``cost=``); ``"accuracy"``: the
        higher accuracy; or any registered confusion metric, in its direction.
    cost : array_like, optional
        A K x K cost matrix for ``reference="cost"`` (rows = true class), the same for every matrix. The
        default, George's cost of each matrix's own class sizes, compares two matrices under one cost
        only when their class sizes are equal (``confusion_cubes(..., sizes="fixed")``).
    dim : str or list of str, optional
        The stack dims whose pairs are pooled; default all of them. Other dims are kept.
    level : float
        The confidence level of the interval, in (0, 1).
    tol : float
        The relative tolerance within which two values tie, >= 0.

    Returns
    -------
    xarray.Dataset
        ``agree``, ``disagree``, ``tie``, ``undefined`` (dims ``metric`` and the kept dims): the shares
        of the pairs compared; ``interval`` (``metric``, ``bound`` = low/high, ...): the Monte-Carlo
        interval of ``agree``; ``pairs``: the number compared; ``reference_ties`` and
        ``reference_undefined``: the pairs left out. ``attrs`` name the reference, level and method.

    Raises
    ------
    ValueError
        If the cubes' dims or coordinates differ, a dim is not a stack dim, ``cost=`` is given with
        another reference, or an argument is out of range.

    Warns
    -----
    RuntimeWarning
        Where no pair can be compared: the shares and the interval are then NaN.

    Examples
    --------
    >>> from ordframe.simulate import confusion_cubes, prefers
    >>> design = dict(accuracy=0.6, largest=0.25, sizes="fixed", n_resamples=2000)
    >>> a, b = confusion_cubes(4, 400, seed=1, **design), confusion_cubes(4, 400, seed=2, **design)
    >>> result = prefers(a, b, metrics=["d", "amae"])
    >>> result["agree"].values.tolist()  # balanced classes: d and AMAE are both proportional to the cost
    [1.0, 1.0]
    """
    for name, cube in (("a", a), ("b", b)):
        try:
            check_cube(cube)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{name}: {error}") from None
    if a.dims != b.dims or a.shape != b.shape:
        raise ValueError(
            f"a and b must hold the same stack of matrices: a has dims {dict(a.sizes)}, b has {dict(b.sizes)}"
        )
    try:
        a, b = xr.align(a, b, join="exact")
    except ValueError as error:
        raise ValueError(f"a and b must have the same coordinates (matrix a[i] is paired with b[i]): {error}") from None
    level = check_level(level)
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not float(tol) >= 0:
        raise ValueError(f"tol must be a number >= 0, got {tol!r}")
    tol = float(tol)
    stack = [d for d in a.dims if d not in CUBE_DIMS]
    pooled = stack if dim is None else dims_list(dim)
    unknown = [d for d in pooled if d not in stack]
    if unknown:
        raise ValueError(f"dim={dim!r} names {unknown}, which are not stack dims of the cubes; they are {stack}")
    request = metric_request(metrics, "confusion", require="confusion")
    ref_name, ref_metric, ref_params = _reference(reference, cost)

    checked = [confusion_counts(cube) for cube in (a, b)]  # validated once, terms shared, for every metric

    def preference(metric, params):
        values = [apply_confusion(metric, cube, params, c) for cube, c in zip((a, b), checked, strict=True)]
        return _preference(*(metric.orientation.score(v) for v in values), tol)

    ref = preference(ref_metric, ref_params)
    compared = ref.notnull() & (ref != 0)
    pairs = compared.sum(pooled)
    axes = tuple(ref.dims.index(d) for d in pooled)
    among, reference = compared.values, ref.values
    parts = []
    for output, (metric, params) in request.items():
        pref = preference(metric, params).values
        shares = {
            "agree": among & (pref == reference),
            "disagree": among & (pref == -reference),
            "tie": among & (pref == 0),
            "undefined": among & np.isnan(pref),
        }
        parts.append(
            xr.Dataset({key: pairs.copy(data=v.sum(axis=axes)) for key, v in shares.items()}).expand_dims(
                {METRIC_DIM: [output]}
            )
        )
    counts = xr.concat(parts, dim=METRIC_DIM)
    if (pairs == 0).any():
        warn(
            f"the shares are NaN where no pair can be compared: in every pair there the reference ({ref_name}) "
            "ties or is undefined; draw more pairs, or pool more dims with dim=",
            RuntimeWarning,
        )
    out = (counts / pairs.where(pairs > 0)).drop_attrs(deep=False)
    out["interval"] = _clopper_pearson(counts["agree"], pairs, level)
    out["pairs"] = pairs
    out["reference_ties"] = (ref == 0).sum(pooled)
    out["reference_undefined"] = ref.isnull().sum(pooled)
    out.attrs = {
        "reference": ref_name,
        "level": level,
        "interval": "Clopper-Pearson interval of the share of pairs in which the metric agrees with the reference",
        "ties": "a tie in the metric is not an agreement; pairs where the reference ties are left out",
    }
    return out


def _reference(reference, cost):
    """The reference's label, metric and parameters (``"cost"`` is George's TC, ``cost=`` its matrix)."""
    if cost is not None and reference != "cost":
        raise ValueError(f"cost= is the cost matrix of reference='cost'; it does not apply to reference={reference!r}")
    if isinstance(reference, str) and reference == "cost":
        spec = ("tc", {} if cost is None else {"cost": cost})
    else:
        spec = reference
    request = metric_request(spec, "confusion", argument="reference", require="confusion")
    if len(request) != 1:
        raise ValueError(f"reference= names one criterion ('cost', 'accuracy' or a metric), got {reference!r}")
    ((label, (metric, params)),) = request.items()
    return ("cost" if isinstance(reference, str) and reference == "cost" else label), metric, params


def _preference(score_a: xr.DataArray, score_b: xr.DataArray, tol: float) -> xr.DataArray:
    """+1 where matrix ``a`` is better (its score higher), -1 where ``b`` is, 0 for a tie within ``tol``, NaN where
    undefined.

    On the arrays themselves: the two cubes share every coordinate, so xarray's alignment of each step would
    only compare (and copy) the replicates' index.
    """
    a, b = score_a.values, score_b.values
    difference = a - b
    scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    with np.errstate(invalid="ignore"):
        sign = np.where(np.abs(difference) <= tol * scale, 0.0, np.sign(difference))  # NaN stays NaN
    return xr.DataArray(sign, coords=score_a.coords, dims=score_a.dims)


def _clopper_pearson(successes: xr.DataArray, trials: xr.DataArray, level: float) -> xr.DataArray:
    """The exact binomial interval of ``successes / trials`` (NaN without trials), bounds low and high."""
    import scipy.stats  # imported when used: `import ordframe` loads no scipy.stats

    alpha = 1 - level
    x, m = xr.broadcast(successes, trials)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = xr.where(x > 0, xr.apply_ufunc(scipy.stats.beta.ppf, alpha / 2, x, m - x + 1), 0.0)
        high = xr.where(x < m, xr.apply_ufunc(scipy.stats.beta.ppf, 1 - alpha / 2, x + 1, m - x), 1.0)
    bounds = xr.concat([low, high], dim=xr.DataArray(["low", "high"], dims=BOUND_DIM, name=BOUND_DIM))
    return bounds.where(m > 0).transpose(METRIC_DIM, BOUND_DIM, ...)
