"""ordframe.oc_path / uoc_path: valid monotone paths whose cost is the index value, on stacks and dask."""

import math

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ordframe
from ordframe.metrics.oc import oc, uoc

FAST = settings(max_examples=100, deadline=None)
pytestmark = pytest.mark.filterwarnings(
    "ignore:invalid value encountered:RuntimeWarning", "ignore:divide by zero encountered:RuntimeWarning"
)


@st.composite
def stacks(draw):
    """A (3, K, K) stack of count matrices, K = 2..7, with empty rows and columns and huge counts."""
    k = draw(st.integers(2, 7))
    cell = st.one_of(st.just(0), st.integers(1, 3), st.integers(0, 10**9))
    counts = draw(arrays(np.int64, (3, k, k), elements=cell))
    counts[:, draw(arrays(bool, k)), :] = 0
    counts[:, :, draw(arrays(bool, k))] = 0
    return xr.DataArray(counts, dims=("model", "true", "pred"))


def path_cost(counts, cells, index, beta, gamma):
    """The index's objective evaluated on one given path (Cardoso & Sousa eq. 7 / Silva, Pinto & Cardoso eq. 28)."""
    k = len(counts)
    dist = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) ** gamma
    counts = counts.astype(float)
    if index == "oc":
        v, total = counts, counts.sum()
        disp, mu = (counts * dist).sum() ** (1 / gamma), beta / (total * (k - 1) ** gamma)
    else:
        rows = counts.sum(axis=1, keepdims=True)
        v = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
        total = float((rows > 0).sum())
        disp, mu = total ** (1 - 1 / gamma) * (v * dist).sum() ** (1 / gamma), beta / total
    rows, cols = cells[:, 0], cells[:, 1]
    return 1 - v[rows, cols].sum() / (total + disp) + mu * (v * dist)[rows, cols].sum()


def assert_valid(cells, k):
    """Starts at (0, 0), ends at (K-1, K-1), steps down/right/diagonal, then only -1 padding."""
    length = int((cells[:, 0] >= 0).sum())
    path, padding = cells[:length], cells[length:]
    assert (padding == -1).all() and (path >= 0).all()
    assert tuple(path[0]) == (0, 0) and tuple(path[-1]) == (k - 1, k - 1)
    steps = {tuple(s) for s in np.diff(path, axis=0)}
    assert steps <= {(1, 0), (0, 1), (1, 1)}, steps


@pytest.mark.parametrize("index, path_of, kernel", [("oc", ordframe.oc_path, oc), ("uoc", ordframe.uoc_path, uoc)])
@FAST
@given(cube=stacks(), beta=st.sampled_from([0.0, 0.25, 0.75, 2.0]), gamma=st.sampled_from([0.5, 1.0, 2.0]))
def test_paths_are_valid_and_attain_the_index(index, path_of, kernel, cube, beta, gamma):
    path = path_of(cube, beta=beta, gamma=gamma)
    k = cube.sizes["true"]
    assert path.dims == ("model", "step", "axis") and path.dtype == np.int64
    assert list(path.axis.values) == ["true", "pred"] and list(path.step.values) == list(range(2 * k - 1))
    values = kernel(cube.values.astype(float), beta=beta, gamma=gamma)
    for i in range(cube.sizes["model"]):
        cells = path.values[i]
        if math.isnan(values[i]):
            assert (cells == -1).all()
            continue
        assert_valid(cells, k)
        cost = path_cost(cube.values[i], cells[cells[:, 0] >= 0], index, beta, gamma)
        assert math.isclose(cost, values[i], rel_tol=1e-12, abs_tol=1e-15)


def test_diagonal_matrix_gives_the_diagonal():
    cube = xr.DataArray(np.diag([3, 0, 5, 2]), dims=("true", "pred"))
    for path_of in (ordframe.oc_path, ordframe.uoc_path):
        path = path_of(cube)
        assert path.dims == ("step", "axis")
        np.testing.assert_array_equal(path.values[:4], [[0, 0], [1, 1], [2, 2], [3, 3]])
        assert (path.values[4:] == -1).all()


def test_cardoso_sousa_classifier_b_follows_the_ordered_errors():
    """CM(B) predicts every class one too high: with the small beta the path takes those cells."""
    b = xr.DataArray([[0, 4, 0, 0], [0, 0, 6, 0], [0, 0, 0, 0], [0, 0, 0, 3]], dims=("true", "pred"))
    cells = ordframe.oc_path(b, beta=0.25).values
    assert [tuple(c) for c in cells if c[0] >= 0] == [(0, 0), (0, 1), (1, 2), (2, 3), (3, 3)]
    assert [tuple(c) for c in ordframe.oc_path(b, beta=10.0).values if c[0] >= 0] == [(i, i) for i in range(4)]


def test_labels_and_stacked_dims():
    rng = np.random.default_rng(0)
    cube = xr.DataArray(
        rng.integers(0, 9, (2, 3, 4, 4)),
        dims=("model", "fold", "true", "pred"),
        coords={"model": ["m1", "m2"], "true": list("abcd"), "pred": list("abcd")},
    )
    path = ordframe.uoc_path(cube, beta=0.3)
    assert path.dims == ("model", "fold", "step", "axis") and list(path.model.values) == ["m1", "m2"]
    assert path.name == "uoc_path"
    for i in range(2):
        for j in range(3):
            alone = ordframe.uoc_path(cube.isel(model=i, fold=j), beta=0.3)
            np.testing.assert_array_equal(path.values[i, j], alone.values)
    rows = path.isel(model=0, fold=0).sel(axis="true")
    labels = cube["true"].values[rows.values[rows.values >= 0]]
    assert labels[0] == "a" and labels[-1] == "d"


def test_dask_stays_lazy_and_agrees():
    rng = np.random.default_rng(1)
    cube = xr.DataArray(rng.integers(0, 5, (6, 5, 5)), dims=("fold", "true", "pred"))
    cube[0] = 0
    for path_of in (ordframe.oc_path, ordframe.uoc_path):
        lazy = path_of(cube.chunk({"fold": 2}), beta=0.25)
        assert lazy.chunks is not None
        np.testing.assert_array_equal(lazy.compute().values, path_of(cube, beta=0.25).values)


def test_dims_order_and_errors():
    cube = xr.DataArray(np.eye(3, dtype=int)[None].repeat(2, 0), dims=("fold", "true", "pred"))
    np.testing.assert_array_equal(
        ordframe.oc_path(cube.transpose("pred", "fold", "true")).values, ordframe.oc_path(cube).values
    )
    with pytest.raises(ValueError, match="beta"):
        ordframe.oc_path(cube.chunk({"fold": 1}), beta=-1)
    with pytest.raises(ValueError, match="gamma"):
        ordframe.uoc_path(cube, gamma=0)
    with pytest.raises(ValueError, match="true"):
        ordframe.oc_path(cube.rename(true="y"))
