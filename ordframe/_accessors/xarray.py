"""The ``.ordinal`` accessor of ``xarray.DataArray``: confusion cubes, label arrays and probability arrays."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._accessors.base import _method, _OrdinalAccessor
from ordframe._bridge.apply import apply_confusion, as_scalar, check_cube
from ordframe._bridge.evaluate import evaluate_array, evaluate_frame, rows_metric
from ordframe._bridge.scores import array_scores, mean_scores, no_weight
from ordframe._core.dims import BOOTSTRAP_DIM, CLASS_DIM, CUBE_DIMS
from ordframe._core.docstrings import fill_doc
from ordframe._core.typing import ArrayWeights, ClassLabels, Dims, MetricSpec
from ordframe._diagnostics.calibration import array_samples, calibration, reliability
from ordframe._diagnostics.retention import Retention, array_aursc
from ordframe._diagnostics.worst import worst
from ordframe._inputs.arrays import array_cube
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.marker import marker_frame
from ordframe._inputs.probability import array_inputs
from ordframe._registry.metric import Metric
from ordframe._registry.request import evaluation_request
from ordframe._resampling.cubes import bootstrap_cube

#: The words of the shared parameter texts (``ordframe._core.docstrings.TEXTS``) for this accessor.
_WORDS = {
    "column": "xarray.DataArray",
    "values": "xarray.DataArray",
    "row": "sample",
    "aligned": "; broadcastable against the labels",
    "missing": "label",
}


class OrdinalArrayAccessor(_OrdinalAccessor):
    """Ordinal evaluation of a confusion cube (``cube.ordinal.oc()``), of predicted labels
    (``pred.ordinal.mae(true)``) or of class probabilities (``proba.ordinal.rps(true)``)."""

    def __init__(self, obj: xr.DataArray):
        self._obj = obj

    @fill_doc(**_WORDS)
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
        {true}
            Broadcastable against these predictions; the coordinates must agree exactly.
        dim : str or list of str, optional
            The sample dims counted over; the other dims stack matrices.
        {labels_array}
        {weights}
        {dropna_rows}
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

    @fill_doc(**_WORDS)
    def evaluate(
        self,
        true: xr.DataArray | None = None,
        *,
        metrics: MetricSpec = None,
        class_dim: Hashable | None = None,
        pred: xr.DataArray | None = None,
        marker: xr.DataArray | None = None,
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
        probabilities (confusion metrics then use ``pred`` or the most probable class);
        with ``marker=``, the score metrics too.

        Parameters
        ----------
        true : xarray.DataArray, optional
            True labels (not for a cube).
        {metric_names}
            Default: every confusion metric (and every proba metric for probabilities).
        class_dim : str, optional
            The dim of class probabilities; without it this array holds labels or is a cube.
        pred : xarray.DataArray, optional
            Predicted labels for the confusion metrics when this array holds probabilities.
        marker : xarray.DataArray, optional
            A continuous score per sample, aligned with the labels, for the score metrics (``orc``, ``vus``, ...);
            the default metrics then include every score metric. Not with ``dropna=True`` (a score metric of its
            own arrays drops what they miss: ``marker.ordinal.orc(true, dropna=True)``).
        dim : str or list of str, optional
            The sample dims, counted over for confusion metrics and averaged over for proba metrics (default: all
            but ``class_dim``); the other dims stack results.
        {labels_array}
        {weights}
        {dropna_proba}
        {renormalize}

        Returns
        -------
        xarray.Dataset

        Raises
        ------
        TypeError, ValueError
            For arguments that do not apply to this kind of array, bad metric
            specifications, or as in [`confusion`][confusion].

        Examples
        --------
        >>> cube = xr.DataArray([[3, 1], [0, 4]], dims=("true", "pred"))
        >>> float(cube.ordinal.evaluate(metrics=["accuracy"])["accuracy"])
        0.875
        """
        if marker is not None:
            return self._marked(true, marker, metrics, class_dim, pred, dim, labels, weights, dropna, renormalize)
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

    def _marked(self, true, marker, metrics, class_dim, pred, dim, labels, weights, dropna, renormalize) -> xr.Dataset:
        """``evaluate`` with a marker: the score metrics on the label and score arrays, the others as without."""
        if true is None or dropna:
            raise TypeError(
                "marker= scores the true labels (pass true), each metric on the same samples: drop missing values "
                "first, or score the marker alone, marker.ordinal.orc(true, dropna=True)"
            )
        taken = [d for a in (self._obj, true, marker) for d in a.dims]
        request = evaluation_request(
            metrics, probabilities=class_dim is not None, predicted=True, marked=True, taken=taken
        )
        score = {out: (m.name, p) for out, (m, p) in request.items() if m.kind == "score"}
        others = {out: (m.name, p) for out, (m, p) in request.items() if m.kind != "score"}
        results = []
        if others:
            arguments = {"class_dim": class_dim, "pred": pred, "dim": dim, "labels": labels, "weights": weights}
            results.append(self.evaluate(true, metrics=others, renormalize=renormalize, **arguments))
        if score:
            table, selection = marker_frame(true, marker, dim=dim, labels=labels, weights=weights)
            results.append(evaluate_frame(table, selection, score))
        return xr.Dataset({out: next(r[out] for r in results if out in r) for out in request})

    @fill_doc(**_WORDS)
    def report(self, metrics: MetricSpec = None) -> xr.Dataset:
        """Per true class ``support``, ``recall``, ``precision``, ``f1`` and ``class_mae`` of this confusion cube,
        their macro and weighted averages, and the overall indices (see [`ordframe.report_cube`][ordframe.report_cube]).

        Parameters
        ----------
        {report_metrics}

        Returns
        -------
        xarray.Dataset
            Per-class variables with dims ``(*other dims, "class")``; their averages (``recall_macro``, ...,
            ``f1_weighted``, ``class_mae_weighted``) and the overall indices with the other dims.

        Examples
        --------
        >>> cube = xr.DataArray([[3, 1], [0, 4]], dims=("true", "pred"))
        >>> cube.ordinal.report(metrics=["accuracy"])["precision"].values.tolist()
        [1.0, 0.8]
        """
        from ordframe._diagnostics.report import report_cube

        return report_cube(self._obj, metrics)

    @fill_doc(**_WORDS)
    def worst(
        self,
        true: xr.DataArray,
        *,
        score: str | tuple[str, dict] = "rps",
        top: int = 10,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        renormalize: bool = False,
        class_dim: Hashable = CLASS_DIM,
        **params: Any,
    ) -> pd.DataFrame:
        """The ``top`` samples of these class probabilities with the worst per-sample ``score``, worst first.

        The same as [`ordframe.worst`][ordframe.worst] on this array.

        Parameters
        ----------
        {true}
        score : str or (str, dict)
            A proba metric (``rps``, ``sarps``, ``brier``, ``log_score`` or a plugin's).
        top : int
            How many samples to return.
        {labels_array}
        {dropna_proba}
        {renormalize}
        {class_dim}
        **params
            Parameters of ``score``.

        Returns
        -------
        pandas.DataFrame
            The true label, the probabilities, the most probable class (``argmax``)
            and the score, indexed by the samples' coordinates.
        """
        return worst(
            self._obj,
            true,
            score=score,
            top=top,
            labels=labels,
            dropna=dropna,
            renormalize=renormalize,
            class_dim=class_dim,
            **params,
        )

    @fill_doc(**_WORDS)
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

        This array holds the class probabilities. The same as the DataFrame method
        ([`df.ordinal.aursc`][ordframe._accessors.pandas.OrdinalFrameAccessor.aursc]),
        with ``dim`` and ``class_dim`` in place of ``by`` and ``observed``.

        Parameters
        ----------
        {true}
        {retention}
        pred : xarray.DataArray, optional
            Predicted labels (default: the most probable class).
        {proba_samples}

        Returns
        -------
        xarray.Dataset
            ``curve``, ``aursc`` and ``n_retained`` per index of the other dims.
        """
        return array_aursc(
            self._obj,
            true,
            Retention(score, metric, fractions),
            pred=pred,
            dim=dim,
            labels=labels,
            weights=weights,
            dropna=dropna,
            renormalize=renormalize,
            class_dim=class_dim,
        )

    @fill_doc(**_WORDS)
    def calibration(
        self,
        true: xr.DataArray,
        *,
        method: str = "corp",
        dim: Dims = None,
        labels: ClassLabels | None = None,
        weights: ArrayWeights = None,
        dropna: bool = False,
        renormalize: bool = False,
        class_dim: Hashable = CLASS_DIM,
        normalize: bool = True,
    ) -> xr.Dataset:
        """Decompositions of the Brier score of every cumulative threshold and of the RPS, and ordinal ECEs.

        This array holds the class probabilities. The same as the DataFrame method
        ([`df.ordinal.calibration`][ordframe._accessors.pandas.OrdinalFrameAccessor.calibration]),
        with ``dim`` and ``class_dim`` in place of ``by`` and ``observed``. A dask-backed array is computed.

        Parameters
        ----------
        {true}
        {recalibration}
        {proba_samples}
        {normalize_rps}

        Returns
        -------
        xarray.Dataset
            ``brier`` (dims ``threshold``, ``component``), ``rps`` (dim ``component``),
            ``ece`` (dim ``threshold``) and ``ordinal_ece``, per index of the other dims.
        """
        samples = array_samples(
            self._obj,
            true,
            dim=dim,
            labels=labels,
            weights=weights,
            dropna=dropna,
            renormalize=renormalize,
            class_dim=class_dim,
        )
        return calibration(samples, method=method, normalize=normalize)

    @fill_doc(**_WORDS)
    def reliability(
        self,
        true: xr.DataArray,
        *,
        method: str = "corp",
        n_resamples: int = 100,
        level: float = 0.9,
        seed: int | np.random.Generator | None = None,
        dim: Dims = None,
        labels: ClassLabels | None = None,
        weights: ArrayWeights = None,
        dropna: bool = False,
        renormalize: bool = False,
        class_dim: Hashable = CLASS_DIM,
    ) -> xr.Dataset:
        """Reliability curves of every cumulative threshold, with consistency bands, for [`ordframe.plot.reliability`][ordframe.plot.reliability].

        This array holds the class probabilities. The same as the DataFrame method
        ([`df.ordinal.reliability`][ordframe._accessors.pandas.OrdinalFrameAccessor.reliability]),
        with ``dim`` and ``class_dim`` in place of ``by`` and ``observed``.

        Parameters
        ----------
        {true}
        {bands}
        {proba_samples}

        Returns
        -------
        xarray.Dataset
            As [`df.ordinal.reliability`][ordframe._accessors.pandas.OrdinalFrameAccessor.reliability].
        """
        samples = array_samples(
            self._obj,
            true,
            dim=dim,
            labels=labels,
            weights=weights,
            dropna=dropna,
            renormalize=renormalize,
            class_dim=class_dim,
        )
        return reliability(samples, method=method, n_resamples=n_resamples, level=level, seed=seed)

    @fill_doc(**_WORDS)
    def bootstrap(
        self,
        n_resamples: int = 2000,
        *,
        seed: Any = None,
        replicate_dim: str = BOOTSTRAP_DIM,
        stratify: bool = False,
        progress: bool | None = None,
    ) -> xr.DataArray:
        """``n_resamples`` bootstrap replicates of every matrix of this confusion cube (see [`ordframe.bootstrap_cube`][ordframe.bootstrap_cube]).

        Drawing N samples with replacement is a multinomial draw over the cells;
        ``stratify=True`` keeps every true class's size. Every metric runs on the
        result: ``cube.ordinal.bootstrap(2000).ordinal.oc().quantile([0.025, 0.975], "bootstrap")``.

        Parameters
        ----------
        {n_resamples}
        {seed_replicates}
        {replicate_dim}
        {stratify}
        {progress}

        Returns
        -------
        xarray.DataArray
            int64 counts with dims ``(replicate_dim, *this cube's dims)``.
        """
        return bootstrap_cube(
            self._obj, n_resamples, seed=seed, replicate_dim=replicate_dim, stratify=stratify, progress=progress
        )

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

    def _score_method(self, metric: Metric):
        obj = self._obj

        def method(true, *, dim=None, labels=None, weights=None, dropna=False, **params):
            table, selection = marker_frame(true, obj, dim=dim, labels=labels, weights=weights, dropna=dropna)
            rows = frame_rows(table, selection)
            return as_scalar(rows_metric(metric, rows, params), metric, rows.empty)

        return _method(method, metric, f"marker.ordinal.{metric.name}(true, *, dim=None, labels=None, ...)")

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
