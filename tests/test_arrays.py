"""Label and probability arrays: the probe's findings stay fixed (different sample dims, one sample set per call, the user's positions)."""

import warnings

import numpy as np
import pytest
import xarray as xr

import ordframe  # noqa: F401

pytest.importorskip("dask.array")

TRUE = xr.DataArray(np.array([0, 1, 2, 1, 0, 2, 1, 0.0]), dims="sample", coords={"sample": list("abcdefgh")})
PROBA = xr.DataArray(
    np.full((8, 3), 1 / 3), dims=("sample", "class"), coords={"sample": list("abcdefgh"), "class": [0, 1, 2]}
)


def test_label_arrays_with_different_sample_dims_are_refused():
    true, pred = xr.DataArray([0, 1, 2], dims="obs"), xr.DataArray([0, 1, 1], dims="sample")
    with pytest.raises(
        ValueError, match=r"true has dims \['obs'\] that pred lacks.*true.rename\(\{'obs': 'sample'\}\)"
    ):
        pred.ordinal.confusion(true)
    with pytest.raises(ValueError, match="every pair of samples"):
        PROBA.ordinal.rps(true.rename(obs="item"))
    several = xr.concat([pred, pred], dim="model")  # one true label for several models' predictions is fine
    assert several.ordinal.confusion(pred.rename("y"), dim="sample").sizes == {"model": 2, "true": 2, "pred": 2}


def test_every_metric_of_one_call_sees_the_same_samples():
    proba, pred = PROBA.copy(), TRUE.copy()
    proba[2] = np.nan  # dropped for its probabilities
    pred[5] = np.nan  # dropped for its prediction
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = proba.ordinal.evaluate(TRUE, class_dim="class", pred=pred, dropna=True, metrics=["rps", "accuracy"])
    kept = [0, 1, 3, 4, 6, 7]
    alone = PROBA.isel(sample=kept).ordinal.evaluate(
        TRUE.isel(sample=kept), class_dim="class", pred=pred.isel(sample=kept), metrics=["rps", "accuracy"]
    )
    xr.testing.assert_allclose(ds, alone)
    assert [str(w.message) for w in caught] == [
        "dropna=True dropped 1 of 8 samples with missing labels or probabilities",
        "dropna=True dropped 1 more of 8 samples with a missing predicted label",
    ]


@pytest.mark.parametrize("chunks", [3, 8])
def test_missing_labels_in_chunks_are_named_by_the_users_samples(chunks):
    pred = TRUE.copy()
    pred[5] = np.nan
    with pytest.raises(ValueError, match=r"column 'pred' has 1 missing value\(s\).*first at rows \['f'\]"):
        pred.chunk(chunks).ordinal.confusion(TRUE.chunk(chunks)).compute()
    unnamed = xr.DataArray(pred.chunk(chunks).data, dims="sample")  # xarray names it after the dask token
    with pytest.raises(ValueError, match=r"column 'pred' has 1 missing value\(s\).*first at rows \[5\]"):
        unnamed.ordinal.confusion(TRUE.drop_vars("sample")).compute()
    true = TRUE.copy()
    true[7] = np.nan
    with pytest.raises(ValueError, match=r"column 'true' has 1 missing value\(s\).*first at rows \['h'\]"):
        PROBA.ordinal.rps(true.chunk(chunks))


def test_invalid_probabilities_in_chunks_are_named_by_the_users_samples():
    proba = PROBA.copy()
    proba[6] = np.nan
    with pytest.raises(ValueError, match=r"NaN probabilities, first at rows \['g'\] \(pass"):
        proba.chunk({"sample": 3}).ordinal.rps(TRUE)
