"""The declaration of a metric: what a plugin returns from ``ordframe_metrics``.

A ``Metric`` checks every field when it is created, so a bad declaration
fails in the plugin that makes it, with a message that says what was expected.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import keyword
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal, cast

import numpy as np

from ordframe._core import compiling, options
from ordframe._core.checks import Orientation, best_at
from ordframe._registry.interval_methods import INTERVAL_METHODS, METRIC_FIELDS

KINDS = ("confusion", "proba", "score")
#: The inputs a kernel of each kind takes positionally; its parameters come after them.
INPUTS = {"confusion": ("counts",), "proba": ("proba", "true"), "score": ("counts", "starts")}
#: Names of the accessor methods' own arguments: no metric parameter may be called so.
RESERVED_PARAMETERS = frozenset(
    {"true", "pred", "proba", "marker", "by", "labels", "weights", "dropna", "renormalize", "observed", "dim"}
    | {"class_dim"}
    | {"metrics", "metric", "score", "n", "fractions"}
    | {"y_true", "y_pred", "y_proba", "y_score", "sample_weight"}  # the functions' (``ordframe.oc(y_true, y_pred)``)
)
#: Names of the ``.ordinal`` accessor methods, present or planned, and of ordframe's own functions and
#: submodules (every metric is also a function ``ordframe.<name>``): no metric may be called so.
RESERVED_NAMES = frozenset(
    {"all", "confusion", "evaluate", "worst", "aursc", "report", "bootstrap", "compare", "plot", "metrics", "score"}
    | {"paired_tests", "skill", "calibration", "reliability"}
    | {"bootstrap_cube", "ci", "corrected_ci", "corrected_ttest", "datasets", "format_report", "friedman"}
    | {"george_cost", "george_rank", "get_metric", "hookimpl", "jackknife", "list_metrics", "oc_path"}
    | {"register", "report_cube", "set_options", "simulate", "sklearn", "unregister", "uoc_path"}
    | {"bayesian_correlated_ttest", "bayesian_signed_rank", "wilcoxon", "methods_text", "results_table"}
    | {"decide", "krippendorff_alpha", "report_html"}
)


#: The numpy kernels' median cost per count (matrices x K^2), which tells beforehand what a stack would cost them
#: (``Metric.kernel``; ``benchmarks/bench_first_call.py --threshold`` measures it).
NUMPY_SECONDS_PER_CELL = 6e-9


@dataclass(frozen=True)
class Term:
    """A term that several confusion metrics compute from the same counts, declared by each in ``Metric.needs``.

    ``func(counts, **params)`` computes it (``params``: those of a metric's parameters that it takes), on the
    counts a numpy kernel gets; ``compiled``, its compiled twin (the same values), on those a compiled twin
    gets. Either may be None: ``func`` None for a term that only the compiled twins share. Where several
    metrics of one cube need it with the same parameters (``evaluate``, ``simulate.prefers``), it is
    computed once and passed to each kernel as the keyword argument ``name``; a kernel called without it
    computes what it needs itself.
    """

    name: str
    func: Callable[..., Any] | None
    compiled: Callable[..., Any] | None = None

    def __post_init__(self):
        if self.func is None and self.compiled is None:
            raise TypeError(f"term {self.name!r}: give func or compiled, a kernel that computes it")

    def kernel(self, compiled: bool) -> Callable[..., Any] | None:
        """What computes the term for a compiled twin (``compiled``) or for a numpy kernel."""
        return self.compiled if compiled and self.compiled is not None else self.func

    @property
    def parameters(self) -> frozenset[str]:
        """The names of the parameters it takes after the counts."""
        func = cast(Callable[..., Any], self.func if self.func is not None else self.compiled)
        return frozenset(list(inspect.signature(func).parameters)[1:])


@dataclass(frozen=True)
class Metric:
    """An ordinal evaluation index and its numpy kernel.

    Kernel signatures, vectorised over any leading axes:

    * ``kind="confusion"``: ``func(counts, **params)`` with ``counts`` a float64
      array ``(..., K, K)`` (rows = true class, columns = predicted class)
      returns an array of shape ``(...)``.
    * ``kind="proba"``: ``func(proba, true, **params)`` with ``proba`` of shape
      ``(..., K)`` and ``true`` the int64 class index of shape ``(...)`` returns a
      per-sample score of shape ``(...)``; ordframe averages it over samples.
    * ``kind="score"``: ``func(counts, starts, **params)``, for a metric of how a
      continuous score orders the classes: the rows ``starts[g]:starts[g + 1]``
      of ``counts`` ``(..., R, K)`` float64 are group ``g``'s distinct score
      values, ascending, and ``counts[..., r, k]`` the (weighted) samples of
      class ``k`` at the value of row ``r``; ``starts`` is int64 ``(G + 1,)``.
      It returns ``(..., G)``, one value per group (bootstrap replicates are
      the leading axes).

    ``defaults`` (the parameters and their default values) is read from the
    kernel's signature when not given: the parameters with defaults after the
    inputs. Given, it must name parameters the kernel accepts and agree with
    the kernel's own defaults.

    A kernel returns NaN for a matrix on which the metric is undefined; the
    ``undefined`` text says when that happens and is shown to the user. A
    kernel raises only for bad parameters (``ValueError`` or ``TypeError``,
    which reach the user prefixed with the metric's and the plugin's names);
    any other exception it raises reaches the user as an
    [`ordframe.PluginError`][ordframe.PluginError] naming both, with the kernel's exception chained.

    Parameters
    ----------
    name : str
        A public Python identifier, not one of ``RESERVED_NAMES``; it becomes an accessor method and a
        function ``ordframe.<name>``.
    kind : {"confusion", "proba", "score"}
        What the kernel takes: a confusion cube's counts, probabilities and true classes, or the classes' counts
        at each distinct value of a continuous score.
    func : callable
        The numpy kernel.
    higher_is_better : bool, optional
        The direction of the metric (scikit-learn's scorers negate a lower-is-better one). Give it or ``best``.
    bounds : (float, float)
        The range of values, low <= high (infinite ends allowed).
    defaults : mapping, optional
        Parameter defaults (read from ``func`` when not given).
    description, reference, undefined : str
        One line on what it measures, its citation, and when it is NaN.
    interval : str
        The method ``ordframe.ci(..., method=None)`` uses for this metric's bootstrap replicates, one of the
        interval methods (the table on the Uncertainty page; default ``"percentile"``; one that names a field
        there, ``share`` or ``per_class``, needs that field set); choose it by the coverage of the intervals on
        simulated data (ordframe's ``benchmarks/bench_coverage.py`` measures it for a registered metric).
    share : bool
        The metric is a share of samples (a proportion, such as accuracy): the Jeffreys interval
        (``ci(..., method="jeffreys")``) applies to it (default False). A confusion metric bounded by 0 and 1.
    per_class : callable, optional
        For a confusion metric that is the worst of values per true class (MS, the smallest per-class
        recall; MMAE, the largest per-class MAE): a kernel ``per_class(counts, **params)`` returning those
        values, shape ``(..., K)``, NaN for a class left out. The metric must equal their minimum if higher
        is better, else their maximum, over the classes that are not NaN. It enables the intersection
        interval (``ci(..., method="intersection")``), which needs every class's value, not only the worst.
    compiled : callable, optional
        For a confusion metric, a compiled twin of ``func``: the same parameters and values, run instead of
        it when ordframe's compiled kernels are on (the ``numba`` extra installed, ``ORDFRAME_NUMBA`` not
        ``0``) and the work is large enough to pay for its compilation (``Metric.kernel``). It gets int64 counts as they are (no float copy) and raises a ValueError for a count that is
        negative, NaN or infinite as it reads it, so the bridge makes no pass of its own to validate them.
    best : float, optional
        Instead of ``higher_is_better``, for a metric whose best value is a target inside ``bounds`` (0 for a
        signed error, 1 for a calibration slope): values nearer to it are better, and whatever ranks models
        (``compare``, ranks, scorers, ``simulate.prefers``) ranks ``|value - best|``, lower better.
    needs : tuple of Term, optional
        For a confusion metric, the terms its kernels take from the counts that other metrics take too
        (George's accuracy, TC and max TC). A kernel accepts each term that has a kernel for it
        (``Term.func`` for ``func``; ``Term.compiled``, else ``Term.func``, for ``compiled``) as a keyword
        argument named after the term, default None: then it computes what it needs itself.

    Raises
    ------
    TypeError, ValueError
        For a field of the wrong type or value (the message says what is expected).

    Examples
    --------
    >>> import ordframe
    >>> def within_one(counts):
    ...     k = counts.shape[-1]
    ...     near = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) <= 1
    ...     return (counts * near).sum(axis=(-2, -1)) / counts.sum(axis=(-2, -1))
    >>> metric = ordframe.Metric("within_one", "confusion", within_one, higher_is_better=True, bounds=(0, 1))
    >>> metric.direction, dict(metric.defaults)
    ('higher is better', {})
    """

    RESERVED_NAMES: ClassVar[frozenset] = RESERVED_NAMES
    RESERVED_PARAMETERS: ClassVar[frozenset] = RESERVED_PARAMETERS

    name: str
    kind: Literal["confusion", "proba", "score"]
    func: Callable[..., Any]
    higher_is_better: bool | None = None
    bounds: tuple[float, float] = (float("-inf"), float("inf"))
    defaults: Mapping[str, Any] = None  # type: ignore[assignment]  # None: read from the kernel's signature
    description: str = ""
    reference: str = ""
    undefined: str = ""
    interval: str = "percentile"
    share: bool = False
    per_class: Callable[..., Any] | None = None
    compiled: Callable[..., Any] | None = None
    needs: tuple[Term, ...] = ()
    best: float | None = None

    def __post_init__(self):
        _check_name(self.name)
        where = f"metric {self.name!r}"
        if self.kind not in KINDS:
            raise ValueError(f"{where}: kind must be one of {KINDS}, got {self.kind!r}")
        if not callable(self.func):
            raise TypeError(f"{where}: func must be callable, got {type(self.func).__name__}")
        for text in ("description", "reference", "undefined"):
            if not isinstance(getattr(self, text), str):
                raise TypeError(f"{where}: {text} must be a str, got {type(getattr(self, text)).__name__}")
        if self.interval not in INTERVAL_METHODS:
            raise ValueError(f"{where}: interval must be one of {tuple(INTERVAL_METHODS)}, got {self.interval!r}")
        object.__setattr__(self, "bounds", _bounds(where, self.bounds))
        _check_direction(where, self)
        if not isinstance(self.share, (bool, np.bool_)):
            raise TypeError(f"{where}: share must be True or False, got {self.share!r}")
        object.__setattr__(self, "share", bool(self.share))
        if self.share and (self.kind != "confusion" or tuple(self.bounds) != (0, 1)):
            raise ValueError(f"{where}: share=True is for a confusion metric bounded by 0 and 1 (a share of samples)")
        if self.per_class is not None:
            if not callable(self.per_class):
                raise TypeError(f"{where}: per_class must be callable or None, got {type(self.per_class).__name__}")
            if self.kind != "confusion":
                raise ValueError(f"{where}: per_class is for a confusion metric, the worst of per-class values")
        needed = INTERVAL_METHODS[self.interval].metric
        if needed is not None and not getattr(self, needed):
            field = METRIC_FIELDS[needed]
            raise ValueError(f"{where}: interval={self.interval!r} needs {field.needs}: set {field.setting} too")
        _check_twin(where, self)
        terms = tuple(t.name for t in self.needs)
        defaults = _defaults(where, self.kind, self.func, self.defaults, terms)
        if self.compiled is not None:
            _defaults(f"{where} (compiled)", self.kind, self.compiled, defaults, terms)
        object.__setattr__(self, "defaults", MappingProxyType(defaults))

    def __reduce__(self):
        """Pickle as a call of the constructor with ``defaults`` as a dict (a MappingProxyType does not pickle)."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        fields["defaults"] = dict(self.defaults)
        return type(self), tuple(fields.values())

    def compiles(self, cells: int) -> bool:
        """Whether ``kernel(cells)`` would run the compiled twin on a stack of ``cells`` counts (matrices x K^2).

        It does when there is one and the rule of ``_core/compiling.py`` says so for the twin: the time this
        process's calls of the numpy kernel have taken, with what this stack would take it
        (``NUMPY_SECONDS_PER_CELL``), reaches ``COMPILED_SECONDS``; then on every later call too.
        """
        return self.compiled is not None and compiling.compiles(self.compiled, cells * NUMPY_SECONDS_PER_CELL)

    def kernel(self, cells: int) -> Callable[..., Any]:
        """The kernel to run on a stack of ``cells`` counts: ``compiled`` where it ``compiles``, else ``func``,
        timed (the rule of ski rental, ``_core/compiling.py``)."""
        twin = self.compiled
        if twin is None or not options.COMPILED:
            return self.func
        if compiling.takes_over(twin, cells * NUMPY_SECONDS_PER_CELL):
            return twin
        return functools.partial(compiling.timed, twin, self.func)

    @property
    def direction(self) -> str:
        """``"higher is better"``, ``"lower is better"`` or, for a metric with a target value, ``"best at 0"``."""
        if self.best is not None:
            return best_at(self.best)
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def orientation(self) -> Orientation:
        """Which values are better: higher or lower ones, or those nearer to ``best``."""
        if self.best is not None:
            return Orientation(-1.0, self.best)
        return Orientation(1.0 if self.higher_is_better else -1.0)

    @property
    def parameters(self) -> list[inspect.Parameter]:
        """The parameters as keyword-only ``inspect.Parameter`` objects with their defaults (for signatures)."""
        return [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=v) for n, v in self.defaults.items()]

    def params(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The defaults updated with ``given``; unknown names are an error.

        Parameters
        ----------
        given : mapping
            Parameter values by name.

        Returns
        -------
        dict

        Raises
        ------
        TypeError
            For a name that is not one of the metric's parameters.
        """
        unknown = sorted(set(given) - set(self.defaults))
        if unknown:
            allowed = ", ".join(self.defaults) or "none"
            raise TypeError(f"metric {self.name!r} got unknown parameter(s) {unknown}; its parameters are: {allowed}")
        return {**self.defaults, **given}


def _is_identifier(name) -> bool:
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def _is_real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _check_name(name):
    if not isinstance(name, str):
        raise TypeError(f"metric name must be a str (a public Python identifier), got {type(name).__name__}")
    if not _is_identifier(name) or name.startswith("_"):
        raise ValueError(
            f"metric name {name!r} must be a public Python identifier (it becomes an accessor method), e.g. 'my_index'"
        )
    if name in RESERVED_NAMES:
        raise ValueError(
            f"metric name {name!r} is reserved: ordframe has a function or .ordinal accessor method of that "
            f"name; choose another name, e.g. 'my_{name}'"
        )


def _check_direction(where: str, metric: Metric):
    """Exactly one of ``higher_is_better`` (True or False) and ``best`` (a finite number within the bounds)."""
    hib, best = metric.higher_is_better, metric.best
    if best is None:
        if not isinstance(hib, (bool, np.bool_)):
            raise TypeError(
                f"{where}: higher_is_better must be True or False, got {hib!r}; for a metric whose best value is a "
                "target, give best=<that value> instead (e.g. best=0 for a signed error)"
            )
        object.__setattr__(metric, "higher_is_better", bool(hib))
        return
    if hib is not None:
        raise TypeError(
            f"{where}: give higher_is_better (a direction) or best (a target value), not both: got "
            f"higher_is_better={hib!r} and best={best!r}"
        )
    if not _is_real(best):
        raise TypeError(f"{where}: best must be a number (the metric's target value), got {best!r}")
    low, high = metric.bounds
    if not (math.isfinite(best) and low <= best <= high):
        raise ValueError(
            f"{where}: best must be a finite number within the bounds {metric.bounds} (the metric's target value), "
            f"got {best!r}"
        )
    if metric.per_class is not None:
        raise ValueError(
            f"{where}: per_class is for the worst of per-class values, a minimum or a maximum in a direction; a "
            "metric with a target value (best=) has none: leave per_class out, or declare higher_is_better"
        )
    object.__setattr__(metric, "best", float(best))


def _check_twin(where: str, metric: Metric):
    """``compiled`` and ``needs``: a callable (or None) and a tuple of ``Term``, for a confusion metric."""
    if metric.compiled is not None and not callable(metric.compiled):
        raise TypeError(f"{where}: compiled must be callable or None, got {type(metric.compiled).__name__}")
    if not isinstance(metric.needs, tuple) or not all(isinstance(t, Term) for t in metric.needs):
        raise TypeError(f"{where}: needs must be a tuple of ordframe Term objects, got {metric.needs!r}")
    if (metric.compiled is not None or metric.needs) and metric.kind != "confusion":
        raise ValueError(f"{where}: compiled and needs are for a confusion metric")


def _bounds(where: str, bounds) -> tuple[float, float]:
    """``bounds`` as a pair of floats, low <= high."""
    if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2 and all(map(_is_real, bounds))):
        raise TypeError(f"{where}: bounds must be a pair (low, high) of real numbers, got {bounds!r}")
    low, high = float(bounds[0]), float(bounds[1])
    if math.isnan(low) or math.isnan(high):
        raise ValueError(f"{where}: bounds {bounds} contain NaN; an open end is -inf or inf")
    if not low <= high:
        raise ValueError(f"{where}: bounds {bounds} are not ordered (low <= high)")
    return low, high


def _defaults(where: str, kind: str, func, given: Mapping[str, Any] | None, terms=()) -> dict[str, Any]:
    """The parameters and their defaults: ``given``, checked against the kernel's signature, or read from it;
    the keyword arguments named in ``terms`` (``Metric.needs``) are not parameters."""
    if given is not None:
        if not isinstance(given, Mapping):
            raise TypeError(f"{where}: defaults must be a mapping {{parameter: default}}, got {type(given).__name__}")
        bad = [k for k in given if not _is_identifier(k)]
        if bad:
            raise ValueError(f"{where}: defaults keys must be parameter names (Python identifiers), got {bad}")
        given = dict(given)
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # some builtins have none: nothing to read or check
        return {} if given is None else given
    inputs = INPUTS[kind]
    call = f"func({', '.join(inputs)}, **params)"
    try:
        taken = signature.bind_partial(*inputs).arguments
    except TypeError:
        raise TypeError(f"{where}: a {kind} kernel is called as {call}, but its signature is {signature}") from None
    own = {
        n: p
        for n, p in signature.parameters.items()
        if n not in taken and n not in terms and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }
    if given is None:
        given = {n: p.default for n, p in own.items() if p.default is not p.empty}
    elif not any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        unknown = [n for n in given if n not in own]
        if unknown:
            raise ValueError(
                f"{where}: defaults name {unknown}, which its kernel does not accept; "
                f"the kernel's parameters are: {', '.join(own) or 'none'}"
            )
    for n, value in given.items():
        default = own[n].default if n in own else inspect.Parameter.empty
        if default is not inspect.Parameter.empty and not _same(value, default):
            raise ValueError(
                f"{where}: defaults gives {n}={value!r} but its kernel's default is {n}={default!r}; "
                "they must agree (or leave defaults out: it is read from the kernel)"
            )
    try:
        signature.bind(*inputs, **given)
    except TypeError as exc:
        raise TypeError(f"{where}: its kernel cannot be called as {call} with params {given}: {exc}") from None
    clash = sorted(set(given) & RESERVED_PARAMETERS)
    if clash:
        raise ValueError(
            f"{where}: parameter(s) {clash} have the name of an argument of the .ordinal accessor methods; "
            "rename them in the kernel"
        )
    return given


def _same(a, b) -> bool:
    """``a == b``, and False where equality has no single truth value (arrays)."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
