"""Threads and processes: computing metrics changes no process-wide state (hostile review H4).

Kernels run under ``numpy.errstate``, which is local to the thread; the
process's warning filters, which every thread shares, are never touched.
"""

import contextvars
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe

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


# --------------------------------------------------------------------------- options (hostile review round 3, H6)

TALL = pd.DataFrame({"y": np.arange(100) % 3, "p": np.arange(100) % 3, "g": np.arange(100)})


def max_cube_bytes():
    """The limit in force here, read through what it does: a 7.0 KiB cube fits or not."""
    try:
        TALL.ordinal.confusion("y", "p", by="g")
    except MemoryError as error:
        return str(error).split("max_cube_bytes = ")[1].split(";")[0]
    return None


def test_overlapping_option_blocks_in_two_threads_restore_each_threads_own_value():
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with ordframe.set_options(max_cube_bytes=1000):
            a_in.set()
            b_in.wait()
            seen["first, inside, after the other entered"] = max_cube_bytes()
        a_out.set()
        seen["first, after"] = max_cube_bytes()

    def second():
        a_in.wait()
        seen["second, before"] = max_cube_bytes()
        with ordframe.set_options(max_cube_bytes=2000):
            b_in.set()
            a_out.wait()
            seen["second, inside, after the other left"] = max_cube_bytes()
        seen["second, after"] = max_cube_bytes()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {
        "first, inside, after the other entered": "1000 bytes",
        "first, after": None,
        "second, before": None,  # the first thread's block is its own
        "second, inside, after the other left": "2.0 KiB",
        "second, after": None,
    }
    assert max_cube_bytes() is None  # the default (1 GiB) everywhere once both blocks ended


def test_options_set_without_a_block_hold_in_their_own_thread_only():
    def worker():
        ordframe.set_options(max_cube_bytes=1000)
        seen.append(max_cube_bytes())

    seen = []
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == ["1000 bytes"] and max_cube_bytes() is None
    with ordframe.set_options(max_cube_bytes=1500):
        assert contextvars.copy_context().run(max_cube_bytes) == "1.5 KiB"  # a copied context carries them
    assert max_cube_bytes() is None
