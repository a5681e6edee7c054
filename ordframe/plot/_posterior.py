"""The posterior of a Bayesian comparison: the density of the difference, or the simplex of the three regions."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ordframe._core.dims import METRIC_DIM
from ordframe._core.docstrings import fill_doc
from ordframe._core.messages import show
from ordframe.plot._figures import new_axes
from ordframe.plot._stacks import one_metric

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_REGIONS = ("p_model_better", "p_equivalent", "p_versus_better")


@fill_doc
def posterior(
    result: xr.Dataset, *, model: Hashable, versus: Hashable, metric: Hashable | None = None, ax=None
) -> Figure:
    """The posterior of one pair of [`bayesian_correlated_ttest`][ordframe.bayesian_correlated_ttest] or
    [`bayesian_signed_rank`][ordframe.bayesian_signed_rank], as baycomp draws them (Benavoli et al. 2017).

    For the correlated t-test: the Student t density of the mean difference ``value(model) - value(versus)``,
    with the region of practical equivalence [-rope, rope] shaded. For the signed-rank test (computed with
    ``keep_samples=True``): the draws of (theta_model, theta_rope, theta_versus) in a triangle whose corners are
    "``model`` better" (bottom left), "``versus`` better" (bottom right) and "equivalent" (top); the lines
    from the centre split it into the regions where each of the three is the largest. Each corner or side is
    labelled with its posterior probability.

    Parameters
    ----------
    result : xarray.Dataset
        The output of ``bayesian_correlated_ttest`` or ``bayesian_signed_rank(..., keep_samples=True)``.
    model, versus : hashable
        The pair, labels along the result's model and ``versus`` dims.
    metric : str, optional
        Which metric (needed when the result has several).
    {ax}

    {figure}

    Raises
    ------
    TypeError
        For a result that is not the Dataset of a Bayesian test.
    ValueError
        For a ``model``, ``versus`` or ``metric`` that the result does not have (naming those it has), a
        signed-rank result without draws, or a result with other dims beside the pair.

    Examples
    --------
    >>> import ordframe.plot
    >>> from ordframe import bayesian_correlated_ttest
    {fold_values}
    >>> result = bayesian_correlated_ttest(mae, test_train_ratio=1 / 4, rope=0.01)
    >>> fig = ordframe.plot.posterior(result, model="b", versus="a")
    >>> fig.axes[0].get_title()
    'mae: b against a\\nP(b better) = 0.898, P(equivalent) = 0.080, P(a better) = 0.022'
    """
    if not isinstance(result, xr.Dataset) or not all(p in result for p in _REGIONS):
        raise TypeError(
            "posterior plots the Dataset of ordframe.bayesian_correlated_ttest or bayesian_signed_rank "
            f"(variables {', '.join(_REGIONS)}), got {type(result).__name__}"
        )
    if "location" not in result and "samples" not in result:
        raise ValueError("the result of bayesian_signed_rank has no draws to plot: compute it with keep_samples=True")
    metric = one_metric(result, metric)
    model_dim = result["p_model_better"].dims[1]
    for argument, label, dim in (("model", model, model_dim), ("versus", versus, "versus")):
        labels = list(result.get_index(dim))
        if label not in labels:
            raise ValueError(f"{argument}={label!r} is not a model of the result; its models are {show(labels)}")
    part = result.sel({METRIC_DIM: metric, model_dim: model, "versus": versus})
    extra = [d for d in part["p_model_better"].dims]
    if extra:
        raise ValueError(f"the result has the dims {extra} beside the pair; select one element of them first")
    probabilities = [float(part[p]) for p in _REGIONS]
    title = (
        f"{metric}: {model} against {versus}\nP({model} better) = {probabilities[0]:.3f}, "
        f"P(equivalent) = {probabilities[1]:.3f}, P({versus} better) = {probabilities[2]:.3f}"
    )
    if "location" in result:
        fig = _density(part, model, versus, ax)
    else:
        fig = _simplex(part, model, versus, probabilities, ax)
    fig.axes[0 if ax is None else fig.axes.index(ax)].set_title(title, fontsize=10)
    return fig


def _density(part: xr.Dataset, model, versus, ax) -> Figure:
    import scipy.stats

    fig, (axis,) = new_axes(1, ax, width=6.4, height=3.6)
    location, scale, df, rope = (float(part[v]) for v in ("location", "scale", "df", "rope"))
    if not scale > 0:
        raise ValueError(f"the posterior of {model} against {versus} has scale {scale}: there is no density to draw")
    low = min(scipy.stats.t.ppf(0.001, df, location, scale), -1.5 * rope)
    high = max(scipy.stats.t.ppf(0.999, df, location, scale), 1.5 * rope)
    x = np.linspace(low, high, 400)
    y = scipy.stats.t.pdf(x, df, location, scale)
    axis.plot(x, y, color="tab:blue", lw=2, gid="density")
    axis.fill_between(x, y, color="tab:blue", alpha=0.2)
    if rope > 0:
        axis.axvspan(-rope, rope, color="tab:orange", alpha=0.25, gid="rope", label=f"rope [-{rope:g}, {rope:g}]")
        axis.legend(loc="upper right", fontsize=8)
    axis.axvline(0, color="black", lw=0.8)
    better = "higher" if int(part["higher_is_better"]) else "lower"
    axis.set_xlabel(f"{model} - {versus} (mean difference over folds; {better} is better)")
    axis.set_ylabel("posterior density")
    axis.set_ylim(bottom=0)
    return fig


def project(theta: np.ndarray) -> np.ndarray:
    """Barycentric (model better, equivalent, versus better) -> (x, y) in the triangle (0, 0), (1, 0), (1/2, sqrt(3)/2)."""
    return np.stack([theta[..., 2] + theta[..., 1] / 2, theta[..., 1] * np.sqrt(3) / 2], axis=-1)


def _simplex(part: xr.Dataset, model, versus, probabilities, ax) -> Figure:
    fig, (axis,) = new_axes(1, ax, width=5.0, height=4.6)
    corners = project(np.eye(3))
    axis.plot(*np.vstack([corners, corners[:1]]).T, color="tab:orange", lw=1.5, gid="triangle")
    centre = project(np.full(3, 1 / 3))
    for middle in project(np.array([[0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])):
        axis.plot([centre[0], middle[0]], [centre[1], middle[1]], color="tab:orange", lw=1)
    points = project(part["samples"].transpose(..., "region").values)
    axis.scatter(
        points[:, 0], points[:, 1], s=2, color="tab:blue", alpha=0.1, linewidths=0, rasterized=True, gid="draws"
    )
    labels = [
        f"{model} better\n{probabilities[0]:.3f}",
        f"equivalent\n{probabilities[1]:.3f}",
        f"{versus} better\n{probabilities[2]:.3f}",
    ]
    for (x, y), text, align in zip(corners, labels, ("top", "bottom", "top")):
        axis.text(x, y + (0.03 if align == "bottom" else -0.03), text, ha="center", va=align, fontsize=9)
    axis.set_xlim(-0.15, 1.15)
    axis.set_ylim(-0.2, 1.05)
    axis.set_aspect("equal")
    axis.axis("off")
    return fig
