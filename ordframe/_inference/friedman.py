"""``friedman``: the Friedman test and its post-hoc tests as recommended by
Demšar (2006, JMLR 7:1-30) for k models on N data sets. The models are ranked
within each data set (rank 1 = best, in each metric's direction; ties get the
average rank), R_j is the average rank of model j::

    chi2_F = 12 N / (k (k+1)) (sum_j R_j^2 - k (k+1)^2 / 4)      ~ chi2(k-1)
             divided by 1 - sum(t^3 - t) / (N k (k^2 - 1)) over the groups of t tied values (unless tie_correction=False)
    F_F    = (N-1) chi2_F / (N (k-1) - chi2_F)                    ~ F(k-1, (k-1)(N-1))   (Iman & Davenport 1980)
    z_ij   = (R_i - R_j) / sqrt(k (k+1) / (6 N))
    CD     = q sqrt(k (k+1) / (6 N)),   q = studentized range quantile(level, k, inf) / sqrt(2)

with Nemenyi p-values from the studentized range distribution (``sf(|z| sqrt 2, k, inf)``)
and Holm's step-down adjustment (Holm 1979) of the normal p-values ``2 Phi(-|z|)``.
Demšar prefers F_F: the chi-square form is conservative.

Against a control model c (Demšar 2006, section 3.2.2), the k - 1 hypotheses R_j = R_c
have p-values ``2 Phi(-|z_jc|)``, Holm-adjusted over those k - 1, and the Bonferroni-Dunn
critical difference is CD_BD = z_{1 - alpha / (2 (k-1))} sqrt(k (k+1) / (6 N)), with alpha = 1 - level.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np
import xarray as xr

from ordframe._core.checks import check_level, directions, ranking, significance
from ordframe._core.dims import METRIC_DIM, MODEL_DIM, VERSUS_DIM
from ordframe._core.docstrings import fill_doc
from ordframe._inference.multiplicity import holm, holm_pairs
from ordframe._inference.values import as_dataset, check_complete, check_dims, check_label, elementwise


@fill_doc
def friedman(
    values,
    *,
    model_dim: str = MODEL_DIM,
    dim: str = "dataset",
    level: float = 0.95,
    tie_correction: bool = True,
    higher_is_better=None,
    control: Hashable | None = None,
) -> xr.Dataset:
    """The Friedman test of k models on N data sets, with Nemenyi and Holm post-hoc tests (Demšar 2006).

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values with dims ``model_dim`` and ``dim`` (and any others, kept: one test for each of their
        elements), one metric per variable of a Dataset. Each variable needs a ``higher_is_better`` attr
        (ordframe results carry it): rank 1 goes to the best model in that direction.
    model_dim : str
        The dim of the models (k >= 2).
    dim : str
        The dim of the blocks, the data sets (N >= 2), reduced over.
    level : float
        The confidence level of the critical differences (Nemenyi, and Bonferroni-Dunn with ``control=``),
        in (0, 1): their significance level is ``1 - level``.
    tie_correction : bool
        Divide the Friedman statistic by the correction for ties within data sets,
        ``1 - sum(t^3 - t) / (N k (k^2 - 1))``, as ``scipy.stats.friedmanchisquare`` and R's
        ``friedman.test`` do. ``False`` gives the formula printed by Demšar (2006); both agree when no
        data set has tied values.
    higher_is_better : bool or dict, optional
        Which way is better: None (default) reads each variable's ``higher_is_better`` attr (or its ``best``
        attr: the distance from that target ranks, lower better); True or False applies to every variable; a
        dict gives it by variable name (the others read their attrs). xarray keeps attrs through arithmetic (``1 - accuracy``), so a variable named unlike its
        ``metric`` attr warns unless this is given.
    control : hashable, optional
        The label (along ``model_dim``) of a control model, e.g. a new method compared with the others:
        adds the k - 1 comparisons with it (Demšar 2006, section 3.2.2), which have more power than the k (k-1) / 2
        comparisons of all pairs.

    Returns
    -------
    xarray.Dataset
        ``average_rank`` (dims ``metric``, ``model_dim``, ...). The omnibus tests (dims ``metric``, ...):
        ``iman_davenport`` and ``iman_davenport_p_value``, the F form of Iman & Davenport (1980), the p-value
        to report (Demšar 2006); ``statistic`` and ``p_value``, the Friedman chi-square and its p-value, which
        is conservative. ``critical_difference``, Nemenyi's CD. The comparisons of all pairs (dims
        ``metric``, ``model_dim``, ``versus``, ...; 1 on the diagonal): ``nemenyi_p_value``,
        ``holm_p_value``. With ``control=``: ``control_p_value`` (unadjusted) and ``control_holm_p_value``
        (Holm over the k - 1 comparisons) of every model against the control (dims ``metric``,
        ``model_dim``, ...; 1 for the control itself), and ``bonferroni_dunn_cd`` (dims ``metric``, ...).
        Each variable's ``long_name`` attr says what it is. When every data set ties every model, the
        statistics are 0 and the p-values 1 (``scipy.stats.friedmanchisquare`` gives NaN there).

    Raises
    ------
    ValueError
        If a dim is missing or too short, a variable has no direction, has NaN values (the Friedman
        test needs complete blocks), level is outside (0, 1), or ``control`` is not a model.

    Warns
    -----
    UserWarning
        For a variable named unlike its ``metric`` attr (its direction may be stale), unless
        ``higher_is_better=`` is given.

    Examples
    --------
    >>> from ordframe import friedman
    {dataset_values}
    >>> result = friedman(auc)
    >>> result["average_rank"].sel(metric="auc").values.tolist()
    [2.8, 2.0, 1.2]
    >>> part = result.sel(metric="auc")
    >>> round(float(part["iman_davenport"]), 2), round(float(part["iman_davenport_p_value"]), 3)
    (7.11, 0.017)
    >>> round(float(part["statistic"]), 2), round(float(part["p_value"]), 3)
    (6.4, 0.041)
    >>> round(float(part["critical_difference"]), 3)
    1.482
    >>> against_c = friedman(auc, control="c").sel(metric="auc")
    >>> against_c["control_holm_p_value"].round(3).values.tolist()
    [0.023, 0.206, 1.0]
    >>> round(float(against_c["bonferroni_dunn_cd"]), 3)
    1.418
    """
    import scipy.stats  # imported when needed: it takes half a second

    level = check_level(level)
    parts = []
    data = as_dataset(values)
    overrides = directions(higher_is_better, list(data.data_vars))
    for name, metric in data.items():
        check_dims(name, metric, [model_dim, dim])
        control_parts: dict[str, xr.DataArray] = {}
        if control is not None:
            check_label(control, metric, model_dim, "control")
        oriented = ranking(name, metric.attrs, overrides[name])
        check_complete(name, metric, model_dim, dim, "the Friedman test")
        k, n = metric.sizes[model_dim], metric.sizes[dim]
        ranks = xr.apply_ufunc(
            scipy.stats.rankdata,
            -oriented.score(metric.drop_attrs(deep=False)),
            input_core_dims=[[model_dim]],
            output_core_dims=[[model_dim]],
            kwargs={"axis": -1},
            dask="parallelized",
            output_dtypes=[np.float64],
        )
        average = ranks.mean(dim)
        statistic = 12 * n / (k * (k + 1)) * ((average - (k + 1) / 2) ** 2).sum(model_dim)  # = Demšar's form, >= 0
        if tie_correction:
            group_size = (ranks == ranks.rename({model_dim: VERSUS_DIM})).sum(
                VERSUS_DIM
            )  # t of each element's tie group
            ties = (group_size**2 - 1).sum([model_dim, dim])  # sum over groups of t^3 - t
            correction = 1 - ties / (n * k * (k * k - 1))  # 0 when every data set ties every model: statistic 0
            statistic = (statistic / correction.where(correction > 0)).fillna(0.0)
        p_value = elementwise(scipy.stats.chi2.sf, statistic, k - 1)
        room = n * (k - 1) - statistic  # 0 when every data set ranks the models alike: F = inf
        f_statistic = xr.where(room > 0, (n - 1) * statistic / room.where(room > 0), np.inf)
        f_p_value = elementwise(scipy.stats.f.sf, f_statistic, k - 1, (k - 1) * (n - 1))
        se = math.sqrt(k * (k + 1) / (6 * n))
        q = scipy.stats.studentized_range.ppf(level, k, np.inf) / math.sqrt(2)
        z = (average - average.rename({model_dim: VERSUS_DIM})) / se
        nemenyi = elementwise(scipy.stats.studentized_range.sf, np.abs(z) * math.sqrt(2), k, np.inf)
        if control is not None:
            # column c of the pairwise z: (R_j - R_c) / se, the k - 1 tests against the control
            against = 2 * elementwise(scipy.stats.norm.sf, np.abs(z.sel({VERSUS_DIM: control}, drop=True)))
            others = against.drop_sel({model_dim: [control]})
            adjusted = xr.apply_ufunc(holm, others, input_core_dims=[[model_dim]], output_core_dims=[[model_dim]])
            control_parts = {
                "control_p_value": np.minimum(1.0, against).transpose(model_dim, ...),
                "control_holm_p_value": adjusted.reindex({model_dim: against[model_dim]}, fill_value=1.0).transpose(
                    model_dim, ...
                ),
                "bonferroni_dunn_cd": xr.full_like(
                    statistic, scipy.stats.norm.isf(significance(level) / (2 * (k - 1))) * se, dtype=np.float64
                ),
            }
        normal = np.minimum(1.0, 2 * elementwise(scipy.stats.norm.sf, np.abs(z)))
        holm_p = xr.apply_ufunc(
            holm_pairs,
            normal,
            input_core_dims=[[model_dim, VERSUS_DIM]],
            output_core_dims=[[model_dim, VERSUS_DIM]],
            dask="parallelized",
            output_dtypes=[np.float64],
        )
        pairs = (model_dim, VERSUS_DIM, ...)
        parts.append(
            xr.Dataset(
                {
                    "average_rank": average.transpose(model_dim, ...),
                    "statistic": statistic,
                    "p_value": p_value,
                    "iman_davenport": f_statistic,
                    "iman_davenport_p_value": f_p_value,
                    "critical_difference": xr.full_like(statistic, q * se),
                    "nemenyi_p_value": nemenyi.transpose(*pairs),
                    "holm_p_value": holm_p.transpose(*pairs),
                    **control_parts,
                }
            ).expand_dims({METRIC_DIM: [name]})
        )
    out = xr.concat(parts, dim=METRIC_DIM)
    for variable, long_name in LONG_NAMES.items():
        if variable in out:
            out[variable].attrs["long_name"] = long_name
    out.attrs = {
        "test": "Friedman (Demšar 2006)",
        "blocks_dim": dim,
        "blocks": int(n),
        "level": level,
        "tie_correction": int(tie_correction),
        **({"control": str(control)} if control is not None else {}),
    }
    return out


LONG_NAMES = {
    "average_rank": "average rank over the data sets (1 = best)",
    "statistic": "Friedman chi-square statistic",
    "p_value": "Friedman chi-square p-value (conservative; report the Iman-Davenport one)",
    "iman_davenport": "Iman-Davenport F statistic",
    "iman_davenport_p_value": "Iman-Davenport F p-value (the omnibus p-value to report, Demšar 2006)",
    "critical_difference": "Nemenyi critical difference of average ranks",
    "nemenyi_p_value": "Nemenyi p-value of the pair",
    "holm_p_value": "Holm-adjusted p-value of the pair (over all pairs)",
    "control_p_value": "p-value against the control (unadjusted)",
    "control_holm_p_value": "Holm-adjusted p-value against the control (over the k - 1 comparisons)",
    "bonferroni_dunn_cd": "Bonferroni-Dunn critical difference against the control",
}
