"""Reliability diagrams of ordinal probabilities: one panel per cumulative threshold, with consistency bands;
``ReliabilityDisplay``, the same figure the way scikit-learn's displays work."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import xarray as xr

from ordframe._core.dims import COMPONENT_DIM, POINT_DIM, THRESHOLD_DIM
from ordframe._core.docstrings import fill_doc
from ordframe._diagnostics.calibration import reliability as reliability_curves
from ordframe._inputs.estimators import cv_folds, predict_proba
from ordframe.plot._figures import legend_below, legend_outside, new_axes
from ordframe.plot._predictions import cv_predictions, prediction_samples
from ordframe.plot._stacks import label_text, line_labels
from ordframe.plot._styles import line_styles

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

_CURVE = ("forecast", "observed", "lower", "upper")
_SHORT = {
    "miscalibration": "MCB",
    "discrimination": "DSC",
    "uncertainty": "UNC",
    "reliability": "REL",
    "resolution": "RES",
}


_LAYOUT = """\
layout : (int, int), optional
    The rows and columns of the panels in a new figure (default: up to 4 panels per row), e.g. ``(K - 1, 1)``
    for one column that a narrow screen shows at full width (its legend then goes below the panels); not with
    axes given."""


@fill_doc(layout=_LAYOUT)
def reliability(curves: xr.Dataset, *, axes=None, layout: tuple[int, int] | None = None) -> Figure:
    """Reliability diagrams of ``df.ordinal.reliability(...)`` / ``proba.ordinal.reliability(...)``, one panel per threshold.

    In the panel of threshold ``k``, x is the forecast ``P(Y <= k)`` and y its recalibrated value: the isotonic
    (PAV) fit of the outcomes ``1{Y <= k}``, drawn as steps (``corp``), or the observed frequency of every
    distinct forecast (``binned``). A calibrated forecast lies on the diagonal; the shaded consistency band
    holds the central share of the curves of outcomes drawn from the forecasts themselves (Dimitriadis,
    Gneiting & Jordan 2021), so a curve outside it shows miscalibration beyond sampling noise. The panel's
    text gives the Brier score and its decomposition; ticks under the axis show where the forecasts lie.
    Every other dim (model, a ``by`` column, ...) gives a curve of its own colour and line style.

    Parameters
    ----------
    curves : xarray.Dataset
        With variables ``forecast``, ``observed``, ``lower``, ``upper`` (dims ``threshold``, ``point``) and ``brier``.
    {axes}
    {layout}

    {figure}

    Examples
    --------
    >>> import ordframe.plot
    {proba_frame}
    >>> fig = ordframe.plot.reliability(df.ordinal.reliability("y", ["p0", "p1", "p2"], seed=0))
    >>> len(fig.axes)
    2
    """
    return _draw(curves, axes, layout).figure


def _check_curves(curves) -> None:
    if not isinstance(curves, xr.Dataset) or any(v not in curves for v in (*_CURVE, "brier")):
        raise TypeError(
            "reliability plots the Dataset of df.ordinal.reliability(...) or proba.ordinal.reliability(...) "
            f"(variables {list(_CURVE)} and 'brier'), got {type(curves).__name__}"
        )


class _Drawn(NamedTuple):
    figure: Figure
    axes: np.ndarray  # one Axes per threshold
    lines: np.ndarray  # (threshold, curve) Line2D


def _draw(curves: xr.Dataset, axes, layout=None, title_end: str = "", title: str | None = None) -> _Drawn:
    """Draw the diagrams; the figure, its panels and the curve of every threshold and group."""
    _check_curves(curves)
    forecast = curves["forecast"]
    others = [d for d in forecast.dims if d not in (THRESHOLD_DIM, POINT_DIM)]
    stacked = {name: line_labels(curves[name].transpose(..., THRESHOLD_DIM, POINT_DIM), others)[0] for name in _CURVE}
    brier, labels = line_labels(curves["brier"].transpose(..., THRESHOLD_DIM, COMPONENT_DIM), others)
    thresholds = curves[THRESHOLD_DIM].values
    fig, panels = new_axes(len(thresholds), axes, width=4.2, height=4.2, layout=layout)
    styles = line_styles([forecast.sizes[d] for d in others])
    steps = curves.attrs.get("method", "corp") == "corp"
    drawn: list[list[Line2D]] = []
    components = [str(c) for c in curves[COMPONENT_DIM].values]
    for k, (threshold, ax) in enumerate(zip(thresholds, panels)):
        ax.plot([0, 1], [0, 1], color="0.55", lw=0.9, ls=(0, (4, 3)), zorder=1)
        lines: list[Line2D] = []
        for i, label in enumerate(labels):
            x, y, lo, hi = (stacked[name].values[i, k] for name in _CURVE)
            keep = ~np.isnan(x)
            x, y, lo, hi = x[keep], y[keep], lo[keep], hi[keep]
            colour = styles[i]["color"]
            ax.fill_between(
                x, lo, hi, color=colour, alpha=0.18, lw=0, zorder=2, step="post" if steps else None, rasterized=True
            )
            draw = ax.step if steps else ax.plot
            kwargs = {"where": "post"} if steps else {"marker": "o", "ms": 3}
            (line,) = draw(x, y, lw=1.8, zorder=3, gid=label or "curve", **kwargs, **styles[i])
            lines.append(line)
            ticks = np.full(len(x), -0.025 - 0.02 * i)  # one per distinct forecast: an image, not thousands of shapes
            ax.plot(x, ticks, "|", color=colour, ms=4, mew=0.6, alpha=0.25, clip_on=False, rasterized=True)
        drawn.append(lines)
        if len(labels) == 1:
            values = brier.values[0, k]
            text = "\n".join(
                f"{_SHORT.get(c, c)} {v:.3f}" if c != "score" else f"Brier {v:.3f}" for c, v in zip(components, values)
            )
            ax.text(0.04, 0.96, text, transform=ax.transAxes, va="top", ha="left", fontsize=8, family="monospace")
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.06, 1.01)
        ax.set_aspect("equal")
        ax.set_xlabel(f"forecast P(Y ≤ {label_text(threshold)})")
        ax.set_ylabel("recalibrated (observed) probability" if k == 0 else "")
        ax.set_title(f"threshold {label_text(threshold)}: event Y ≤ {label_text(threshold)}", fontsize=10)
        ax.grid(alpha=0.25)
        if len(labels) > 1 and k == len(thresholds) - 1:
            if layout is not None and layout[1] == 1:
                legend_below(fig, lines, labels, fontsize=8, handlelength=3.0)
            else:
                legend_outside(ax, lines, labels, fontsize=8, handlelength=3.0)
    level = curves.attrs.get("level")
    heading = [] if title is None else [title]
    if level is not None:
        heading.append(f"Reliability per threshold ({level:.0%} consistency bands){title_end}")
    if heading:
        fig.suptitle("\n".join(heading), fontsize=11)
    panel_array = np.empty(len(panels), dtype=object)  # filled, not made from the list: Axes are not sequences
    panel_array[:] = panels
    line_array = np.empty((len(panels), len(labels)), dtype=object)
    line_array[:] = drawn
    return _Drawn(fig, panel_array, line_array)


def _labels_of(estimators: list, labels: Any) -> list:
    """``labels``, or the numeric classes of the fitted estimators in order; text classes need ``labels=``."""
    if labels is not None:
        return list(labels)
    seen = [np.asarray(getattr(estimator, "classes_", [])) for estimator in estimators]
    classes = np.unique(np.concatenate(seen)) if seen else np.array([])
    if not all(np.issubdtype(c.dtype, np.number) for c in seen) or classes.dtype.kind not in "biuf":
        raise TypeError(
            "pass labels=[...], every class in order (lowest first): the estimator's classes_ are not numbers, "
            "and scikit-learn sorts text classes alphabetically, which is not their order"
        )
    return classes.tolist()


def _proba_of(labels: list) -> Any:
    """``predict_proba`` with its columns matched to ``labels``, as the displays ask for it."""

    def predicted(estimator: Any, X: Any) -> np.ndarray:
        return predict_proba(
            estimator,
            X,
            labels,
            needed_by="ReliabilityDisplay draws",
            instead="use a classifier that predicts probabilities, or from_predictions(y_true, y_proba)",
        )

    return predicted


_AX_THRESHOLDS = """\
ax : sequence of matplotlib Axes, optional
    One per threshold (K - 1); default: a new figure."""

_TEXTS = {
    "estimator_labels": """\
labels : list, optional
    The classes in order (lowest first). Without it, the estimator's ``classes_`` if they are numbers; text
    classes need ``labels=`` (``classes_`` is sorted as text).""",
    "drawn": """\
{sample_weight}
{dropna}
{bands}
{ax_thresholds}
{layout}
{title}""",
    "ax_thresholds": _AX_THRESHOLDS,
    "layout": _LAYOUT,
    "title": """\
title : str, optional
    A first line above the figure's heading (the bands' level, the folds pooled).""",
}
"""The parameters of the class methods: the classes, weights, missing labels, bands and axes."""


class ReliabilityDisplay:
    """Reliability diagrams of ordinal class probabilities, one panel per cumulative threshold, like scikit-learn's
    ``CalibrationDisplay``.

    Make one with [`from_predictions`][ordframe.plot.ReliabilityDisplay.from_predictions],
    [`from_estimator`][ordframe.plot.ReliabilityDisplay.from_estimator] or
    [`from_cv_results`][ordframe.plot.ReliabilityDisplay.from_cv_results], which compute the curves as
    `df.ordinal.reliability` does and draw them; or from that Dataset, then call
    [`plot`][ordframe.plot.ReliabilityDisplay.plot]. The panels are those of
    [`ordframe.plot.reliability`][ordframe.plot.reliability]: for each threshold ``k``, the forecast
    ``P(Y <= k)`` against its recalibrated value, with a consistency band (Dimitriadis, Gneiting & Jordan 2021)
    and the Brier score's decomposition. Unlike ``CalibrationDisplay``, nothing is binned by default: the
    recalibration is isotonic (CORP), and the classes are ordinal, so there are K - 1 binary events, not one.

    Parameters
    ----------
    curves : xarray.Dataset
        The result of `df.ordinal.reliability(...)` or `proba.ordinal.reliability(...)`.

    Attributes
    ----------
    curves : xarray.Dataset
        The curves, the bands and the decomposition (``brier``, ``ece``) that are drawn.
    n_folds : int or None
        After `from_cv_results`: the number of test folds pooled.
    figure_ : matplotlib Figure
        Where [`plot`][ordframe.plot.ReliabilityDisplay.plot] drew.
    ax_ : numpy.ndarray of matplotlib Axes
        One panel per threshold.
    lines_ : numpy.ndarray of matplotlib Line2D
        The curves, shape (threshold, curve): one curve per group of the Dataset (one from the class methods).

    Examples
    --------
    >>> from ordframe.plot import ReliabilityDisplay
    >>> y_true = [0, 1, 2, 2, 1, 0, 1, 2]
    >>> y_proba = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.2, 0.2, 0.6],
    ...            [0.3, 0.4, 0.3], [0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.1, 0.3, 0.6]]
    >>> display = ReliabilityDisplay.from_predictions(y_true, y_proba, seed=0)
    >>> display.ax_.shape, display.lines_.shape  # K - 1 = 2 thresholds, one curve each
    ((2,), (2, 1))
    >>> display.ax_[0].get_xlabel()
    'forecast P(Y ≤ 0)'
    """

    def __init__(self, curves: xr.Dataset) -> None:
        _check_curves(curves)
        self.curves = curves
        self.n_folds: int | None = None
        self.figure_: Figure | None = None
        self.ax_: np.ndarray | None = None
        self.lines_: np.ndarray | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.curves.sizes[THRESHOLD_DIM]} thresholds>"

    @fill_doc(**_TEXTS)
    def plot(
        self, *, ax: Any = None, layout: tuple[int, int] | None = None, title: str | None = None
    ) -> ReliabilityDisplay:
        """Draw the panels; returns the display itself.

        Parameters
        ----------
        {ax_thresholds}
        {layout}
        {title}

        Returns
        -------
        ReliabilityDisplay
        """
        pooled = "" if self.n_folds is None else f", pooled over {self.n_folds} test folds"
        self.figure_, self.ax_, self.lines_ = _draw(self.curves, ax, layout, pooled, title)
        return self

    @classmethod
    @fill_doc(**_TEXTS)
    def from_predictions(
        cls,
        y_true: Any,
        y_proba: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        dropna: bool = False,
        method: str = "corp",
        n_resamples: int = 100,
        level: float = 0.9,
        seed: Any = None,
        ax: Any = None,
        layout: tuple[int, int] | None = None,
        title: str | None = None,
    ) -> ReliabilityDisplay:
        """Compute and draw the reliability diagrams of true labels and class probabilities.

        Parameters
        ----------
        y_true : array-like
            One label per sample: a list, numpy array, pandas or polars Series.
        y_proba : array-like of shape (n_samples, K)
            The class probabilities, one column per class in the class order (lowest first); a DataFrame
            whose column names are the classes (``columns=model.classes_``) is matched to them by name.
        {labels}
            One per column of ``y_proba``.
        {drawn}

        Returns
        -------
        ReliabilityDisplay

        Raises
        ------
        ValueError, TypeError
            As `df.ordinal.reliability`: probabilities that are NaN, outside [0, 1] or do not sum to 1, labels
            outside ``labels=``, missing labels, text labels without ``labels=``; and arguments of different
            lengths.
        """
        samples = prediction_samples(y_true, y_proba, labels=labels, sample_weight=sample_weight, dropna=dropna)
        curves = reliability_curves(samples, method=method, n_resamples=n_resamples, level=level, seed=seed)
        return cls(curves).plot(ax=ax, layout=layout, title=title)

    @classmethod
    @fill_doc(**_TEXTS)
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        dropna: bool = False,
        method: str = "corp",
        n_resamples: int = 100,
        level: float = 0.9,
        seed: Any = None,
        ax: Any = None,
        layout: tuple[int, int] | None = None,
        title: str | None = None,
    ) -> ReliabilityDisplay:
        """Draw the reliability diagrams of a fitted classifier's ``predict_proba(X)`` against ``y``.

        The columns of ``predict_proba`` follow ``estimator.classes_`` and are matched to ``labels`` by value
        (a class the estimator never saw gets probability 0), as `ordframe.sklearn.make_scorer` does.

        Parameters
        ----------
        estimator : fitted classifier
            Anything with ``predict_proba`` and ``classes_`` (a scikit-learn classifier or pipeline).
        {estimator_data}
        {estimator_labels}
        {drawn}

        Returns
        -------
        ReliabilityDisplay
        """
        labels = _labels_of([estimator], labels)
        return cls.from_predictions(
            y,
            _proba_of(labels)(estimator, X),
            labels=labels,
            sample_weight=sample_weight,
            dropna=dropna,
            method=method,
            n_resamples=n_resamples,
            level=level,
            seed=seed,
            ax=ax,
            layout=layout,
            title=title,
        )

    @classmethod
    @fill_doc(**_TEXTS)
    def from_cv_results(
        cls,
        cv_results: Mapping,
        X: Any,
        y: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        dropna: bool = False,
        method: str = "corp",
        n_resamples: int = 100,
        level: float = 0.9,
        seed: Any = None,
        ax: Any = None,
        layout: tuple[int, int] | None = None,
        title: str | None = None,
    ) -> ReliabilityDisplay:
        """Draw the reliability diagrams of a cross-validation, its test folds pooled.

        Each fold's fitted estimator gives the probabilities of that fold's test samples (nothing is refitted),
        as `ConfusionDisplay.from_cv_results` does: with a k-fold split these are the probabilities of
        ``cross_val_predict(..., method="predict_proba")``.

        Parameters
        ----------
        {cv_data}
        {estimator_labels}
            With several folds, the ``classes_`` of all their estimators.
        {drawn}

        Returns
        -------
        ReliabilityDisplay

        Raises
        ------
        ValueError
            If ``cv_results`` lacks ``"estimator"`` or ``"indices"`` (the two ``return_`` options).
        """
        estimators, tests = folds = cv_folds(cv_results)
        labels = _labels_of(estimators, labels)
        true, proba, weights, _ = cv_predictions(folds, X, y, sample_weight, _proba_of(labels))
        samples = prediction_samples(true, proba, labels=labels, sample_weight=weights, dropna=dropna)
        display = cls(reliability_curves(samples, method=method, n_resamples=n_resamples, level=level, seed=seed))
        display.n_folds = len(tests)
        return display.plot(ax=ax, layout=layout, title=title)
