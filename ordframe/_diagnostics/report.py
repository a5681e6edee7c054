"""A per-class report of a confusion cube, like scikit-learn's ``classification_report``, but ordinal.

``report_cube`` computes, for every matrix of a cube at once, the
per-true-class ``support``, ``recall`` (sensitivity), ``precision`` and
``class_mae`` (the MAE of the class's samples, on index distances) along a
``class`` dim, and the overall indices (by default the ``report`` set of ``ordframe.METRIC_SETS``)
as variables without that dim, each with its metric attrs. The result is an
``xarray.Dataset``: aggregate or select it with xarray.
``format_report`` prints it as a table, one block per group.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import check_cube, cube_classes
from ordframe._bridge.evaluate import evaluate_cube
from ordframe._core.dims import CLASS_DIM, CUBE_DIMS, PRED, TRUE
from ordframe._core.typing import MetricSpec
from ordframe._registry.request import METRIC_SETS
from ordframe.metrics._matrix import index_distance

"""The overall indices of a report when ``metrics=`` is not given."""

PER_CLASS = ("support", "recall", "precision", "class_mae")
"""The per-class variables of a report, in the order printed."""

_DESCRIPTIONS = {
    "support": "number (or total weight) of samples of the true class",
    "recall": "share of the true class's samples predicted as that class (sensitivity); NaN without samples",
    "precision": "share of the samples predicted as the class that belong to it; NaN if none was predicted so",
    "class_mae": "mean absolute index error of the true class's samples; NaN without samples",
}


def report_cube(cube: xr.DataArray, metrics: MetricSpec = None) -> xr.Dataset:
    """Per-class ``support``, ``recall``, ``precision``, ``class_mae`` and the overall indices of every matrix.

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
        labels as coordinate; the overall indices have dims ``groups`` and the
        attrs of their metric (``direction``, ``metric_bounds``, ...).

    Raises
    ------
    ValueError
        If the cube has a dim named ``class``, or an output name of ``metrics``
        is a per-class variable or a dim.

    Examples
    --------
    >>> cube = xr.DataArray([[2, 1], [0, 3]], dims=("true", "pred"), coords={"true": ["lo", "hi"], "pred": ["lo", "hi"]})
    >>> ds = report_cube(cube, metrics=["accuracy"])
    >>> ds["support"].values.tolist(), ds["recall"].values.round(3).tolist(), ds["precision"].values.tolist()
    ([3, 3], [0.667, 1.0], [1.0, 0.75])
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
    per_class = {
        "support": support,
        "recall": hits / rows,
        "precision": hits / predicted.where(predicted > 0),
        "class_mae": errors / rows,
    }
    ds = xr.Dataset({name: v.assign_attrs(description=_DESCRIPTIONS[name]) for name, v in per_class.items()})
    ds = ds.assign_coords({CLASS_DIM: np.asarray(labels)})
    overall = evaluate_cube(cube, list(METRIC_SETS["report"]) if metrics is None else metrics)
    clash = [name for name in overall.data_vars if name in PER_CLASS or name == CLASS_DIM]
    if clash:
        raise ValueError(
            f"metric output name(s) {clash} are also a per-class variable of the report; "
            "rename them, e.g. metrics={'" + f"{clash[0]}_overall': '{clash[0]}'" + "}"
        )
    return ds.assign({name: overall[name] for name in overall.data_vars})


def _number(value: float, digits: int) -> str:
    return "nan" if np.isnan(value) else f"{value:.{digits}f}"


def _block(ds: xr.Dataset, digits: int) -> list[str]:
    classes = [str(c) for c in ds.indexes[CLASS_DIM]] if CLASS_DIM in ds.indexes else []
    present = [name for name in PER_CLASS if name in ds.data_vars]
    overall = [name for name in ds.data_vars if name not in PER_CLASS]
    width = max([len(CLASS_DIM), *map(len, classes), *map(len, map(str, overall))])
    column = max(10, digits + 6)
    lines = []
    if present:
        header = [f"{CLASS_DIM:>{width}}", *(f"{'mae' if n == 'class_mae' else n:>{column}}" for n in present)]
        lines.append(" ".join(header))
        values = {n: np.asarray(ds[n].values, dtype=np.float64).reshape(-1) for n in present}
        whole = "support" in values and bool(np.all(values["support"] == np.round(values["support"])))
        for i, label in enumerate(classes):
            cells = [
                f"{int(values[n][i]):>{column}}"
                if n == "support" and whole
                else f"{_number(values[n][i], digits):>{column}}"
                for n in present
            ]
            lines.append(" ".join([f"{label:>{width}}", *cells]))
        lines.append("")
    for name in overall:
        var = ds[name]
        value = float(np.asarray(var.values, dtype=np.float64).reshape(-1)[0])
        direction = var.attrs.get("direction")
        suffix = f"  ({direction})" if direction else ""
        lines.append(f"{str(name):>{width}} {_number(value, digits):>{column}}{suffix}")
    while lines and not lines[-1]:
        lines.pop()
    return lines


def format_report(ds: xr.Dataset, digits: int = 3) -> str:
    """A report as text, like scikit-learn's ``classification_report``: ``print(format_report(ds))``.

    One table of the per-class variables (a row per class: support, recall,
    precision and mae), then one line per overall index with its direction.
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
       class    support     recall  precision        mae
          lo          3      0.667      1.000      0.333
          hi          3      1.000      0.750      0.000
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
