"""The per-class values of a worst-class metric on a cube and on its bootstrap replicates.

MS is the smallest per-class recall, MMAE the largest per-class MAE: a metric registered with
``Metric.per_class`` is the worst of the values that kernel gives per true class. The intersection
interval (``intervals.intersection_bounds``) needs those values, not only their worst, on the data and
on every replicate; they are drawn here, as ``bootstrap_cube`` draws, in chunks that obey
``max_cube_bytes``.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ordframe._bridge.apply import checked_output, confusion_counts, prepare, quiet
from ordframe._core.checks import rng_of
from ordframe._core.dims import BOOTSTRAP_DIM, CUBE_DIMS, TRUE
from ordframe._core.progress import chunks
from ordframe._registry.metric import Metric
from ordframe._resampling.cubes import CHUNK_COUNTS, bootstrap_cube


def class_values(cube: xr.DataArray, metric: Metric, params: dict) -> xr.DataArray:
    """``metric.per_class`` on every matrix of ``cube``: dims ``(*other dims, "true")``, labelled by the classes."""
    counts = confusion_counts(cube)
    k = counts.counts.sizes[TRUE]
    prepared = prepare(metric, params, k, counts.classes)
    values = counts.counts.values.astype(np.float64, copy=False)
    out = checked_output(
        metric,
        quiet(metric.per_class, values, **prepared),
        values.shape[:-1],
        f"the per-class values of counts of shape {values.shape}",
    )
    template = counts.counts.isel({CUBE_DIMS[1]: 0}, drop=True)
    return template.copy(data=out)


def class_replicates(
    cube: xr.DataArray, metric: Metric, params: dict, *, n_resamples: int, seed=None, progress: bool | None = None
) -> tuple[xr.DataArray, xr.DataArray]:
    """The per-class values on ``cube`` and on ``n_resamples`` bootstrap replicates of it (a last dim ``bootstrap``)."""
    rng = rng_of(seed)
    per_chunk = max(1, CHUNK_COUNTS // math.prod(cube.sizes.values()))
    draws = [
        class_values(bootstrap_cube(cube, stop - start, seed=rng), metric, params)
        for start, stop in chunks(n_resamples, per_chunk, progress=progress, desc="intersection", unit="replicate")
    ]
    return class_values(cube, metric, params), xr.concat(draws, dim=BOOTSTRAP_DIM).transpose(..., BOOTSTRAP_DIM)
