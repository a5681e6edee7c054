"""The ``.ordinal`` accessor of ``dask.dataframe.DataFrame``: confusion cubes and metrics of partitioned rows.

Every partition is counted by the pandas front end (``ordframe.frame``) into
a cube of the same shape, and the partition cubes are summed by a dask tree
reduction, which a ``dask.distributed`` cluster runs across its workers: the
result is a lazy cube, and every metric on it is lazy too. The shape must be
known before any partition is counted, so

* the classes come from ``labels=``, from known ordered categories, or
  (numeric labels) from one pass over the label columns;
* every ``by`` column's values come from known categories, or from one pass
  over the column (sorted distinct values, as for pandas).

The paired bootstrap (``ddf.ordinal.bootstrap``) needs each sample's pattern
(stratum, true class, prediction of every model; ``ordframe.paired``). Every
row adds ``(pred + 1) (K + 1)^m`` for its model m to its sample's code, a
groupby-sum over ``(strata, sample)`` that dask runs as a tree reduction; the
codes are then counted (at most K^(M+1) per stratum) and only that small
table leaves the cluster. A digit 0 (a model without a row for the sample),
a row count other than M, or true labels that differ within a sample are
errors.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .accessors import _method, _OrdinalAccessor
from .apply import apply_confusion, as_scalar
from .classes import check_two, declared_order
from .dims import CUBE_DIMS, PRED, TRUE
from .evaluate import evaluate_cube
from .frame import by_names, check_flag
from .metric import Metric
from .paired import pattern_cubes
from .resample import BOOTSTRAP_DIM, check_replicates, rng_of
from .types import By, ClassLabels, Column, MetricSpec


def _classes(ddf, true, pred, labels) -> pd.Index:
    if labels is not None:
        return declared_order(labels)
    dtypes = [ddf[c].dtype for c in (true, pred)]
    ordered = [d for d in dtypes if isinstance(d, pd.CategoricalDtype) and d.ordered and d.categories is not None]
    if ordered:
        return check_two(ordered[0].categories)
    if not all(pd.api.types.is_numeric_dtype(d) or pd.api.types.is_bool_dtype(d) for d in dtypes):
        kinds = ", ".join(f"{c!r} ({d})" for c, d in zip((true, pred), dtypes))
        raise TypeError(f"cannot tell the class order of {kinds}: pass labels=[...] in order (lowest first)")
    import dask

    seen = dask.compute(ddf[true].dropna().unique(), ddf[pred].dropna().unique())
    return check_two(pd.Index(np.unique(np.concatenate([np.asarray(s) for s in seen]))))


def _group_values(ddf, by: list) -> list[pd.Index]:
    import dask

    known = {c: ddf[c].dtype.categories for c in by if isinstance(ddf[c].dtype, pd.CategoricalDtype)}
    unknown = [c for c in by if c not in known]
    found = dask.compute(*[ddf[c].dropna().unique() for c in unknown])
    values = {c: pd.Index(np.sort(np.asarray(v))) for c, v in zip(unknown, found)}
    return [known[c] if c in known else values[c] for c in by]


def _partition_cube(part: pd.DataFrame, true, pred, by, groups, classes, weights, dropna) -> np.ndarray:
    """The cube of one partition, laid out over the global group values and classes."""
    part = part.assign(**{str(c): pd.Categorical(part[c], categories=g) for c, g in zip(by, groups)})
    cube = part.ordinal.confusion(true, pred, by=by, labels=classes, weights=weights, dropna=dropna)
    return cube.values


def dask_cube(ddf, true, pred, *, by=None, labels=None, weights=None, dropna=False) -> xr.DataArray:
    """The lazy confusion cube of a dask DataFrame, one matrix per combination of ``by`` values."""
    import dask
    import dask.array as da

    dropna = check_flag(dropna, "dropna")
    by = by_names(by)
    for column in [true, pred, *by, *([weights] if isinstance(weights, (str, int)) else [])]:
        if column not in ddf.columns:
            raise KeyError(f"column {column!r} is not in the DataFrame; its columns are {list(ddf.columns)}")
    if weights is not None and not isinstance(weights, (str, int)):
        raise TypeError("weights= must name a column of the dask DataFrame")
    classes = _classes(ddf, true, pred, labels)
    groups = _group_values(ddf, by)
    shape = (*(len(g) for g in groups), len(classes), len(classes))
    dtype = np.float64 if weights is not None else np.int64
    count = dask.delayed(_partition_cube, pure=True)
    parts = [
        da.from_delayed(count(p, true, pred, by, groups, classes, weights, dropna), shape=shape, dtype=dtype)
        for p in ddf.to_delayed()
    ]
    total = da.stack(parts).sum(axis=0, split_every=8) if parts else da.zeros(shape, dtype=dtype)
    coords = {str(c): g for c, g in zip(by, groups)}
    coords.update({TRUE: classes, PRED: classes})
    return xr.DataArray(total, dims=(*map(str, by), *CUBE_DIMS), coords=coords, name="count")


def _codes(part: pd.DataFrame, true, pred, model, layers, classes, models, strata) -> pd.DataFrame:
    """Per row: its stratum, its sample, its true class code and its contribution to the sample's pattern code."""
    k = len(classes)
    true_codes = pd.Categorical(part[true], categories=classes).codes.astype(np.int64)
    pred_codes = pd.Categorical(part[pred], categories=classes).codes.astype(np.int64)
    model_codes = pd.Categorical(part[model], categories=models).codes.astype(np.int64)
    if (true_codes < 0).any() or (pred_codes < 0).any() or (model_codes < 0).any():
        raise ValueError(
            "a label is missing or outside the classes (or a model value is missing); pass labels= "
            "with every class, and drop rows with missing values first"
        )
    stratum = np.zeros(len(part), np.int64)
    for column, values in zip(layers, strata):
        stratum = stratum * len(values) + pd.Categorical(part[column], categories=values).codes
    return pd.DataFrame(
        {
            "stratum": stratum,
            "sample": part["__sample__"].to_numpy(),
            "true_min": true_codes,
            "true_max": true_codes,
            "code": (pred_codes + 1) * (k + 1) ** model_codes,
            "rows": 1,
        },
        index=part.index,
    )


def dask_bootstrap(
    ddf,
    true,
    pred,
    *,
    by="model",
    sample=None,
    strata=None,
    n: int = 1000,
    seed=None,
    labels=None,
    dim: str = BOOTSTRAP_DIM,
    progress: bool | None = None,
) -> xr.DataArray:
    """Paired bootstrap replicate cubes of a dask DataFrame (see the module docstring and ``df.ordinal.bootstrap``)."""
    n = check_replicates(n)
    models, layers = by_names(by), by_names(strata)
    if len(models) != 1 or sample is None:
        raise ValueError(
            "a dask DataFrame's paired bootstrap needs one model column (by=) and the column that "
            "identifies the samples (sample=): row positions are not known across partitions"
        )
    classes = _classes(ddf, true, pred, labels)
    model_values, *strata_values = _group_values(ddf, [models[0], *layers])
    k, n_models = len(classes), len(model_values)
    if (k + 1) ** n_models * (k + 1) >= 2**62:
        raise ValueError(f"{n_models} models of {k} classes are too many for one pattern code; compare fewer models")
    rows = ddf.assign(__sample__=ddf[sample]).map_partitions(
        _codes,
        true,
        pred,
        models[0],
        layers,
        classes,
        model_values,
        strata_values,
        meta={
            "stratum": "i8",
            "sample": ddf[sample].dtype,
            "true_min": "i8",
            "true_max": "i8",
            "code": "i8",
            "rows": "i8",
        },
    )
    per_sample = rows.groupby(["stratum", "sample"]).agg(
        {"true_min": "min", "true_max": "max", "code": "sum", "rows": "sum"}
    )
    table = per_sample.groupby(["stratum", "true_min", "true_max", "code", "rows"]).size().compute().reset_index()
    if (table["true_min"] != table["true_max"]).any():
        raise ValueError(
            "some samples have different true labels for different models; a paired comparison needs "
            "one true label per sample (check the sample= column)"
        )
    digits = np.stack([(table["code"].to_numpy() // (k + 1) ** m) % (k + 1) for m in range(n_models)], axis=1)
    if (table["rows"] != n_models).any() or (digits == 0).any():
        raise ValueError(
            "every model must predict every sample exactly once (a sample lacks a model's row, or has "
            "two); drop those samples, or check the sample= and by= columns"
        )
    patterns = np.column_stack([table["stratum"], table["true_min"], digits - 1]).astype(np.int64)
    n_strata = int(np.prod([len(v) for v in strata_values], dtype=np.int64))
    values = pattern_cubes(patterns, table[0].to_numpy(), n_strata, k, n, rng_of(seed), progress)
    shape = (n, *(len(v) for v in strata_values), n_models, k, k)
    coords = {str(c): v for c, v in zip([*layers, models[0]], [*strata_values, model_values])}
    coords.update({TRUE: classes, PRED: classes})
    return xr.DataArray(
        values.reshape(shape), dims=(dim, *map(str, layers), str(models[0]), *CUBE_DIMS), coords=coords, name="count"
    )


class OrdinalDaskFrameAccessor(_OrdinalAccessor):
    """Ordinal evaluation of a dask DataFrame: ``ddf.ordinal.<metric>(true, pred, by=...)``, lazily."""

    def __init__(self, ddf: Any):
        self._ddf = ddf

    def confusion(
        self,
        true: Column,
        pred: Column,
        *,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Hashable | None = None,
        dropna: bool = False,
    ) -> xr.DataArray:
        """Lazy confusion cube with dims ``(*by, "true", "pred")``, as ``df.ordinal.confusion`` (see ``ordframe.dask_frame``).

        Examples
        --------
        >>> import dask.dataframe as dd
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1], "fold": [0, 0, 1, 1]})
        >>> cube = dd.from_pandas(df, npartitions=2).ordinal.confusion("y", "yhat", by="fold")
        >>> cube.compute().sel(fold=1).values.tolist()
        [[0, 0, 0], [0, 0, 0], [0, 1, 1]]
        """
        return dask_cube(self._ddf, true, pred, by=by, labels=labels, weights=weights, dropna=dropna)

    def evaluate(
        self,
        true: Column,
        pred: Column,
        *,
        metrics: MetricSpec = None,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Hashable | None = None,
        dropna: bool = False,
    ) -> xr.Dataset:
        """A lazy Dataset with one variable per confusion metric (see :meth:`confusion` and ``df.ordinal.evaluate``)."""
        return evaluate_cube(self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna), metrics)

    def bootstrap(
        self,
        true: Column,
        pred: Column,
        *,
        by: By = "model",
        sample: Column | None = None,
        strata: By = None,
        n: int = 1000,
        seed: Any = None,
        labels: ClassLabels | None = None,
        dim: str = BOOTSTRAP_DIM,
        progress: bool | None = None,
    ) -> xr.DataArray:
        """Paired bootstrap replicate cubes, as ``df.ordinal.bootstrap``; ``sample=`` is required here.

        Examples
        --------
        >>> import dask.dataframe as dd
        >>> df = pd.DataFrame({"s": [0, 1, 2] * 2, "y": [0, 1, 2] * 2, "yhat": [0, 1, 1, 0, 2, 2], "model": list("aaabbb")})
        >>> boot = dd.from_pandas(df, npartitions=2).ordinal.bootstrap("y", "yhat", by="model", sample="s", n=100, seed=0)
        >>> boot.dims, int(boot.sum(("true", "pred")).max())
        (('bootstrap', 'model', 'true', 'pred'), 3)
        """
        return dask_bootstrap(
            self._ddf,
            true,
            pred,
            by=by,
            sample=sample,
            strata=strata,
            n=n,
            seed=seed,
            labels=labels,
            dim=dim,
            progress=progress,
        )

    def _confusion_method(self, metric: Metric):
        def method(true, pred, *, by=None, labels=None, weights=None, dropna=False, **params):
            cube = self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna)
            result = apply_confusion(metric, cube, params)
            return result if by_names(by) else as_scalar(result, metric, lambda: float(cube.sum()) == 0)

        return _method(method, metric, f"ddf.ordinal.{metric.name}(true, pred, *, by=None, labels=None, ...)")

    def _proba_method(self, metric: Metric):
        raise AttributeError(
            f"{metric.name!r} scores class probabilities, which the dask DataFrame accessor does not take yet; "
            "score a pandas DataFrame (ddf.compute()) or an xarray DataArray of probabilities (it can be dask-backed)"
        )


def register() -> None:
    """Register the accessor on ``dask.dataframe.DataFrame`` if dask's DataFrame support is installed."""
    try:
        from dask.dataframe.extensions import register_dataframe_accessor
    except ImportError:  # dask[dataframe] is optional
        return
    register_dataframe_accessor("ordinal")(OrdinalDaskFrameAccessor)
