"""Threads and processes: computing metrics changes no process-wide state (hostile review H4).

Kernels run under ``numpy.errstate``, which is local to the thread; the
process's warning filters, which every thread shares, are never touched.
"""

import threading
import warnings

import numpy as np
import pytest
import xarray as xr

import ordframe  # noqa: F401

EMPTY = xr.DataArray([[0, 0], [0, 0]], dims=("true", "pred"))


def nan_warnings_still_appear():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert np.isnan(EMPTY.ordinal.mae())
        warnings.warn("the user's own", RuntimeWarning, stacklevel=1)
    return [str(w.message)[:25] for w in caught]


def test_eight_threads_leave_the_warning_filters_as_they_were():
    cube = xr.DataArray(np.random.default_rng(0).integers(0, 5, (200, 4, 4)), dims=("g", "true", "pred"))
    before = list(warnings.filters)
    errors = []

    def work():
        try:
            for _ in range(40):
                cube.ordinal.oc()
                cube.ordinal.qwk()
                cube[0, :2, :2].ordinal.spearman()  # computes a NaN-free scalar
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert list(warnings.filters) == before
    assert nan_warnings_still_appear() == ["mae is undefined for this", "the user's own"]


def test_dasks_threaded_scheduler_leaves_the_warning_filters_as_they_were():
    dask = pytest.importorskip("dask")
    cube = xr.DataArray(np.random.default_rng(1).integers(0, 5, (4000, 4, 4)), dims=("g", "true", "pred"))
    before = list(warnings.filters)
    with dask.config.set(scheduler="threads", num_workers=4):
        for _ in range(3):
            cube.chunk({"g": 10}).ordinal.oc().compute()
    assert list(warnings.filters) == before
    assert nan_warnings_still_appear() == ["mae is undefined for this", "the user's own"]


def test_kernels_run_under_their_own_floating_point_settings():
    cube = xr.DataArray(np.zeros((50, 3, 3)), dims=("g", "true", "pred"))
    with np.errstate(all="raise"):  # the caller's settings: 0 / 0 raises
        assert np.isnan(cube.ordinal.mae().values).all()  # inside the kernel, 0 / 0 is the NaN it means
        with pytest.raises(FloatingPointError):
            np.divide(np.zeros(1), np.zeros(1))  # and the caller's settings are back
