"""The example plugin in plugins/ordframe-offby1, discovered through its entry point."""

from importlib.metadata import entry_points

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe


def test_installed_with_an_entry_point_in_the_ordframe_group():
    assert "offby1" in {ep.name for ep in entry_points(group="ordframe")}


def test_discovered_and_listed():
    table = ordframe.list_metrics().set_index("name")
    assert table.loc["accuracy_off1", "plugin"] == "offby1"
    assert table.loc["accuracy_off1", "status"] == "ok"
    assert "accuracy_off1" in dir(pd.DataFrame().ordinal)


def test_runs_on_a_stacked_cube():
    cube = xr.DataArray(
        [[[3, 1, 0], [1, 2, 2], [4, 0, 5]], [[0, 0, 1], [0, 0, 0], [1, 0, 0]]],
        dims=("model", "true", "pred"),
        coords={"model": ["a", "b"]},
    )
    result = cube.ordinal.accuracy_off1()
    assert result.dims == ("model",)
    np.testing.assert_allclose(result.values, [14 / 18, 0.0])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=60))
def test_equals_the_share_of_rows_within_one_class(pairs):
    df = pd.DataFrame(pairs, columns=["y", "p"])
    expected = float(np.mean(np.abs(df["y"] - df["p"]) <= 1))
    assert df.ordinal.accuracy_off1("y", "p", labels=range(5)) == pytest.approx(expected)
