"""The optimal paths behind OC and UOC, as labelled arrays (for plots and for explaining a score).

A path runs from cell (0, 0) to (K-1, K-1) of each confusion matrix (rows =
true class) with steps down, right or diagonal, and minimises the index's
objective; its cost is the index value (see ``ordframe.metrics.oc``).

Representation: an int64 ``DataArray`` with dims ``(*stack, "step", "axis")``.
``axis`` has coordinates ``["true", "pred"]`` and holds the 0-based class
*positions* (row, column) of each cell in the cube's class order; ``step``
runs over 0 .. 2K-2, the longest possible path. A path of L cells fills steps
0 .. L-1 and the remaining steps are -1. A matrix on which the index is
undefined (OC: no samples; UOC: no observed true class) is all -1.

For one matrix, the true-class labels along the path are::

    rows = ordframe.oc_path(cube).sel(axis="true").values
    cube["true"].values[rows[rows >= 0]]
"""

from __future__ import annotations

import inspect

import numpy as np
import xarray as xr

from ordframe._bridge.apply import check_counts, check_cube, cube_classes, quiet
from ordframe._core.dims import AXIS_DIM, CUBE_DIMS, STEP_DIM
from ordframe.metrics.oc import check_params, oc, oc_cells, uoc, uoc_cells

# the defaults of the OC and UOC kernels, so that a path and its index always agree
_OC = {name: p.default for name, p in inspect.signature(oc).parameters.items() if name != "counts"}
_UOC = {name: p.default for name, p in inspect.signature(uoc).parameters.items() if name != "counts"}


def _path(kernel, name: str, cube: xr.DataArray, beta, gamma) -> xr.DataArray:
    check_cube(cube)
    cube, _ = cube_classes(cube)
    check_params(beta, gamma)
    k = cube.sizes["true"]
    counts = cube.transpose(..., *CUBE_DIMS).astype(np.float64)
    path = xr.apply_ufunc(
        lambda counts, **params: quiet(kernel, check_counts(counts), **params),
        counts,
        kwargs={"beta": beta, "gamma": gamma},
        input_core_dims=[list(CUBE_DIMS)],
        output_core_dims=[[STEP_DIM, AXIS_DIM]],
        dask="parallelized",
        output_dtypes=[np.int64],
        dask_gufunc_kwargs={"output_sizes": {STEP_DIM: 2 * k - 1, AXIS_DIM: 2}, "allow_rechunk": True},
    )
    return path.assign_coords(step=np.arange(2 * k - 1), axis=list(CUBE_DIMS)).rename(name)


def oc_path(cube: xr.DataArray, *, beta: float = _OC["beta"], gamma: float = _OC["gamma"]) -> xr.DataArray:
    """For every matrix of ``cube``, the cells of a path that attains ``oc(beta, gamma)``.

    Among equally good paths, each step prefers the diagonal move, then down,
    then right. Works lazily on dask-backed cubes.

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube (dims ``(..., "true", "pred")``).
    beta, gamma : float
        As in the ``oc`` metric (Cardoso & Sousa 2011): beta >= 0, gamma in [0.1, 10].

    Returns
    -------
    xarray.DataArray
        int64 (row, column) class positions with dims ``(*stack, "step", "axis")``,
        padded with -1 after (K-1, K-1); see the module docstring.

    Raises
    ------
    ValueError
        For beta < 0 or gamma outside [0.1, 10], or a cube that is not one (see ``cube.ordinal``).

    Examples
    --------
    >>> import ordframe
    >>> cube = xr.DataArray([[2, 1, 0], [0, 2, 0], [0, 1, 2]], dims=("true", "pred"))
    >>> ordframe.oc_path(cube).values.tolist()  # (true, pred) cells from (0, 0) to (2, 2)
    [[0, 0], [0, 1], [1, 1], [2, 1], [2, 2]]
    """
    return _path(oc_cells, "oc_path", cube, beta, gamma)


def uoc_path(cube: xr.DataArray, *, beta: float = _UOC["beta"], gamma: float = _UOC["gamma"]) -> xr.DataArray:
    """For every matrix of ``cube``, the cells of a path that attains ``uoc(beta, gamma)``.

    Same representation and errors as [`oc_path`][oc_path]. The path runs
    on the full K x K grid; rows of unobserved true classes carry no benefit or
    penalty (Silva, Pinto & Cardoso 2018, eq. 28).

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube (dims ``(..., "true", "pred")``).
    beta, gamma : float
        As in the ``uoc`` metric: beta >= 0 (used directly, not relative as in ``oc``), gamma in [0.1, 10].

    Returns
    -------
    xarray.DataArray
        int64 (row, column) class positions with dims ``(*stack, "step", "axis")``,
        padded with -1 after (K-1, K-1).

    Examples
    --------
    >>> import ordframe
    >>> cube = xr.DataArray([[2, 1, 0], [0, 2, 0], [0, 1, 2]], dims=("true", "pred"))
    >>> ordframe.uoc_path(cube).sel(axis="pred").values.tolist()
    [0, 1, 1, 1, 2]
    """
    return _path(uoc_cells, "uoc_path", cube, beta, gamma)
