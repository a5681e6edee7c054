"""The worst-scored samples: a table for error analysis (Galdran 2023, Fig. 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.scores import array_scores, frame_scores
from ordframe._core.checks import check_count
from ordframe._core.dims import CLASS_DIM
from ordframe._core.messages import RowNames
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.probability import array_inputs
from ordframe._inputs.selection import Selection
from ordframe._registry.request import metric_request


def worst(
    data,
    true,
    proba=None,
    *,
    score="rps",
    top=10,
    by=None,
    labels=None,
    dropna=False,
    renormalize=False,
    class_dim=CLASS_DIM,
    **params,
) -> pd.DataFrame:
    """The ``top`` worst samples under the per-sample ``score``, worst first (the error analysis of Galdran 2023, Fig. 3).

    ``worst(df, "y", ["p0", "p1", "p2"])`` for a DataFrame (``proba`` a list or a
    dict label -> column) or ``worst(proba_da, true_da)`` for a probability
    array. The table has the true label, the probabilities, the most probable
    class (``argmax``) and the score, indexed by the DataFrame's row labels or
    the array's sample coordinates. Ties keep the input order. With ``by``, the
    ``top`` worst rows of every group, the groups in the order of their values and
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
    top : int
        How many rows to return (per group with ``by``).
    by : column name or list of column names, optional
        For a DataFrame: the ``top`` worst rows of each group (e.g. of each model).
    labels : list, optional
        The classes in order, as in ``df.ordinal.evaluate``.
    dropna : bool
        Leave out the rows with a missing label, group value or probability (e.g. a
        model without probabilities) instead of raising an error.
    renormalize : bool
        Divide each probability row by its sum instead of requiring 1.
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
        For inputs that are neither a DataFrame nor a DataArray, a bad ``top``, or ``by`` with a DataArray.
    ValueError
        For a ``score`` that is not a proba metric, invalid probabilities, or a ``by`` column with the
        name of a column of the table.

    Examples
    --------
    >>> import ordframe
    >>> df = pd.DataFrame({"y": [0, 2], "p0": [0.9, 0.9], "p1": [0.1, 0.1], "p2": [0.0, 0.0]})
    >>> ordframe.worst(df, "y", ["p0", "p1", "p2"], top=1, labels=[0, 1, 2])
    class  true    0    1    2  argmax    rps
    1         2  0.9  0.1  0.0       0  0.905
    >>> df = df.assign(model=["a", "b"])
    >>> ordframe.worst(df, "y", ["p0", "p1", "p2"], top=1, by="model", labels=[0, 1, 2])
    class model  true    0    1    2  argmax    rps
    0         a     0  0.9  0.1  0.0       0  0.005
    1         b     2  0.9  0.1  0.0       0  0.905
    """
    request = metric_request(score, argument="score", require="proba")
    if len(request) != 1:
        raise ValueError(f"score= must name one proba metric, got {list(request)}")
    ((metric, params_given),) = request.values()
    params = {**params_given, **params} if params else params_given
    top = check_count(top, "top", low=0)
    if isinstance(data, pd.DataFrame):
        if proba is None:
            raise TypeError("worst(df, true, proba): give the probability columns, a list or a dict label -> column")
        selection = Selection(true, proba=proba, by=by, labels=labels, dropna=dropna, renormalize=renormalize)
        rows = frame_rows(data, selection)
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
    key = -metric.orientation.score(scores)  # the worse, the larger
    kept = np.flatnonzero(codes >= 0)  # samples dropped with dropna=True have no score
    ranked = kept[np.lexsort((-key[kept], group[kept]))]  # by group, worst first; stable: ties keep the input order
    starts = np.flatnonzero(np.diff(group[ranked], prepend=-1))  # where each group's run begins
    rank = np.arange(len(ranked)) - np.repeat(starts, np.diff(starts, append=len(ranked)))
    chosen = ranked[rank < top]
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
