"""``wilcoxon``: Wilcoxon signed-rank tests between every pair of models over N data sets, with Holm's adjustment.

For two models, Demšar (2006, section 3.1.3) recommends the Wilcoxon signed-rank test over data sets: the
differences d_i of the N data sets are ranked by |d_i| (zeros dropped, ``zero_method="wilcox"``), and
R+ / R- are the sums of the ranks of the positive / negative ones; the two-sided p-value is exact for small
N without ties, from the normal approximation otherwise (``scipy.stats.wilcoxon``). For k models, the
k (k-1) / 2 pairwise p-values are adjusted with Holm's (1979) step-down procedure (as scikit-posthocs'
``posthoc_wilcoxon(p_adjust="holm")``), or the k - 1 against a control.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import xarray as xr

from ordframe._core.dims import METRIC_DIM, MODEL_DIM, VERSUS_DIM
from ordframe._inference.multiplicity import holm, holm_pairs
from ordframe._inference.values import as_dataset, check_complete, check_dims, check_label

_ZERO_METHODS = ("wilcox", "pratt", "zsplit")
_METHODS = ("auto", "exact", "asymptotic")


def wilcoxon(
    values,
    *,
    model_dim: str = MODEL_DIM,
    dim: str = "dataset",
    control: Hashable | None = None,
    zero_method: str = "wilcox",
    correction: bool = False,
    method: str = "auto",
) -> xr.Dataset:
    """Wilcoxon signed-rank tests of every pair of models over data sets, with Holm's adjustment (Demšar 2006).

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with dims ``model_dim`` and ``dim`` (and any others, kept: one test for each of their
        elements), one metric per variable, one value per model and data set (e.g. the mean over its folds).
    model_dim : str
        The dim of the models (k >= 2).
    dim : str
        The dim of the data sets (N >= 2), reduced over.
    control : hashable, optional
        The label of a control model: adds the Holm adjustment over the k - 1 comparisons with it.
    zero_method : {"wilcox", "pratt", "zsplit"}
        How ``scipy.stats.wilcoxon`` treats zero differences: ``"wilcox"`` drops them.
    correction : bool
        The continuity correction of the normal approximation.
    method : {"auto", "exact", "asymptotic"}
        The p-values; ``"auto"`` decides pair by pair as ``scipy.stats.wilcoxon`` does on one pair: exact
        without ties or zeros, else a permutation test for N <= 13, else the normal approximation.

    Returns
    -------
    xarray.Dataset
        For every pair (dims ``metric``, ``model_dim``, ``versus``, ...; symmetric): ``statistic``
        (``scipy.stats.wilcoxon``'s two-sided statistic, min(R+, R-) for ``"wilcox"``), ``p_value``
        (two-sided, unadjusted) and ``holm_p_value`` (Holm over the k (k-1) / 2 pairs); a model against itself
        has statistic 0 and p-value 1. With ``control=``: ``control_holm_p_value`` (dims ``metric``,
        ``model_dim``, ...; Holm over the k - 1 comparisons with the control, 1 for the control itself).

    Raises
    ------
    ValueError
        If a dim is missing or too short, a variable has NaN values (every model needs a value on every data
        set), ``control`` is not a model, or an option is not one scipy offers.

    Examples
    --------
    >>> from ordframe import wilcoxon
    >>> auc = xr.DataArray(
    ...     [[0.70, 0.72, 0.75], [0.61, 0.66, 0.65], [0.80, 0.83, 0.86], [0.55, 0.57, 0.60], [0.91, 0.90, 0.95],
    ...      [0.66, 0.70, 0.71], [0.74, 0.73, 0.79], [0.82, 0.85, 0.84]],
    ...     dims=("dataset", "model"),
    ...     coords={"model": ["a", "b", "c"]},
    ...     name="auc",
    ... )
    >>> result = wilcoxon(auc, control="c").sel(metric="auc")
    >>> result["p_value"].sel(model="c").round(4).values.tolist()
    [0.0078, 0.0547, 1.0]
    >>> result["control_holm_p_value"].round(4).values.tolist()
    [0.0156, 0.0547, 1.0]
    """
    import scipy.stats  # imported when needed: it takes half a second

    if zero_method not in _ZERO_METHODS:
        raise ValueError(f"zero_method must be one of {_ZERO_METHODS}, got {zero_method!r}")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if not isinstance(correction, (bool, np.bool_)):
        raise TypeError(f"correction= must be True or False, got {correction!r}")

    def pairwise(array: np.ndarray):  # (..., k, N) -> statistic and p of (..., k, k)
        k = array.shape[-2]
        rows, cols = np.triu_indices(k, 1)
        differences = array[..., rows, :] - array[..., cols, :]
        flat = differences.reshape(-1, differences.shape[-1])
        found = np.empty((2, flat.shape[0]))
        for chosen, members in _methods(flat, method, zero_method):
            with np.errstate(invalid="ignore", divide="ignore"):  # pairs without a non-zero difference: p = 1
                tested = scipy.stats.wilcoxon(
                    flat[members], axis=-1, zero_method=zero_method, correction=bool(correction), method=chosen
                )
            found[:, members] = tested.statistic, tested.pvalue
        statistic = np.zeros((*array.shape[:-2], k, k))
        p_value = np.ones((*array.shape[:-2], k, k))
        for out, values in zip((statistic, p_value), found.reshape(2, *differences.shape[:-1])):
            out[..., rows, cols] = values
            out[..., cols, rows] = values
        return statistic, p_value

    parts = []
    for name, metric in as_dataset(values).items():
        check_dims(name, metric, [model_dim, dim])
        check_complete(name, metric, model_dim, dim, "the Wilcoxon signed-rank test")
        n = metric.sizes[dim]
        if control is not None:
            check_label(control, metric, model_dim, "control")
        metric = metric.drop_attrs(deep=False)
        statistic, p_value = xr.apply_ufunc(
            pairwise,
            metric,
            input_core_dims=[[model_dim, dim]],
            output_core_dims=[[model_dim, VERSUS_DIM], [model_dim, VERSUS_DIM]],
        )
        if model_dim in metric.coords:
            statistic, p_value = (a.assign_coords({VERSUS_DIM: metric[model_dim].values}) for a in (statistic, p_value))
        pairs = (model_dim, VERSUS_DIM, ...)
        variables = {
            "statistic": statistic.transpose(*pairs),
            "p_value": p_value.transpose(*pairs),
            "holm_p_value": xr.apply_ufunc(
                holm_pairs,
                p_value,
                input_core_dims=[[model_dim, VERSUS_DIM]],
                output_core_dims=[[model_dim, VERSUS_DIM]],
            ).transpose(*pairs),
        }
        if control is not None:
            others = p_value.sel({VERSUS_DIM: control}, drop=True).drop_sel({model_dim: [control]})
            adjusted = xr.apply_ufunc(holm, others, input_core_dims=[[model_dim]], output_core_dims=[[model_dim]])
            variables["control_holm_p_value"] = adjusted.reindex(
                {model_dim: metric[model_dim]}, fill_value=1.0
            ).transpose(model_dim, ...)
        parts.append(xr.Dataset(variables).expand_dims({METRIC_DIM: [name]}))
    out = xr.concat(parts, dim=METRIC_DIM)
    out.attrs = {
        "test": "Wilcoxon signed-rank with Holm's adjustment (Demšar 2006)",
        "blocks_dim": dim,
        "blocks": int(n),
        "zero_method": zero_method,
        **({"control": str(control)} if control is not None else {}),
    }
    return out


def _methods(differences: np.ndarray, method: str, zero_method: str):
    """``(method, rows)`` groups of the ``(M, N)`` differences, deciding ``"auto"`` pair by pair as scipy would.

    ``scipy.stats.wilcoxon(method="auto")`` on a stacked array decides once for all rows (ties or zeros
    anywhere make every row asymptotic); per pair it is: exact without ties or zeros, else a (deterministic)
    permutation test for N <= 13, else asymptotic; asymptotic for N > 50.
    """
    import scipy.stats

    every = np.ones(len(differences), dtype=bool)
    n = differences.shape[-1]
    if method != "auto":
        return [(method, every)]
    if n > 50:
        return [("asymptotic", every)]
    zeros = (differences == 0).any(axis=-1)
    size = np.sort(
        np.where(differences == 0, np.nan, np.abs(differences)) if zero_method == "wilcox" else np.abs(differences),
        axis=-1,
    )
    ties = (np.diff(size, axis=-1) == 0).any(axis=-1)
    exact = ~(zeros | ties)
    other = scipy.stats.PermutationMethod() if n <= 13 else "asymptotic"
    return [(chosen, rows) for chosen, rows in (("exact", exact), (other, ~exact)) if rows.any()]
