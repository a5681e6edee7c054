"""Checks of the arguments every front end shares: flags, names, dims, seeds, counts, levels and directions.

Each check returns the value in the form the code below uses, or raises an
error that names the argument, shows what was given and says what to give.
Checks of one kind of input (label values, probabilities, weights, cubes)
live with that input.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ordframe._core.arguments import about
from ordframe._core.dims import CUBE_DIMS
from ordframe._core.messages import show, warn

_FLATTEN = (
    "flatten MultiIndex or tuple column names first (e.g. df.columns = ['_'.join(map(str, c)) for c in df.columns])"
)


def check_flag(value, name: str) -> bool:
    """A boolean argument: ``True`` or ``False`` (numpy booleans too); anything else is an error."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise about(TypeError, "{" + name + "} must be True or False, got {given!r}", name, value, given=value)


def check_progress(progress) -> bool | None:
    """``progress`` if it is None, True or False; an error otherwise."""
    if progress is None or isinstance(progress, bool):
        return progress
    raise TypeError(f"progress= must be None (automatic), True or False, got {progress!r}")


def is_column_name(value) -> bool:
    """Whether ``value`` can name a column (rather than hold one value per row)."""
    return isinstance(value, (str, numbers.Number, tuple, np.generic))


# Types whose values are single values (``as_sequence`` asks numpy about the others).
_SCALARS = frozenset({int, float, str, bool})


def as_sequence(value, what: str) -> list:
    """A list of the items of an ordered collection; unordered or scalar arguments are an error."""
    if isinstance(value, pd.Series) and what == "by":
        raise TypeError(
            "by= names columns (a name or a list of names), got a pandas Series of values: add it as a column "
            "first, e.g. df.assign(group=values), and pass by='group'"
        )
    if isinstance(value, (set, frozenset, Mapping)):
        kind = type(value).__name__
        raise TypeError(
            f"{what}= must be an ordered sequence (a list or tuple), got a {kind}: its order is arbitrary; "
            f"use a list, e.g. {what}=sorted(...) or the order you mean"
        )
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{what}= must be a list of values in order, got {type(value).__name__} {value!r}")
    items = list(value)
    if any(type(v) not in _SCALARS and (np.ndim(v) != 0 or isinstance(v, (list, dict, set))) for v in items):
        raise TypeError(f"{what}= must hold single values (a flat list), got {show(items)}")
    return items


def by_names(by, what: str = "by") -> list:
    """``by`` as a list of column names: one name, or a list/tuple of names, each once, none named like a cube dim."""
    if by is None or (type(by) in (list, tuple) and not by):
        return []
    if isinstance(by, (list, tuple)) and any(isinstance(name, tuple) for name in by):
        raise TypeError(f"{what}= names columns by str or int, got {show(by)}; {_FLATTEN}")
    names = [by] if isinstance(by, (str, numbers.Integral)) else as_sequence(by, what)
    for name in names:
        if isinstance(name, bool) or not isinstance(name, (str, numbers.Integral)):
            raise TypeError(f"{what}= names columns by str or int, got {name!r}; {_FLATTEN}")
        if str(name) in CUBE_DIMS:  # the name of the observed=True dim is refused by Groups, with observed=True only
            raise ValueError(
                f"{what} column {name!r} has the name of a result dim ({', '.join(CUBE_DIMS)}); rename it, e.g. "
                f"df.rename(columns={{{name!r}: '{name}_'}})"
            )
    dims = [str(name) for name in names]
    repeated = [name for name in names if dims.count(str(name)) > 1]
    if repeated:
        raise ValueError(
            f"{what}= names {show(repeated)} more than once (dims are named by the columns' names as "
            "strings); name each column once"
        )
    return names


def dims_list(dim, what: str = "dim") -> list:
    """One dim name -> ``[name]``, a list or tuple of names, each once -> a list."""
    if isinstance(dim, str):
        return [dim]
    if isinstance(dim, (list, tuple)) and all(isinstance(d, str) for d in dim):
        repeated = [d for d in dict.fromkeys(dim) if dim.count(d) > 1]
        if repeated:
            raise ValueError(f"{what}= names {show(repeated)} more than once; name each dim once")
        return list(dim)
    raise TypeError(f"{what}= must be a dim name or a list of dim names, got {dim!r}")


def one_column(name, what: str) -> list:
    """``[name]`` for one column name, ``[]`` for None: ``what=`` names a single column."""
    names = by_names(name, what)
    if len(names) > 1:
        raise TypeError(f"{what}= names one column, got {show(names)}; combine them into one column first")
    return names


def new_dim(name, taken: Iterable[Hashable], what: str) -> str:
    """A dim name to create: a str that no dim or coordinate of the result has yet."""
    taken = [str(t) for t in taken]
    if not isinstance(name, str) or not name:
        raise TypeError(f"{what}= must be a non-empty str naming the new dim, got {name!r}")
    if name in taken:
        raise ValueError(
            f"{what}={name!r} names a dim the result already has ({', '.join(map(repr, taken))}); choose another name"
        )
    return name


def rng_of(seed) -> np.random.Generator:
    """A numpy Generator from ``None`` (fresh entropy), an int >= 0, a SeedSequence or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be None, an int >= 0 or a numpy Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def check_count(n, what: str, low: int = 1) -> int:
    """A whole number >= ``low`` (the number of replicates, of rows, ...)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or int(n) < low:
        raise TypeError(f"{what} must be a whole number >= {low}, got {n!r}")
    return int(n)


def check_replicates(n_resamples) -> int:
    """The number of bootstrap replicates: a whole number >= 1."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise about(
            TypeError,
            "{n_resamples!s} must be a whole number of replicates >= 1, got {given!r}",
            "n_resamples",
            n_resamples,
            given=n_resamples,
        )
    return int(n_resamples)


def check_level(level) -> float:
    """A confidence level in (0, 1)."""
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 < float(level) < 1:
        raise ValueError(f"level must be a number in (0, 1), e.g. 0.95, got {level!r}")
    return float(level)


def significance(level: float) -> float:
    """The significance level ``1 - level`` of a test at the confidence ``level``, as the decimal meant.

    ``1 - 0.95`` is 0.050000000000000044 in floating point, which would count a p-value of exactly 0.05 as
    below it.
    """
    return round(1 - check_level(level), 12)


@dataclass(frozen=True)
class Orientation:
    """Which values of a metric are better: higher (``sign`` +1) or lower (-1) ones, or, for a metric whose best
    value is a target (``best``), those nearer to it: their distance ``|value - best|`` ranks, lower better."""

    sign: float
    best: float | None = None

    def ranked(self, values):
        """What ranks the values: ``values`` themselves, or their distance ``|values - best|`` from the target."""
        return values if self.best is None else abs(values - self.best)

    def score(self, values):
        """``sign * ranked(values)``: higher is better."""
        return self.sign * self.ranked(values)

    def cue(self, up: str = "↑", down: str = "↓", toward: str = "→") -> str:
        """The arrow a table shows beside the metric: ``↑`` higher is better, ``↓`` lower, ``→0`` nearest to 0
        (in another format's characters: ``up``, ``down``, ``toward`` before the target value)."""
        if self.best is not None:
            return f"{toward}{self.best:g}"
        return up if self.sign > 0 else down


def target_of(attrs: Mapping) -> float | None:
    """The ``best`` attr of a result: the target value of a metric declared with ``best=``, None for a direction."""
    return None if attrs.get("best") is None else float(attrs["best"])


def orientation(name: Hashable, attrs: Mapping, higher_is_better: bool | None = None) -> Orientation:
    """How values rank: ``higher_is_better`` if given (the attrs are not read), else the attrs' direction
    (``higher_is_better``) or target (``best``)."""
    if higher_is_better is not None:
        return Orientation(1.0 if check_flag(higher_is_better, "higher_is_better") else -1.0)
    best = target_of(attrs)
    if best is not None:
        return Orientation(-1.0, best)
    if "higher_is_better" not in attrs:
        raise ValueError(
            f"{name!r} does not say which values are better (no 'higher_is_better' or 'best' attr); ordframe results "
            "carry them: compute the values with an ordframe metric, or set values.attrs['higher_is_better']"
        )
    return Orientation(1.0 if int(attrs["higher_is_better"]) else -1.0)


def directions(higher_is_better, names: Sequence[Hashable]) -> dict[Hashable, bool | None]:
    """``higher_is_better=`` of a comparison, per variable name: True, False or None (read the attrs).

    ``None`` reads every variable's attrs, ``True``/``False`` applies to every variable, and a dict gives it
    by variable name (the variables it leaves out read their attrs; a name that is no variable is an error).
    """
    if higher_is_better is None:
        return dict.fromkeys(names)
    if isinstance(higher_is_better, Mapping):
        unknown = [key for key in higher_is_better if key not in names]
        if unknown:
            raise ValueError(
                f"higher_is_better= names {show(unknown)}, which are not variables of the values ({show(names)}); "
                "give True or False for each variable by its name"
            )
        return {name: _flag(higher_is_better.get(name), f"higher_is_better[{name!r}]") for name in names}
    flag = _flag(higher_is_better, "higher_is_better")
    return dict.fromkeys(names, flag)


def _flag(value, what: str) -> bool | None:
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    raise TypeError(
        f"{what}= must be None (read the values' attrs), True, False, or a dict of True/False by variable name, "
        f"got {value!r}"
    )


def ranking(
    name: Hashable, attrs: Mapping, higher_is_better: bool | None = None, *, strict: bool = False
) -> Orientation:
    """``orientation``, with a warning (an error if ``strict``) when the attrs may be stale: the variable is named
    unlike their metric and unlike the output name that ``metrics=`` gave it (the ``output`` attr).

    xarray keeps attrs through arithmetic (``1 - accuracy``, ``-x``, ``x * 100``), so a derived variable can
    carry the direction of the metric it came from. Given ``higher_is_better``, the attrs are not read.
    """
    metric = attrs.get("metric")
    named = {str(metric), str(attrs.get("output", metric))}
    direction = direction_text(attrs)
    if higher_is_better is None and metric is not None and str(name) not in named and direction:
        stale = (
            f"{name!r} is named unlike the metric its attrs describe ({metric!r}, {direction}): xarray keeps attrs "
            "through arithmetic such as 1 - x or -x, so they may be stale. "
        )
        advice = (
            "Say which way is better with higher_is_better=True or False (a dict by variable for several, e.g. "
            f"higher_is_better={{{name!r}: False}})"
        )
        if strict:
            raise ValueError(stale + advice)
        warn(
            f"{stale}It is taken as {direction}, perhaps the wrong way round; {advice}, which also silences this warning"
        )
    return orientation(name, attrs, higher_is_better)


def direction_text(attrs: Mapping) -> str:
    """``"higher is better"`` / ``"lower is better"`` / ``"best at 0"`` from a result's attrs, or ``""`` if they do
    not say."""
    direction = attrs.get("direction")
    if direction:
        return str(direction)
    best = target_of(attrs)
    if best is not None:
        return best_at(best)
    if "higher_is_better" in attrs:
        return "higher is better" if int(attrs["higher_is_better"]) else "lower is better"
    return ""


def best_at(best: float) -> str:
    """The direction of a metric whose best value is the target ``best``: ``"best at 0"``."""
    return f"best at {best:g}"


def check_nonnegative(values: np.ndarray, what: str, item: str) -> np.ndarray:
    """``values``, or an error counting and showing those that are negative, NaN or infinite.

    The weights and the counts of a user's cube share this rule.
    """
    bad = ~(np.isfinite(values) & (values >= 0))
    if bad.any():
        raise ValueError(
            f"{what} has {int(bad.sum())} {item}(s) that are negative, NaN or infinite "
            f"({show(pd.unique(values[bad]))}); {item}s must be finite and >= 0"
        )
    return values
