"""The template plugin's tests: copy this file with the plugin and adapt it to your metric.

Run them with ``pytest plugins/ordframe-underprediction`` once the plugin is installed (``pip install -e``): the
metric is found through its entry point, as a user's would be.
"""

from importlib.metadata import entry_points

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe


def test_discovered_through_its_entry_point():
    assert "underprediction" in {ep.name for ep in entry_points(group="ordframe")}
    table = ordframe.list_metrics().set_index("name")
    assert table.loc["underprediction", ["plugin", "status"]].tolist() == ["underprediction", "ok"]
    assert "underprediction" in dir(pd.DataFrame().ordinal)


@pytest.mark.parametrize("margin", [1, 2, 3])
@pytest.mark.parametrize("seed", range(5))
def test_equals_the_share_of_rows_predicted_margin_classes_below(seed, margin):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"y": rng.integers(0, 5, 40), "p": rng.integers(0, 5, 40)})
    expected = np.mean(df["y"] - df["p"] >= margin)
    assert df.ordinal.underprediction("y", "p", labels=range(5), margin=margin) == pytest.approx(expected)


def test_one_value_per_matrix_of_a_stack_and_nan_for_an_empty_one():
    cube = xr.DataArray(
        [[[3, 1, 0], [1, 2, 2], [4, 0, 5]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]],
        dims=("model", "true", "pred"),
        coords={"model": ["a", "b"]},
    )
    result = cube.ordinal.underprediction()
    assert result.dims == ("model",)
    np.testing.assert_allclose(result.values, [5 / 18, np.nan])
    np.testing.assert_allclose(cube.ordinal.underprediction(margin=2).values, [4 / 18, np.nan])


def test_the_function_and_evaluate():
    y, p = ["mild", "severe", "moderate", "severe"], ["mild", "mild", "moderate", "moderate"]
    labels = ["mild", "moderate", "severe"]
    assert ordframe.underprediction(y, p, labels=labels) == 0.5
    assert ordframe.underprediction(y, p, labels=labels, margin=2) == 0.25
    df = pd.DataFrame({"y": y, "p": p})
    result = df.ordinal.confusion("y", "p", labels=labels).ordinal.evaluate(metrics=["mae", "underprediction"])
    assert float(result["underprediction"]) == 0.5 and float(result["mae"]) == 0.75


def test_a_margin_below_one_is_an_error_naming_the_metric():
    with pytest.raises(ValueError, match=r"metric 'underprediction' .*margin must be an integer >= 1.*got 0"):
        ordframe.underprediction([0, 1, 2], [0, 1, 2], margin=0)
