"""Sample-size planning by multinomial simulation from a pilot: a metric within +-h, or a difference with power.

A test set of n samples drawn from the population a pilot describes is a
multinomial draw of n over the pilot's cells, so the sampling distribution of
any confusion metric at size n is simulated by one multinomial call for every
candidate n and replicate at once, scored like any cube:

* ``sample_size``: from a pilot confusion matrix, the half-width
  ``(q((1 + level) / 2) - q((1 - level) / 2)) / 2`` of the metric's central
  ``level`` interval over the replicates, against n;
* ``power``: from the joint table of two models' predictions of the same
  samples (true class x a's prediction x b's prediction, so the pairing is
  kept), the rejection rate of the two-sided test of "no difference" whose
  critical values are the quantiles of the difference a - b under the
  exchangeable-models null (the joint table symmetrised in the two
  predictions), against n.

The smallest n that meets the target is searched on a doubling grid of sizes,
then refined by evenly spaced grids inside the bracket until it is narrower
than 1% of n; each step scores all its sizes at once. Every point of the
curve carries its Monte-Carlo interval, and the chosen n an interval read off
the curve.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_counts, cube_classes, prepare
from ordframe._core.checks import check_count, check_level, rng_of, significance
from ordframe._core.dims import BOUND_DIM, CUBE_DIMS, PRED, PRED_VERSUS, REPLICATE_DIM, SIZE_DIM, TRUE
from ordframe._core.docstrings import fill_doc
from ordframe._core.messages import show, warn
from ordframe._core.options import check_allocation
from ordframe._registry.metric import Metric
from ordframe._registry.request import metric_request

#: The confidence level of the Monte-Carlo intervals of the curves.
MC_LEVEL = 0.95
# The search stops when the bracket of the smallest n is narrower than this share of n (or one sample).
_RESOLUTION = 0.01
# The sizes of one refinement step inside the bracket.
_REFINE = 16
# The hypotheses of ``power``'s draws: the exchangeable-models null, and the pilot.
_HYPOTHESES = ("null", "pilot")


_TEXTS = {
    "metric": """\
metric : str or (str, dict)
    One confusion metric, e.g. ``"mae"``, ``"oc[beta=0.25]"`` or ``("oc", {"beta": 0.25})``.""",
    "search": """\
sizes : sequence of int, optional
    The candidate sizes, evaluated in one step, instead of the search.
max_n : int
    The largest size the search tries.
{seed}""",
}
"""The parameters that ``sample_size`` and ``power`` share: the metric, and the sizes and draws searched."""


@fill_doc(**_TEXTS)
def sample_size(
    pilot,
    metric,
    *,
    halfwidth: float,
    level: float = 0.95,
    n_resamples: int = 2000,
    sizes=None,
    max_n: int = 1_000_000,
    seed=None,
) -> xr.Dataset:
    """The smallest test-set size n at which ``metric`` is estimated within +-``halfwidth``, by simulation.

    A test set of n samples from the population of the pilot is a multinomial draw of n over its cells, with
    probabilities ``p_rc = n_rc / N``. For every candidate n, ``n_resamples`` such cubes are drawn and scored;
    the half-width at n is ``(q_hi - q_lo) / 2``, the quantiles ``(1 -+ level) / 2`` of the metric over the
    replicates (the interval that a percentile bootstrap of a test set of size n approximates). For accuracy
    p it is about ``z sqrt(p (1 - p) / n)``, hence ``n ~ z^2 p (1 - p) / h^2``.

    Parameters
    ----------
    pilot : xarray.DataArray or numpy.ndarray
        One pilot confusion matrix, counts or proportions: a DataArray with the dims ``true`` and ``pred`` and
        no other, or a K x K array (rows = true class). Its cell proportions are taken as the population's.
    {metric}
    halfwidth : float
        The target half-width h > 0, in the metric's units.
    level : float
        The level of the interval, in (0, 1).
    n_resamples : int
        The simulated test sets per candidate n.
    {search}

    Returns
    -------
    xarray.Dataset
        Along the dim ``n`` (every size evaluated, ascending): ``halfwidth`` and ``halfwidth_mc`` (its
        Monte-Carlo interval, dim ``bound``: from the distribution-free intervals of the two quantiles,
        at level ``MC_LEVEL``, 0.95), ``valid_share`` (the share of replicates where the metric is defined);
        and ``sample_size`` (the smallest n evaluated with ``halfwidth <= h``; NaN if none),
        ``sample_size_mc`` (its Monte-Carlo interval, dim ``bound``, read off the sizes evaluated: the smallest
        n whose interval of the half-width reaches h, and the smallest above which every size's interval is
        wholly below h) and ``estimate`` (the metric on the pilot).

    Raises
    ------
    ValueError, TypeError
        For a pilot that is not one matrix of counts, more than one metric, or a bad argument.
    MemoryError
        If one step's draws exceed ``max_cube_bytes``.

    Warns
    -----
    RuntimeWarning
        When no size up to ``max_n`` reaches the target, the metric is undefined on some replicates, or the
        size found is one where the central ``level`` of the replicates do not vary (a perfect pilot, say):
        that says nothing of the uncertainty.

    Examples
    --------
    >>> import ordframe
    >>> pilot = xr.DataArray([[40, 8, 2], [6, 30, 4], [1, 5, 24]], dims=("true", "pred"))
    >>> plan = ordframe.simulate.sample_size(pilot, "accuracy", halfwidth=0.05, seed=0)
    >>> 0.94 * 1.96**2 * 0.78 * 0.22 / 0.05**2 < int(plan["sample_size"]) < 1.06 * 1.96**2 * 0.78 * 0.22 / 0.05**2
    True
    """
    target = _positive(halfwidth, "halfwidth")
    level = check_level(level)
    counts, classes = _pilot(pilot, (TRUE, PRED))
    request, (chosen, params) = _one_metric(metric, counts.shape[-1], classes)
    rng, n_resamples = rng_of(seed), check_count(n_resamples, "n_resamples", 2)
    p = (counts / counts.sum()).reshape(-1)
    low, high = (1 - level) / 2, (1 + level) / 2

    def evaluate(ns: np.ndarray) -> xr.Dataset:
        k = counts.shape[-1]
        _check_memory(len(ns) * n_resamples * k * k, "sample_size", n_resamples)
        draws = rng.multinomial(ns[:, None], p, size=(len(ns), n_resamples)).reshape(len(ns), n_resamples, k, k)
        values = np.sort(_score(chosen, params, draws, classes), axis=-1)  # NaN last
        valid = (~np.isnan(values)).sum(axis=-1)
        q_low, q_high = _quantiles(values, valid, low), _quantiles(values, valid, high)
        (l_low, l_high), (h_low, h_high) = _quantile_mc(values, valid, low), _quantile_mc(values, valid, high)
        return xr.Dataset(
            {
                "halfwidth": (SIZE_DIM, (q_high - q_low) / 2),
                "halfwidth_mc": (
                    (SIZE_DIM, BOUND_DIM),
                    np.stack([np.maximum(h_low - l_high, 0) / 2, (h_high - l_low) / 2], axis=-1),
                ),
                "valid_share": (SIZE_DIM, valid / n_resamples),
            },
            coords={SIZE_DIM: ns, BOUND_DIM: ["low", "high"]},
        )

    curve = _search(
        evaluate,
        lambda c: c["halfwidth"] <= target,
        lambda c: (
            c["halfwidth_mc"].sel({BOUND_DIM: "low"}) <= target,
            c["halfwidth_mc"].sel({BOUND_DIM: "high"}) <= target,
        ),
        sizes,
        max_n,
        f"the half-width of {request} reaches {target:g}",
    )
    curve["estimate"] = _score(chosen, params, counts, classes).item()
    _warn_no_spread(curve, request, level, target)
    curve.attrs = {
        "metric": request,
        "target_halfwidth": target,
        "level": level,
        "n_resamples": n_resamples,
        "mc_level": MC_LEVEL,
    }
    return curve


@fill_doc(**_TEXTS)
def power(
    pilot,
    metric,
    *,
    delta: float | None = None,
    level: float = 0.95,
    power: float = 0.8,
    n_resamples: int = 2000,
    sizes=None,
    max_n: int = 1_000_000,
    seed=None,
) -> xr.Dataset:
    """The smallest test-set size n at which a difference between two models is detected with ``power``.

    The pilot is the joint table of two models' predictions of the same samples: ``n_tij`` samples of true
    class t that model a predicts i and model b predicts j. A test set of n samples is a multinomial draw of n
    over its K^3 cells (so the pairing of the predictions is kept), and the difference ``d = m(a) - m(b)`` of
    ``metric`` is computed on the two models' cubes. The test of "no difference" rejects when d falls outside
    the ``alpha / 2`` and ``1 - alpha / 2`` quantiles (``alpha = 1 - level``) of d under the null that the two
    models are exchangeable (the table symmetrised in the two predictions, ``(n_tij + n_tji) / 2``, as a paired
    permutation test assumes); the power at n is the share of draws from the pilot (its difference shifted
    to ``delta`` if given) that the test rejects. For accuracy this is McNemar's test, and the n found is about
    Connor's (1987) ``(z_{1-alpha/2} sqrt(psi) + z_power sqrt(psi - delta^2))^2 / delta^2``, with ``psi`` the
    share of samples on which exactly one model is right.

    Parameters
    ----------
    pilot : xarray.DataArray or numpy.ndarray
        The joint table, counts or proportions: a DataArray with the dims ``true``, ``pred`` (model a's
        prediction) and ``pred_versus`` (model b's), and no other, or a K x K x K array in that order. From a
        frame: ``df.groupby(["y", "a", "b"]).size().to_xarray().fillna(0)`` with the dims renamed.
    {metric}
    delta : float, optional
        The difference ``m(a) - m(b)`` to detect, in the metric's units: the draws' differences are shifted by
        ``delta - difference`` (the pilot's own difference), which keeps their spread and the bias of the
        metric at n. Default: the pilot's own difference.
    level : float
        The confidence level of the two-sided test, in (0, 1): its significance level is ``1 - level``.
    power : float
        The power to reach, in (0, 1).
    n_resamples : int
        The simulated test sets per candidate n, under each hypothesis.
    {search}

    Returns
    -------
    xarray.Dataset
        Along the dim ``n`` (every size evaluated, ascending): ``power`` and ``power_mc`` (its Wilson
        interval at level ``MC_LEVEL``, 0.95, dim ``bound``), ``critical`` (the null's quantiles, dim
        ``bound``); and ``sample_size`` (the smallest n evaluated with ``power >= power``; NaN if none),
        ``sample_size_mc`` (its Monte-Carlo interval, dim ``bound``, read off the sizes evaluated: the smallest
        n whose interval of the power reaches the target, and the smallest above which every size's interval
        wholly does), ``difference`` (the metric's difference on the pilot) and ``delta``.

    Raises
    ------
    ValueError, TypeError
        For a pilot that is not one joint table of counts, more than one metric, or a bad argument.
    MemoryError
        If one step's draws exceed ``max_cube_bytes``.

    Warns
    -----
    RuntimeWarning
        When no size up to ``max_n`` reaches the power (e.g. no difference to detect), the metric is
        undefined on some replicates, or the two models predict every pilot sample alike (every simulated
        difference is then 0: power 0, or 1 for any other ``delta``).

    Examples
    --------
    >>> import ordframe
    >>> joint = np.zeros((2, 2, 2))
    >>> joint[0, 0, 0] = joint[1, 1, 1] = 40  # both right
    >>> joint[0, 0, 1], joint[1, 1, 0] = 8, 5  # a right, b wrong
    >>> joint[0, 1, 0], joint[1, 0, 1] = 4, 3  # b right, a wrong
    >>> plan = ordframe.simulate.power(joint, "accuracy", seed=0)
    >>> round(float(plan["difference"]), 3), 400 < int(plan["sample_size"]) < 470  # Connor (1987): 434
    (0.06, True)
    """
    alpha, target = significance(level), _share(power, "power", "e.g. 0.8")
    counts, classes = _pilot(pilot, (TRUE, PRED, PRED_VERSUS))
    k = counts.shape[-1]
    request, (chosen, params) = _one_metric(metric, k, classes)
    rng, n_resamples = rng_of(seed), check_count(n_resamples, "n_resamples", 2)
    pilot_values = _score(chosen, params, np.stack(_marginal_cubes(counts)), classes)
    difference = float(pilot_values[0] - pilot_values[1])
    shift = 0.0 if delta is None else _real(delta, "delta") - difference
    joint = counts / counts.sum()
    p = np.stack([(joint + joint.transpose(0, 2, 1)) / 2, joint]).reshape(2, -1)  # the null, the pilot

    def evaluate(ns: np.ndarray) -> xr.Dataset:
        _check_memory(len(ns) * n_resamples * 2 * k**3, "power", n_resamples)
        draws = rng.multinomial(ns[:, None, None], p, size=(len(ns), n_resamples, 2)).reshape(-1, k, k, k)
        cubes = np.stack(_marginal_cubes(draws), axis=1).reshape(len(ns), n_resamples, 2, 2, k, k)
        values = _score(chosen, params, cubes, classes)
        d = values[..., 0] - values[..., 1]  # (n, replicate, hypothesis)
        null, alternative = np.sort(d[..., 0], axis=-1), d[..., 1] + shift
        valid_null = (~np.isnan(null)).sum(axis=-1)
        critical = np.stack([_quantiles(null, valid_null, alpha / 2), _quantiles(null, valid_null, 1 - alpha / 2)], -1)
        defined = ~np.isnan(alternative)
        rejected = ((alternative < critical[:, :1]) | (alternative > critical[:, 1:])) & defined
        trials = defined.sum(axis=-1)
        successes = rejected.sum(axis=-1)
        return xr.Dataset(
            {
                "power": (SIZE_DIM, successes / np.where(trials > 0, trials, np.nan)),
                "power_mc": ((SIZE_DIM, BOUND_DIM), _wilson(successes, trials)),
                "critical": ((SIZE_DIM, BOUND_DIM), critical),
                "valid_share": (SIZE_DIM, np.minimum(valid_null, trials) / n_resamples),
            },
            coords={SIZE_DIM: ns, BOUND_DIM: ["low", "high"]},
        )

    alike = not np.any(counts * (1 - np.eye(k)))  # no sample on which the two models' predictions differ
    if alike:
        warn(
            "the two models predict every sample of the pilot alike, so every simulated difference is 0 under the "
            "null: the test never rejects a difference of 0 (power 0) and always rejects any other (power 1), at "
            "every n. A pilot on which the models disagree tells how their difference varies",
            RuntimeWarning,
        )
    elif difference + shift == 0:
        warn(
            f"the difference to detect is 0 ({'the pilot models score the same' if delta is None else 'delta=0'}): "
            "the power stays at or below the test's size, 1 - level; give the difference to detect with delta=",
            RuntimeWarning,
        )
    curve = _search(
        evaluate,
        lambda c: c["power"] >= target,
        lambda c: (c["power_mc"].sel({BOUND_DIM: "high"}) >= target, c["power_mc"].sel({BOUND_DIM: "low"}) >= target),
        sizes,
        max_n,
        f"the power of {request} reaches {target:g}",
    )
    curve["difference"] = difference
    curve["delta"] = difference + shift
    curve.attrs = {
        "metric": request,
        "level": level,
        "target_power": target,
        "n_resamples": n_resamples,
        "mc_level": MC_LEVEL,
        "null": "the two models exchangeable: the joint table symmetrised in their predictions",
    }
    return curve


def _warn_no_spread(curve: xr.Dataset, request: str, level: float, target: float) -> None:
    """A warning when the size found is one where the replicates' central interval is a single value."""
    chosen = float(curve["sample_size"])
    if np.isnan(chosen) or float(curve["halfwidth"].sel({SIZE_DIM: chosen})) > 0:
        return
    warn(
        f"sample_size = {int(chosen)}: at that size the central {level:g} of the simulated test sets all score the "
        f"same {request}, so its half-width is 0. The pilot (e.g. a perfect matrix) shows no spread, and replicates "
        "that do not vary do not mean there is no uncertainty: with N samples all right, the error rate can still be "
        f"up to about 3/N (95%), which is below {target:g} from about {math.ceil(3 / target)} samples. A larger "
        "pilot, with the errors it makes, gives a curve to trust",
        RuntimeWarning,
    )


def _search(
    evaluate: Callable[[np.ndarray], xr.Dataset],
    met: Callable[[xr.Dataset], xr.DataArray],
    band: Callable[[xr.Dataset], tuple[xr.DataArray, xr.DataArray]],
    sizes,
    max_n: int,
    what: str,
) -> xr.Dataset:
    """The curve over the sizes evaluated, with the smallest size that ``met`` and its interval from ``band``.

    ``band`` gives two masks of the curve: the sizes whose Monte-Carlo interval reaches the target, and those
    whose whole interval meets it.

    Without ``sizes``: a doubling grid up to ``max_n``, then evenly spaced grids inside the bracket of the
    first size met, until the bracket is narrower than ``_RESOLUTION`` of it (or one sample).
    """
    if sizes is not None:
        curve = evaluate(_sizes(sizes))
    else:
        max_n = check_count(max_n, "max_n")
        grid = np.unique(np.append(2 ** np.arange(3, int(math.log2(max_n)) + 1), max_n))
        curve = evaluate(grid[grid <= max_n] if max_n >= 8 else np.arange(1, max_n + 1))
        lo, hi = _bracket(curve, met, 0)
        while hi is not None and hi - lo > max(1, _RESOLUTION * hi):
            step = np.unique(np.linspace(lo, hi, _REFINE + 2).round().astype(np.int64)[1:-1])
            step = step[(step > lo) & (step < hi)]
            if not step.size:
                break
            inside = evaluate(step)
            curve = xr.concat([curve, inside], SIZE_DIM)
            lo, found = _bracket(inside, met, lo)
            hi = hi if found is None else found
        curve = curve.sortby(SIZE_DIM)
    ns = curve[SIZE_DIM].values
    passed = met(curve).values
    chosen = float(ns[passed][0]) if passed.any() else np.nan
    optimistic, pessimistic = (b.values for b in band(curve))
    low = float(ns[optimistic][0]) if optimistic.any() else np.nan
    short = np.nonzero(~pessimistic)[0]  # sizes whose Monte-Carlo interval is not wholly on the target's side
    high = float(ns[0]) if not short.size else float(ns[short[-1] + 1]) if short[-1] + 1 < len(ns) else np.nan
    if np.isnan(chosen):
        warn(f"no size evaluated (up to {int(ns.max())}) at which {what}: sample_size is NaN", RuntimeWarning)
    share = curve["valid_share"].values
    if (share < 1).any():
        warn(
            f"the metric is undefined on some simulated test sets (as many as {1 - share.min():.1%} of them at "
            f"n = {int(ns[share.argmin()])}, e.g. a class without samples): the curve is over the others",
            RuntimeWarning,
        )
    curve["sample_size"] = chosen
    curve["sample_size_mc"] = (BOUND_DIM, [low, high])
    return curve


def _bracket(curve: xr.Dataset, met, below: int) -> tuple[int, int | None]:
    """``(largest size below the first met, first met)`` of ``curve`` (``below`` if the first is met; None if none)."""
    ns, passed = curve[SIZE_DIM].values, met(curve).values
    if not passed.any():
        return int(ns.max()), None
    first = int(np.argmax(passed))
    return (int(ns[first - 1]) if first else below), int(ns[first])


def _sizes(sizes) -> np.ndarray:
    """The candidate sizes: whole numbers >= 1, in ascending order, each once."""
    values = np.atleast_1d(np.asarray(sizes))
    if values.ndim != 1 or not values.size or values.dtype.kind not in "iu" or (values < 1).any():
        raise TypeError(f"sizes= must be a list of whole numbers >= 1 (test-set sizes), got {show(list(values))}")
    return np.unique(values.astype(np.int64))


def _pilot(pilot, dims: tuple[str, ...]) -> tuple[np.ndarray, pd.Index | None]:
    """The pilot's counts in the order of ``dims`` (float64) and its classes (None without coordinates)."""
    what = "a pilot confusion matrix" if len(dims) == 2 else "a pilot joint table of two models' predictions"
    classes = None
    if isinstance(pilot, xr.DataArray):
        if set(pilot.dims) != set(dims):
            raise ValueError(
                f"{what} is a DataArray with the dims {dims} and no other, got {tuple(pilot.dims)}; select one "
                "matrix first (e.g. pilot.sel(model=...))"
            )
        labelled = [d for d in dims if d in pilot.indexes]
        if labelled:
            if len(labelled) < len(dims):
                raise ValueError(f"{what} labels the classes of {labelled} only; label every dim of {dims} alike")
            classes = pilot.indexes[TRUE]
            for d in dims[1:]:  # every prediction dim checked as a cube's, then put in the order of the classes
                probe = pilot.isel({o: 0 for o in dims[1:] if o != d}, drop=True)
                cube_classes(probe.rename({d: PRED}) if d != PRED else probe)
                pilot = pilot.reindex({d: classes})
        values = pilot.transpose(*dims).values
    else:
        values = np.asarray(pilot)
        if values.ndim != len(dims) or len(set(values.shape)) != 1:
            raise ValueError(
                f"{what} is a {' x '.join('K' * len(dims))} array ({', '.join(dims)}), got shape {values.shape}"
            )
    if values.dtype.kind not in "iufb":
        raise TypeError(f"{what} holds counts (real numbers >= 0), got dtype {values.dtype}")
    if values.shape[0] < 2:
        raise ValueError(f"an ordinal problem needs at least two classes; {what} has {values.shape[0]}")
    counts = check_counts(values.astype(np.float64))
    if not counts.sum() > 0:
        raise ValueError(f"{what} is empty (its counts sum to 0); give the counts of a pilot test set")
    return counts, classes


def _marginal_cubes(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Model a's and model b's cubes ``(..., K, K)`` from joint tables ``(..., K, K, K)``."""
    return joint.sum(axis=-1), joint.sum(axis=-2)


def _one_metric(metric, k: int, classes: pd.Index | None) -> tuple[str, tuple[Metric, dict]]:
    """The output name and (Metric, parameters) of one confusion metric, its parameters prepared for ``k`` classes."""
    request = metric_request(metric, argument="metric", require="confusion")
    if len(request) != 1:
        raise ValueError(f"metric must name one confusion metric, got {list(request)}")
    ((name, (chosen, params)),) = request.items()
    prepare(chosen, params, k, classes)  # a bad parameter fails here, before any draw
    return name, (chosen, params)


def _score(metric: Metric, params: dict, counts: np.ndarray, classes: pd.Index | None) -> np.ndarray:
    """``metric`` on every matrix of ``counts`` ``(..., K, K)``, through the bridge of ``cube.ordinal.evaluate``."""
    stack = [f"{REPLICATE_DIM}_{i}" for i in range(counts.ndim - 2)]
    coords = {} if classes is None else {TRUE: classes.values, PRED: classes.values}
    cube = xr.DataArray(counts, dims=(*stack, *CUBE_DIMS), coords=coords)
    return np.asarray(apply_confusion(metric, cube, params).values)


def _quantiles(ordered: np.ndarray, valid: np.ndarray, q: float) -> np.ndarray:
    """The ``q`` quantile (linear interpolation) of the first ``valid`` values of every sorted row; NaN if none."""
    position = q * np.maximum(valid - 1, 0)
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, np.maximum(valid - 1, 0))
    rows = np.arange(len(ordered))
    low, high = ordered[rows, below], ordered[rows, above]
    return np.where(valid > 0, low + (position - below) * (high - low), np.nan)


def _quantile_mc(ordered: np.ndarray, valid: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
    """The distribution-free ``MC_LEVEL`` interval of the ``q`` quantile of every sorted row: two order statistics.

    The number of values below the true quantile is Binomial(R, q), so the order statistics at its
    ``(1 -+ MC_LEVEL) / 2`` quantiles bracket it with at least that confidence.
    """
    import scipy.stats  # imported when needed: it takes half a second

    tail = (1 - MC_LEVEL) / 2
    r = np.maximum(valid, 1)
    lower = np.clip(scipy.stats.binom.ppf(tail, r, q) - 1, 0, r - 1).astype(np.int64)
    upper = np.clip(scipy.stats.binom.ppf(1 - tail, r, q), 0, r - 1).astype(np.int64)
    rows = np.arange(len(ordered))
    nothing = valid == 0
    return np.where(nothing, np.nan, ordered[rows, lower]), np.where(nothing, np.nan, ordered[rows, upper])


def _wilson(successes: np.ndarray, trials: np.ndarray) -> np.ndarray:
    """Wilson's (1927) score interval of the proportions ``successes / trials`` at ``MC_LEVEL``: ``(..., 2)``."""
    import scipy.stats

    z = scipy.stats.norm.ppf((1 + MC_LEVEL) / 2)
    n = np.where(trials > 0, trials, np.nan)
    share = successes / n
    centre = (share + z**2 / (2 * n)) / (1 + z**2 / n)
    spread = z / (1 + z**2 / n) * np.sqrt(share * (1 - share) / n + z**2 / (4 * n**2))
    # it holds the share itself; at 0 or 1 exactly, where rounding could leave the share just outside
    return np.stack([np.minimum(centre - spread, share), np.maximum(centre + spread, share)], axis=-1)


def _check_memory(cells: int, what: str, n_resamples: int) -> None:
    check_allocation(
        cells * 8 * 3,  # the draws, their cubes and the kernels' float64 input
        f"{what}'s draws at one step of the search",
        f"lower n_resamples= ({n_resamples}) or give fewer sizes=, or ",
    )


def _positive(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) > 0:
        raise ValueError(f"{what} must be a number > 0, got {value!r}")
    return float(value)


def _share(value, what: str, example: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        raise ValueError(f"{what} must be a number in (0, 1), {example}; got {value!r}")
    return float(value)


def _real(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return float(value)
