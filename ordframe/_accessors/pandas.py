"""The ``.ordinal`` accessor of ``pandas.DataFrame``: label and probability columns, grouped by ``by`` columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._accessors.base import _method, _OrdinalAccessor
from ordframe._bridge.apply import as_scalar
from ordframe._bridge.evaluate import evaluate_frame, rows_metric
from ordframe._core.checks import check_flag
from ordframe._core.dims import BOOTSTRAP_DIM
from ordframe._core.docstrings import fill_doc
from ordframe._core.drawing import Resampling
from ordframe._core.typing import By, ClassLabels, Column, MetricSpec, ProbaColumns, Weights
from ordframe._diagnostics.calibration import calibration, frame_samples, reliability
from ordframe._diagnostics.decisions import frame_decide, frame_evaluate
from ordframe._diagnostics.retention import Retention, frame_aursc
from ordframe._diagnostics.worst import worst
from ordframe._inference.agreement import frame_alpha, resampling
from ordframe._inference.compare import frame_compare
from ordframe._inference.intervals import frame_ci
from ordframe._inference.paired_tests import frame_paired_tests
from ordframe._inference.skill import CLIMATOLOGY, frame_skill
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection
from ordframe._registry.interval_methods import choices
from ordframe._registry.metric import Metric
from ordframe._resampling.paired import bootstrap_evaluate, frame_bootstrap

#: The words of the shared parameter texts (``ordframe._core.docstrings.TEXTS``) for this accessor.
_WORDS = {
    "column": "column name",
    "values": "column name, Series or array",
    "row": "row",
    "aligned": "; a Series is matched by row label",
    "missing": "label or group value",
}


class OrdinalFrameAccessor(_OrdinalAccessor):
    """Ordinal evaluation of label columns: ``df.ordinal.<metric>(true, pred, by=...)``."""

    def __init__(self, df: pd.DataFrame):
        self._df = df

    @fill_doc(**_WORDS)
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
        {frame_cube}
        {observed}

        Returns
        -------
        xarray.DataArray
            int64 counts (float64 with weights); a ``by`` combination without rows is a zero matrix.

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
        selection = Selection(true, pred, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed)
        return frame_rows(self._df, selection).cube()

    @fill_doc(**_WORDS)
    def evaluate(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray | None = None,
        *,
        proba: ProbaColumns | None = None,
        marker: Column | None = None,
        metrics: MetricSpec = None,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Weights = None,
        dropna: bool = False,
        renormalize: bool = False,
        observed: bool = False,
        n_resamples: int | None = None,
        seed: Any = None,
        sample: Column | None = None,
        strata: By = None,
        cluster: Column | None = None,
        decisions: bool = False,
    ) -> xr.Dataset:
        """A Dataset with one variable per metric.

        Parameters
        ----------
        {true}
        {pred_or_proba}
        {proba_optional}
            With ``pred``, a ``by`` group whose probabilities are missing in every row (a model that predicts labels
            only) keeps its label metrics and gets NaN probability metrics.
        {marker}
        {metrics}
        {by}
            With ``n_resamples``, the models compared, which predict the same samples.
        {labels}
        {weights}
            Not with ``n_resamples``.
        {dropna_proba}
        {renormalize}
        {observed}
            Not with ``n_resamples``.
        n_resamples : int, optional
            Compute every metric on this many paired bootstrap replicates of the samples shared by the models in
            ``by`` (a ``bootstrap`` dim), the same replicates for confusion and probability metrics (see
            [`bootstrap`][bootstrap]).
        {seed_replicates}
            With ``n_resamples`` only.
        {sample}
            With ``n_resamples`` only.
        {strata}
            With ``n_resamples`` only.
        {cluster}
            With ``n_resamples`` only.
        decisions : bool
            Also score each model at the decision that fits the metric: for ``accuracy`` and ``mer`` (loss
            ``"zero_one"``), ``mae`` (``"absolute"``), ``mse`` (``"squared"``) and ``expected_cost`` (its ``cost``),
            a variable ``<output>_at_decision``: the metric of the labels [`decide`][ordframe.decide] gives from
            ``proba`` for that loss, on the same rows, groups and weights, with an attr ``decision`` naming the
            loss. Other metrics (OC, QWK, ...) have no such decision and get none. Needs ``proba``; not with
            ``n_resamples``. See [Decisions that fit the metric](../decisions.md).

        Returns
        -------
        xarray.Dataset

        Raises
        ------
        ValueError
            If an output name is also a ``by`` column, with ``decisions=True`` without ``proba``, or as in
            [`confusion`][confusion].

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
        if n_resamples is None:
            if any(v is not None for v in (seed, sample, strata, cluster)):
                raise TypeError(
                    "seed=, sample=, strata= and cluster= apply to a bootstrap: pass n_resamples=<replicates> too"
                )
            selection = Selection(true, pred, proba, by, labels, weights, dropna, renormalize, observed, marker=marker)
            return (frame_evaluate if check_flag(decisions, "decisions") else evaluate_frame)(
                self._df, selection, metrics
            )
        if decisions is not False:
            raise TypeError("decisions= scores one evaluation, not bootstrap replicates: leave out n_resamples=")
        if weights is not None or observed is not False:
            raise TypeError("a bootstrap resamples samples: weights= and observed= do not apply to it")
        selection = Selection(true, pred, proba, by, labels, dropna=dropna, renormalize=renormalize, marker=marker)
        draws = Resampling(n_resamples, seed, sample, strata, cluster)
        return bootstrap_evaluate(self._df, selection, draws, metrics)

    @fill_doc(**_WORDS)
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
        """Per true class ``support``, ``recall``, ``precision``, ``f1`` and ``class_mae``, their macro and
        weighted averages, and the overall indices.

        Computed from the confusion cube (see [`confusion`][confusion]) by
        [`ordframe.report_cube`][ordframe.report_cube]; ``print(ordframe.format_report(ds))``
        prints it like scikit-learn's ``classification_report``.

        Parameters
        ----------
        {frame_cube}
        {report_metrics}

        Returns
        -------
        xarray.Dataset
            Per-class variables with dims ``(*by, "class")``; their averages (``recall_macro``, ...,
            ``f1_weighted``, ``class_mae_weighted``) and the overall indices with dims ``by``.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]})
        >>> ds = df.ordinal.report("y", "yhat", metrics=["mae"])
        >>> ds["recall"].values.tolist(), float(ds["mae"])
        ([1.0, 0.0, 0.5], 0.5)
        """
        from ordframe._diagnostics.report import report_cube

        cube = frame_rows(self._df, Selection(true, pred, by=by, labels=labels, weights=weights, dropna=dropna)).cube()
        return report_cube(cube, metrics)

    @fill_doc(**_WORDS)
    def worst(
        self,
        true: Column,
        proba: ProbaColumns,
        *,
        score: str | tuple[str, dict] = "rps",
        top: int = 10,
        by: By = None,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        renormalize: bool = False,
        **params: Any,
    ) -> pd.DataFrame:
        """The ``top`` rows with the worst per-sample ``score``, worst first (see [`ordframe.worst`][ordframe.worst]).

        With ``by``, the ``top`` worst rows of every group, with the ``by`` columns first.

        Parameters
        ----------
        {true}
        {proba}
        score : str or (str, dict)
            A proba metric (``rps``, ``sarps``, ``brier``, ``log_score`` or a plugin's).
        top : int
            How many rows to return (per group with ``by``).
        by : column name or list of column names, optional
            The ``top`` worst rows of each group (e.g. of each model).
        {labels}
        {dropna_proba}
            E.g. the rows of a model without probabilities.
        {renormalize}
        **params
            Parameters of ``score``.

        Returns
        -------
        pandas.DataFrame
            The true label, the probabilities, the most probable class (``argmax``)
            and the score, indexed by the row labels.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 2], "p0": [0.9, 0.9], "p1": [0.1, 0.1], "p2": [0.0, 0.0]})
        >>> df.ordinal.worst("y", ["p0", "p1", "p2"], top=1, labels=[0, 1, 2]).index.tolist()
        [1]
        """
        return worst(
            self._df, true, proba, score=score, top=top, by=by, labels=labels, dropna=dropna, renormalize=renormalize,
            **params,
        )  # fmt: skip

    @fill_doc(**_WORDS)
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
        {true}
        {proba}
        {retention}
        {pred_or_proba}
        {proba_rows}

        Returns
        -------
        xarray.Dataset
            ``curve`` (dim ``retained``, from 1 down), ``aursc`` (its normalised
            area) and ``n_retained``, per group.

        Raises
        ------
        ValueError, TypeError
            For fractions outside (0, 1], metrics of the wrong kind, or as in [`evaluate`][evaluate].
        """
        selection = Selection(true, pred, proba, by, labels, weights, dropna, renormalize, observed)
        return frame_aursc(self._df, selection, Retention(score, metric, fractions))

    @fill_doc(**_WORDS)
    def calibration(
        self,
        true: Column,
        proba: ProbaColumns,
        *,
        method: str = "corp",
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Weights = None,
        dropna: bool = False,
        renormalize: bool = False,
        observed: bool = False,
        normalize: bool = True,
    ) -> xr.Dataset:
        """Decompositions of the Brier score of every cumulative threshold and of the RPS, and ordinal ECEs.

        For each threshold ``k`` (every class but the last), the Brier score of
        ``P(Y <= k)`` is split as ``score = MCB - DSC + UNC`` (``method="corp"``,
        Dimitriadis, Gneiting & Jordan 2021: isotonic recalibration) or
        ``score = REL - RES + UNC`` (``method="binned"``, Murphy 1973: one bin per
        distinct forecast); both identities are exact. The RPS is the sum over the
        thresholds (divided by K - 1 with ``normalize``, as [`rps`][ordframe.metrics.proba.rps]). See
        [Probabilistic calibration](../calibration.md).

        Parameters
        ----------
        {true}
        {proba}
        {recalibration}
        {proba_rows}
        {normalize_rps}

        Returns
        -------
        xarray.Dataset
            ``brier`` (dims ``threshold``, ``component``), ``rps`` (dim ``component``),
            ``ece`` (dim ``threshold``) and ``ordinal_ece``, per group.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2, 1, 0], "p0": [0.6, 0.3, 0.1, 0.2, 0.2, 0.5]})
        >>> df["p1"], df["p2"] = 0.3, 0.7 - df["p0"]
        >>> ds = df.ordinal.calibration("y", ["p0", "p1", "p2"])
        >>> ds["rps"].to_series().round(4).to_dict()
        {'score': 0.1217, 'miscalibration': 0.08, 'discrimination': 0.1806, 'uncertainty': 0.2222}
        """
        selection = Selection(
            true, proba=proba, by=by, labels=labels, weights=weights, dropna=dropna, renormalize=renormalize,
            observed=observed,
        )  # fmt: skip
        samples = frame_samples(self._df, selection)
        return calibration(samples, method=method, normalize=normalize)

    @fill_doc(**_WORDS)
    def reliability(
        self,
        true: Column,
        proba: ProbaColumns,
        *,
        method: str = "corp",
        n_resamples: int = 100,
        level: float = 0.9,
        seed: int | np.random.Generator | None = None,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Weights = None,
        dropna: bool = False,
        renormalize: bool = False,
        observed: bool = False,
    ) -> xr.Dataset:
        """Reliability curves of every cumulative threshold, with consistency bands, for [`ordframe.plot.reliability`][ordframe.plot.reliability].

        The decomposition of [`calibration`][calibration], with, per threshold and
        group, the distinct forecasts (``forecast``), their recalibrated values
        (``observed``: isotonic for ``corp``, the observed frequency for ``binned``),
        their share of the weight (``weight``) and the consistency band
        (``lower``, ``upper``): the central ``level`` of ``observed`` over ``n_resamples``
        sets of outcomes drawn from the forecasts themselves, as Dimitriadis,
        Gneiting & Jordan (2021).

        Parameters
        ----------
        {true}
        {proba}
        {bands}
        {proba_rows}

        Returns
        -------
        xarray.Dataset
            The variables of [`calibration`][calibration], and ``forecast``, ``observed``,
            ``weight``, ``lower``, ``upper`` with dims ``threshold`` and ``point`` (padded with NaN).
        """
        selection = Selection(
            true, proba=proba, by=by, labels=labels, weights=weights, dropna=dropna, renormalize=renormalize,
            observed=observed,
        )  # fmt: skip
        samples = frame_samples(self._df, selection)
        return reliability(samples, method=method, n_resamples=n_resamples, level=level, seed=seed)

    @fill_doc(**_WORDS, methods=choices("frame", none=True))
    def ci(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray | None = None,
        *,
        proba: ProbaColumns | None = None,
        marker: Column | None = None,
        metrics: MetricSpec = None,
        by: By = None,
        sample: Column | None = None,
        strata: By = None,
        cluster: Column | None = None,
        n_resamples: int = 2000,
        seed: Any = None,
        level: float = 0.95,
        method: str | None = None,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        renormalize: bool = False,
        min_valid: float = 0.5,
        progress: bool | None = None,
    ) -> xr.Dataset:
        """Confidence intervals of every metric, per model, from the paired bootstrap of the frame's samples.

        [`ordframe.ci`][ordframe.ci] on the replicates of [`evaluate`][evaluate]``(n_resamples=n_resamples)`` (the strata
        drawn apart, scored together), with what the replicates alone cannot give: the estimates on the
        data for the basic and Jeffreys intervals, the data's cube for the calibrated interval's double
        bootstrap and the intersection interval's per-class values, and for BCa the jackknife of the samples, or of the clusters with ``cluster=``, so that
        probability metrics and cluster bootstraps get BCa too.

        Parameters
        ----------
        {true}
            One row per sample and model with ``by``.
        {pred_or_proba}
        {proba_optional}
        {marker}
        {metrics}
        {by}
            Here the models, which predict every sample once: one interval per model.
        {sample}
        {strata}
            Pooled for the scores.
        {cluster}
            BCa then leaves one cluster out.
        {n_resamples}
        {seed_replicates}
        level : float
            The confidence level, in (0, 1).
        method : {methods}
            None (default): each metric's own default interval (its ``interval``, shown on its page), where
            an m-out-of-n default becomes BCa (its replicates are of m < N samples, a frame's of N); with
            ``cluster=``, a calibrated or intersection default becomes basic (they draw from the cube sample
            by sample, not cluster by cluster), and asking for either is an error.
        {labels}
        {dropna_proba}
        {renormalize}
        min_valid : float
            The smallest share of valid (non-NaN) replicates an element may have (see [`ordframe.ci`][ordframe.ci]).
        {progress}

        Returns
        -------
        xarray.Dataset
            One variable per metric with dims ``("bound", *by)``, and attrs ``ci_level``, ``ci_method`` and
            ``ci_valid_share`` as [`ordframe.ci`][ordframe.ci] gives.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2, 1] * 40, "yhat": [0, 1, 2, 1, 1] * 40})
        >>> df[["p0", "p1", "p2"]] = [[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7], [0.1, 0.5, 0.4], [0.3, 0.5, 0.2]] * 40
        >>> bounds = df.ordinal.ci("y", "yhat", proba=["p0", "p1", "p2"], metrics=["mae", "rps"], method="bca", seed=0)
        >>> bounds["rps"].round(3).values.tolist()
        [0.071, 0.086]
        """
        selection = Selection(true, pred, proba, by, labels, dropna=dropna, renormalize=renormalize, marker=marker)
        draws = Resampling(n_resamples, seed, sample, strata, cluster, progress)
        return frame_ci(self._df, selection, draws, metrics, level=level, method=method, min_valid=min_valid)

    @fill_doc(**_WORDS)
    def compare(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray | None = None,
        *,
        proba: ProbaColumns | None = None,
        marker: Column | None = None,
        metrics: MetricSpec = None,
        model: Column = "model",
        sample: Column | None = None,
        strata: By = None,
        cluster: Column | None = None,
        n_resamples: int = 2000,
        seed: Any = None,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        renormalize: bool = False,
        level: float = 0.95,
        adjust: str | None = "holm",
        method: str = "percentile",
        progress: bool | None = None,
    ) -> xr.Dataset:
        """Every pair of the models in ``model`` compared on paired bootstrap replicates, with the estimates on the data.

        The paired replicates of [`evaluate`][evaluate]``(n_resamples=n_resamples)`` (the strata drawn apart, scored
        together), the metrics on the whole frame as the estimates, then
        [`ordframe.compare`][ordframe.compare]: differences, intervals, p-values adjusted over the pairs,
        ranks. It compares the fitted models on this data set, not the learning algorithms that made them.

        Parameters
        ----------
        {true_models}
        {pred_or_proba}
        {proba_optional}
        {marker}
        {metrics}
        model : column name
            The one column of the models compared, which predict the same samples.
        {sample}
        {strata}
            Pooled for the scores.
        {cluster}
        {n_resamples}
        {seed_replicates}
        {labels}
        {dropna_proba}
        {renormalize}
        level : float
            The confidence level of the intervals of the differences.
        adjust : {"holm", "bh"} or None
            The multiplicity adjustment of ``adjusted_p_value`` over the pairs (see [`ordframe.compare`][ordframe.compare]).
        method : {"percentile", "basic", "bca"}
            The interval of the differences: percentile, basic (reflected about the difference on the data), or
            BCa, its acceleration from the jackknife of the samples (or clusters) left out of every model at once.
        {progress}

        Returns
        -------
        xarray.Dataset
            As [`ordframe.compare`][ordframe.compare], with attrs ``estimate="data"``.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2] * 25, "yhat": [0, 1, 2, 1] * 25, "model": "a"})
        >>> both = pd.concat([df, df.assign(yhat=0, model="b")])
        >>> result = both.ordinal.compare("y", "yhat", model="model", metrics=["mae"], n_resamples=500, seed=0)
        >>> float(result["difference"].sel(metric="mae", model="a", versus="b"))
        -1.0
        >>> result["rank"].sel(metric="mae").values.tolist()
        [1.0, 2.0]
        """
        selection = Selection(
            true, pred, proba, model, labels, dropna=dropna, renormalize=renormalize, by_keyword="model", marker=marker
        )
        draws = Resampling(n_resamples, seed, sample, strata, cluster, progress)
        return frame_compare(self._df, selection, draws, metrics, level=level, adjust=adjust, method=method)

    @fill_doc(**_WORDS)
    def skill(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray | None = None,
        *,
        proba: ProbaColumns | None = None,
        metric: str | tuple[str, dict],
        reference: str | dict = CLIMATOLOGY,
        by: By = None,
        labels: ClassLabels | None = None,
        dropna: bool = False,
        renormalize: bool = False,
        n_resamples: int | None = None,
        level: float = 0.95,
        method: str = "percentile",
        seed: Any = None,
        sample: Column | None = None,
        strata: By = None,
        cluster: Column | None = None,
        progress: bool | None = None,
    ) -> xr.Dataset:
        """The skill score of ``metric`` against a reference forecast, per ``by`` group, with paired intervals.

        ``SS = (S - S_ref) / (S_perfect - S_ref)`` (Murphy 1988): 1 for a perfect forecast, 0 for the
        reference, negative below it. ``S_perfect`` is the metric's bound in its good direction
        (``Metric.bounds``, ``Metric.higher_is_better``), so any registered metric with a direction, a
        plugin's too, has a skill score (one whose best value is a target, ``Metric.best``, has none); the RPS
        gives the RPSS and the Brier score the BSS, ``1 - S / S_ref``. See
        [`ordframe.skill`][ordframe.skill] for the references and the [Skill scores](../skill.md) page for
        the choices.

        Parameters
        ----------
        {true}
        {pred_or_proba}
            For a confusion metric.
        {proba_optional}
            For a probability metric.
        metric : str or (str, dict)
            A registered metric (``"mae"``, ``"oc[beta=0.25]"``, ``("rps", {"normalize": False})``).
        reference : "climatology" or dict
            ``"climatology"`` (default): the class prior of the true labels of each ``by`` group;
            ``{"prior": labels}``: the class frequencies of a training set's labels; ``{"distribution": q}``:
            a fixed distribution (a list in class order, or a dict label -> probability, others 0; a one-hot
            ``q`` is the constant forecast of one class); ``{column: label}``: the model ``label`` of the
            ``by`` column ``column`` (paired: on the same samples and replicates). A probability metric
            scores the forecast ``q`` for every sample; a confusion metric the expected matrix
            ``n_ij = n_i. q_j`` of a forecaster drawing from ``q`` independently of the truth.
        {by}
            With ``n_resamples``, the models, which predict the same samples.
        {labels}
        {dropna_proba}
        {renormalize}
        n_resamples : int, optional
            This many paired bootstrap replicates (see [`bootstrap`][bootstrap]) give an ``interval``: every
            replicate's skill is the model's and the reference's value on that replicate (climatology from the
            replicate's own true labels).
        level : float
            The confidence level of the interval.
        method : {"percentile", "basic"}
            The interval: percentile, or basic (reflected about the skill on the data).
        {seed_replicates}
            With ``n_resamples`` only.
        {sample}
            Without ``n_resamples`` it only checks the pairing (every model predicts every sample once, with one
            true label); the values do not depend on it.
        {strata}
            With ``n_resamples``, scored together. Without it, like ``sample``: the samples are paired within each
            stratum, and checked.
        {cluster}
            With ``n_resamples`` only.
        {progress}

        Returns
        -------
        xarray.Dataset
            ``skill``, ``score`` (the metric) and ``reference_score`` with dims ``by``; with ``n_resamples``,
            ``interval`` (dims ``("bound", *by)``). Attrs: ``metric``, ``reference``, ``perfect_score`` and
            the interval's ``ci_level``, ``ci_method``, ``ci_valid_share``.

        Raises
        ------
        ValueError, TypeError
            For an unknown reference, metric or method, a metric whose best value is a target (no skill
            score: compare the models instead), a model label that is not in ``by``, a distribution
            that does not sum to 1, training labels outside the classes, ``seed`` or ``cluster`` without
            ``n_resamples``, ``sample`` that does not pair the groups, and as in [`evaluate`][evaluate].

        Warns
        -----
        UndefinedSkillWarning
            Where the skill is undefined on the data (NaN): the metric has no finite perfect value, or the
            reference scores it.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2] * 25, "yhat": [0, 1, 2, 1] * 25})
        >>> result = df.ordinal.skill("y", "yhat", metric="mae", n_resamples=500, seed=0)
        >>> round(float(result["skill"]), 4), float(result["score"]), float(result["reference_score"])
        (0.7143, 0.25, 0.875)
        >>> result["interval"].round(2).values.tolist()
        [0.58, 0.81]
        """
        if n_resamples is None and (seed is not None or cluster is not None):
            raise TypeError(
                "seed= and cluster= shape a bootstrap's draws and mean nothing without one: pass "
                "n_resamples=<replicates> too (without it, sample= and strata= only check that every model predicts "
                "every sample once)"
            )
        selection = Selection(true, pred, proba, by, labels, dropna=dropna, renormalize=renormalize)
        drawn = {} if n_resamples is None else {"n_resamples": n_resamples}  # without: sample= and strata= only pair
        draws = Resampling(seed=seed, sample=sample, strata=strata, cluster=cluster, progress=progress, **drawn)
        return frame_skill(
            self._df,
            selection,
            draws,
            metric,
            resampled=n_resamples is not None,
            reference=reference,
            level=level,
            method=method,
        )

    @fill_doc(**_WORDS)
    def bootstrap(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray,
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
        """Paired bootstrap replicate cubes of the models in ``model``, resampling the samples they share.

        The same resample of samples applies to every model, so differences
        between models keep their correlation; drawn as multinomial counts of the
        samples' (true, prediction of each model) patterns, which reproduces row
        resampling exactly without touching rows per replicate (the paired bootstrap).

        Parameters
        ----------
        {true_models}
        {pred}
        model : column name or list of column names
            The models compared, which predict the same samples: one replicate cube per model.
        {sample}
        {strata}
            A ``sample`` id found in several strata (repeated cross-validation) warns: those rows are one subject's,
            resampled as if independent; name ``cluster`` instead.
        {cluster}
        {n_resamples}
        {seed_replicates}
        {labels}
        {dropna_rows}
        {replicate_dim}
        {progress}

        Returns
        -------
        xarray.DataArray
            int64 counts with dims ``(replicate_dim, *strata, *model, "true", "pred")``.

        Raises
        ------
        ValueError
            If a model lacks a sample or has it twice, or a sample's true label differs between models.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 1, 2, 0, 1, 2], "yhat": [0, 1, 1, 0, 2, 2], "model": list("aaabbb")})
        >>> boot = df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=500, seed=0)
        >>> boot.dims
        ('bootstrap', 'model', 'true', 'pred')
        >>> diff = boot.ordinal.mae().diff("model")
        >>> bool((boot.sum(("true", "pred")) == 3).all())
        True
        """
        selection = Selection(true, pred, by=model, labels=labels, dropna=dropna, by_keyword="model")
        draws = Resampling(n_resamples, seed, sample, strata, cluster, progress)
        return frame_bootstrap(self._df, selection, draws, replicate_dim)

    @fill_doc(**_WORDS)
    def paired_tests(
        self,
        true: Column,
        pred: Column | pd.Series | np.ndarray,
        *,
        model: Column = "model",
        sample: Column | None = None,
        strata: By = None,
        tests: str | Sequence[str] | None = None,
        labels: ClassLabels | None = None,
        dropna: bool = False,
    ) -> xr.Dataset:
        """Exact and asymptotic paired tests of every pair of models on the samples they share (one test set).

        For models a (``model``) and b (``versus``), on the same samples:

        * ``mcnemar_exact``, ``mcnemar_chi2``, ``mcnemar_chi2_corrected``: McNemar's test (McNemar 1947)
          of equal accuracy, on the ``b`` samples that a gets right and b wrong and the ``c`` of the reverse:
          exact, ``p = min(1, 2 P(X <= min(b, c)))`` for ``X ~ Binomial(b + c, 1/2)`` (statistic ``min(b, c)``);
          asymptotic, ``(b - c)^2 / (b + c)`` or, corrected for continuity, ``(|b - c| - 1)^2 / (b + c)``
          on chi-square(1);
        * ``stuart_maxwell``: marginal homogeneity of the K x K table ``n_ij`` (a predicts i, b predicts j)
          (Stuart 1955; Maxwell 1970), do the two models predict each class as often?
          ``d' V^-1 d`` with ``d = col - row`` margins, ``V_ii = n_i. + n_.i - 2 n_ii``, ``V_ij = -(n_ij + n_ji)``
          over K - 1 classes, on chi-square(K - 1);
        * ``bowker``: symmetry of that table (Bowker 1948), ``sum_{i<j} (n_ij - n_ji)^2 / (n_ij + n_ji)`` on
          chi-square(K (K - 1) / 2);
        * ``sign`` and ``wilcoxon``: the sign test (exact binomial, statistic ``min(n+, n-)``) and Wilcoxon's
          signed-rank test (Wilcoxon 1945; statistic ``min(R+, R-)``, normal approximation with the tie
          correction, no continuity correction) on the per-sample differences of absolute class errors
          ``|code(a) - code(true)| - |code(b) - code(true)|``. Zero differences are dropped
          (scipy's ``zero_method="wilcox"``).

        K counts the classes that either model predicts (in the stratum): a class neither predicts adds
        nothing to the table. A pair class with ``n_ij + n_ji = 0`` adds 0 to Bowker's statistic and keeps
        its degree of freedom, as in statsmodels' ``SquareTable(table, shift_zeros=False).symmetry()``
        (statsmodels' default replaces zero cells by 0.5). Two models that never disagree (a model against
        itself) have statistic 0 and p-value 1 in every test. Stuart-Maxwell's ``V`` is singular when the
        predicted classes split into groups with no disagreement between them: NaN, with a warning.

        Parameters
        ----------
        {true_models}
        {pred}
        model : column name
            The column of the models compared pairwise, which predict the same samples.
        {sample}
        strata : column name or list of column names, optional
            Tested separately (e.g. ``"fold"``): one result per stratum.
        tests : str or list of str, optional
            Among ``mcnemar_exact``, ``mcnemar_chi2``, ``mcnemar_chi2_corrected``, ``stuart_maxwell``,
            ``bowker``, ``sign``, ``wilcoxon`` (default: all).
        {labels}
        {dropna_rows}

        Returns
        -------
        xarray.Dataset
            ``statistic``, ``p_value`` and ``df`` (NaN for the exact and normal tests) with dims
            ``("test", model, "versus", *strata)``; the counts behind them, dims ``(model, "versus", *strata)``:
            ``only_correct`` (a right, b wrong: McNemar's discordant cells), ``disagreements`` (a and b
            predict different classes) and ``smaller_error`` (a's absolute class error below b's), each with
            the tests that use it; ``n``, the samples per stratum. p-values are two-sided and not adjusted
            for the number of pairs.

        Raises
        ------
        ValueError
            If ``model`` names several columns, a model lacks a sample or has it twice, a sample's true label
            differs between models, or a test is unknown; and as in [`confusion`][confusion].

        Warns
        -----
        RuntimeWarning
            When Stuart-Maxwell's statistic is NaN (singular ``V``), or a stratum has no sample.

        Examples
        --------
        >>> y = [0, 1, 2, 2, 1, 0, 2, 1] * 5
        >>> a = pd.DataFrame({"s": range(40), "y": y, "yhat": [0, 1, 2, 1, 1, 0, 2, 2] * 5, "model": "a"})
        >>> b = a.assign(yhat=[0, 2, 2, 1, 0, 0, 1, 1] * 5, model="b")
        >>> result = pd.concat([a, b]).ordinal.paired_tests("y", "yhat", sample="s")
        >>> pair = result.sel(model="a", versus="b", test=["mcnemar_exact", "stuart_maxwell", "wilcoxon"])
        >>> pair[["statistic", "p_value"]].to_dataframe()[["statistic", "p_value"]].round(4)
                        statistic  p_value
        test
        mcnemar_exact      5.0000   0.0414
        stuart_maxwell     6.6667   0.0357
        wilcoxon          52.5000   0.0253
        """
        selection = Selection(true, pred, by=model, labels=labels, dropna=dropna, by_keyword="model")
        return frame_paired_tests(self._df, selection, Resampling(sample=sample, strata=strata), tests)

    @fill_doc(**_WORDS)
    def decide(
        self, proba: ProbaColumns, *, loss: str | Any, labels: ClassLabels | None = None, renormalize: bool = False
    ) -> pd.Series:
        """The label of every row that minimises the expected ``loss`` under its probabilities (the Bayes decision).

        [`ordframe.decide`][ordframe.decide] on the probability columns: assign the result as a column of
        predictions (``df["median"] = df.ordinal.decide(...)``) and score it like any other. Predicting class
        ``j`` costs ``sum_t p_t C[t, j]`` in expectation; the most probable class minimises only the 0-1 loss.
        See [Decisions that fit the metric](../decisions.md).

        Parameters
        ----------
        {proba}
        loss : {"zero_one", "absolute", "squared"} or cost matrix
            The mode (accuracy), a median (MAE), the class nearest the mean on class index distances (MSE), or a
            K x K cost matrix, rows = true class, columns = predicted (a DataFrame or a DataArray with dims
            ``true`` and ``pred`` labelled with the classes, put in class order). OC, QWK and the other
            set-level indices are refused: no per-sample decision minimises them.
        {labels}
            Here the class of each column of a list ``proba``, which needs it (a dict ``proba`` names them).
        {renormalize}

        Returns
        -------
        pandas.Series
            One label per row, indexed like the frame, named after ``loss`` (``"decision"`` for a matrix). Ties
            in expected loss (to within rounding) go to the lowest class.

        Raises
        ------
        ValueError
            For missing or invalid probabilities (with the first rows), a list ``proba`` without ``labels``, an
            unknown or set-level loss, or a cost matrix whose labels are not the classes.

        Examples
        --------
        >>> df = pd.DataFrame({"y": [0, 2, 1], "p0": [0.4, 0.5, 0.1], "p1": [0.1, 0.0, 0.8], "p2": [0.5, 0.5, 0.1]})
        >>> proba = {0: "p0", 1: "p1", 2: "p2"}
        >>> df["mode"] = df.ordinal.decide(proba, loss="zero_one")
        >>> df["median"] = df.ordinal.decide(proba, loss="absolute")
        >>> df[["mode", "median"]].values.tolist()
        [[2, 1], [0, 0], [1, 1]]
        """
        return frame_decide(self._df, proba, loss, labels, renormalize)

    @fill_doc(**_WORDS)
    def krippendorff_alpha(
        self,
        item: Column,
        rater: Column,
        rating: Column,
        *,
        by: By = None,
        labels: ClassLabels | None = None,
        level_of_measurement: str = "ordinal",
        dropna: bool = False,
        n_resamples: int | None = None,
        seed: Any = None,
        level: float = 0.95,
        progress: bool | None = None,
    ) -> xr.Dataset:
        """Krippendorff's alpha: how far the raters agree beyond chance, from one row per rating.

        With ``n_uc`` the ratings of class ``c`` that item ``u`` received and ``m_u`` its ratings, the items
        rated at least twice give the coincidence matrix ``o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1)``,
        with margins ``n_c`` and ``n = sum_c n_c`` pairable ratings, and (Krippendorff 2004, ch. 11; 2011)

        ``alpha = 1 - D_o / D_e = 1 - (n - 1) sum_ck o_ck delta_ck^2 / sum_ck n_c n_k delta_ck^2``:

        1 for perfect agreement, 0 for agreement at chance, negative below it. Any number of raters, each item
        rated by any of them: a rating that is absent is missing. Weighted kappa
        ([`kappa`][ordframe.metrics.classic.kappa], [`qwk`][ordframe.metrics.classic.qwk]) compares two raters
        rating every item; see [Agreement between raters](../agreement.md).

        Parameters
        ----------
        item : column name
            The item (unit) rated.
        rater : column name
            The rater (coder, annotator, or a model); a rater rates an item once.
        rating : column name
            The rating, a class label.
        {by}
            With ``n_resamples``, the same items are drawn for every group (paired).
        {labels}
        level_of_measurement : {"ordinal", "interval", "nominal"}
            ``delta^2`` of classes ``c`` and ``k``: ordinal, ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``, the
            distance of their mid-ranks among the pairable ratings (the class order, not the label values);
            interval, ``(c - k)^2`` on class indices; nominal, 1 for different classes.
        {dropna_rows}
        n_resamples : int, optional
            Draw the items with replacement this many times, over their distinct patterns, for a percentile
            ``interval`` (see [`ordframe.ci`][ordframe.ci]).
        {seed_replicates}
            With ``n_resamples`` only.
        level : float
            The confidence level of the interval.
        {progress}

        Returns
        -------
        xarray.Dataset
            ``alpha`` and ``n_pairable`` (the ratings of items rated at least twice) with dims ``by``; with
            ``n_resamples``, ``interval`` (dims ``("bound", *by)``, the draws recorded in its attrs). NaN where
            alpha is undefined (fewer than 2 pairable ratings, or a single class among them), with a
            ``RuntimeWarning`` that says why.

        Raises
        ------
        ValueError, TypeError
            For a rater who rates an item twice (in a ``by`` group), an unknown ``level_of_measurement``,
            ``seed`` without ``n_resamples``, and as in [`confusion`][confusion].

        Examples
        --------
        >>> df = pd.DataFrame(
        ...     {"item": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4], "rater": list("abcababcac"), "grade": [1, 1, 2, 3, 3, 2, 2, 2, 1, 1]}
        ... )
        >>> ds = df.ordinal.krippendorff_alpha("item", "rater", "grade")
        >>> float(ds["alpha"]), int(ds["n_pairable"])
        (0.8, 10)
        """
        selection = Selection(rating, by=by, labels=labels, dropna=dropna)
        draws = resampling(n_resamples, seed, progress)
        return frame_alpha(self._df, selection, item, rater, level_of_measurement, draws, level)

    def _confusion_method(self, metric: Metric):
        def method(true, pred, *, by=None, labels=None, weights=None, dropna=False, observed=False, **params):
            selection = Selection(true, pred, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed)
            rows = frame_rows(self._df, selection)
            return as_scalar(rows_metric(metric, rows, params), metric, rows.empty)

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
            selection = Selection(true, None, proba, by, labels, weights, dropna, renormalize, observed)
            rows = frame_rows(self._df, selection)
            return as_scalar(rows_metric(metric, rows, params), metric, rows.empty)

        return _method(method, metric, f"df.ordinal.{metric.name}(true, proba, *, by=None, labels=None, ...)")

    def _score_method(self, metric: Metric):
        def method(true, marker, *, by=None, labels=None, weights=None, dropna=False, observed=False, **params):
            selection = Selection(
                true, by=by, labels=labels, weights=weights, dropna=dropna, observed=observed, marker=marker
            )
            rows = frame_rows(self._df, selection)
            return as_scalar(rows_metric(metric, rows, params), metric, rows.empty)

        return _method(method, metric, f"df.ordinal.{metric.name}(true, marker, *, by=None, labels=None, ...)")
