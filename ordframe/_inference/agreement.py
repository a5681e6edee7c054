"""Krippendorff's alpha: how far raters agree beyond chance, from a long frame of (item, rater, rating).

Krippendorff (2004, ch. 11; 2011): with n_uc the ratings of class c that item
u received and m_u = sum_c n_uc, the items rated at least twice (their ratings
are *pairable*) give the coincidence matrix

    o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1),

its margins n_c = sum_k o_ck, and n = sum_c n_c, the pairable ratings. Then

    alpha = 1 - D_o / D_e = 1 - (n - 1) sum_ck o_ck delta_ck^2 / sum_ck n_c n_k delta_ck^2

with the difference function of the scale (``level_of_measurement``), on the
class order: nominal, delta^2 = [c != k]; interval, (c - k)^2 on class indices
(labels 1, 2, 10 are three adjacent classes, as everywhere in ordframe);
ordinal, (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2, the distance of the two
classes' mid-ranks among the pairable ratings. alpha is 1 for perfect
agreement and 0 for agreement at chance; it is NaN where it is undefined:
fewer than 2 pairable ratings (no item rated twice), or a single class among
them (D_e = 0: no disagreement to expect).

The bootstrap draws items with replacement, the same draw for every ``by``
group (paired), over their distinct patterns: an item's pattern is its
integer count of rating pairs in every group, class pair and number of
ratings, so a replicate's coincidence matrices are a sparse product, as the
cluster bootstrap of ``_resampling/paired.py`` draws clusters of samples.
The interval is ``INTERVAL`` of the replicates (``ordframe.ci``), chosen by its coverage
(``benchmarks/bench_coverage.py --family agreement``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.arguments import about
from ordframe._core.checks import check_level, one_column, rng_of
from ordframe._core.dims import BOOTSTRAP_DIM
from ordframe._core.drawing import Resampling
from ordframe._core.messages import show, warn
from ordframe._inference.intervals import ci
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.groups import Groups
from ordframe._inputs.selection import Selection
from ordframe._resampling.paired import Draws, _equal_rows, check_roles, pattern_cubes

LEVELS = ("nominal", "ordinal", "interval")
INTERVAL = "percentile"  # the interval of the replicates
REFERENCE = (
    "K. Krippendorff, Content Analysis: An Introduction to Its Methodology, 2nd ed., Sage, 2004; "
    "K. Krippendorff, Computing Krippendorff's Alpha-Reliability, 2011"
)


def differences(margins: np.ndarray, level_of_measurement: str) -> np.ndarray:
    """The squared differences delta^2 ``(..., K, K)`` of the scale, from the margins ``(..., K)`` (ordinal's ranks)."""
    k = margins.shape[-1]
    index = np.arange(k)
    if level_of_measurement == "nominal":
        return np.broadcast_to(1.0 - np.eye(k), (*margins.shape, k))
    if level_of_measurement == "interval":
        return np.broadcast_to(np.subtract.outer(index, index) ** 2.0, (*margins.shape, k))
    upto = np.cumsum(margins, axis=-1)  # sum_{g <= c} n_g
    before = upto - margins
    between = np.maximum(upto[..., :, None], upto[..., None, :]) - np.minimum(
        before[..., :, None], before[..., None, :]
    )
    return (between - (margins[..., :, None] + margins[..., None, :]) / 2) ** 2


def alpha_values(coincidences: np.ndarray, level_of_measurement: str) -> np.ndarray:
    """Krippendorff's alpha of every coincidence matrix ``(..., K, K)``; NaN where D_e = 0."""
    margins = coincidences.sum(axis=-1)
    delta = differences(margins, level_of_measurement)
    observed = (coincidences * delta).sum(axis=(-2, -1))
    expected = (margins[..., :, None] * margins[..., None, :] * delta).sum(axis=(-2, -1))
    n = margins.sum(axis=-1)
    defined = expected > 0
    return np.where(defined, 1 - (n - 1) * observed / np.where(defined, expected, 1.0), np.nan)


def frame_alpha(
    df: pd.DataFrame,
    selection: Selection,
    item,
    rater,
    level_of_measurement: str = "ordinal",
    draws: Resampling | None = None,
    level: float = 0.95,
) -> xr.Dataset:
    """Krippendorff's alpha of the ratings ``selection.true`` per ``selection.by`` group, with a bootstrap interval
    over the items when ``draws`` is given (see the module docstring)."""
    if level_of_measurement not in LEVELS:
        raise about(
            ValueError,
            "{level_of_measurement:=} is not one of {levels}",
            "level_of_measurement",
            level_of_measurement,
            levels=show(list(LEVELS)),
        )
    level = check_level(level)
    (item,), (rater,) = one_column(item, "item"), one_column(rater, "rater")
    named = [*selection.by, item, rater]
    repeated = [c for c in dict.fromkeys(named) if named.count(c) > 1]
    if repeated or selection.true in named:
        raise ValueError(
            f"the columns of the items ({item!r}), the raters ({rater!r}), the ratings ({selection.true!r}) and by= "
            f"{list(selection.by)} must be different columns"
        )
    check_roles(df, {"item": [item], "rater": [rater]})
    rows = frame_rows(df, selection.but(by=named, weights=None, observed=False))
    columns = rows.groups.columns
    groups = Groups(columns[: len(selection.by)])
    n_rows, k = len(rows.index), len(rows.classes)
    group = groups.flat_index(n_rows)
    item_code, rater_code = (np.asarray(c.codes, dtype=np.int64) - c.offset for c in columns[-2:])
    n_items = len(columns[-2].coord)
    units, unit_of = np.unique(group * n_items + item_code, return_inverse=True)
    unit_of = unit_of.reshape(-1)
    key = unit_of * len(columns[-1].coord) + rater_code  # (group, item, rater)
    _check_once(key, item_code, rater_code, columns[-2].coord, columns[-1].coord, item, rater)
    counts = np.bincount(unit_of * k + rows.true.array(), minlength=len(units) * k).reshape(-1, k)
    m = counts.sum(axis=1)
    pairable = m >= 2
    units, counts, m = units[pairable], counts[pairable], m[pairable]
    pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(k, dtype=np.int64)
    n_groups = int(np.prod(groups.sizes))
    unit_group = units // n_items
    cells = (unit_group[:, None] * k * k + np.arange(k * k)).ravel()
    coincidences = np.bincount(cells, weights=(pairs / (m - 1)[:, None, None]).ravel(), minlength=n_groups * k * k)
    coincidences = coincidences.reshape(*groups.sizes, k, k)
    n_pairable = np.bincount(unit_group, weights=m, minlength=n_groups).astype(np.int64).reshape(groups.sizes)
    rated = np.bincount(group, minlength=n_groups).reshape(groups.sizes)  # integer groups without rows are left out
    variables = {
        "alpha": groups.labelled(alpha_values(coincidences, level_of_measurement), rows=rated, name="alpha"),
        "n_pairable": groups.labelled(n_pairable, rows=rated, name="n_pairable"),
    }
    _warn_undefined(variables["alpha"].values, variables["n_pairable"].values)
    attrs = {"level_of_measurement": level_of_measurement, "classes": str(list(rows.classes))}
    if draws is not None:
        replicates = _replicates(pairs, m, units, n_items, n_groups, level_of_measurement, draws)
        labelled = groups.labelled(replicates.reshape(*groups.sizes, -1), (BOOTSTRAP_DIM,), rows=rated, name="alpha")
        labelled.attrs = draws.but(cluster=item).record()
        variables["interval"] = ci(labelled, level=level, method=INTERVAL).rename("interval")
    return xr.Dataset(variables, attrs=attrs)


def _check_once(key, item_code, rater_code, items: pd.Index, raters: pd.Index, item, rater) -> None:
    """An error for a rater who rates an item more than once (in one group): ``key`` codes (group, item, rater)."""
    ordered = np.sort(key)
    again = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(again):
        repeats = np.unique(again)
        first = np.flatnonzero(np.isin(key, repeats))
        shown = show(dict.fromkeys((items[item_code[i]], raters[rater_code[i]]) for i in first))
        raise ValueError(
            f"{len(repeats)} (item, rater) pair(s) have more than one rating (columns {item!r}, {rater!r}): {shown}; "
            "a rater rates an item once: drop the repeats, or name the column that tells them apart in by="
        )


def _warn_undefined(values: np.ndarray, n_pairable: np.ndarray) -> None:
    """One ``RuntimeWarning`` that says where alpha is NaN, and why."""
    undefined = np.isnan(values)
    if not undefined.any():
        return
    few = undefined & (n_pairable < 2)
    reasons = []
    if few.any():
        reasons.append(f"{int(few.sum())} with fewer than 2 pairable ratings (no item rated twice)")
    if (undefined & ~few).any():
        reasons.append(
            f"{int((undefined & ~few).sum())} whose pairable ratings are all one class (no disagreement to expect)"
        )
    where = "" if values.ndim == 0 else f" for {int(undefined.sum())} of {values.size} groups"
    warn(f"Krippendorff's alpha is undefined (NaN){where}: {'; '.join(reasons)}", RuntimeWarning)


def _replicates(pairs, m, units, n_items, n_groups, level_of_measurement, draws: Resampling) -> np.ndarray:
    """alpha of ``draws.n_resamples`` replicates of the items, ``(n_groups, n_resamples)`` (see the module docstring)."""
    from scipy import sparse  # imported when needed: it takes a third of `import ordframe`

    k = pairs.shape[-1]
    if not len(units):  # no item rated twice: nothing to draw
        return np.full((n_groups, draws.n_resamples), np.nan)
    sizes, size_of = np.unique(m, return_inverse=True)  # the numbers of ratings an item has in a group
    matrices = n_groups * len(sizes)
    items, item_of = np.unique(units % n_items, return_inverse=True)
    columns = ((units // n_items * len(sizes) + size_of.reshape(-1))[:, None] * k * k + np.arange(k * k)).ravel()
    contributions = sparse.csr_matrix(
        (pairs.ravel(), (np.repeat(item_of.reshape(-1), k * k), columns)), shape=(len(items), matrices * k * k)
    )
    contributions.eliminate_zeros()
    contributions.sort_indices()
    pattern_of, first = _equal_rows(contributions)
    weight = np.bincount(pattern_of, minlength=len(first))
    units_drawn = Draws(np.zeros(len(first), np.int64), weight, contributions[first], 1, pattern_of)
    cubes = pattern_cubes(units_drawn, matrices, k, draws.n_resamples, rng_of(draws.seed), draws.progress)
    cubes = cubes.reshape(draws.n_resamples, n_groups, len(sizes), k, k) / (sizes - 1.0)[:, None, None]
    return alpha_values(cubes.sum(axis=2), level_of_measurement).T


def krippendorff_alpha(
    item,
    rater,
    rating,
    *,
    labels=None,
    level_of_measurement: str = "ordinal",
    dropna: bool = False,
    n_resamples: int | None = None,
    seed=None,
    level: float = 0.95,
    progress: bool | None = None,
) -> xr.Dataset:
    """Krippendorff's alpha of the ratings of items by raters, one rating per row (Krippendorff 2004, 2011).

    ``alpha = 1 - (n - 1) sum_ck o_ck delta_ck^2 / sum_ck n_c n_k delta_ck^2`` on the coincidence matrix ``o``
    of the items rated at least twice, with margins ``n_c`` and ``n`` pairable ratings: 1 for perfect
    agreement, 0 at chance. Any number of raters; a rating that is absent is a missing rating. The vectors
    are put side by side, by position, as the columns ``item``, ``rater`` and ``rating`` of
    [`df.ordinal.krippendorff_alpha`][ordframe._accessors.pandas.OrdinalFrameAccessor.krippendorff_alpha],
    which has the formulas, ``by=`` groups and the interval. See [Agreement between raters](../agreement.md).

    Parameters
    ----------
    item, rater, rating : array-like
        The item rated, the rater and the rating (a class label) of each rating.
    labels : list, optional
        The classes in order, lowest first. Without it, the order is that of an ordered Categorical, or the
        sorted numbers seen; text labels need ``labels=``.
    level_of_measurement : {"ordinal", "interval", "nominal"}
        The difference of two classes: ranks in the class order weighted by the ratings (ordinal), squared
        class index distances (interval), or different or not (nominal).
    dropna : bool
        Leave out the ratings with a missing item, rater or rating, with a warning that counts them (default:
        an error).
    n_resamples : int, optional
        Draw the items with replacement this many times for a percentile ``interval``.
    seed : None, int or numpy.random.Generator
        The same seed gives the same replicates. With ``n_resamples`` only.
    level : float
        The confidence level of the interval.
    progress : bool, optional
        Show a progress bar (default: in an interactive terminal, for runs longer than a couple of seconds).

    Returns
    -------
    xarray.Dataset
        ``alpha`` and ``n_pairable`` (the ratings of items rated at least twice); with ``n_resamples``,
        ``interval`` (dim ``bound``).

    Examples
    --------
    >>> import ordframe
    >>> item = [1, 1, 1, 2, 2, 3, 3, 3, 4, 4]
    >>> rater = ["a", "b", "c", "a", "b", "a", "b", "c", "a", "c"]
    >>> rating = [1, 1, 2, 3, 3, 2, 2, 2, 1, 1]
    >>> round(float(ordframe.krippendorff_alpha(item, rater, rating)["alpha"]), 4)
    0.8
    """
    try:
        df = pd.DataFrame({"item": item, "rater": rater, "rating": rating})
    except ValueError:
        lengths = {name: len(v) for name, v in {"item": item, "rater": rater, "rating": rating}.items()}
        raise ValueError(
            f"item, rater and rating must have one value per rating; their lengths are {lengths}"
        ) from None
    selection = Selection("rating", labels=labels, dropna=dropna)
    return frame_alpha(
        df, selection, "item", "rater", level_of_measurement, resampling(n_resamples, seed, progress), level
    )


def resampling(n_resamples, seed, progress) -> Resampling | None:
    """The draws of alpha's bootstrap: None without ``n_resamples``, where ``seed`` is refused."""
    if n_resamples is None:
        if seed is not None:
            raise about(TypeError, "{seed} draws replicates: pass {n_resamples:=<replicates>} too", "seed", seed)
        return None
    return Resampling(n_resamples, seed, progress=progress)
