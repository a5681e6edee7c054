"""Which metrics a call computes: ``metrics=`` (and ``score=``, ``metric=``) parsed once, and the named sets.

A request is ``{output name: (Metric, parameters)}``; everything below the
accessors takes it in that form, so an argument is parsed in one place only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ordframe._registry.manager import get_metric, metric_names
from ordframe._registry.metric import Metric

METRIC_SETS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "core": ("accuracy", "mae", "amae", "qwk", "kendall_tau_b", "rint", "oc", "uoc", "d"),
        "core_proba": ("rps", "brier", "log_score"),
        "report": ("accuracy", "mae", "amae", "ms", "gm", "qwk", "oc", "uoc", "rint"),
    }
)
"""Named sets of built-in metrics: ``core`` (the command line's default), ``core_proba``
(added with probabilities) and ``report`` (the overall indices of a report)."""


def default_metrics(*, probabilities: bool) -> list[str]:
    """Every registered confusion metric, and every probability metric when there are probabilities."""
    return metric_names("confusion") + (metric_names("proba") if probabilities else [])


def metric_request(
    metrics, kind: str | None = "confusion", *, argument: str = "metrics", require: str | None = None
) -> dict[str, tuple[Metric, dict]]:
    """Normalise a ``metrics=`` (or ``score=``, ...) argument to ``{output name: (metric, params)}``.

    ``None`` means every registered metric of ``kind`` with default parameters;
    otherwise a name, ``(name, {params})``, a list of names, or a dict mapping
    output names to a name or ``(name, {params})``. ``require`` is the kind
    every metric must have; ``argument`` names the argument in messages.
    """
    if metrics is None:
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
        repeated = sorted({m for m in metrics if list(metrics).count(m) > 1})
        if repeated:
            raise ValueError(
                f"{argument}= names {repeated} more than once; to compute one metric with different "
                "parameters use a dict: {'oc_25': ('oc', {'beta': 0.25}), 'oc_75': 'oc'}"
            )
        metrics = {name: name for name in metrics}
    if not metrics:
        raise ValueError(f"{argument}= is empty; name at least one metric (ordframe.list_metrics() lists them)")
    request: dict[str, tuple[Metric, dict]] = {}
    for output, spec in metrics.items():
        if not isinstance(output, str) or not output:
            raise TypeError(f"{argument}= output names must be non-empty strings, got {output!r}")
        params: Mapping
        if isinstance(spec, str):
            name, params = spec, {}
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


def evaluation_request(metrics, *, probabilities: bool, labels: bool, taken=()) -> dict:
    """The metrics to compute (default: every confusion metric, and every proba one if there are probabilities)."""
    if not labels and not probabilities:
        raise TypeError("evaluate needs predicted labels (pred=) or class probabilities (proba=)")
    if metrics is None:
        metrics = default_metrics(probabilities=probabilities)
    request = metric_request(metrics, kind=None)
    if not probabilities:
        wrong = [out for out, (m, _) in request.items() if m.kind == "proba"]
        if wrong:
            raise ValueError(
                f"{wrong} need class probabilities: pass the probability columns (proba=) or, for a "
                "DataArray, class_dim= naming its class dim"
            )
    clash = [out for out in request if out in taken]
    if clash:
        raise ValueError(
            f"output name(s) {clash} are also the name of a dim; its coordinate would be "
            "overwritten: rename the output, e.g. metrics={'" + f"{clash[0]}_score': '{clash[0]}'" + "}"
        )
    return request
