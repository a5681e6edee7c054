"""The paired jackknife: every metric with one sample (or cluster) left out of every model's cube at once."""

import numpy as np
import pandas as pd
import pytest

from ordframe._core.drawing import Resampling
from ordframe._inputs.selection import Selection
from ordframe._registry.request import evaluation_request
from ordframe._resampling.paired import paired_jackknife, paired_samples

PROBA = ["p0", "p1", "p2"]


def frame(n=40, seed=0, clusters=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    parts = []
    for m in "ab":
        part = pd.DataFrame({"s": np.arange(n), "y": y, "yhat": np.clip(y + rng.integers(-1, 2, n), 0, 2), "model": m})
        part["fold"] = np.arange(n) % 2
        part[PROBA] = rng.dirichlet(np.ones(3), n)
        if clusters:
            part["c"] = np.arange(n) // clusters
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@pytest.mark.filterwarnings("ignore:cluster='c' has 14 clusters")  # a small frame, on purpose
@pytest.mark.parametrize("cluster", [None, 3])
def test_left_out_values_are_the_metrics_without_that_unit(cluster):
    df = frame(clusters=cluster)
    unit_col = "c" if cluster else "s"
    draws = Resampling(sample="s", strata="fold", cluster="c" if cluster else None)
    paired = paired_samples(df, Selection("y", "yhat", PROBA, by="model"), draws)
    request = evaluation_request(["mae", "oc", "rps"], probabilities=True, predicted=True)
    out = paired_jackknife(paired, request, layers=1)
    draws = paired.draws()
    first_rows = paired.rows.index[paired.table[:, 0]]  # every sample's row of the first model
    unit_of_sample = np.arange(len(first_rows)) if paired.cluster is None else paired.cluster
    for unit_index in range(6):
        sample = np.flatnonzero(unit_of_sample == unit_index)[0]
        unit = df.loc[first_rows[sample], unit_col]
        rest = df[df[unit_col] != unit]
        expected = rest.ordinal.evaluate(
            "y", "yhat", proba=PROBA, by="model", metrics=["mae", "oc", "rps"], labels=[0, 1, 2]
        )
        pattern = draws.pattern_of[unit_index]
        for name in ("mae", "oc"):
            values, weights = out[name]
            np.testing.assert_allclose(values.isel(left_out=pattern).values, expected[name].values, rtol=1e-12)
        values, weights = out["rps"]
        np.testing.assert_allclose(values.isel(left_out=unit_index).values, expected["rps"].values, rtol=1e-12)
    values, weights = out["mae"]
    assert int(weights.sum()) == df[unit_col].nunique()  # every unit once, through its pattern


def test_the_paired_jackknife_obeys_max_cube_bytes():
    import ordframe

    df = frame(n=200, clusters=2)
    replicates = 20 * 2 * 9 * 8  # 20 replicates of 2 models' 3 x 3 cubes fit; the jackknife of 100 clusters does not
    with ordframe.set_options(max_cube_bytes=4 * replicates), pytest.raises(MemoryError, match="jackknife"):
        df.ordinal.ci("y", "yhat", by="model", sample="s", cluster="c", metrics=["oc"], n_resamples=20, method="bca")
