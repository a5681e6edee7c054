"""The ``.ordinal`` accessor of ``dask.dataframe.DataFrame``: the pandas front end, partition by partition.

Registered when ``dask.dataframe`` is imported, before or after ordframe
(``import ordframe`` itself does not import dask).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import xarray as xr

from ordframe._accessors.base import _method, _OrdinalAccessor
from ordframe._bridge.apply import apply_confusion, as_scalar
from ordframe._bridge.evaluate import evaluate_cube, evaluate_frame, rows_metric, selection_request
from ordframe._core.checks import by_names
from ordframe._core.dims import BOOTSTRAP_DIM, OBSERVED_DIM
from ordframe._core.docstrings import fill_doc
from ordframe._core.drawing import Resampling
from ordframe._core.typing import By, ClassLabels, Column, MetricSpec
from ordframe._diagnostics.report import report_cube
from ordframe._inputs.dask_frame import dask_cube, dask_rows
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection
from ordframe._registry.metric import Metric
from ordframe._resampling.paired_dask import dask_bootstrap

_NO_PROBABILITIES = (
    "the dask DataFrame accessor scores predicted labels, not class probabilities; score ddf.compute() with "
    "df.ordinal (proba=[...]), or an xarray DataArray of the probabilities, which can be dask-backed: "
    "proba.ordinal.evaluate(true, class_dim='class')"
)

#: The words of the shared parameter texts (``ordframe._core.docstrings.TEXTS``) for this accessor.
_WORDS = {
    "column": "column name",
    "values": "column name",
    "row": "row",
    "aligned": "",
    "missing": "label or group value",
}


class OrdinalDaskFrameAccessor(_OrdinalAccessor):
    """Ordinal evaluation of a dask DataFrame: ``ddf.ordinal.<metric>(true, pred, by=...)``."""

    def __init__(self, ddf: Any):
        self._ddf = ddf

    @fill_doc(**_WORDS)
    def confusion(
        self,
        true: Column,
        pred: Column,
        *,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Hashable | None = None,
        dropna: bool = False,
        observed: bool = False,
    ) -> xr.DataArray:
        """Confusion cube with dims ``(*by, "true", "pred")``, as [`df.ordinal.confusion`][ordframe._accessors.pandas.OrdinalFrameAccessor.confusion]; ``pred`` and ``weights`` name columns.

        Every partition is counted by the pandas front end, so the result equals
        ``ddf.compute().ordinal.confusion(...)``. It is lazy when the classes
        (``labels=`` or ordered categories) and the ``by`` values (categoricals with
        known categories) are declared; otherwise the partitions are read once now.

        Parameters
        ----------
        {frame_cube}
        {observed}

        Returns
        -------
        xarray.DataArray
            Counts, lazy (dask-backed) when the classes and the ``by`` values are declared.

        Examples
        --------
        >>> import dask.dataframe as dd
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1], "fold": [0, 0, 1, 1]})
        >>> cube = dd.from_pandas(df, npartitions=2).ordinal.confusion("y", "yhat", by="fold")
        >>> cube.sel(fold=1).values.tolist()
        [[0, 0, 0], [0, 0, 0], [0, 1, 1]]
        """
        selection = Selection(true, pred, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed)
        return dask_cube(self._ddf, selection)

    @fill_doc(**_WORDS)
    def report(
        self,
        true: Column,
        pred: Column,
        *,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Hashable | None = None,
        dropna: bool = False,
        metrics: MetricSpec = None,
    ) -> xr.Dataset:
        """Per true class ``support``, ``recall``, ``precision``, ``f1`` and ``class_mae``, their averages and the
        overall indices, as [`df.ordinal.report`][ordframe._accessors.pandas.OrdinalFrameAccessor.report].

        Computed from [`confusion`][ordframe._accessors.dask.OrdinalDaskFrameAccessor.confusion] by
        [`ordframe.report_cube`][ordframe.report_cube], so it equals ``ddf.compute().ordinal.report(...)``;
        a report is small, so it is computed now.

        Parameters
        ----------
        {frame_cube}
        {report_metrics}

        Returns
        -------
        xarray.Dataset
            As [`df.ordinal.report`][ordframe._accessors.pandas.OrdinalFrameAccessor.report].

        Examples
        --------
        >>> import dask.dataframe as dd
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]})
        >>> dd.from_pandas(df, npartitions=2).ordinal.report("y", "yhat", metrics=["mae"])["f1"].values.tolist()
        [1.0, 0.0, 0.5]
        """
        cube = self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna)
        return report_cube(cube.compute(), metrics)

    @fill_doc(**_WORDS)
    def evaluate(
        self,
        true: Column,
        pred: Column | None = None,
        *,
        marker: Column | None = None,
        metrics: MetricSpec = None,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Hashable | None = None,
        dropna: bool = False,
        observed: bool = False,
        proba: Any = None,
    ) -> xr.Dataset:
        """A Dataset with one variable per confusion metric (see [`confusion`][confusion] and
        [`df.ordinal.evaluate`][ordframe._accessors.pandas.OrdinalFrameAccessor.evaluate]) and per score metric.

        The score metrics come from the rows reduced per partition to one per (group, class, marker value), summed
        over partitions, and are those of ``ddf.compute()``; they are lazy when the confusion metrics are.

        Parameters
        ----------
        {true}
        pred : column name, optional
            The predicted labels, for the confusion metrics.
        {marker}
        {metric_names}
            Confusion and score metrics (default: every confusion metric with ``pred``, every score metric with
            ``marker``).
        {by}
        {labels}
        {weights}
        {dropna_rows}
        {observed}
        proba : None
            Class probabilities are not taken here (a ``TypeError``): score ``ddf.compute()``
            with ``df.ordinal.evaluate``, or a DataArray of the probabilities (dask-backed if need be).

        Returns
        -------
        xarray.Dataset

        Examples
        --------
        >>> import dask.dataframe as dd
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]})
        >>> float(dd.from_pandas(df, npartitions=2).ordinal.evaluate("y", "yhat", metrics=["mae"])["mae"])
        0.5
        """
        if proba is not None:
            raise TypeError(_NO_PROBABILITIES)
        selection = Selection(true, pred, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed)
        if marker is None:
            return evaluate_cube(dask_cube(self._ddf, selection), metrics)
        selection = selection.but(marker=marker)
        taken = [*map(str, selection.by), *([OBSERVED_DIM] if observed else [])]
        request = selection_request(metrics, selection, taken)
        rows = dask_rows(self._ddf, selection)
        confusion = {out: (m.name, p) for out, (m, p) in request.items() if m.kind == "confusion"}
        score = {out: (m.name, p) for out, (m, p) in request.items() if m.kind == "score"}
        results = []
        if confusion:
            assert rows.cube is not None  # pred= is given: selection_request checked it
            results.append(evaluate_cube(rows.cube, confusion))
        if score:
            results.append(rows.result(lambda df, s: evaluate_frame(df, s, score)))
        return xr.Dataset({out: next(r[out] for r in results if out in r) for out in request})

    @fill_doc(**_WORDS)
    def bootstrap(
        self,
        true: Column,
        pred: Column,
        *,
        model: By = "model",
        sample: Column | None = None,
        strata: By = None,
        cluster: Column | None = None,
        n_resamples: int = 2000,
        seed: Any = None,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        replicate_dim: str = BOOTSTRAP_DIM,
        progress: bool | None = None,
    ) -> xr.DataArray:
        """Paired bootstrap replicate cubes, as [`df.ordinal.bootstrap`][ordframe._accessors.pandas.OrdinalFrameAccessor.bootstrap]; ``sample=`` is required here.

        Parameters
        ----------
        {true_models}
        {pred}
        model : column name
            The column of the models compared, which predict the same samples: one replicate cube per model.
        sample : column name
            Identifies a sample across models (required: a dask DataFrame's rows have no reliable position).
        {strata}
        {cluster}
        {n_resamples}
        {seed_replicates}
            Also those of [`df.ordinal.bootstrap`][ordframe._accessors.pandas.OrdinalFrameAccessor.bootstrap] on
            the computed frame.
        {labels}
        {dropna_rows}
        {replicate_dim}
        {progress}

        Returns
        -------
        xarray.DataArray
            int64 counts with dims ``(replicate_dim, *strata, model, "true", "pred")``.

        Examples
        --------
        >>> import dask.dataframe as dd
        >>> df = pd.DataFrame({"s": [0, 1, 2] * 2, "y": [0, 1, 2] * 2, "yhat": [0, 1, 1, 0, 2, 2], "model": list("aaabbb")})
        >>> boot = dd.from_pandas(df, npartitions=2).ordinal.bootstrap("y", "yhat", model="model", sample="s", n_resamples=100, seed=0)
        >>> boot.dims, int(boot.sum(("true", "pred")).max())
        (('bootstrap', 'model', 'true', 'pred'), 3)
        """
        selection = Selection(true, pred, by=model, labels=labels, dropna=dropna, by_keyword="model")
        draws = Resampling(n_resamples, seed, sample, strata, cluster, progress)
        return dask_bootstrap(self._ddf, selection, draws, replicate_dim)

    def _confusion_method(self, metric: Metric):
        def method(true, pred, *, by=None, labels=None, weights=None, dropna=False, observed=False, **params):
            cube = self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed)
            result = apply_confusion(metric, cube, params)
            return result if by_names(by) else as_scalar(result, metric, lambda: float(cube.sum()) == 0)

        return _method(method, metric, f"ddf.ordinal.{metric.name}(true, pred, *, by=None, labels=None, ...)")

    def _proba_method(self, metric: Metric):
        raise AttributeError(f"{metric.name!r} scores class probabilities: {_NO_PROBABILITIES}")

    def _score_method(self, metric: Metric):
        def method(true, marker, *, by=None, labels=None, weights=None, dropna=False, observed=False, **params):
            selection = Selection(
                true, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed, marker=marker
            )
            rows = dask_rows(self._ddf, selection)
            if by_names(by):
                return rows.result(lambda df, s: rows_metric(metric, frame_rows(df, s), params).to_dataset())[
                    metric.name
                ]
            reduced = frame_rows(rows.computed(), rows.selection)
            return as_scalar(rows_metric(metric, reduced, params), metric, reduced.empty)

        return _method(method, metric, f"ddf.ordinal.{metric.name}(true, marker, *, by=None, labels=None, ...)")
