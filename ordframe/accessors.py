"""The ``.ordinal`` accessors of ``pandas.DataFrame`` and ``xarray.DataArray``.

They only parse arguments and call the layers below (``frame`` and
``confusion`` build cubes, ``scores`` averages per-sample scores, ``apply``
runs kernels). Every registered metric is reachable as a method, looked up in
the registry at call time, with a signature that shows its parameters.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from . import registry
from .apply import apply_confusion, as_scalar, check_cube
from .confusion import array_cube
from .dims import CLASS_DIM, CUBE_DIMS
from .evaluate import evaluate_array, evaluate_frame, worst
from .frame import frame_rows
from .metric import Metric
from .paired import frame_bootstrap
from .probability import array_inputs
from .resample import BOOTSTRAP_DIM, bootstrap_cube
from .retention import array_aursc, frame_aursc
from .scores import array_scores, frame_scores, mean_scores, no_weight
from .types import ArrayWeights, By, ClassLabels, Column, Dims, MetricSpec, ProbaColumns, Weights


def _method(func, metric: Metric, call: str):
    """``func`` named, documented and signed as the accessor method of ``metric``: its ``**params`` become
    the metric's own keyword parameters with their defaults."""
    signature = inspect.signature(func)
    given = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    clash = sorted(set(metric.defaults) & {p.name for p in given})
    if clash:
        raise TypeError(
            f"metric {metric.name!r} has parameter(s) {clash} with the name of an accessor argument; "
            "its plugin must rename them"
        )
    params = "".join(f"\n{k} : default {v!r}\n    A parameter of {metric.name}." for k, v in metric.defaults.items())
    func.__name__ = func.__qualname__ = metric.name
    func.__signature__ = signature.replace(parameters=[*given, *metric.parameters])
    func.__doc__ = (
        f"{metric.description}\n\n{call}\n\n"
        f"Parameters\n----------\n(the front-end arguments are those of ``confusion``/``evaluate``){params}\n\n"
        f"Returns\n-------\nfloat or xarray.DataArray\n    A float for one matrix or sample set (NaN with a "
        f"RuntimeWarning when undefined), else one value per group; {metric.direction}, "
        f"bounds {metric.bounds}.\n\n"
        f"References\n----------\n{metric.reference or 'none given'}"
    )
    return func


class _OrdinalAccessor:
    def __dir__(self):
        return sorted(set(super().__dir__()) | set(registry.metric_names()))

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            metric = registry.get_metric(name)
        except KeyError:
            close = difflib.get_close_matches(name, dir(self), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise AttributeError(f"'.ordinal' has no method or metric {name!r}{hint}") from None
        return self._metric_method(metric)

    def _metric_method(self, metric: Metric):
        if metric.kind == "confusion":
            return self._confusion_method(metric)
        return self._proba_method(metric)

    def _confusion_method(self, metric: Metric):
        raise NotImplementedError

    def _proba_method(self, metric: Metric):
        raise NotImplementedError


@pd.api.extensions.register_dataframe_accessor("ordinal")
class OrdinalFrameAccessor(_OrdinalAccessor):
    """Ordinal evaluation of label columns: ``df.ordinal.<metric>(true, pred, by=...)``."""

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def confusion(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray,
        *,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Weights = None,
        dropna: bool = False,
        observed: bool = False,
    ) -> xr.DataArray:
        """Confusion cube with dims ``(*by, "true", "pred")`` (rows = true class).

        Parameters
        ----------
        true, pred : column name
            The true and predicted labels (``pred`` may also be one label per row).
        by : column name or list of column names, optional
            One matrix per combination; each becomes a dim whose coordinate holds
            the sorted values (or the categorical order). A combination without
            rows is a zero matrix.
        labels : list, optional
            The classes in order (default: ordered categories or sorted numbers).
        weights : column name, Series or array, optional
            One weight per row (a Series is matched by row label).
        dropna : bool
            Drop rows with a missing label or group value (default: an error).
        observed : bool
            Stack only the ``by`` combinations that occur into one ``group`` dim.

        Returns
        -------
        xarray.DataArray
            int64 counts (float64 with weights).

        Raises
        ------
        KeyError, ValueError, TypeError, MemoryError
            For absent columns, labels outside ``labels``, missing values, bad
            arguments, or a dense cube above ``max_cube_bytes``.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2], "yhat": [0, 2, 2]})
        >>> df.ordinal.confusion("y", "yhat").values.tolist()
        [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
        """
        return frame_rows(
            self._df, true, pred, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed
        ).cube()

    def evaluate(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray | None = None,
        *,
        proba: ProbaColumns | None = None,
        metrics: MetricSpec = None,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Weights = None,
        dropna: bool = False,
        renormalize: bool = False,
        observed: bool = False,
        bootstrap: int | None = None,
        seed: Any = None,
        sample: Column | None = None,
        strata: By = None,
    ) -> xr.Dataset:
        """A Dataset with one variable per metric.

        Parameters
        ----------
        true, pred : column name
            True and predicted labels; without ``pred``, confusion metrics use
            the most probable class of ``proba``.
        proba : list or dict, optional
            Probability columns, a list in class order or a dict label -> column.
            With ``pred``, a ``by`` group whose probabilities are missing in every
            row (a model that predicts labels only) keeps its label metrics and
            gets NaN probability metrics.
        metrics : str, list or dict, optional
            Metric names, or ``{output name: name | (name, {params})}``. Default:
            every confusion metric, and every proba metric when ``proba`` is given.
        by, labels, weights, dropna, observed
            As in :meth:`confusion`.
        renormalize : bool
            Divide each probability row by its sum instead of requiring 1.
        bootstrap : int, optional
            Compute every metric on this many paired bootstrap replicates of the
            samples shared by the models in ``by`` (a ``bootstrap`` dim), the same
            replicates for confusion and probability metrics; see :meth:`bootstrap`
            for ``seed``, ``sample`` and ``strata``.

        Returns
        -------
        xarray.Dataset

        Raises
        ------
        ValueError
            If an output name is also a ``by`` column, or as in :meth:`confusion`.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]})
        >>> float(df.ordinal.evaluate("y", "yhat", metrics=["mae"])["mae"])
        0.5
        >>> df["model"] = ["a", "a", "b", "b"]  # model b predicts labels only
        >>> df[["p0", "p1", "p2"]] = [[0.8, 0.1, 0.1], [0.1, 0.2, 0.7], [np.nan] * 3, [np.nan] * 3]
        >>> import warnings
        >>> with warnings.catch_warnings(record=True):  # a RuntimeWarning names model b
        ...     ds = df.ordinal.evaluate("y", "yhat", proba=["p0", "p1", "p2"], by="model", metrics=["mae", "rps"])
        >>> ds.to_pandas()
               mae     rps
        model
        a      0.5  0.1375
        b      0.5     NaN
        """
        return evaluate_frame(
            self._df,
            true,
            pred,
            proba=proba,
            metrics=metrics,
            by=by,
            labels=labels,
            weights=weights,
            dropna=dropna,
            renormalize=renormalize,
            observed=observed,
            bootstrap=bootstrap,
            seed=seed,
            sample=sample,
            strata=strata,
        )

    def report(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray,
        *,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Weights = None,
        dropna: bool = False,
        metrics: MetricSpec = None,
    ) -> xr.Dataset:
        """Per true class ``support``, ``recall``, ``precision`` and ``class_mae``, and the overall indices.

        Computed from the confusion cube (see :meth:`confusion`) by
        :func:`ordframe.report.report_cube`; ``print(ordframe.report.format_report(ds))``
        prints it like scikit-learn's ``classification_report``.

        Parameters
        ----------
        true, pred, by, labels, weights, dropna
            As in :meth:`confusion`.
        metrics : str, list or dict, optional
            The overall indices, as in :meth:`evaluate` (default
            ``ordframe.report.DEFAULT_METRICS``: accuracy, mae, amae, ms, gm, qwk, oc, uoc, rint).

        Returns
        -------
        xarray.Dataset
            Per-class variables with dims ``(*by, "class")``, overall indices with dims ``by``.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]})
        >>> ds = df.ordinal.report("y", "yhat", metrics=["mae"])
        >>> ds["recall"].values.tolist(), float(ds["mae"])
        ([1.0, 0.0, 0.5], 0.5)
        """
        from .report import report_cube

        cube = frame_rows(self._df, true, pred, by=by, labels=labels, weights=weights, dropna=dropna).cube()
        return report_cube(cube, metrics)

    def worst(
        self,
        true: Column,
        proba: ProbaColumns,
        *,
        score: str | tuple[str, dict] = "rps",
        n: int = 10,
        by: By = None,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        renormalize: bool = False,
        **params: Any,
    ) -> pd.DataFrame:
        """The ``n`` rows with the worst per-sample ``score``, worst first (see :func:`ordframe.worst`).

        With ``by``, the ``n`` worst rows of every group, with the ``by`` columns first.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 2], "p0": [0.9, 0.9], "p1": [0.1, 0.1], "p2": [0.0, 0.0]})
        >>> df.ordinal.worst("y", ["p0", "p1", "p2"], n=1, labels=[0, 1, 2]).index.tolist()
        [1]
        """
        return worst(
            self._df,
            true,
            proba,
            score=score,
            n=n,
            by=by,
            labels=labels,
            dropna=dropna,
            renormalize=renormalize,
            **params,
        )

    def aursc(
        self,
        true: Column,
        proba: ProbaColumns,
        *,
        score: str | tuple[str, dict] = "rps",
        metric: str | tuple[str, dict] = "qwk",
        fractions: Sequence[float] | None = None,
        pred: Column | pd.Series | np.ndarray | None = None,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Weights = None,
        dropna: bool = False,
        renormalize: bool = False,
        observed: bool = False,
    ) -> xr.Dataset:
        """Retained-samples curve of ``metric`` as the worst rows under ``score`` go, and its area.

        Parameters
        ----------
        true : column name
            True labels.
        proba : list or dict
            Probability columns, in class order or as a dict label -> column.
        score : str or (str, dict)
            The proba metric that orders the rows (worst first); a list gives a ``score`` dim.
        metric : str or (str, dict)
            The confusion metric computed on the rows retained.
        fractions : list of float, optional
            Retained fractions in (0, 1] (default 1.00, 0.99, ..., 0.50).
        pred : column name, optional
            Predicted labels (default: the most probable class).
        by, labels, weights, dropna, renormalize, observed
            As in :meth:`evaluate`.

        Returns
        -------
        xarray.Dataset
            ``curve`` (dim ``retained``, from 1 down), ``aursc`` (its normalised
            area) and ``n_retained``, per group.

        Raises
        ------
        ValueError, TypeError
            For fractions outside (0, 1], metrics of the wrong kind, or as in :meth:`evaluate`.
        """
        return frame_aursc(
            self._df,
            true,
            proba,
            score=score,
            metric=metric,
            fractions=fractions,
            pred=pred,
            by=by,
            labels=labels,
            weights=weights,
            dropna=dropna,
            renormalize=renormalize,
            observed=observed,
        )

    def bootstrap(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray,
        *,
        by: By = "model",
        sample: Column | None = None,
        strata: By = None,
        n: int = 1000,
        seed: Any = None,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        dim: str = BOOTSTRAP_DIM,
        progress: bool | None = None,
    ) -> xr.DataArray:
        """Paired bootstrap replicate cubes of the models in ``by``, resampling the samples they share.

        The same resample of samples applies to every model, so differences
        between models keep their correlation; drawn as multinomial counts of the
        samples' (true, prediction of each model) patterns, which reproduces row
        resampling exactly without touching rows per replicate (``ordframe.paired``).

        Parameters
        ----------
        true, pred : column name
            True and predicted labels, one row per (sample, model).
        by : column name or list of column names
            The models compared: one replicate cube per model.
        sample : column name, optional
            Identifies a sample across models (default: the row's position within its model and stratum).
        strata : column name or list, optional
            Groups resampled independently, each keeping its size (e.g. ``"fold"``).
        n : int
            The number of replicates.
        seed : None, int or numpy.random.Generator
            The same seed gives the same replicates.
        labels, dropna
            As in :meth:`confusion`.
        dim : str
            The name of the replicate dim.
        progress : bool, optional
            Show a progress bar (default: in an interactive terminal, for runs longer than a couple of seconds).

        Returns
        -------
        xarray.DataArray
            int64 counts with dims ``(dim, *strata, *by, "true", "pred")``.

        Raises
        ------
        ValueError
            If a model lacks a sample or has it twice, or a sample's true label differs between models.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 0, 1, 2], "yhat": [0, 1, 1, 0, 2, 2], "model": list("aaabbb")})
        >>> boot = df.ordinal.bootstrap("y", "yhat", by="model", n=500, seed=0)
        >>> boot.dims
        ('bootstrap', 'model', 'true', 'pred')
        >>> diff = boot.ordinal.mae().diff("model")
        >>> bool((boot.sum(("true", "pred")) == 3).all())
        True
        """
        return frame_bootstrap(
            self._df,
            true,
            pred,
            by=by,
            sample=sample,
            strata=strata,
            n=n,
            seed=seed,
            labels=labels,
            dropna=dropna,
            dim=dim,
            progress=progress,
        )

    def _confusion_method(self, metric: Metric):
        def method(true, pred, *, by=None, labels=None, weights=None, dropna=False, observed=False, **params):
            rows = frame_rows(
                self._df, true, pred, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed
            )
            result = apply_confusion(metric, rows.cube(), params)
            return as_scalar(result, metric, rows.empty)

        return _method(method, metric, f"df.ordinal.{metric.name}(true, pred, *, by=None, labels=None, ...)")

    def _proba_method(self, metric: Metric):
        def method(
            true,
            proba,
            *,
            by=None,
            labels=None,
            weights=None,
            dropna=False,
            renormalize=False,
            observed=False,
            **params,
        ):
            rows = frame_rows(
                self._df,
                true,
                proba=proba,
                by=by,
                labels=labels,
                weights=weights,
                dropna=dropna,
                renormalize=renormalize,
                observed=observed,
            )
            result = rows.mean(frame_scores(metric, rows, params), metric.name)
            return as_scalar(result, metric, rows.empty)

        return _method(method, metric, f"df.ordinal.{metric.name}(true, proba, *, by=None, labels=None, ...)")


@xr.register_dataarray_accessor("ordinal")
class OrdinalArrayAccessor(_OrdinalAccessor):
    """Ordinal evaluation of a confusion cube (``cube.ordinal.oc()``), of predicted labels
    (``pred.ordinal.mae(true)``) or of class probabilities (``proba.ordinal.rps(true)``)."""

    def __init__(self, obj: xr.DataArray):
        self._obj = obj

    def confusion(
        self,
        true: xr.DataArray,
        *,
        dim: Dims = None,
        labels: ClassLabels | None = None,
        weights: ArrayWeights = None,
        dropna: bool = False,
        class_dim: Hashable | None = None,
    ) -> xr.DataArray:
        """Confusion cube of these predicted labels against ``true``, counted over ``dim`` (default: all dims).

        Parameters
        ----------
        true : xarray.DataArray
            True labels, broadcastable against these predictions; coordinates must agree exactly.
        dim : str or list of str, optional
            The sample dims counted over; the other dims stack matrices.
        labels : list, optional
            The classes in order (default: sorted numeric labels).
        weights : xarray.DataArray, optional
            Finite weights >= 0, broadcastable against the labels.
        dropna : bool
            Leave out samples with a missing label (default: an error).
        class_dim : str, optional
            If given, this array holds class probabilities along that dim and its
            most probable class is the prediction.

        Returns
        -------
        xarray.DataArray
            Counts with dims ``(*other dims, "true", "pred")``; lazy for dask-backed inputs.

        Raises
        ------
        TypeError, ValueError, MemoryError
            For inputs that are not DataArrays, labels outside ``labels``, missing
            labels, disagreeing coordinates, or a cube above ``max_cube_bytes``.

        Examples
        --------
        >>> pred = xr.DataArray([0, 2, 2], dims="sample")
        >>> pred.ordinal.confusion(xr.DataArray([0, 1, 2], dims="sample")).values.tolist()
        [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
        """
        if class_dim is not None:
            inputs = array_inputs(self._obj, true, labels=labels, dropna=dropna, class_dim=class_dim)
            return inputs.cube(dim=dim, weights=weights)
        return array_cube(true, self._obj, dim=dim, labels=labels, weights=weights, dropna=dropna)

    def evaluate(
        self,
        true: xr.DataArray | None = None,
        *,
        metrics: MetricSpec = None,
        class_dim: Hashable | None = None,
        pred: xr.DataArray | None = None,
        dim: Dims = None,
        labels: ClassLabels | None = None,
        weights: ArrayWeights = None,
        dropna: bool = False,
        renormalize: bool = False,
    ) -> xr.Dataset:
        """A Dataset with one variable per metric.

        ``cube.ordinal.evaluate(metrics=...)`` on a confusion cube,
        ``pred.ordinal.evaluate(true, metrics=...)`` on predicted labels, and
        ``proba.ordinal.evaluate(true, class_dim="class")`` on class
        probabilities (confusion metrics then use ``pred`` or the most probable class).

        Parameters
        ----------
        true : xarray.DataArray, optional
            True labels (not for a cube).
        metrics : str, list or dict, optional
            Metric names, or ``{output name: name | (name, {params})}``. Default:
            every confusion metric (and every proba metric for probabilities).
        class_dim : str, optional
            The dim of class probabilities; without it this array holds labels or is a cube.
        pred : xarray.DataArray, optional
            Predicted labels for the confusion metrics when this array holds probabilities.
        dim, labels, weights, dropna
            As in :meth:`confusion`; ``dim`` also names the dims averaged for proba metrics.
        renormalize : bool
            Divide each probability vector by its sum instead of requiring 1.

        Returns
        -------
        xarray.Dataset

        Raises
        ------
        TypeError, ValueError
            For arguments that do not apply to this kind of array, bad metric
            specifications, or as in :meth:`confusion`.

        Examples
        --------
        >>> cube = xr.DataArray([[3, 1], [0, 4]], dims=("true", "pred"))
        >>> float(cube.ordinal.evaluate(metrics=["accuracy"])["accuracy"])
        0.875
        """
        return evaluate_array(
            self._obj,
            true,
            metrics=metrics,
            class_dim=class_dim,
            pred=pred,
            dim=dim,
            labels=labels,
            weights=weights,
            dropna=dropna,
            renormalize=renormalize,
        )

    def report(self, metrics: MetricSpec = None) -> xr.Dataset:
        """Per true class ``support``, ``recall``, ``precision`` and ``class_mae`` of this confusion cube, and
        the overall indices (see :func:`ordframe.report.report_cube`).

        Parameters
        ----------
        metrics : str, list or dict, optional
            The overall indices, as in :meth:`evaluate` (default ``ordframe.report.DEFAULT_METRICS``).

        Returns
        -------
        xarray.Dataset
            Per-class variables with dims ``(*other dims, "class")``, overall indices with the other dims.

        Examples
        --------
        >>> cube = xr.DataArray([[3, 1], [0, 4]], dims=("true", "pred"))
        >>> cube.ordinal.report(metrics=["accuracy"])["precision"].values.tolist()
        [1.0, 0.8]
        """
        from .report import report_cube

        return report_cube(self._obj, metrics)

    def worst(
        self,
        true: xr.DataArray,
        *,
        score: str | tuple[str, dict] = "rps",
        n: int = 10,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        renormalize: bool = False,
        class_dim: Hashable = CLASS_DIM,
        **params: Any,
    ) -> pd.DataFrame:
        """The ``n`` samples of these class probabilities with the worst per-sample ``score``.

        See :func:`ordframe.worst` for the parameters and the table returned.
        """
        return worst(
            self._obj,
            true,
            score=score,
            n=n,
            labels=labels,
            dropna=dropna,
            renormalize=renormalize,
            class_dim=class_dim,
            **params,
        )

    def aursc(
        self,
        true: xr.DataArray,
        *,
        score: str | tuple[str, dict] = "rps",
        metric: str | tuple[str, dict] = "qwk",
        fractions: Sequence[float] | None = None,
        pred: xr.DataArray | None = None,
        dim: Dims = None,
        labels: ClassLabels | None = None,
        weights: ArrayWeights = None,
        dropna: bool = False,
        renormalize: bool = False,
        class_dim: Hashable = CLASS_DIM,
    ) -> xr.Dataset:
        """Retained-samples curve of ``metric`` as the worst samples under ``score`` go, and its area.

        The parameters are those of the DataFrame method (``pd.DataFrame.ordinal.aursc``),
        with ``dim`` (the sample dims, default all) and ``class_dim`` (the class
        probabilities' dim) in place of ``by`` and ``observed``.

        Returns
        -------
        xarray.Dataset
            ``curve``, ``aursc`` and ``n_retained`` per index of the other dims.
        """
        return array_aursc(
            self._obj,
            true,
            score=score,
            metric=metric,
            fractions=fractions,
            pred=pred,
            dim=dim,
            labels=labels,
            weights=weights,
            dropna=dropna,
            renormalize=renormalize,
            class_dim=class_dim,
        )

    def bootstrap(
        self,
        n: int = 1000,
        *,
        seed: Any = None,
        dim: str = BOOTSTRAP_DIM,
        stratify: bool = False,
        progress: bool | None = None,
    ) -> xr.DataArray:
        """``n`` bootstrap replicates of every matrix of this confusion cube (see :func:`ordframe.resample.bootstrap_cube`).

        Drawing N samples with replacement is a multinomial draw over the cells;
        ``stratify=True`` keeps every true class's size. Every metric runs on the
        result: ``cube.ordinal.bootstrap(2000).ordinal.oc().quantile([0.025, 0.975], "bootstrap")``.
        """
        return bootstrap_cube(self._obj, n, seed=seed, dim=dim, stratify=stratify, progress=progress)

    def _confusion_method(self, metric: Metric):
        obj = self._obj

        def method(true=None, *, dim=None, labels=None, weights=None, dropna=False, **params):
            if true is None:
                given = [k for k, v in {"dim": dim, "labels": labels, "weights": weights}.items() if v is not None]
                if given or dropna is not False:
                    raise TypeError(
                        f"{given or ['dropna']} only apply to label arrays; this is already a confusion cube"
                    )
                check_cube(obj)
                cube = obj
            else:
                if all(d in obj.dims for d in CUBE_DIMS):
                    raise TypeError("this array is a confusion cube; call its metrics without true labels")
                cube = array_cube(true, obj, dim=dim, labels=labels, weights=weights, dropna=dropna)
            result = apply_confusion(metric, cube, params)
            return as_scalar(result, metric, lambda: float(cube.sum()) == 0)

        call = f"cube.ordinal.{metric.name}() or pred.ordinal.{metric.name}(true, *, dim=None, labels=None, ...)"
        return _method(method, metric, call)

    def _proba_method(self, metric: Metric):
        obj = self._obj

        def method(
            true, *, dim=None, labels=None, weights=None, dropna=False, renormalize=False, class_dim=CLASS_DIM, **params
        ):
            inputs = array_inputs(obj, true, labels=labels, renormalize=renormalize, dropna=dropna, class_dim=class_dim)
            scores = array_scores(metric, inputs, params)
            result = mean_scores(scores, dim=dim, weights=weights)
            return as_scalar(result, metric, lambda: no_weight(scores, weights))

        return _method(method, metric, f"proba.ordinal.{metric.name}(true, *, dim=None, class_dim='class', ...)")
