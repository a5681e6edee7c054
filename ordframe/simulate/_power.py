"""Discriminative power (Sakai 2006): the share of pairs of models that a metric separates by a bootstrap test.

For every pair of models and every metric, the achieved significance level
(ASL) is the two-sided bootstrap p-value of ``ordframe.compare``; a metric's
discriminative power is the share of the pairs whose ASL is below ``1 - level``,
and its ASL curve the pairs' ASLs in ascending order (Sakai's figures). A
metric that separates more pairs on the same data tells models apart with
fewer samples.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ordframe._bridge.apply import check_cube
from ordframe._bridge.evaluate import evaluate_cube
from ordframe._core.checks import check_level, dims_list, significance
from ordframe._core.dims import BOOTSTRAP_DIM, METRIC_DIM, MODEL_DIM, PAIR_DIM, VERSUS_DIM
from ordframe._core.messages import show, warn
from ordframe._inference.compare import compare
from ordframe._resampling.cubes import bootstrap_cube


def discriminative_power(
    data,
    *,
    level: float = 0.95,
    metrics=None,
    model_dim: str = MODEL_DIM,
    dim=None,
    n_resamples: int = 2000,
    seed=None,
) -> xr.Dataset:
    """The share of pairs of models that each metric separates at the confidence ``level`` (Sakai 2006).

    For every pair of models (a, b), a < b along ``model_dim``, the achieved significance level (ASL) is the
    two-sided bootstrap p-value of "no difference" of [`compare`][ordframe.compare],
    ``min(1, 2 (min(#{d <= 0}, #{d >= 0}) + 1) / (B + 1))`` over the B replicates' differences d. The
    discriminative power of a metric is ``#{pairs: ASL < 1 - level} / #{pairs}``, and its ASL curve the pairs'
    ASLs in ascending order. Sakai (2006) bootstraps a studentised paired statistic over topics; here the test
    is that of ``compare``, on whole test sets.

    Parameters
    ----------
    data : xarray.Dataset or xarray.DataArray
        Either the result of [`compare`][ordframe.compare] or of
        [`df.ordinal.compare`][ordframe._accessors.pandas.OrdinalFrameAccessor.compare] (its ``p_value``):
        the paired bootstrap of models scored on the same samples, which is what Sakai's test is. Or a
        confusion cube with the dim ``model_dim``: each model's cube is then bootstrapped on its own
        ([`bootstrap_cube`][ordframe.bootstrap_cube]), an unpaired test, right for models scored on
        independent test sets (e.g. simulated pairs of cubes); models scored on the same samples are
        compared more powerfully by ``df.ordinal.compare(..., sample=...)``.
    level : float
        The confidence level, in (0, 1): a pair is separated when its ASL is below ``1 - level``, the test's
        significance level.
    metrics : str, list or dict, optional
        For a cube: the confusion metrics, as ``metrics=`` of ``cube.ordinal.evaluate`` (default: every
        registered confusion metric). A comparison already holds its metrics.
    model_dim : str
        The dim of the models.
    dim : str or list of str, optional
        Further dims whose elements are pooled with the pairs (e.g. ``"replicate"`` for many simulated
        pairs of models, one along ``model_dim`` each); the other dims are kept.
    n_resamples : int
        For a cube: the number of bootstrap replicates.
    seed : None, int or numpy.random.Generator
        For a cube: the seed of the bootstrap.

    Returns
    -------
    xarray.Dataset
        ``asl`` (dims ``metric``, ``model_dim``, ``versus`` and the others: the ASL of every pair, NaN where
        undefined), ``discriminative_power`` (per metric: the share of pairs with ASL < ``1 - level``),
        ``pairs`` (the pairs with a defined ASL) and ``asl_curve`` (per metric, the ASLs in ascending order
        along ``pair``, NaN-padded), with the attrs ``level`` and ``test``.

    Raises
    ------
    ValueError
        For ``level`` outside (0, 1), fewer than two models, a missing dim, a comparison without
        ``p_value``, or ``metrics``, ``n_resamples`` or ``seed`` given with a comparison.

    Examples
    --------
    >>> import ordframe
    >>> cubes = xr.DataArray(
    ...     [[[45, 5], [5, 45]], [[30, 20], [20, 30]], [[44, 6], [6, 44]]],
    ...     dims=("model", "true", "pred"), coords={"model": ["a", "b", "c"]},
    ... )
    >>> result = ordframe.simulate.discriminative_power(cubes, metrics=["accuracy"], n_resamples=500, seed=0)
    >>> result["discriminative_power"].values.tolist()  # a-b and b-c are separated, a-c not
    [0.6666666666666666]
    """
    level = check_level(level)
    pooled = [] if dim is None else dims_list(dim)
    if isinstance(data, xr.Dataset):
        given = [name for name, value in (("metrics", metrics), ("seed", seed)) if value is not None]
        if n_resamples != 2000:
            given.append("n_resamples")
        if given:
            raise ValueError(
                f"{', '.join(given)} apply to a cube, which is bootstrapped here; a comparison was given, which "
                "holds its metrics and replicates already: drop them"
            )
        if "p_value" not in data:
            raise ValueError(
                f"data is a Dataset without 'p_value' (variables {show(list(data.data_vars))}); pass the result "
                "of ordframe.compare or df.ordinal.compare, or a confusion cube with a model dim"
            )
        asl = data["p_value"]
        test = "the comparison's bootstrap p-values"
    else:
        check_cube(data)
        asl = _cube_asl(data, metrics, model_dim, n_resamples, seed)
        test = "each model's cube bootstrapped on its own (unpaired), p-values of ordframe.compare"
    for d in (model_dim, VERSUS_DIM, *pooled):
        if d not in asl.dims:
            raise ValueError(f"the ASLs have no dim {d!r}; their dims are {tuple(asl.dims)}")
    if asl.sizes[model_dim] < 2:
        raise ValueError(f"discriminative power needs two models or more along {model_dim!r}, got one")
    models = asl.sizes[model_dim]
    upper = np.triu(np.ones((models, models), bool), 1).reshape(-1)  # the pairs a < b, model-major
    pairs = asl.stack({PAIR_DIM: [model_dim, VERSUS_DIM, *pooled]})
    pairs = pairs.isel({PAIR_DIM: upper.repeat(pairs.sizes[PAIR_DIM] // upper.size)})
    pairs = pairs.drop_vars([PAIR_DIM, model_dim, VERSUS_DIM, *pooled], errors="ignore")
    defined = pairs.notnull()
    count = defined.sum(PAIR_DIM)
    share = (pairs < significance(level)).where(defined).sum(PAIR_DIM) / count.where(count > 0)
    if bool((count < defined.sizes[PAIR_DIM]).any()):
        warn(
            "some pairs of models have no ASL (a metric undefined on every replicate of a model): they are "
            "left out of the discriminative power; 'pairs' counts those that are in",
            RuntimeWarning,
        )
    curve = xr.apply_ufunc(np.sort, pairs, input_core_dims=[[PAIR_DIM]], output_core_dims=[[PAIR_DIM]])
    out = xr.Dataset(
        {
            "asl": asl.drop_attrs(deep=False),
            "discriminative_power": share,
            "pairs": count,
            "asl_curve": curve.assign_coords({PAIR_DIM: np.arange(1, curve.sizes[PAIR_DIM] + 1)}),
        }
    )
    out.attrs = {"level": level, "test": test}
    return out


def _cube_asl(cube: xr.DataArray, metrics, model_dim: str, n_resamples: int, seed) -> xr.DataArray:
    """The two-sided bootstrap p-values of ``compare`` for every pair of models of ``cube``, per metric."""
    if model_dim not in cube.dims:
        raise ValueError(f"the cube has no dim model_dim={model_dim!r}; its dims are {tuple(cube.dims)}")
    if cube.sizes[model_dim] < 2:
        raise ValueError(f"discriminative power needs two models or more along {model_dim!r}, got one")
    replicates = bootstrap_cube(cube, n_resamples, seed=seed)
    estimate = evaluate_cube(cube, metrics)
    result = compare(
        evaluate_cube(replicates, metrics), model_dim=model_dim, dim=BOOTSTRAP_DIM, estimate=estimate, adjust=None
    )
    return result["p_value"].transpose(METRIC_DIM, model_dim, VERSUS_DIM, ...)
