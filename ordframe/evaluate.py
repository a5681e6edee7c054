"""Several metrics at once, one Dataset variable each, and the worst-scored samples.

Confusion metrics run on one cube, probability metrics on one set of
per-sample scores; both come from one validation of the inputs
(``ordframe.frame`` for DataFrames, ``ordframe.probability`` and
``ordframe.confusion`` for DataArrays).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from . import registry
from .apply import apply_confusion, metric_request
from .confusion import array_cube
from .dims import CLASS_DIM, OBSERVED_DIM
from .frame import FrameRows, by_names, frame_rows
from .paired import bootstrap_evaluate
from .probability import RowNames, array_inputs
from .resample import BOOTSTRAP_DIM
from .scores import array_scores, frame_scores, mean_scores


def _request(metrics, *, probabilities: bool, labels: bool, taken=()) -> dict:
    """The metrics to compute (default: every confusion metric, and every proba one if there are probabilities)."""
    if not labels and not probabilities:
        raise TypeError("evaluate needs predicted labels (pred=) or class probabilities (proba=)")
    if metrics is None:
        metrics = registry.metric_names("confusion") + (registry.metric_names("proba") if probabilities else [])
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


def evaluate_cube(cube: xr.DataArray, metrics=None) -> xr.Dataset:
    """One variable per requested confusion metric, computed on every matrix of ``cube``."""
    request = _request(metrics, probabilities=False, labels=True, taken=list(cube.dims))
    return xr.Dataset({out: apply_confusion(m, cube, p).rename(out) for out, (m, p) in request.items()})


def _evaluate_rows(rows: FrameRows, request: dict) -> xr.Dataset:
    variables, cube = {}, None
    for out, (metric, params) in request.items():
        if metric.kind == "confusion":
            cube = rows.cube() if cube is None else cube
            variables[out] = apply_confusion(metric, cube, params)
        else:
            variables[out] = rows.mean(frame_scores(metric, rows, params), out)
    return xr.Dataset({out: v.rename(out) for out, v in variables.items()})


def evaluate_frame(
    df: pd.DataFrame,
    true,
    pred=None,
    *,
    proba=None,
    metrics=None,
    by=None,
    labels=None,
    weights=None,
    dropna=False,
    renormalize=False,
    observed=False,
    bootstrap=None,
    seed=None,
    sample=None,
    strata=None,
) -> xr.Dataset:
    """One variable per metric. Confusion metrics use ``pred`` (default: the most probable class); proba metrics use ``proba``.

    With ``bootstrap=n`` every metric is computed on the same ``n`` paired
    replicates of the samples that the models in ``by`` share (``ordframe.paired``).
    """
    taken = [*map(str, by_names(by)), *([OBSERVED_DIM] if observed is True else [])]
    if bootstrap is None:
        if any(v is not None for v in (seed, sample, strata)):
            raise TypeError("seed=, sample= and strata= apply to a bootstrap: pass bootstrap=<replicates> too")
    else:
        if weights is not None or observed is not False:
            raise TypeError("a bootstrap resamples samples: weights= and observed= do not apply to it")
        taken += [*map(str, by_names(strata)), BOOTSTRAP_DIM]
        request = _request(metrics, probabilities=proba is not None, labels=pred is not None, taken=taken)
        return bootstrap_evaluate(
            df,
            true,
            pred,
            proba=proba,
            metrics={o: (m.name, p) for o, (m, p) in request.items()},
            by=by,
            sample=sample,
            strata=strata,
            n=bootstrap,
            seed=seed,
            labels=labels,
            dropna=dropna,
            renormalize=renormalize,
        )
    request = _request(metrics, probabilities=proba is not None, labels=pred is not None, taken=taken)
    rows = frame_rows(
        df,
        true,
        pred,
        proba=proba,
        by=by,
        labels=labels,
        weights=weights,
        dropna=dropna,
        renormalize=renormalize,
        observed=observed,
        unscored_groups=len(by_names(by)) if pred is not None else None,
    )
    return _evaluate_rows(rows, request)


def evaluate_array(
    obj: xr.DataArray,
    true: xr.DataArray | None,
    *,
    metrics=None,
    class_dim=None,
    pred=None,
    dim=None,
    labels=None,
    weights=None,
    dropna=False,
    renormalize=False,
) -> xr.Dataset:
    """One variable per metric on a cube, on label arrays, or (``class_dim`` given) on a probability array."""
    if class_dim is None:
        if pred is not None or renormalize:
            raise TypeError("pred= and renormalize= apply to class probabilities: pass class_dim= as well")
        if true is None:
            if any(v is not None and v is not False for v in (dim, labels, weights, dropna)):
                raise TypeError("dim=, labels=, weights= and dropna= apply to label arrays; this is already a cube")
            return evaluate_cube(obj, metrics)
        return evaluate_cube(array_cube(true, obj, dim=dim, labels=labels, weights=weights, dropna=dropna), metrics)
    if true is None:
        raise TypeError("evaluate on class probabilities needs the true labels: proba.ordinal.evaluate(true, ...)")
    request = _request(metrics, probabilities=True, labels=True, taken=[*obj.dims, *true.dims])
    inputs = array_inputs(obj, true, labels=labels, renormalize=renormalize, dropna=dropna, class_dim=class_dim)
    variables: dict[str, xr.DataArray] = {}
    cube: xr.DataArray | None = None
    for out, (metric, params) in request.items():
        if metric.kind == "proba":
            variables[out] = mean_scores(array_scores(metric, inputs, params), dim=dim, weights=weights)
        else:
            if cube is None:
                cube = (
                    inputs.cube(dim=dim, weights=weights)
                    if pred is None
                    else array_cube(true, pred, dim=dim, labels=inputs.classes, weights=weights, dropna=dropna)
                )
            variables[out] = apply_confusion(metric, cube, params)
    return xr.Dataset({out: v.rename(out) for out, v in variables.items()})


def worst(
    data,
    true,
    proba=None,
    *,
    score="rps",
    n=10,
    by=None,
    labels=None,
    dropna=False,
    renormalize=False,
    class_dim=CLASS_DIM,
    **params,
) -> pd.DataFrame:
    """The ``n`` worst samples under the per-sample ``score``, worst first (the error analysis of Galdran 2023, Fig. 3).

    ``worst(df, "y", ["p0", "p1", "p2"])`` for a DataFrame (``proba`` a list or a
    dict label -> column) or ``worst(proba_da, true_da)`` for a probability
    array. The table has the true label, the probabilities, the most probable
    class (``argmax``) and the score, indexed by the DataFrame's row labels or
    the array's sample coordinates. Ties keep the input order. With ``by``, the
    ``n`` worst rows of every group, the groups in the order of their values and
    the ``by`` columns first in the table.

    Parameters
    ----------
    data : pandas.DataFrame or xarray.DataArray
        The rows, or the class probabilities (with a ``class_dim`` dim).
    true : column name or xarray.DataArray
        The true labels.
    proba : list or dict
        For a DataFrame: the probability columns, in class order or as a dict label -> column.
    score : str
        A proba metric (``rps``, ``sarps``, ``brier``, ``log_score`` or a plugin's).
    n : int
        How many rows to return (per group with ``by``).
    by : column name or list of column names, optional
        For a DataFrame: the ``n`` worst rows of each group (e.g. of each model).
    labels, dropna, renormalize
        As in ``df.ordinal.evaluate``; ``dropna=True`` leaves out the rows with a
        missing label, group value or probability (e.g. a model without probabilities).
    class_dim : str
        For a DataArray: the dim that holds the classes.
    **params
        Parameters of ``score``.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    TypeError
        For inputs that are neither a DataFrame nor a DataArray, a bad ``n``, or ``by`` with a DataArray.
    ValueError
        For a ``score`` that is not a proba metric, invalid probabilities, or a ``by`` column with the
        name of a column of the table.

    Examples
    --------
    >>> import ordframe
    >>> df = pd.DataFrame({"y": [0, 2], "p0": [0.9, 0.9], "p1": [0.1, 0.1], "p2": [0.0, 0.0]})
    >>> ordframe.worst(df, "y", ["p0", "p1", "p2"], n=1, labels=[0, 1, 2])
    class  true    0    1    2  argmax    rps
    1         2  0.9  0.1  0.0       0  0.905
    >>> df = df.assign(model=["a", "b"])
    >>> ordframe.worst(df, "y", ["p0", "p1", "p2"], n=1, by="model", labels=[0, 1, 2])
    class model  true    0    1    2  argmax    rps
    0         a     0  0.9  0.1  0.0       0  0.005
    1         b     2  0.9  0.1  0.0       0  0.905
    """
    request = metric_request(score, argument="score", require="proba")
    if len(request) != 1:
        raise ValueError(f"score= must name one proba metric, got {list(request)}")
    ((metric, params_given),) = request.values()
    params = {**params_given, **params} if params else params_given
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise TypeError(f"n must be a whole number >= 0, got {n!r}")
    if isinstance(data, pd.DataFrame):
        if proba is None:
            raise TypeError("worst(df, true, proba): give the probability columns, a list or a dict label -> column")
        rows = frame_rows(data, true, proba=proba, by=by, labels=labels, dropna=dropna, renormalize=renormalize)
        scores, values, codes = frame_scores(metric, rows, params), np.asarray(rows.proba), rows.true.array()
        classes, frame_index, groups = rows.classes, rows.index, rows.groups
        group = groups.flat_index(len(codes))

        def row_labels(chosen):
            return frame_index[chosen]

    elif isinstance(data, xr.DataArray):
        if proba is not None:
            raise TypeError("worst(proba_da, true_da): the probabilities are the first argument")
        if by is not None:
            raise TypeError(
                f"by= applies to a DataFrame, got by={by!r}; the table of a DataArray is indexed by all "
                "its sample coordinates: select a group first, e.g. proba.sel(model=...)"
            )
        inputs = array_inputs(data, true, labels=labels, renormalize=renormalize, dropna=dropna, class_dim=class_dim)
        scores = np.asarray(array_scores(metric, inputs, params).values).reshape(-1)
        values = np.asarray(inputs.proba.values).reshape(-1, len(inputs.classes))
        codes = np.asarray(inputs.codes.values).reshape(-1)
        names, classes, groups = RowNames.of(inputs.codes), inputs.classes, None
        group = np.zeros(len(codes), np.int64)

        def row_labels(chosen):
            return names.index(chosen, names.shape)

    else:
        raise TypeError(
            f"worst() takes a pandas DataFrame or an xarray DataArray of probabilities, got {type(data).__name__}"
        )
    key = scores if not metric.higher_is_better else -scores
    kept = np.flatnonzero(codes >= 0)  # samples dropped with dropna=True have no score
    ranked = kept[np.lexsort((-key[kept], group[kept]))]  # by group, worst first; stable: ties keep the input order
    starts = np.flatnonzero(np.diff(group[ranked], prepend=-1))  # where each group's run begins
    rank = np.arange(len(ranked)) - np.repeat(starts, np.diff(starts, append=len(ranked)))
    chosen = ranked[rank < int(n)]
    table = pd.DataFrame(values[chosen], index=row_labels(chosen), columns=pd.Index(classes, name=CLASS_DIM))
    table.insert(0, "true", classes[codes[chosen]])
    table["argmax"] = classes[values[chosen].argmax(axis=1)]
    table[metric.name] = scores[chosen]
    for i, column in enumerate([] if groups is None else groups.columns):
        if column.name in table.columns:
            raise ValueError(
                f"by column {column.name!r} has the name of a column of the worst() table "
                f"{list(table.columns)}; rename it, e.g. df.rename(columns={{{column.name!r}: {f'{column.name}_'!r}}})"
            )
        table.insert(i, column.name, column.coord[column.codes[chosen] - column.offset])
    return table
