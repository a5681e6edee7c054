"""``ConfusionDisplay``: a confusion matrix with its optimal OC / UOC path, the way scikit-learn's displays work.

Like scikit-learn's ``ConfusionMatrixDisplay``, it is made from predictions,
a fitted estimator or the dict of ``cross_validate``, draws with
``plot(ax=...)`` and keeps the matplotlib objects it drew (``figure_``,
``ax_``, ``im_``, ``text_``). Unlike it, the matrix is counted by ordframe's
front end (the class order of ``df.ordinal.confusion``: ``labels=``, an
ordered Categorical or sorted numbers, never the alphabet), the cells always
show the counts (``normalize="true"`` changes the colours only), and the
optimal path of OC (Cardoso & Sousa 2011) or UOC (Silva, Pinto & Cardoso
2018) is drawn across it with the index's value in the title.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from ordframe._bridge.apply import check_cube, cube_classes
from ordframe._core.dims import CUBE_DIMS, FOLD_DIM, PRED, TRUE
from ordframe._core.docstrings import fill_doc
from ordframe._inputs.estimators import cv_folds, predict
from ordframe.plot._figures import new_axes
from ordframe.plot._heatmap import MatrixStyle, check_path_arguments, draw_matrix, index_paths, shares_of_rows
from ordframe.plot._predictions import cv_predictions, prediction_cube
from ordframe.plot._stacks import coord_values, label_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D


def _matrix(confusion_matrix: Any) -> xr.DataArray:
    """A 2-D confusion cube from a cube or a K x K array of counts (rows = true class)."""
    if not isinstance(confusion_matrix, xr.DataArray):
        counts = np.asarray(confusion_matrix)
        if counts.ndim != 2:
            raise ValueError(
                f"confusion_matrix must be a K x K array of counts (rows = true class) or a confusion cube, got "
                f"shape {counts.shape}"
            )
        confusion_matrix = xr.DataArray(counts, dims=CUBE_DIMS)
    check_cube(confusion_matrix)
    extra = [d for d in confusion_matrix.dims if d not in CUBE_DIMS]
    if extra:
        raise ValueError(
            f"ConfusionDisplay shows one matrix; this cube has the other dims {tuple(extra)}. Pool them "
            f"(.sum({extra[0]!r})), select one matrix (.isel({extra[0]}=0)), or draw one panel per matrix with "
            f"ordframe.plot.confusion(cube, col={extra[0]!r})"
        )
    counts = np.asarray(confusion_matrix.values, dtype=np.float64)
    if np.isnan(counts).any() or (counts < 0).any() or np.isinf(counts).any():
        raise ValueError("confusion_matrix must hold finite counts >= 0")
    cube, _ = cube_classes(confusion_matrix)
    return cube.transpose(TRUE, PRED)


_COUNTED = """\
{sample_weight}
    The matrix holds sums of weights.
{dropna}
display_labels : sequence of str, optional
    The class names on the axes, as in the constructor.
**plot_kwargs
    The drawing options of [`plot`][ordframe.plot.ConfusionDisplay.plot]: ``ax``, ``normalize``, ``path``,
    ``beta``, ``include_values``, ``values_format``, ``cmap``, ``colorbar``, ``xticks_rotation``, ``im_kw``,
    ``text_kw``, ``title``."""
"""The parameters of the class methods that count the matrix: its weights, missing labels and drawing."""


class ConfusionDisplay:
    """A confusion matrix (rows = true class) with the optimal OC or UOC path, like scikit-learn's displays.

    Make one with [`from_predictions`][ordframe.plot.ConfusionDisplay.from_predictions],
    [`from_estimator`][ordframe.plot.ConfusionDisplay.from_estimator] or
    [`from_cv_results`][ordframe.plot.ConfusionDisplay.from_cv_results], which count the matrix with the
    class order of `df.ordinal.confusion` and draw it; or from a matrix you have, then call
    [`plot`][ordframe.plot.ConfusionDisplay.plot]. For several matrices in panels, see
    [`ordframe.plot.confusion`][ordframe.plot.confusion].

    Parameters
    ----------
    confusion_matrix : xarray.DataArray or array-like
        One matrix: a confusion cube with dims ``("true", "pred")`` only, or a K x K array of counts.
    display_labels : sequence of str, optional
        The class names on the axes (default: the cube's class labels, or 0 .. K-1).

    Attributes
    ----------
    confusion_matrix : xarray.DataArray
        The counts (int64, float64 with weights), dims ``("true", "pred")``, with the class labels as
        coordinates when known: ``display.confusion_matrix.ordinal.oc()`` computes any index on it.
    display_labels : list of str
        The class names on the axes, in the class order.
    fold_matrices : xarray.DataArray or None
        After `from_cv_results`: one matrix per test fold (dims ``("fold", "true", "pred")``), whose sum
        is `confusion_matrix`; `ordframe.plot.confusion(display.fold_matrices, col="fold")` draws them.
    figure_, ax_ : matplotlib Figure and Axes
        Where [`plot`][ordframe.plot.ConfusionDisplay.plot] drew.
    im_ : matplotlib AxesImage
        The coloured cells; ``im_.get_array()`` holds the counts (or row shares with ``normalize="true"``).
    text_ : numpy.ndarray of matplotlib Text, or None
        The K x K numbers in the cells (None with ``include_values=False``).
    path_ : matplotlib Line2D or None
        The optimal path, through the centres of its cells: x = predicted, y = true class position.

    Examples
    --------
    >>> from ordframe.plot import ConfusionDisplay
    >>> y_true = ["low", "low", "mid", "mid", "high", "high", "high"]
    >>> y_pred = ["low", "mid", "mid", "low", "high", "high", "mid"]
    >>> display = ConfusionDisplay.from_predictions(y_true, y_pred, labels=["low", "mid", "high"])
    >>> display.confusion_matrix.values.tolist()
    [[1, 1, 0], [1, 1, 0], [0, 1, 2]]
    >>> display.ax_.get_title().splitlines()[0]
    'OC = 0.507 (beta = 0.75)'
    >>> display.path_.get_xydata().tolist()  # (predicted, true) positions of the path's cells
    [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 2.0], [2.0, 2.0]]
    """

    def __init__(self, confusion_matrix: Any, *, display_labels: Any = None) -> None:
        self.confusion_matrix = _matrix(confusion_matrix)
        k = self.confusion_matrix.sizes[TRUE]
        if display_labels is None:
            display_labels = [label_text(v) for v in coord_values(self.confusion_matrix, TRUE)]
        self.display_labels = [str(v) for v in display_labels]
        if len(self.display_labels) != k:
            raise ValueError(f"display_labels has {len(self.display_labels)} names for the {k} classes")
        self.fold_matrices: xr.DataArray | None = None
        self.figure_: Figure | None = None
        self.ax_: Axes | None = None
        self.im_: AxesImage | None = None
        self.text_: np.ndarray | None = None
        self.path_: Line2D | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self.display_labels)} classes {self.display_labels}>"

    @fill_doc
    def plot(
        self,
        *,
        ax: Axes | None = None,
        normalize: str | None = None,
        path: str | None = "oc",
        beta: float | None = None,
        include_values: bool = True,
        values_format: str | None = None,
        cmap: Any = "Blues",
        colorbar: bool = True,
        xticks_rotation: float | str | None = None,
        im_kw: dict | None = None,
        text_kw: dict | None = None,
        title: str | None = None,
    ) -> ConfusionDisplay:
        """Draw the matrix, its counts and the optimal path; returns the display itself.

        Parameters
        ----------
        {ax}
        normalize : None or "true"
            ``"true"`` colours each cell by its share of the true class (its row); the cells keep the counts,
            and the path and index are computed on the counts.
        path : "oc", "uoc" or None
            Draw the optimal path of that index and give its value in the title; ``None`` draws no path.
        beta : float, optional
            The index's ``beta`` (default: the metric's default, 0.75 for both).
        include_values : bool
            Write the counts in the cells.
        values_format : str, optional
            A format specification for the counts, e.g. ``".2f"`` (default: whole numbers as such, others
            with 3 significant digits).
        cmap : str or matplotlib Colormap
        colorbar : bool
            Add a colour bar.
        xticks_rotation : float or {"horizontal", "vertical"}, optional
            Rotation of the predicted-class names (default: slanted when they are long).
        im_kw, text_kw : dict, optional
            Keyword arguments of matplotlib's ``imshow`` and ``text``.
        title : str, optional
            A first line of the axes' title, above the index's value.

        Returns
        -------
        ConfusionDisplay
        """
        check_path_arguments(path, beta, normalize)
        counts = self.confusion_matrix.values.astype(np.float64)
        if normalize == "true":
            shown, vmax, bar_label = shares_of_rows(counts), 1.0, "share of the true class (rows sum to 1)"
        else:
            shown, vmax, bar_label = counts, max(float(counts.max()), 1.0), "number of samples"
        paths = index_paths(self.confusion_matrix, path, beta, 1) if path is not None else None
        if ax is None:
            side = 2.8 + 0.35 * len(self.display_labels)
            _, (ax,) = new_axes(1, None, width=side + (1.2 if colorbar else 0.0), height=side + 0.4)
        style = MatrixStyle(vmax, cmap, include_values, values_format, xticks_rotation, im_kw, text_kw)
        drawn = draw_matrix(
            ax,
            counts,
            shown,
            self.display_labels,
            style,
            path_cells=None if paths is None else paths.of(0),
            path_name=path or "oc",
        )
        ax.set_ylabel("true class")
        heading = [] if title is None else [title]
        if paths is not None:
            heading += [paths.title(0), f"the line joins the cells of the optimal {paths.index.upper()} path"]
        if self.fold_matrices is not None:
            heading.append(f"pooled over {self.fold_matrices.sizes[FOLD_DIM]} test folds")
        ax.set_title("\n".join(heading), fontsize=10)
        if colorbar:
            ax.figure.colorbar(drawn.image, ax=ax, label=bar_label, shrink=0.8)
        self.figure_ = ax.figure.canvas.figure  # the whole figure, also when ax is in a subfigure
        self.ax_, self.im_, self.text_, self.path_ = ax, drawn.image, drawn.texts, drawn.path
        return self

    @classmethod
    @fill_doc(counted=_COUNTED)
    def from_predictions(
        cls,
        y_true: Any,
        y_pred: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        dropna: bool = False,
        display_labels: Any = None,
        **plot_kwargs: Any,
    ) -> ConfusionDisplay:
        """Count and draw the confusion matrix of true and predicted labels.

        Parameters
        ----------
        y_true, y_pred : array-like
            One label per sample, matched by position: lists, numpy arrays, pandas or polars Series (an
            ordered Categorical or a polars Enum gives the class order).
        {labels}
            As for `df.ordinal.confusion` and `ordframe.oc(y_true, y_pred)`.
        {counted}

        Returns
        -------
        ConfusionDisplay

        Raises
        ------
        ValueError, TypeError
            As `df.ordinal.confusion`: labels outside ``labels=``, missing labels, text labels without
            ``labels=``, fewer than two classes; and vectors of different lengths.
        """
        cube = prediction_cube(y_true, y_pred, labels=labels, sample_weight=sample_weight, dropna=dropna)
        return cls(cube, display_labels=display_labels).plot(**plot_kwargs)

    @classmethod
    @fill_doc(counted=_COUNTED)
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        dropna: bool = False,
        display_labels: Any = None,
        **plot_kwargs: Any,
    ) -> ConfusionDisplay:
        """Draw the confusion matrix of a fitted classifier's ``predict(X)`` against ``y``.

        Parameters
        ----------
        estimator : fitted classifier
            Anything with a ``predict`` method (a scikit-learn classifier or pipeline).
        {estimator_data}
        {labels}
            The class order is never ``estimator.classes_`` (sorted as text).
        {counted}

        Returns
        -------
        ConfusionDisplay
        """
        return cls.from_predictions(
            y,
            predict(estimator, X),
            labels=labels,
            sample_weight=sample_weight,
            dropna=dropna,
            display_labels=display_labels,
            **plot_kwargs,
        )

    @classmethod
    @fill_doc(counted=_COUNTED)
    def from_cv_results(
        cls,
        cv_results: Mapping,
        X: Any,
        y: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        dropna: bool = False,
        display_labels: Any = None,
        **plot_kwargs: Any,
    ) -> ConfusionDisplay:
        """Draw the confusion matrix of a cross-validation, pooled over its test folds.

        Each fold's fitted estimator predicts that fold's test samples, as in scikit-learn's
        ``RocCurveDisplay.from_cv_results`` (nothing is refitted); the fold matrices are summed into one.
        With a k-fold split every sample is tested once, so the pooled matrix is that of the cross-validated
        predictions (``cross_val_predict``); with repeated splits a sample counts once per time it is tested.
        The class order is decided once, over every fold: a fold that lacks a class is counted on the same
        classes. The fold matrices stay in ``fold_matrices``.

        Parameters
        ----------
        {cv_data}
        {labels}
        {counted}

        Returns
        -------
        ConfusionDisplay

        Raises
        ------
        ValueError
            If ``cv_results`` lacks ``"estimator"`` or ``"indices"`` (the two ``return_`` options), or as in
            [`from_predictions`][ordframe.plot.ConfusionDisplay.from_predictions].
        """
        true, predicted, weights, fold = cv_predictions(cv_folds(cv_results), X, y, sample_weight, predict)
        folds = prediction_cube(true, predicted, labels=labels, sample_weight=weights, dropna=dropna, fold=fold)
        display = cls(folds.sum(FOLD_DIM), display_labels=display_labels)
        display.fold_matrices = folds
        return display.plot(**plot_kwargs)
