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
import xarray as xr
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ordframe
from ordframe._core import compiling, options
from ordframe._inputs import classes, counting
from ordframe._inputs import frame as frame_module
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection

#: The counts that check every code (spans then read from samples): numpy's (without numba) and the compiled one.
CHECKED = ["checked numpy", "compiled"] if options.COMPILED else ["checked numpy"]
#: ``CHECKED`` as parameters, the compiled count's in the tier of compiled routines.
CHECKED_PARAMS = [pytest.param(name, marks=pytest.mark.compiled) if name == "compiled" else name for name in CHECKED]


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
@given(frame=integer_frames(), by=st.booleans(), sample_rows=st.sampled_from([1, 2, 20]))
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


def rare_values_frame() -> pd.DataFrame:
    """10^5 rows of labels 0-4 and groups 0-3, but for a true label 9 and a group 70 on rows that a sample of the
    real size (``classes.SAMPLE_ROWS``) does not read."""
    rng = np.random.default_rng(3)
    n = 100_000
    frame = pd.DataFrame({"y": rng.integers(0, 5, n), "p": rng.integers(0, 5, n), "g": rng.integers(0, 4, n)})
    frame.loc[50_001, "y"], frame.loc[50_009, "g"] = 9, 70
    for column in ("y", "g"):
        values = frame[column].to_numpy()
        assert classes.sampled_range(values) != classes.value_range(values)  # the sample misses the rare value
    return frame


@contextlib.contextmanager
def at_real_size(name: str):
    """The real ``CHECKED_ROWS`` and ``SAMPLE_ROWS``, and ``before the switch`` (numpy's count, which trusts the
    codes of fewer rows), ``checked numpy`` (numpy's count told to check them) or ``compiled`` (the steady state)."""
    saved = compiling.COMPILED_SECONDS, compiling.SPENT, counting.CHECKED_ROWS
    compiling.COMPILED_SECONDS, compiling.SPENT = (0 if name == "compiled" else math.inf), {}
    if name == "checked numpy":
        counting.CHECKED_ROWS = 1
    try:
        yield
    finally:
        compiling.COMPILED_SECONDS, compiling.SPENT, counting.CHECKED_ROWS = saved


#: The rare values' frame as front ends meet it: fresh, filtered and re-indexed, sorted, with rows to drop.
SHAPES = {
    "fresh": lambda f: f,
    "filtered": lambda f: f[f["p"] != 3].set_axis(np.arange(len(f))[f["p"] != 3] * 2 + 7),
    "sorted": lambda f: f.sort_values("p", kind="stable"),
    "dropna": lambda f: f.assign(p=f["p"].where(f.index % 1000 != 5)),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["before the switch", *CHECKED_PARAMS])
def test_rows_outside_sampled_spans_are_counted_again_at_1e5_rows(name, shape, monkeypatch):
    """At 10^5 rows, where the count checks every code the spans are read from samples, which miss a rare label
    and a rare group: the count finds them, the spans are made exact and the rows counted again; before the
    switch the spans are exact. Either way the cube is the exact spans' cube, and pandas' count of the rows kept."""
    frame = SHAPES[shape](rare_values_frame())
    refused = []
    count = frame_module.count_cells

    def recorded(*args, **kwargs):
        try:
            return count(*args, **kwargs)
        except counting.OutsideAxis:
            refused.append(True)
            raise

    monkeypatch.setattr(frame_module, "count_cells", recorded)
    selection = Selection("y", "p", by="g", dropna=shape == "dropna")
    with at_real_size("before the switch"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the rows dropped, warned about alike
        exact = frame_rows(frame, selection).cube()
    assert not refused
    with at_real_size(name), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = frame_rows(frame, selection)
        assert counting.checks_codes(len(frame)) == (name != "before the switch")
        # labels with missing values are floats, and groups are coded again over the rows kept: exact spans
        sampled = name != "before the switch" and shape != "dropna"
        assert rows._sampled() == sampled
        cube = rows.cube()
    assert refused == ([True] if sampled else [])
    xr.testing.assert_identical(cube, exact)
    assert cube["true"].values.tolist() == [0, 1, 2, 3, 4, 9] and cube["g"].values.tolist() == [0, 1, 2, 3, 70]
    got = cube.to_series()
    expected = frame.dropna().astype(int).groupby(["g", "y", "p"]).size()
    assert got[got > 0].to_dict() == expected.to_dict()


def test_errors_of_sampled_spans_are_those_of_the_exact_ones():
    """A cube too large for ``max_cube_bytes`` over the exact spans, small over the sampled ones: the same error."""
    frame = rare_values_frame()
    errors = {}
    for name in ["before the switch", *CHECKED]:
        with at_real_size(name), ordframe.set_options(max_cube_bytes=10_000), pytest.raises(MemoryError) as error:
            frame.ordinal.confusion("y", "p", by="g")
        errors[name] = str(error.value)
    assert len(set(errors.values())) == 1 and "71 'g' groups" in errors["before the switch"], errors


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40_000), low=st.integers(-(2**40), 2**40), rare=st.integers(0, 39_999))
def test_a_sampled_range_lies_within_the_range_and_is_it_for_few_values(n, low, rare):
    """A sample's range never exceeds the values' range, and is it for values no more than the sample."""
    values = np.full(n, low, np.int64) + np.arange(n) % 7
    values[rare % n] = low - 1
    sampled, exact = classes.sampled_range(values), classes.value_range(values)
    assert exact[0] <= sampled[0] <= sampled[1] <= exact[1]
    assert (sampled == exact) or classes.samples_fewer(n)


def test_rows_that_dropna_leaves_fewer_than_a_sample_have_their_spans_read():
    """Spans sampled as of the rows given, read over the rows kept: fewer than a sample reads, read whole."""
    n = 3 * classes.SAMPLE_ROWS + 1
    frame = pd.DataFrame({"y": np.arange(n) % 5, "p": np.arange(n) % 4, "g": np.where(np.arange(n) < 100, 1.0, np.nan)})
    cubes = []
    for name in ["before the switch", *CHECKED]:
        with at_real_size(name), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the rows dropped
            cubes.append(frame.ordinal.confusion("y", "p", by="g", dropna=True))
    for cube in cubes:
        xr.testing.assert_identical(cube, cubes[0])
    assert int(cubes[0].sum()) == 100 and cubes[0]["true"].values.tolist() == [0, 1, 2, 3, 4]


def test_few_rows_are_not_sampled():
    """Rows no more than a sample reads have exact spans, whichever count runs."""
    frame = pd.DataFrame({"y": np.arange(3 * classes.SAMPLE_ROWS) % 5, "g": 1}).assign(p=lambda d: d["y"])
    for name in ["before the switch", *CHECKED]:
        with at_real_size(name):
            assert not frame_rows(frame, Selection("y", "p", by="g"))._sampled()


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


def test_a_large_input_is_counted_compiled_at_once_and_then_every_code_is_checked(fresh_process, monkeypatch):
    """An input whose reckoning alone reaches the budget runs the compiled count first; before, codes are checked
    (spans then read from samples) from ``CHECKED_ROWS`` rows on, after, at every size (the compiled count's)."""
    if not options.COMPILED:
        pytest.skip("numba absent, or turned off by ORDFRAME_NUMBA=0")
    assert not counting.checks_codes(10) and counting.checks_codes(counting.CHECKED_ROWS)
    codes, sizes = rows(1000)
    np.testing.assert_array_equal(counting.count_cells(codes, sizes), naive(codes, sizes, [0, 0, 0], None))
    assert fresh_process[counting._count_compiled] == math.inf
    assert counting.checks_codes(1) and counting.checks_codes(1000)


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=pytest.mark.compiled), False])
def test_checks_codes_says_whether_the_count_that_runs_checks_every_code(fresh_process, monkeypatch, compiled):
    """The one question the front ends ask (``checks_codes``) and what ``count_cells`` then does agree, before and
    after the switch, below and from ``CHECKED_ROWS`` rows: the compiled count checks every code, numpy's count
    checks where it is told to."""
    monkeypatch.setattr(options, "COMPILED", compiled and options.COMPILED)
    monkeypatch.setattr(counting, "CHECKED_ROWS", 600)
    checked = []
    numpy_count = counting._count_numpy
    monkeypatch.setattr(counting, "_count_numpy", lambda *args: checked.append(args[-1]) or numpy_count(*args))
    for n in (10, 599, 600, 999, 1000, 10):  # 1000 rows are reckoned at the budget: the compiled count takes over
        asked = counting.checks_codes(n)
        codes, sizes = rows(n)
        before = len(checked)
        np.testing.assert_array_equal(counting.count_cells(codes, sizes), naive(codes, sizes, [0, 0, 0], None))
        ran_compiled = len(checked) == before
        assert asked == (ran_compiled or checked[-1]), n
        assert ran_compiled == (options.COMPILED and fresh_process[counting._count_compiled] == math.inf)
        codes[1][n // 2] = 5  # outside its axis: refused wherever codes are checked
        if asked:
            with pytest.raises(counting.OutsideAxis):
                counting.count_cells(codes, sizes)


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
