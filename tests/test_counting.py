"""``count_cells`` (compiled and numpy) against a naive count, and spans read from samples confirmed by the count."""

import contextlib
import importlib.util
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ordframe._core import compiling, options
from ordframe._inputs import classes, counting
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection

#: The counts that check every code (spans then read from samples): numpy's (without numba) and the compiled one.
CHECKED = ["checked numpy", "compiled"] if options.COMPILED else ["checked numpy"]


@contextlib.contextmanager
def mode(name: str, sample_rows: int = 2):
    """``numpy``: numpy's count at every size, no span sampled; ``checked numpy`` / ``compiled``: numpy's count that
    checks each block's codes / the compiled count, at every size, and spans read from samples of ``sample_rows``
    rows at each end and between (often wrong on purpose)."""
    saved = compiling.COMPILED_SECONDS, compiling.SPENT, counting.CHECKED_ROWS, classes.SAMPLE_ROWS
    compiling.COMPILED_SECONDS, compiling.SPENT = (0 if name == "compiled" else math.inf), {}
    if name != "numpy":
        counting.CHECKED_ROWS, classes.SAMPLE_ROWS = 1, sample_rows
    try:
        yield
    finally:
        compiling.COMPILED_SECONDS, compiling.SPENT, counting.CHECKED_ROWS, classes.SAMPLE_ROWS = saved


def naive(codes, sizes, offsets, weights):
    """Each row added to its cell, one at a time."""
    out = np.zeros(sizes, np.float64 if weights is not None else np.int64)
    for row in range(len(codes[0])):
        at = tuple(int(c[row]) - o for c, o in zip(codes, offsets))
        out[at] += 1 if weights is None else weights[row]
    return out


@st.composite
def coded_rows(draw):
    """1-5 axes of sizes 1-6 over 0-300 rows: codes of any integer dtype with an offset that fits it, maybe weights."""
    axes = draw(st.integers(1, 5))
    n = draw(st.integers(0, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    codes, sizes, offsets = [], [], []
    for _ in range(axes):
        dtype = np.dtype(draw(st.sampled_from(["int8", "uint8", "int16", "int32", "int64", "intp"])))
        size = draw(st.integers(1, 6))
        info = np.iinfo(dtype)
        offset = draw(st.integers(max(int(info.min), -(2**62)), min(int(info.max), 2**62) - size + 1))
        codes.append((rng.integers(0, size, n) + offset).astype(dtype))
        sizes.append(size)
        offsets.append(offset)
    weights = rng.choice([0.0, 0.25, 3.0], n) if draw(st.booleans()) else None
    return codes, sizes, offsets, weights


@settings(max_examples=150, deadline=None)
@given(case=coded_rows(), name=st.sampled_from(["numpy", *CHECKED]))
def test_counts_equal_a_naive_count(case, name):
    codes, sizes, offsets, weights = case
    with mode(name):
        got = counting.count_cells(codes, sizes, offsets=offsets, weights=weights)
    expected = naive(codes, sizes, offsets, weights)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", CHECKED)
@pytest.mark.parametrize("where", [0, 1, 2, 99_999])
@pytest.mark.parametrize(
    "bad", [-1, 5, 2**62, -(2**63), 2**63 - 1], ids=["below", "above", "far", "int64 min", "int64 max"]
)
def test_a_checked_count_refuses_a_code_outside_its_axis(name, where, bad):
    """Below the offset or at or above offset + size, wherever the row is (int64 extremes do not wrap inside)."""
    rng = np.random.default_rng(0)
    n = 100_000
    codes = [rng.integers(0, 3, n), rng.integers(-2, 3, n), rng.integers(7, 12, n).astype(np.int8)]
    offsets, sizes = [0, -2, 7], [3, 5, 5]
    axis = where % 3
    codes[axis] = codes[axis].astype(np.int64)
    codes[axis][where] = bad + offsets[axis] if abs(bad) < 2**62 else bad
    with mode(name), pytest.raises(counting.OutsideAxis):
        counting.count_cells(codes, sizes, offsets=offsets)


@st.composite
def integer_frames(draw):
    """Integer labels and an integer ``by`` column in which a few rare values (beyond what most rows have, possibly
    widening the span past what is counted or coded by offset) sit anywhere, sorted or not; maybe weights."""
    n = draw(st.integers(2, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from(["int8", "uint8", "int16", "int64"]))
    info = np.iinfo(dtype)
    low = draw(st.integers(max(int(info.min), -1000), min(int(info.max), 1000) - 4))
    y, p = rng.integers(low, low + 4, (2, n))
    y[draw(st.integers(0, n - 1))], p[draw(st.integers(0, n - 1))] = low, low + 1  # two classes at least
    rare = draw(st.sampled_from([None, "low", "high", "wide", "extreme"]))
    if rare is not None:
        value = {
            "low": low - 1,
            "high": low + 5,
            "wide": low + classes.MAX_COUNTED_SPAN + 10,
            "extreme": int(info.max) if low < 0 else int(info.min),
        }[rare]
        value = int(np.clip(value, info.min, info.max))
        for row in draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=2)):
            (y if draw(st.booleans()) else p)[row] = value
    assume(len(set(y.tolist()) | set(p.tolist())) >= 2)  # a clipped rare value may overwrite the second class
    g = rng.integers(-3, 2, n)
    if draw(st.booleans()):
        g[draw(st.integers(0, n - 1))] = draw(st.sampled_from([9, -40, 5000, 70_000]))
    frame = pd.DataFrame({"y": y.astype(dtype), "p": p.astype(dtype), "g": g})
    if draw(st.booleans()):
        frame = frame.sort_values(draw(st.sampled_from(["y", "p", "g"])), kind="stable").reset_index(drop=True)
    if draw(st.booleans()):
        frame["w"] = rng.choice([0.0, 0.5, 2.0], n)
    return frame


def naive_cube(frame: pd.DataFrame, by: bool) -> tuple[np.ndarray, list, list]:
    """The counts per (group, true, pred) over the values that occur, one row at a time; the classes; the groups."""
    values = sorted(set(frame["y"].tolist()) | set(frame["p"].tolist()))
    groups = sorted(set(frame["g"].tolist())) if by else [None]
    out = np.zeros((len(groups), len(values), len(values)))
    weights = frame["w"] if "w" in frame else pd.Series(1, index=frame.index)
    for g, y, p, w in zip(frame["g"], frame["y"], frame["p"], weights):
        out[groups.index(g) if by else 0, values.index(y), values.index(p)] += w
    return (out if by else out[0]), values, groups


@settings(max_examples=120, deadline=None)
@given(frame=integer_frames(), by=st.booleans(), sample_rows=st.sampled_from([1, 2, 50]))
def test_spans_read_from_samples_give_the_naive_cube(frame, by, sample_rows):
    """Labels and groups whose rare values a sample misses: the count finds them, the spans are made exact."""
    expected, values, groups = naive_cube(frame, by)
    weights = "w" if "w" in frame else None
    for name in ["numpy", *CHECKED]:
        with mode(name, sample_rows), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LabelWarnings about the rare values, on purpose
            cube = frame.ordinal.confusion("y", "p", by="g" if by else None, weights=weights)
        assert cube["true"].values.tolist() == values, name
        if by:
            assert cube["g"].values.tolist() == groups, name
        np.testing.assert_allclose(cube.values, expected, err_msg=name)


@settings(max_examples=60, deadline=None)
@given(frame=integer_frames(), sample_rows=st.sampled_from([1, 2]), name=st.sampled_from(CHECKED))
def test_what_is_read_before_a_count_is_the_exact_coding(frame, sample_rows, name):
    """Classes, codes and groups read from rows whose spans were sampled equal those of the exact spans."""
    with mode("numpy"):
        exact = frame_rows(frame, Selection("y", "p", by="g"))
    with mode(name, sample_rows):
        rows = frame_rows(frame, Selection("y", "p", by="g"))
        assert rows.classes.equals(exact.classes) and rows.prune_classes == exact.prune_classes
        np.testing.assert_array_equal(rows.true.array(), exact.true.array())
        np.testing.assert_array_equal(rows.pred.array(), exact.pred.array())
        assert rows.groups.sizes == exact.groups.sizes
        np.testing.assert_array_equal(rows.groups.flat_index(len(frame)), exact.groups.flat_index(len(frame)))
        assert not rows._sampled()
        np.testing.assert_array_equal(rows.counts(), exact.counts())


@pytest.mark.parametrize("name", CHECKED)
def test_a_count_confirms_sampled_spans_that_hold(name):
    """Spans that a sample read right are kept: the count that reads every row confirms them, nothing else runs."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"y": rng.integers(0, 5, 5000), "g": rng.integers(0, 4, 5000)}).assign(p=lambda d: d["y"])
    with mode(name, sample_rows=500):
        rows = frame_rows(frame, Selection("y", "p", by="g"))
        assert rows._sampled() and rows._sampled_labels is not None and rows._groups.columns[0].sampled
        counts = rows.counts()
        assert not rows._sampled() and rows._classes.equals(pd.RangeIndex(0, 5))
    assert counts.sum() == 5000 and math.prod(counts.shape) == 4 * 5 * 5
    np.testing.assert_array_equal(counts, naive_cube(frame, True)[0])


@pytest.fixture
def fresh_process(monkeypatch):
    """No count has run yet (as in a new process), and the compiled count takes over after 1 s of numpy's, a row
    of which is reckoned at 1 ms beforehand."""
    monkeypatch.setattr(compiling, "SPENT", {})
    monkeypatch.setattr(compiling, "COMPILED_SECONDS", 1.0)
    monkeypatch.setattr(counting, "NUMPY_SECONDS_PER_ROW", 1e-3)
    return compiling.SPENT


def rows(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 4, n), rng.integers(0, 5, n), rng.integers(0, 5, n)], [4, 5, 5]


def test_numpy_counts_until_its_time_would_have_paid_for_the_compiled_count(fresh_process):
    """Small inputs get numpy's count, timed; once its time, with what an input would take it, reaches
    ``COMPILED_SECONDS`` (an input that large at once, or the time of several calls) the compiled count runs, from
    then on at every size. Every count equals a naive one."""
    if not options.COMPILED:
        pytest.skip("numba absent, or turned off by ORDFRAME_NUMBA=0")
    key = counting._count_compiled
    for _ in range(3):
        codes, sizes = rows(300)
        assert not compiling.compiles(key, 300 * counting.NUMPY_SECONDS_PER_ROW)
        np.testing.assert_array_equal(counting.count_cells(codes, sizes), naive(codes, sizes, [0, 0, 0], None))
    spent = fresh_process[key]
    assert 0 < spent < 0.25  # the calls' own time, not their rows' reckoning
    fresh_process[key] = 0.995  # as after many calls on small inputs
    codes, sizes = rows(10, seed=1)
    weights = np.linspace(0, 2, 10)
    np.testing.assert_array_equal(
        counting.count_cells(codes, sizes, weights=weights), naive(codes, sizes, [0, 0, 0], weights)
    )
    assert fresh_process[key] == math.inf  # taken over, from now on at every size
    codes, sizes = rows(1)
    np.testing.assert_array_equal(counting.count_cells(codes, sizes), naive(codes, sizes, [0, 0, 0], None))
    assert compiling.compiles(key, 0)


def test_a_large_input_is_counted_compiled_at_once_and_checks_stay_by_rows(fresh_process, monkeypatch):
    """An input whose reckoning alone reaches the budget runs the compiled count first; whether codes are checked
    (spans then read from samples) stays a matter of rows."""
    if not options.COMPILED:
        pytest.skip("numba absent, or turned off by ORDFRAME_NUMBA=0")
    codes, sizes = rows(1000)
    np.testing.assert_array_equal(counting.count_cells(codes, sizes), naive(codes, sizes, [0, 0, 0], None))
    assert fresh_process[counting._count_compiled] == math.inf
    assert not counting.checks_codes(1000) and counting.checks_codes(counting.CHECKED_ROWS)


def test_without_numba_numpy_counts_at_every_size(fresh_process, monkeypatch):
    """A process whose compiled kernels are off (no numba, or ``ORDFRAME_NUMBA=0``) never switches."""
    monkeypatch.setattr(options, "COMPILED", False)
    for n in (10, 2000):
        codes, sizes = rows(n)
        np.testing.assert_array_equal(counting.count_cells(codes, sizes), naive(codes, sizes, [0, 0, 0], None))
        assert not compiling.compiles(counting._count_compiled, math.inf)
    assert 0 < fresh_process[counting._count_compiled] < math.inf


@pytest.mark.parametrize("value", ["0", "1"])
@pytest.mark.slow
def test_ordframe_numba_0_turns_the_compiled_count_off(value):
    """``ORDFRAME_NUMBA=0`` in a fresh interpreter: numpy's count at every size; otherwise the compiled one where
    numba is, once it has paid."""
    code = (
        "import numpy as np\n"
        "from ordframe._core import compiling\n"
        "from ordframe._inputs import counting\n"
        "compiling.steady_state()\n"
        "counting.count_cells([np.zeros(3, np.int64)], [1])\n"
        "print(compiling.SPENT[counting._count_compiled] == float('inf'))\n"
    )
    env = {**os.environ, "ORDFRAME_NUMBA": value}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(value == "1" and importlib.util.find_spec("numba") is not None)
