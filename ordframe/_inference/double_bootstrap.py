"""What the calibrated percentile interval needs, from a double bootstrap of the cube (Hall 1986; Hall & Martin 1988).

The percentile interval ``[q*(alpha), q*(1 - alpha)]`` of a statistic that is
biased in the bootstrap, such as OC (a minimum over paths, biased downward where
optimal paths tie), covers less than its level at every N. Calibration estimates,
in the bootstrap world, the level at which the percentile interval covers as
asked, and uses it on the data's replicates. For each of ``B`` outer replicates
``n*_b`` of the cube, ``n_inner`` replicates ``n**_bj`` are drawn from ``n*_b``
(multinomially, as ``bootstrap_cube`` draws), and the mid-rank share::

    v_b = ( #{theta**_bj < theta} + #{theta**_bj = theta} / 2 ) / #valid_j

places the estimate ``theta`` on the data within the inner replicates of ``b``. The
percentile interval of level ``lambda`` covers ``theta`` in the bootstrap world
whenever ``v_b`` lies within ``[lambda_low, lambda_high]``, so the calibrated levels
are the ``alpha`` and ``1 - alpha`` quantiles of ``v_1, ..., v_B``, and the interval is
the replicates' quantiles at those levels. Ties are counted half (replicates of OC
repeat at small N), equality to within the relative ``_EQUAL`` of ``intervals``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, confusion_counts
from ordframe._core.checks import rng_of
from ordframe._core.dims import BOOTSTRAP_DIM, CUBE_DIMS
from ordframe._core.progress import chunks
from ordframe._registry.metric import Metric
from ordframe._resampling.cubes import CHUNK_COUNTS, bootstrap_cube

#: The default number of inner replicates per outer replicate, the setting the coverage suite measured
#: (``benchmarks/bench_coverage.py``).
INNER = 100
INNER_DIM = "inner"


def calibration_shares(
    cube: xr.DataArray,
    request: Mapping[Hashable, tuple[Metric, dict, xr.DataArray]],
    *,
    n_resamples: int,
    n_inner: int = INNER,
    equal: float = 1e-9,
    seed=None,
    progress: bool | None = None,
) -> dict[Hashable, xr.DataArray]:
    """The shares ``v_b`` of every metric of ``request``, along a last dim ``bootstrap`` of length ``n_resamples``.

    ``request`` maps a name to ``(metric, parameters, estimate)``, the estimate being the metric on ``cube``
    (labelled like the cube less ``true`` and ``pred``). ``n_resamples`` outer replicates of the cube are drawn,
    each with ``n_inner`` replicates of its own, once for all the metrics. A share is NaN where the metric is NaN on
    the cube or on every inner replicate. The calibrated levels are their ``alpha`` and ``1 - alpha``
    quantiles.
    """
    rng = rng_of(seed)
    stack = math.prod(size for dim, size in cube.sizes.items() if dim not in CUBE_DIMS)
    k = cube.sizes[CUBE_DIMS[0]]
    per_chunk = max(1, CHUNK_COUNTS // (n_inner * stack * k * k))
    shares: dict[Hashable, list[xr.DataArray]] = {name: [] for name in request}
    for start, stop in chunks(n_resamples, per_chunk, progress=progress, desc="calibration", unit="outer replicate"):
        draws = bootstrap_cube(bootstrap_cube(cube, stop - start, seed=rng), n_inner, seed=rng, replicate_dim=INNER_DIM)
        counts = confusion_counts(draws)  # validated once for every metric
        for name, (metric, params, estimate) in request.items():
            shares[name].append(_share_below(apply_confusion(metric, draws, params, counts), estimate, equal))
    return {
        name: xr.concat(shares[name], dim=BOOTSTRAP_DIM).where(estimate.notnull()).transpose(..., BOOTSTRAP_DIM)
        for name, (_, _, estimate) in request.items()
    }


def _share_below(values: xr.DataArray, estimate: xr.DataArray, equal: float) -> xr.DataArray:
    """The mid-rank share of the inner replicates below the estimate (ties count half), NaN ones left out."""
    theta = estimate.variable  # no coords or attrs: the values' are kept
    tolerance = equal * np.maximum(1.0, abs(theta))
    valid = values.notnull().sum(INNER_DIM)
    below = (values < theta - tolerance).sum(INNER_DIM)
    tied = (abs(values - theta) <= tolerance).sum(INNER_DIM)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((below + tied / 2) / valid).where(valid > 0)
