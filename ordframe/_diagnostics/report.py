"""A per-class report of a confusion cube, like scikit-learn's ``classification_report``, but ordinal.

``report_cube`` computes, for every matrix of a cube at once, the
per-true-class ``support``, ``recall`` (sensitivity), ``precision``, ``f1``
and ``class_mae`` (the MAE of the class's samples, on index distances) along
a ``class`` dim; their macro and weighted averages over the classes
(``recall_macro``, ``f1_weighted``, ...; scikit-learn's scorer names); and
the overall indices (by default the ``report`` set of
``ordframe.METRIC_SETS``), each with its metric attrs. The result is an
``xarray.Dataset``: aggregate or select it with xarray. ``format_report``
prints it as a table, one block per group.

A rate whose denominator is zero (the precision of a class never predicted,
the recall of a class without samples) is NaN, without a warning: the
Dataset says which cells are undefined, as scikit-learn's
``zero_division=np.nan`` does, and the averages leave those classes out.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import check_cube, cube_classes
from ordframe._bridge.evaluate import evaluate_cube
from ordframe._core.dims import CLASS_DIM, CUBE_DIMS, PRED, TRUE
from ordframe._core.messages import number_text
from ordframe._core.typing import MetricSpec
from ordframe._registry.request import METRIC_SETS
from ordframe.metrics._matrix import index_distance

"""The overall indices of a report when ``metrics=`` is not given."""

PER_CLASS = ("support", "recall", "precision", "f1", "class_mae")
"""The per-class variables of a report, in the order printed."""

AVERAGES = ("macro", "weighted")
"""The averages over the classes of every per-class rate: ``<rate>_macro`` and ``<rate>_weighted``."""

AVERAGED = PER_CLASS[1:]
"""The per-class rates that are averaged (all but ``support``)."""

_DESCRIPTIONS = {
    "support": "number (or total weight) of samples of the true class",
    "recall": "share of the true class's samples predicted as that class (sensitivity); NaN without samples",
    "precision": "share of the samples predicted as the class that belong to it; NaN if none was predicted so",
    "f1": "harmonic mean of precision and recall, 2 n_cc / (support + predicted); NaN if the class has neither "
    "samples nor predictions",
    "class_mae": "mean absolute index error of the true class's samples; NaN without samples",
}
_AVERAGE_DESCRIPTIONS = {
    "macro": "unweighted mean of the per-class {name} over the classes where it is defined (not NaN); NaN if none",
    "weighted": "mean of the per-class {name} over the classes where it is defined, weighted by their support; "
    "NaN if those classes have no samples",
}
_DIRECTIONS = {"recall": "higher", "precision": "higher", "f1": "higher", "class_mae": "lower"}


def average_name(name: str, average: str) -> str:
    """The report variable of the ``average`` ("macro" or "weighted") of the per-class ``name``."""
    return f"{name}_{average}"


AVERAGE_NAMES = tuple(average_name(name, average) for average in AVERAGES for name in AVERAGED)
"""Every average variable of a report."""


def class_averages(values: xr.DataArray, support: xr.DataArray) -> dict[str, xr.DataArray]:
    """The macro and weighted averages over ``class`` of a per-class rate, skipping the classes where it is NaN.

    macro = sum of the defined values / their number; weighted = sum of support x value / sum of support,
    both over the classes where the value is defined (scikit-learn's averages with ``zero_division=np.nan``).
    """
    defined = values.notnull()
    known = values.fillna(0.0)
    count = defined.sum(CLASS_DIM)
    weight = support.where(defined, 0).sum(CLASS_DIM)
    return {
        "macro": known.sum(CLASS_DIM) / count.where(count > 0),
        "weighted": (known * support).sum(CLASS_DIM) / weight.where(weight > 0),
    }


def report_cube(cube: xr.DataArray, metrics: MetricSpec = None) -> xr.Dataset:
    """Per-class ``support``, ``recall``, ``precision``, ``f1``, ``class_mae``, their averages and the overall indices.

    For true class c with n_cc samples predicted right, support N_c and M_c samples predicted as c:
    recall = n_cc / N_c, precision = n_cc / M_c, f1 = 2 n_cc / (N_c + M_c) (the harmonic mean of the two),
    class_mae = the mean |true - predicted| index distance of the class's samples. A zero denominator gives
    NaN (no warning). Each rate also has a macro average (the plain mean over the classes where it is
    defined) and a weighted one (weighted by support, over the same classes), as scikit-learn's
    ``classification_report`` with ``zero_division=np.nan``; so ``recall_weighted`` is the accuracy,
    ``recall_macro`` the balanced accuracy, ``class_mae_weighted`` the MAE and ``class_mae_macro`` the AMAE.

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube (dims ``(..., "true", "pred")``, rows = true class).
    metrics : str, list or dict, optional
        The overall confusion metrics, as in ``evaluate`` (default ``ordframe.METRIC_SETS["report"]``).

    Returns
    -------
    xarray.Dataset
        The per-class variables have dims ``(*groups, "class")`` with the class
        labels as coordinate; the averages (``recall_macro``, ...,
        ``class_mae_weighted``) and the overall indices have dims ``groups``,
        the indices with the attrs of their metric (``direction``,
        ``metric_bounds``, ...).

    Raises
    ------
    ValueError
        If the cube has a dim named ``class``, or an output name of ``metrics``
        is a per-class or average variable.

    Examples
    --------
    >>> cube = xr.DataArray([[2, 1], [0, 3]], dims=("true", "pred"), coords={"true": ["lo", "hi"], "pred": ["lo", "hi"]})
    >>> ds = report_cube(cube, metrics=["accuracy"])
    >>> ds["support"].values.tolist(), ds["recall"].values.round(3).tolist(), ds["precision"].values.tolist()
    ([3, 3], [0.667, 1.0], [1.0, 0.75])
    >>> ds["f1"].values.round(3).tolist(), round(float(ds["f1_macro"]), 3)
    ([0.8, 0.857], 0.829)
    >>> float(ds["accuracy"]), ds["accuracy"].attrs["direction"]
    (0.8333333333333334, 'higher is better')
    """
    check_cube(cube)
    if CLASS_DIM in cube.dims:
        raise ValueError(
            f"the cube has a dim named {CLASS_DIM!r}, the dim of a report's per-class variables; rename it first"
        )
    cube, classes = cube_classes(cube)
    k = cube.sizes[TRUE]
    labels = pd.Index(range(k)) if classes is None else classes
    counts = cube.transpose(..., *CUBE_DIMS).drop_vars(list(CUBE_DIMS), errors="ignore")
    eye = xr.DataArray(np.eye(k), dims=CUBE_DIMS)
    distance = xr.DataArray(index_distance(k), dims=CUBE_DIMS)
    support = counts.sum(PRED).rename({TRUE: CLASS_DIM})
    predicted = counts.sum(TRUE).rename({PRED: CLASS_DIM})
    hits = (counts * eye).sum(PRED).rename({TRUE: CLASS_DIM})
    errors = (counts * distance).sum(PRED).rename({TRUE: CLASS_DIM})
    rows = support.where(support > 0)  # NaN without samples: x / NaN is NaN, without a 0/0 warning
    either = support + predicted
    per_class = {
        "support": support,
        "recall": hits / rows,
        "precision": hits / predicted.where(predicted > 0),
        "f1": 2 * hits / either.where(either > 0),
        "class_mae": errors / rows,
    }
    ds = xr.Dataset({name: v.assign_attrs(description=_DESCRIPTIONS[name]) for name, v in per_class.items()})
    for name in AVERAGED:
        for average, value in class_averages(per_class[name], support).items():
            attrs = {
                "description": _AVERAGE_DESCRIPTIONS[average].format(name=name),
                "direction": f"{_DIRECTIONS[name]} is better",
            }
            ds[average_name(name, average)] = value.assign_attrs(attrs)
    ds = ds.assign_coords({CLASS_DIM: np.asarray(labels)})
    overall = evaluate_cube(cube, list(METRIC_SETS["report"]) if metrics is None else metrics)
    taken = set(PER_CLASS) | set(AVERAGE_NAMES) | {CLASS_DIM}
    clash = [name for name in overall.data_vars if name in taken]
    if clash:
        raise ValueError(
            f"metric output name(s) {clash} are also a per-class or average variable of the report; "
            "rename them, e.g. metrics={'" + f"{clash[0]}_overall': '{clash[0]}'" + "}"
        )
    return ds.assign({name: overall[name] for name in overall.data_vars})


def _cell(value: float, column: int, digits: int, whole: bool) -> str:
    return f"{int(value):>{column}}" if whole else f"{number_text(value, digits):>{column}}"


def _block(ds: xr.Dataset, digits: int) -> list[str]:
    classes = [str(c) for c in ds.indexes[CLASS_DIM]] if CLASS_DIM in ds.indexes else []
    present = [name for name in PER_CLASS if name in ds.data_vars]
    rows = {f"{average} avg": average for average in AVERAGES}
    averages = {row: average for row, average in rows.items() if any(average_name(n, average) in ds for n in present)}
    overall = [name for name in ds.data_vars if name not in PER_CLASS and name not in AVERAGE_NAMES]
    width = max([len(CLASS_DIM), *map(len, classes), *map(len, map(str, overall)), *map(len, averages)])
    column = max(10, digits + 6)
    lines = []
    if present:
        header = [f"{CLASS_DIM:>{width}}", *(f"{'mae' if n == 'class_mae' else n:>{column}}" for n in present)]
        lines.append(" ".join(header))
        values = {n: np.asarray(ds[n].values, dtype=np.float64).reshape(-1) for n in present}
        whole = "support" in values and bool(np.all(values["support"] == np.round(values["support"])))
        for i, label in enumerate(classes):
            cells = [_cell(values[n][i], column, digits, n == "support" and whole) for n in present]
            lines.append(" ".join([f"{label:>{width}}", *cells]))
        lines.append("")
        for row, average in averages.items():  # as classification_report: the support column holds the total
            cells = []
            for n in present:
                if n == "support":
                    cells.append(_cell(float(values[n].sum()), column, digits, whole))
                elif average_name(n, average) in ds:
                    value = float(np.asarray(ds[average_name(n, average)].values, dtype=np.float64).reshape(-1)[0])
                    cells.append(f"{number_text(value, digits):>{column}}")
                else:
                    cells.append(" " * column)
            lines.append(" ".join([f"{row:>{width}}", *cells]).rstrip())
        if averages:
            lines.append("")
    for name in overall:
        var = ds[name]
        value = float(np.asarray(var.values, dtype=np.float64).reshape(-1)[0])
        direction = var.attrs.get("direction")
        suffix = f"  ({direction})" if direction else ""
        lines.append(f"{str(name):>{width}} {number_text(value, digits):>{column}}{suffix}")
    while lines and not lines[-1]:
        lines.pop()
    return lines


def format_report(ds: xr.Dataset, digits: int = 3) -> str:
    """A report as text, like scikit-learn's ``classification_report``: ``print(format_report(ds))``.

    One table of the per-class variables (a row per class: support, recall,
    precision, f1 and mae) and of their macro and weighted averages (rows
    ``macro avg`` and ``weighted avg``, whose support is the total), then one
    line per overall index with its direction.
    A report with group dims (``by=``, or the other dims of a cube) gives one
    block per group, headed by its coordinates.

    Parameters
    ----------
    ds : xarray.Dataset
        A report (``df.ordinal.report(...)``, ``cube.ordinal.report()``), or a
        selection of one.
    digits : int
        Decimals of the printed values.

    Returns
    -------
    str

    Examples
    --------
    >>> cube = xr.DataArray([[2, 1], [0, 3]], dims=("true", "pred"), coords={"true": ["lo", "hi"], "pred": ["lo", "hi"]})
    >>> print(format_report(report_cube(cube, metrics=["accuracy", "mae"])))
           class    support     recall  precision         f1        mae
              lo          3      0.667      1.000      0.800      0.333
              hi          3      1.000      0.750      0.857      0.000
    <BLANKLINE>
       macro avg          6      0.833      0.875      0.829      0.167
    weighted avg          6      0.833      0.875      0.829      0.167
    <BLANKLINE>
        accuracy      0.833  (higher is better)
             mae      0.167  (lower is better)
    """
    if not isinstance(ds, xr.Dataset):
        raise TypeError(f"format_report takes the Dataset of a report, got {type(ds).__name__}")
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 0:
        raise TypeError(f"digits must be a whole number >= 0, got {digits!r}")
    groups = [d for d in ds.dims if d != CLASS_DIM]
    if not groups:
        return "\n".join(_block(ds, int(digits)))
    blocks = []
    for index in itertools.product(*(range(ds.sizes[d]) for d in groups)):
        selected = ds.isel(dict(zip(groups, index)))
        title = ", ".join(f"{d}={selected[d].item() if d in selected.coords else i}" for d, i in zip(groups, index))
        blocks.append("\n".join([title, *_block(selected, int(digits))]))
    return "\n\n".join(blocks)
