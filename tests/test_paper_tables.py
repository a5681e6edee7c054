"""Every value the papers print for their worked confusion matrices.

The cases and published values are transcribed in ``ordframe._papers``; the
values that are misprints in the papers are skipped there, with the reason.
"""

import math

import numpy as np
import pytest
import xarray as xr

import ordframe  # noqa: F401
from ordframe._papers import CONFUSION_CASES, iter_checks, metric_name

CHECKS = list(iter_checks(CONFUSION_CASES))
SKIPPED = [(case, key) for case in CONFUSION_CASES for key in case.skip]


def _value(case, key):
    cube = xr.DataArray(np.array(case.matrix), dims=("true", "pred"))
    method = getattr(cube.ordinal, metric_name(key))
    return method(**case.params.get(key, {}))


@pytest.mark.parametrize("case, key", CHECKS, ids=[f"{c.id}-{k}" for c, k in CHECKS])
def test_published_value(case, key):
    published = case.values[key]
    if math.isnan(published):  # printed "NA": the metric is undefined there
        with pytest.warns(RuntimeWarning, match="undefined"):
            assert math.isnan(_value(case, key))
    else:
        assert _value(case, key) == pytest.approx(published, abs=case.abs_tol(key))


@pytest.mark.parametrize("case, key", SKIPPED, ids=[f"{c.id}-{k}" for c, k in SKIPPED])
def test_known_misprint_differs(case, key):
    """A value skipped as a misprint really is not reproducible from the printed matrix."""
    assert abs(_value(case, key) - case.values[key]) > case.abs_tol(key), case.skip[key]


def test_every_paper_table_is_checked():
    assert len(CHECKS) > 200
    assert {metric_name(k) for _, k in CHECKS} >= {
        "mer",
        "mae",
        "mse",
        "amae",
        "mmae",
        "spearman",
        "kendall_tau_b",
        "rint",
        "oc",
        "uoc",
        "auoc",
        "d",
        "mc",
    }
