"""Which metrics a call computes: ``metrics=`` (and ``score=``, ``metric=``) parsed once, and the named sets.

A request is ``{output name: (Metric, parameters)}``; everything below the
accessors takes it in that form, so an argument is parsed in one place only.
A metric named in text may carry its parameters, ``"oc[beta=0.25]"`` (the
form ``ordframe reproduce`` prints); ``parse_metric`` reads it, for
``metrics=`` and for the command line's ``--metrics`` alike.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ordframe._registry.metric import Metric

METRIC_SETS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "core": ("accuracy", "mae", "amae", "qwk", "kendall_tau_b", "rint", "oc", "uoc", "d"),
        "core_proba": ("rps", "brier", "log_score"),
        "report": ("accuracy", "mae", "amae", "ms", "gm", "qwk", "oc", "uoc", "rint"),
        "totals": ("tc", "max_tc"),
    }
)
"""Named sets of built-in metrics: ``core`` (the command line's default), ``core_proba``
(added with probabilities), ``report`` (the overall indices of a report) and ``totals`` (George, Lu & Chang's
total costs, the parts of ``d``: not scores, left out of the command line's ``--metrics all``)."""


#: ``metrics="all"``: every metric (a name no metric may take).
EVERY_METRIC = "all"

SPEC_FORM = "name[parameter=value, ...], e.g. oc[beta=0.25]"
#: A value written without quotes that is read as text (``amae[missing=zero]``), as ``reproduce`` prints it.
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


class MetricSpec(NamedTuple):
    """A metric named in text: its ``name``, the ``params`` given, and the ``label`` its result is called."""

    name: str
    params: dict[str, Any]
    label: str


def parse_metric(text: str, *, argument: str = "metrics=", read: Callable[[str, str], Any] | None = None) -> MetricSpec:
    """``"oc[beta=0.25, gamma=2]"`` as ``MetricSpec("oc", {"beta": 0.25, "gamma": 2}, "oc[beta=0.25, gamma=2]")``.

    Values are Python literals (numbers, quoted strings, ``True``/``False``/
    ``None``, lists; ``ast.literal_eval``, nothing is executed); a word without
    quotes is text. ``@FILE`` reads the value from a file with ``read(FILE,
    parameter)``, which only the command line gives. The label writes the
    values back in one way (``oc[beta=.25]`` is ``oc[beta=0.25]``, a file value
    keeps its ``@FILE``), so two spellings of one request are seen as one.
    ``argument`` names the argument in messages.
    """
    where = f"{argument} {text!r}"
    match = re.fullmatch(r"\s*([^\[\]\s]*)\s*(?:\[(.*)\])?\s*", text, flags=re.DOTALL)
    if match is None or not match.group(1):
        raise ValueError(f"{where}: write a metric as {SPEC_FORM}")
    name, inside = match.groups()
    params: dict[str, Any] = {}
    files: dict[str, str] = {}
    for item in _top_level_split(inside or "", where):
        key, equals, raw = (part.strip() for part in item.partition("="))
        if not equals or not key.isidentifier():
            raise ValueError(f"{where}: {item.strip()!r} is not parameter=value; write {SPEC_FORM}")
        if key in params:
            raise ValueError(f"{where} gives {key} more than once; give each parameter once")
        if raw.startswith("@"):
            if read is None:
                raise ValueError(
                    f"{where}: a value read from a file ({raw}) is for the command line; in Python pass the value "
                    f"itself: ({name!r}, {{{key!r}: ...}})"
                )
            params[key], files[key] = read(raw[1:], key), raw
        else:
            params[key] = _literal(raw, key, where)
    return MetricSpec(name, params, metric_label(name, params, shown=files))


def metric_label(name: str, params: Mapping[str, Any], *, shown: Mapping[str, str] = MappingProxyType({})) -> str:
    """``name[parameter=value, ...]`` as ``parse_metric`` reads it back (``shown``: a value's text, if given)."""
    if not params:
        return name
    texts = [f"{key}={shown[key] if key in shown else _text(value)}" for key, value in params.items()]
    return f"{name}[{', '.join(texts)}]"


def _text(value) -> str:
    return value if isinstance(value, str) and _WORD.fullmatch(value) else repr(value)


def _top_level_split(text: str, where: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes; empty for blank text."""
    items, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[i - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"{where}: {char!r} closes a bracket that was not opened; write {SPEC_FORM}")
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if quote or depth:
        raise ValueError(f"{where}: a quote or bracket is not closed; write {SPEC_FORM}")
    items.append(text[start:])
    if len(items) == 1 and not items[0].strip():
        return []
    return items


def _literal(raw: str, key: str, where: str):
    """A parameter's value: a Python literal, or a word without quotes as text."""
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        if _WORD.fullmatch(raw):
            return raw
    raise ValueError(
        f"{where}: cannot read the value of {key}, {raw!r}: give a number, a word or quoted text, True, False, "
        "None or a list such as [[0, 1], [1, 0]]"
    )


def default_metrics(*, probabilities: bool, predicted: bool = True, marked: bool = False) -> list[str]:
    """Every registered confusion metric when there are predictions (labels or probabilities), every probability
    metric when there are probabilities, and every score metric when there is a marker."""
    from ordframe._registry.manager import metric_names  # imported when used: the command's parser stays light

    return (
        (metric_names("confusion") if predicted or probabilities else [])
        + (metric_names("proba") if probabilities else [])
        + (metric_names("score") if marked else [])
    )


def metric_request(
    metrics, kind: str | None = "confusion", *, argument: str = "metrics", require: str | None = None
) -> dict[str, tuple[Metric, dict]]:
    """Normalise a ``metrics=`` (or ``score=``, ...) argument to ``{output name: (metric, params)}``.

    ``None`` (or ``"all"``, as ``--metrics all``) means every registered metric of ``kind`` with default
    parameters;
    otherwise a name, ``(name, {params})``, a list of names, or a dict mapping
    output names to a name or ``(name, {params})``. A name may carry
    parameters, ``"oc[beta=0.25]"`` (see ``parse_metric``); in a list, its
    result is called by that text. ``require`` is the kind every metric must
    have; ``argument`` names the argument in messages.
    """
    from ordframe._registry.manager import get_metric, metric_names

    if metrics is None or (isinstance(metrics, str) and metrics == EVERY_METRIC):
        metrics = metric_names(kind)
    if isinstance(metrics, str):
        metrics = [metrics]
    if isinstance(metrics, tuple) and len(metrics) == 2 and isinstance(metrics[1], Mapping):
        metrics = {str(metrics[0]): metrics}
    if isinstance(metrics, (set, frozenset)):
        raise TypeError(f"{argument}= must be a list (in the order you want the results) or a dict, not a set")
    if not isinstance(metrics, Mapping):
        if not isinstance(metrics, (list, tuple)) or not all(isinstance(m, str) for m in metrics):
            raise TypeError(
                f"{argument}= must be a metric name, (name, {{params}}), a list of names, or a dict of output "
                f"name -> name or (name, {{params}}), got {metrics!r}"
            )
        specs = [parse_metric(m, argument=f"{argument}=") for m in metrics]
        labels = [spec.label for spec in specs]
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:
            raise ValueError(
                f"{argument}= names {repeated} more than once; to compute one metric with different "
                "parameters name each variant once: ['oc[beta=0.25]', 'oc[beta=0.75]']"
            )
        metrics = {spec.label: (spec.name, spec.params) for spec in specs}
    if not metrics:
        raise ValueError(f"{argument}= is empty; name at least one metric (ordframe.list_metrics() lists them)")
    request: dict[str, tuple[Metric, dict]] = {}
    for output, spec in metrics.items():
        if not isinstance(output, str) or not output:
            raise TypeError(f"{argument}= output names must be non-empty strings, got {output!r}")
        params: Mapping
        if isinstance(spec, str):
            name, params, _ = parse_metric(spec, argument=f"{argument}=")
        elif isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], Mapping):
            name, params = spec
        else:
            raise TypeError(f"{argument}= entry {output!r}: give a metric name or (name, {{params}}), got {spec!r}")
        metric = get_metric(name)
        if require is not None and metric.kind != require:
            raise ValueError(
                f"{argument}= must name {require!r} metrics; {name!r} is a {metric.kind!r} metric. The {require} "
                f"metrics are {metric_names(require)}"
            )
        request[output] = (metric, metric.params(dict(params)))
    return request


def evaluation_request(metrics, *, probabilities: bool, predicted: bool, marked: bool = False, taken=()) -> dict:
    """The metrics to compute (default: every confusion metric, every proba one if there are probabilities, every
    score one if there is a marker).

    ``predicted``: predicted labels are given; ``probabilities``: class probabilities are; ``marked``: a marker
    (a continuous score per sample) is.
    """
    if not predicted and not probabilities and not marked:
        raise TypeError(
            "evaluate needs predicted labels (pred=), class probabilities (proba=) or a continuous score (marker=)"
        )
    if metrics is None or (isinstance(metrics, str) and metrics == EVERY_METRIC):
        metrics = default_metrics(probabilities=probabilities, predicted=predicted, marked=marked)
    request = metric_request(metrics, kind=None)
    needs = {  # what each kind of metric needs, whether it is given, and where
        "proba": (
            probabilities,
            "class probabilities: pass the probability columns (proba=) or, for a DataArray, class_dim= naming its "
            "class dim",
        ),
        "score": (
            marked,
            "a continuous score that orders the samples: pass its column as marker= (for probabilities, their "
            "expected class, proba @ arange(K), is one)",
        ),
        "confusion": (
            predicted or probabilities,
            "predicted labels (pred=) or class probabilities (proba=); a marker= gives the score metrics only",
        ),
    }
    for kind, (given, what) in needs.items():
        wrong = [out for out, (m, _) in request.items() if m.kind == kind]
        if wrong and not given:
            raise ValueError(f"{wrong} need {what}")
    clash = [out for out in request if out in taken]
    if clash:
        raise ValueError(
            f"output name(s) {clash} are also the name of a dim; its coordinate would be "
            "overwritten: rename the output, e.g. metrics={'" + f"{clash[0]}_score': '{clash[0]}'" + "}"
        )
    return request
