"""ordframe.plot: every function renders with Agg and draws the numbers it is given."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import ordframe  # noqa: E402
import ordframe.plot as oplot  # noqa: E402
from ordframe import friedman  # noqa: E402
from ordframe.plot._critical_difference import _cliques  # noqa: E402

CLASSES = ["low", "mid", "high"]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def cube():
    return xr.DataArray(
        [[[5, 2, 0], [1, 6, 2], [0, 1, 7]], [[3, 3, 1], [2, 4, 3], [1, 2, 5]], [[2, 5, 0], [0, 3, 6], [0, 0, 8]]],
        dims=("model", "true", "pred"),
        coords={"model": ["a", "b", "c"], "true": CLASSES, "pred": CLASSES},
    )


def by_gid(ax, gid):
    found = [a for a in ax.get_children() if a.get_gid() == gid]
    assert found, f"no artist {gid!r}"
    return found


# --- confusion ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("normalize", [None, "true"])
@pytest.mark.parametrize("path", ["oc", "uoc"])
def test_confusion_heatmaps_and_paths(cube, normalize, path):
    fig = oplot.confusion(cube, normalize=normalize, path=path, beta=0.25)
    panels = [ax for ax in fig.axes if ax.get_images()]
    assert len(panels) == cube.sizes["model"]
    paths = getattr(ordframe, f"{path}_path")(cube, beta=0.25)
    values = getattr(cube.ordinal, path)(beta=0.25)
    for i, ax in enumerate(panels):
        matrix = cube.isel(model=i).values.astype(float)
        expected = matrix / matrix.sum(axis=1, keepdims=True) if normalize else matrix
        np.testing.assert_allclose(ax.get_images()[0].get_array(), expected)
        (line,) = by_gid(ax, f"{path}_path")
        cells = paths.isel(model=i).values
        cells = cells[cells[:, 0] >= 0]
        np.testing.assert_array_equal(line.get_xdata(), cells[:, 1])
        np.testing.assert_array_equal(line.get_ydata(), cells[:, 0])
        assert f"{path.upper()} = {float(values[i]):.3f}" in ax.get_title()
        assert [t.get_text() for t in ax.get_xticklabels()] == CLASSES
        assert [t.get_text() for t in ax.get_yticklabels()] == CLASSES
        assert sorted(int(t.get_text()) for t in ax.texts) == sorted(matrix.ravel().astype(int))
        assert ax.get_xlabel() == "predicted class"
    # one colour scale for every panel
    assert {tuple(ax.get_images()[0].get_clim()) for ax in panels} == {(0.0, 1.0 if normalize else 8.0)}


def test_confusion_single_matrix_without_path(cube):
    fig = oplot.confusion(cube.isel(model=0), path=None)
    (ax,) = [ax for ax in fig.axes if ax.get_images()]
    assert not [line for line in ax.get_lines() if line.get_gid()]


def test_confusion_cell_numbers_shrink_to_fit_their_cells():
    fig = oplot.confusion(xr.DataArray([[5, 2, 0], [1, 6, 2], [0, 1, 7]], dims=("true", "pred")))
    few = {t.get_fontsize() for t in fig.axes[0].texts}
    many = np.random.default_rng(0).integers(1000, 2000, (9, 9))
    fig = oplot.confusion(xr.DataArray(many, dims=("true", "pred")))
    ax = fig.axes[0]
    fig.canvas.draw()
    cell = ax.get_window_extent().width / 9
    widths = [t.get_window_extent().width for t in ax.texts]
    assert few == {9.0} and 4 <= ax.texts[0].get_fontsize() < 9
    assert max(widths) < cell  # four digits inside a cell of a 9 x 9 matrix


def test_confusion_panels_share_one_font_size():
    rng = np.random.default_rng(0)
    small, large = rng.integers(0, 10, (9, 9)), rng.integers(1000, 2000, (9, 9))
    fig = oplot.confusion(xr.DataArray([small, large], dims=("model", "true", "pred")))
    sizes = {t.get_fontsize() for ax in fig.axes if ax.get_images() for t in ax.texts}
    assert len(sizes) == 1 and sizes.pop() < 9  # the size at which the four digits of the large panel fit


def test_confusion_col_and_extra_dims(cube):
    both = xr.concat([cube, cube], dim="fold")
    with pytest.raises(ValueError, match="pass col="):
        oplot.confusion(both)
    with pytest.raises(ValueError, match="size > 1"):
        oplot.confusion(both, col="model")
    fig = oplot.confusion(both.isel(fold=[0]), col="model")
    assert len([ax for ax in fig.axes if ax.get_images()]) == 3
    fig = oplot.confusion(both.sum("model"))
    assert len([ax for ax in fig.axes if ax.get_images()]) == 2


@pytest.mark.parametrize("n, rows", [(1, [1]), (4, [4]), (5, [3, 2]), (6, [3, 3]), (7, [4, 3]), (9, [3, 3, 3])])
def test_panels_fill_even_rows(n, rows):
    from ordframe.plot._figures import new_axes

    fig, axes = new_axes(n, None)
    tops = [round(ax.get_position().y1, 3) for ax in axes]
    assert [tops.count(top) for top in sorted(set(tops), reverse=True)] == rows
    assert len(fig.axes) == n


def test_confusion_on_given_axes(cube):
    fig, axes = plt.subplots(1, 3)
    assert oplot.confusion(cube, axes=axes) is fig
    with pytest.raises(ValueError, match="3 panel"):
        oplot.confusion(cube, axes=axes[:2])


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"normalize": "all"}, ValueError, "normalize"),
        ({"path": "mae"}, ValueError, "path must be"),
        ({"path": None, "beta": 0.5}, ValueError, "beta"),
        ({"col": "fold"}, ValueError, "not a stack dim"),
        ({"beta": -1}, ValueError, "beta"),
    ],
)
def test_confusion_bad_arguments(cube, kwargs, error, match):
    with pytest.raises(error, match=match):
        oplot.confusion(cube, **kwargs)


def test_not_a_cube():
    with pytest.raises(ValueError, match="true"):
        oplot.confusion(xr.DataArray([[1, 2], [3, 4]], dims=("a", "b")))
    with pytest.raises(TypeError, match="DataArray"):
        oplot.cost_plane(np.eye(3))


# --- cost plane -----------------------------------------------------------------------------------------------------


def test_cost_plane_points(cube):
    fig = oplot.cost_plane(cube)
    (ax,) = fig.axes
    accuracy, mc, d = cube.ordinal.accuracy(), cube.ordinal.mc(), cube.ordinal.d()
    for name in ["a", "b", "c"]:
        (point,) = by_gid(ax, name)
        assert point.get_xdata()[0] == pytest.approx(float(accuracy.sel(model=name)))
        assert point.get_ydata()[0] == pytest.approx(float(mc.sel(model=name)))
        chance = float(cube.ordinal.chance_distance().sel(model=name))
        assert point.get_label() == f"{name}: d = {float(d.sel(model=name)):.3f}, chance distance = {chance:.3f}"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("Acc + MC = 1" in t for t in labels) and any("ideal" in t for t in labels)


def test_cost_plane_chance_line_calls_no_side_worse(cube):
    """George, Lu & Chang (2016): the ideal point lies on the line; the tie-break rewards distance on either side."""
    fig = oplot.cost_plane(cube)
    (ax,) = fig.axes
    (line,) = by_gid(ax, "chance_line")
    np.testing.assert_array_equal(line.get_xydata(), [[0, 1], [1, 0]])  # through the ideal point (1, 0)
    assert "either side" in line.get_label() and "random chance" in line.get_label()
    assert not ax.collections and not ax.patches  # no shaded half-plane
    words = " ".join(t.get_text() for t in ax.get_legend().get_texts()) + ax.get_title()
    assert "worse" not in words and "no better than chance" not in words


def label_boxes(fig):
    """The boxes of the labels' text (an Annotation's own box would include its leader line)."""
    fig.canvas.draw()
    return [matplotlib.text.Text.get_window_extent(t) for t in fig.axes[0].texts]


def crowded_cube(n=12):
    rng = np.random.default_rng(5)
    base = np.array([[30, 8, 2], [6, 25, 9], [1, 7, 32]])
    matrices = [np.clip(base + rng.integers(-3, 4, (3, 3)), 0, None) for _ in range(n)]
    names = ["logistic", "ridge", "hgb", "frank_hall", "mord_at", "mord_it", "svm", "knn", "tree", "forest", "lda"]
    names = (names + [f"model {i}" for i in range(n)])[:n]
    return xr.DataArray(matrices, dims=("model", "true", "pred"), coords={"model": names})


@pytest.mark.parametrize("case", ["same point", "crowded", "twenty"])
def test_cost_plane_labels_do_not_collide(case):
    if case == "same point":
        one = [[30, 8, 2], [6, 25, 9], [1, 7, 32]]
        cube = xr.DataArray([one] * 3, dims=("model", "true", "pred"), coords={"model": ["a", "bb", "ccc"]})
    else:
        cube = crowded_cube(12 if case == "crowded" else 20)
    fig = oplot.cost_plane(cube)
    ax = fig.axes[0]
    names = [str(v) for v in cube["model"].values]
    assert [t.get_text() for t in ax.texts] == names
    boxes = label_boxes(fig)
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    frame = ax.get_window_extent()
    points = ax.transData.transform([t.xy for t in ax.texts])
    for box in boxes:
        assert inside(box, frame)
        assert not any(box.contains(x, y) for x, y in points)  # no label covers a point
    # each label is anchored at its own model's point
    accuracy, mc = cube.ordinal.accuracy().values, cube.ordinal.mc().values
    np.testing.assert_allclose([t.xy for t in ax.texts], np.column_stack([accuracy, mc]))
    legend = ax.get_legend()
    assert len(legend.get_texts()) == len(names) + 2 and inside(legend.get_window_extent(), fig.bbox)
    assert not legend.get_window_extent().overlaps(frame)
    # point markers: no two models share colour and marker
    points = [line for line in ax.get_lines() if line.get_gid() in names]
    styles = {(matplotlib.colors.to_hex(p.get_color()), p.get_marker()) for p in points}
    assert len(styles) == len(names)


def test_cost_plane_placement_is_deterministic():
    first = [t.xyann for t in oplot.cost_plane(crowded_cube()).axes[0].texts]
    second = [t.xyann for t in oplot.cost_plane(crowded_cube()).axes[0].texts]
    assert first == second


def test_segments_crossing_a_box():
    from ordframe.plot._placement import _crossed

    box = np.array([0.0, 0.0, 1.0, 1.0])
    segments = np.array(
        [[-1, 0.5, 2, 0.5], [0.5, -1, 0.5, 2], [2, 2, 3, 3], [-1, -1, 2, 2], [-1, 2, 2, 5], [0.2, 0.2, 0.3, 0.3]]
    )
    assert _crossed(box, segments).tolist() == [True, True, False, True, False, True]


def test_cost_plane_dim(cube):
    with pytest.raises(ValueError, match="pass model_dim="):
        oplot.cost_plane(xr.concat([cube, cube], dim="fold"))
    with pytest.raises(ValueError, match="size > 1"):
        oplot.cost_plane(xr.concat([cube, cube], dim="fold"), model_dim="fold")
    fig = oplot.cost_plane(xr.concat([cube, cube], dim="fold").isel(model=[0]), model_dim="fold")
    assert by_gid(fig.axes[0], "0") and by_gid(fig.axes[0], "1")


# --- retention ------------------------------------------------------------------------------------------------------


@pytest.fixture
def curves():
    rng = np.random.default_rng(0)
    n = 120
    df = pd.DataFrame({"y": rng.integers(0, 3, n), "model": rng.choice(["a", "b"], n)})
    df[["p0", "p1", "p2"]] = rng.dirichlet([1, 1, 1], n)
    return df.ordinal.aursc("y", ["p0", "p1", "p2"], by="model", score=["rps", "brier"])


def test_retention_lines(curves):
    fig = oplot.retention(curves)
    (ax,) = fig.axes
    lines = [line for line in ax.get_lines() if line.get_gid()]
    assert len(lines) == 4  # 2 models x 2 scores
    for line in lines:
        parts = dict(part.split("=") for part in line.get_gid().split(", "))
        sel = {"model": parts["model"], "score": parts["score"]}
        curve = curves["curve"].sel(sel)
        np.testing.assert_allclose(line.get_xdata(), curve["retained"].values)
        np.testing.assert_allclose(line.get_ydata(), curve.values)
        assert line.get_label().endswith(f"AURSC = {float(curves['aursc'].sel(sel)):.3f}")
    assert ax.get_xlim() == (1.0, 0.5)


def test_retention_of_a_metric_with_a_target_says_its_area_is_of_the_distance():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"y": rng.integers(0, 3, 90)})
    df[["p0", "p1", "p2"]] = rng.dirichlet([1, 1, 1], 90)
    df["yhat"] = df[["p0", "p1", "p2"]].to_numpy().argmax(axis=1)
    curves = df.ordinal.aursc("y", ["p0", "p1", "p2"], pred="yhat", metric="mean_signed_error", score="rps")
    (ax,) = oplot.retention(curves).axes
    (line,) = [line for line in ax.get_lines() if line.get_gid()]
    assert line.get_label() == f"curve: AURSC of |mean_signed_error - 0| = {float(curves['aursc']):.3f}"
    assert "best at 0" in ax.get_ylabel()


def many_curves(models, scores):
    rng = np.random.default_rng(3)
    n = 200
    df = pd.DataFrame({"y": rng.integers(0, 3, n), "model": rng.choice([f"m{i}" for i in range(models)], n)})
    df[["p0", "p1", "p2"]] = rng.dirichlet([1, 1, 1], n)
    return df.ordinal.aursc("y", ["p0", "p1", "p2"], by="model", score=scores)


def drawn_lines(ax):
    return [line for line in ax.get_lines() if line.get_gid()]


@pytest.mark.parametrize("sizes", [(55,), (11, 5), (80,)])
def test_styles_stay_distinct_up_to_80_curves_and_then_say_so(sizes):
    from ordframe.plot._styles import line_styles, marker_styles

    styles = line_styles(sizes)
    assert len({(s["color"], s["linestyle"]) for s in styles}) == len(styles)
    assert len({(s["color"], s["marker"]) for s in marker_styles(len(styles))}) == len(styles)
    with pytest.warns(UserWarning, match="81 curves or points but 80 distinct styles"):
        line_styles((81,))


@pytest.mark.parametrize(
    "models, scores",
    [
        (4, ["rps", "brier", "log_score"]),
        (12, "rps"),
        (20, "rps"),
        (10, ["rps", "brier", "log_score", "sarps"]),
        (12, ["rps", "brier"]),
        (12, ["rps", "brier", "log_score", "sarps"]),
    ],
)
def test_retention_curves_never_share_colour_and_line_style(models, scores):
    curves = many_curves(models, scores)
    fig = oplot.retention(curves)
    (ax,) = fig.axes
    lines = drawn_lines(ax)
    assert len(lines) == curves["curve"].size // curves.sizes["retained"]
    pairs = [(matplotlib.colors.to_hex(line.get_color()), line.get_linestyle()) for line in lines]
    assert len(set(pairs)) == len(pairs)
    if not isinstance(scores, str):  # a model keeps its colour across scores, a score its line style

        def model(line):
            return dict(part.split("=") for part in line.get_gid().split(", "))["model"]

        for line in lines:
            same_model = [other for other in lines if model(other) == model(line)]
            assert {other.get_color() for other in same_model} == {line.get_color()}


def inside(box, frame):
    return frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1


@pytest.mark.parametrize("given_axes, models, scores", [(False, 4, 3), (True, 4, 3), (False, 10, 4)])
def test_retention_legend_sits_outside_the_axes(given_axes, models, scores):
    curves = many_curves(models, ["rps", "brier", "log_score", "sarps"][:scores])
    if given_axes:
        fig, ax = plt.subplots(figsize=(10, 4), layout="constrained")
        oplot.retention(curves, ax=ax)
    else:
        fig = oplot.retention(curves)
        (ax,) = fig.axes
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert len(ax.get_legend().get_texts()) == models * scores
    assert not legend.overlaps(ax.get_window_extent())
    assert inside(legend, fig.bbox)  # the whole legend is on the figure


def test_line_styles_are_distinct_up_to_forty():
    from ordframe.plot._styles import line_styles

    for sizes in ([40], [8, 5], [5, 8], [11, 3], [2, 2, 2, 5]):
        styles = line_styles(sizes)
        assert len({(s["color"], s["linestyle"]) for s in styles}) == len(styles) == int(np.prod(sizes))


def test_retention_bad_input(curves):
    with pytest.raises(TypeError, match="aursc"):
        oplot.retention(curves["curve"])


# --- beta profile ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("index", ["oc", "uoc"])
def test_beta_profile(cube, index):
    betas = [0.0, 0.25, 0.5, 1.0]
    fig = oplot.beta_profile(cube, index=index, betas=betas)
    (ax,) = fig.axes
    for name in ["a", "b", "c"]:
        (line,) = by_gid(ax, name)
        np.testing.assert_allclose(line.get_xdata(), betas)
        expected = [float(getattr(cube.ordinal, index)(beta=b).sel(model=name)) for b in betas]
        np.testing.assert_allclose(line.get_ydata(), expected)


def test_beta_profile_bad_arguments(cube):
    with pytest.raises(ValueError, match="index"):
        oplot.beta_profile(cube, index="mae")
    with pytest.raises(ValueError, match="betas"):
        oplot.beta_profile(cube, betas=[-1, 0])


# --- distribution ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [20, 200])
def test_distribution_boxes(cube, n):
    values = cube.ordinal.bootstrap(n).ordinal.oc()
    fig = oplot.distribution(values)
    (ax,) = fig.axes
    assert ax.get_ylabel() == "oc (lower is better)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    for name in ["a", "b", "c"]:
        (median,) = by_gid(ax, f"median-{name}")
        assert median.get_ydata()[0] == pytest.approx(float(values.sel(model=name).median()))
        points = [a for a in ax.get_children() if a.get_gid() == f"points-{name}"]
        if n <= 50:
            np.testing.assert_allclose(points[0].get_ydata(), values.sel(model=name).values)
        else:
            assert not points


def test_distribution_bad_dims(cube):
    values = cube.ordinal.bootstrap(5).ordinal.oc()
    with pytest.raises(ValueError, match="'fold'"):
        oplot.distribution(values, dim="fold")
    with pytest.raises(ValueError, match="other dims"):
        oplot.distribution(values.expand_dims(metric=["x", "y"]))
    with pytest.raises(TypeError, match="DataArray"):
        oplot.distribution(values.to_dataset())


def test_distribution_pools_several_dims_into_each_box():
    rng = np.random.default_rng(2)
    values = xr.DataArray(rng.random((3, 4, 2)), dims=("repeat", "fold", "model"), coords={"model": ["a", "b"]})
    fig = oplot.distribution(values.rename("mae"), dim=["repeat", "fold"])
    (ax,) = fig.axes
    assert ax.get_title() == "mae over 12 repeat x fold values per model"
    for name in ["a", "b"]:
        (median,) = by_gid(ax, f"median-{name}")
        assert median.get_ydata()[0] == pytest.approx(float(values.sel(model=name).median()))
        (points,) = [a for a in ax.get_children() if a.get_gid() == f"points-{name}"]
        np.testing.assert_allclose(np.sort(points.get_ydata()), np.sort(values.sel(model=name).values.ravel()))
    with pytest.raises(ValueError, match=r"or pool them into each box: dim=\['fold', 'repeat'\]"):
        oplot.distribution(values, dim="fold")


# --- critical difference --------------------------------------------------------------------------------------------


@pytest.fixture
def ranks():
    rng = np.random.default_rng(1)
    values = xr.DataArray(
        rng.normal(size=(12, 5)) + np.arange(5) * 0.5,
        dims=("dataset", "model"),
        coords={"model": list("abcde")},
        name="qwk",
        attrs={"higher_is_better": 1},
    )
    mae = (-values).rename("mae").assign_attrs(higher_is_better=0)
    return friedman(xr.merge([values, mae]))


def test_critical_difference(ranks):
    fig = oplot.critical_difference(ranks, metric="qwk")
    (ax,) = fig.axes
    part = ranks.sel(metric="qwk")
    cd = float(part["critical_difference"])
    (bar,) = by_gid(ax, "cd-bar")
    assert np.ptp(bar.get_xdata()) == pytest.approx(cd)
    average = part["average_rank"]
    for name in "abcde":
        (line,) = by_gid(ax, f"model-{name}")
        assert line.get_xdata()[0] == pytest.approx(float(average.sel(model=name)))
    # one thick line per maximal group of models closer than CD
    ordered = np.sort(average.values)
    cliques = by_gid(ax, "clique")
    assert cliques
    for clique in cliques:
        lo, hi = clique.get_xdata()
        inside = ordered[(ordered >= lo) & (ordered <= hi)]
        assert len(inside) >= 2 and np.ptp(inside) < cd


def test_critical_difference_cliques():
    assert _cliques(np.array([1.0, 1.5, 2.0, 4.0, 4.2]), 1.2) == [(0, 2), (3, 4)]
    assert _cliques(np.array([1.0, 3.0, 5.0]), 1.0) == []
    assert _cliques(np.array([1.0, 2.0, 2.9, 3.5]), 2.0) == [(0, 2), (1, 3)]


def test_critical_difference_bad_arguments(ranks):
    with pytest.raises(ValueError, match="pass metric="):
        oplot.critical_difference(ranks)
    with pytest.raises(ValueError, match="not in the result"):
        oplot.critical_difference(ranks, metric="oc")
    with pytest.raises(TypeError, match="friedman"):
        oplot.critical_difference(ranks["average_rank"])


def test_png_output(cube, tmp_path):
    oplot.confusion(cube).savefig(tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_missing_matplotlib(cube, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "ordframe\[plot\]"'):
        oplot.confusion(cube)


def test_critical_difference_against_a_control():
    values = xr.DataArray(
        np.random.default_rng(2).normal(size=(14, 4)) + np.arange(4) * 0.4,
        dims=("dataset", "model"),
        coords={"model": list("abcd")},
        name="x",
        attrs={"higher_is_better": 1},
    )
    result = friedman(values, control="d").sel(metric="x")
    (ax,) = oplot.critical_difference(result).axes
    cd = float(result["bonferroni_dunn_cd"])
    (bar,) = by_gid(ax, "cd-bar")
    assert np.ptp(bar.get_xdata()) == pytest.approx(cd)
    (interval,) = by_gid(ax, "control-interval")
    centre = float(result["average_rank"].sel(model="d"))
    np.testing.assert_allclose(interval.get_xdata(), [max(1, centre - cd), min(4, centre + cd)])
    assert not [a for a in ax.get_children() if a.get_gid() == "clique"]
    assert "Bonferroni-Dunn CD" in ax.get_title() and "Iman-Davenport p" in ax.get_title()


def test_posterior_density_of_the_correlated_ttest():
    import scipy.stats

    rng = np.random.default_rng(0)
    values = xr.DataArray(
        rng.normal(0.7, 0.02, (2, 10)), dims=("model", "fold"), coords={"model": ["a", "b"]}, name="mae"
    ).assign_attrs(higher_is_better=0)
    result = ordframe.bayesian_correlated_ttest(values, test_train_ratio=1 / 9, rope=0.01)
    (ax,) = oplot.posterior(result, model="a", versus="b").axes
    (line,) = by_gid(ax, "density")
    part = result.sel(metric="mae", model="a", versus="b")
    x = line.get_xdata()
    expected = scipy.stats.t.pdf(x, float(part["df"]), float(part["location"]), float(part["scale"]))
    np.testing.assert_allclose(line.get_ydata(), expected)
    (rope,) = by_gid(ax, "rope")
    np.testing.assert_allclose(rope.get_x(), -0.01) and np.testing.assert_allclose(rope.get_width(), 0.02)
    assert f"P(a better) = {float(part['p_model_better']):.3f}" in ax.get_title()


def test_posterior_of_an_unknown_model_names_the_argument_and_the_models():
    values = xr.DataArray(
        [[0.50, 0.52, 0.47, 0.55, 0.49], [0.45, 0.50, 0.46, 0.49, 0.47]],
        dims=("model", "fold"),
        coords={"model": ["a", "b"]},
        name="mae",
        attrs={"higher_is_better": 0},
    )
    result = ordframe.bayesian_correlated_ttest(values, test_train_ratio=1 / 4, rope=0.01)
    with pytest.raises(ValueError, match=r"versus='zzz' is not a model of the result; its models are 'a', 'b'"):
        oplot.posterior(result, model="a", versus="zzz")
    with pytest.raises(ValueError, match=r"model='zzz' is not a model of the result; its models are 'a', 'b'"):
        oplot.posterior(result, model="zzz", versus="a")


def test_posterior_of_a_result_with_several_metrics_needs_metric():
    values = xr.DataArray(
        [[0.50, 0.52, 0.47, 0.55], [0.45, 0.50, 0.46, 0.49]],
        dims=("model", "fold"),
        coords={"model": ["a", "b"]},
        name="mae",
        attrs={"higher_is_better": 0},
    )
    result = ordframe.bayesian_correlated_ttest(xr.merge([values, values.rename("mse")]), test_train_ratio=1 / 3)
    with pytest.raises(ValueError, match="result has several metrics .*'mse'.*; pass metric= one of them"):
        oplot.posterior(result, model="a", versus="b")
    with pytest.raises(ValueError, match="metric='oc' is not in the result"):
        oplot.posterior(result, model="a", versus="b", metric="oc")
    assert oplot.posterior(result, model="a", versus="b", metric="mse").axes[0].get_title().startswith("mse: a")


def test_posterior_simplex_of_the_signed_rank_test():
    rng = np.random.default_rng(1)
    values = xr.DataArray(
        rng.normal(0.7, 0.05, (12, 3)), dims=("dataset", "model"), coords={"model": list("abc")}, name="acc"
    ).assign_attrs(higher_is_better=1)
    result = ordframe.bayesian_signed_rank(values, rope=0.01, n_resamples=500, seed=0, keep_samples=True)
    (ax,) = oplot.posterior(result, model="c", versus="a").axes
    (draws,) = by_gid(ax, "draws")
    theta = result["samples"].sel(metric="acc", model="c", versus="a").values  # (draw, region)
    expected = np.c_[theta[:, 2] + theta[:, 1] / 2, theta[:, 1] * np.sqrt(3) / 2]
    np.testing.assert_allclose(draws.get_offsets(), expected)
    (triangle,) = by_gid(ax, "triangle")
    np.testing.assert_allclose(triangle.get_xydata()[:3], [[0, 0], [0.5, np.sqrt(3) / 2], [1, 0]])
    with pytest.raises(ValueError, match="keep_samples=True"):
        oplot.posterior(ordframe.bayesian_signed_rank(values, n_resamples=50, seed=0), model="c", versus="a")
    with pytest.raises(TypeError, match="bayesian_correlated_ttest"):
        oplot.posterior(friedman(values), model="c", versus="a")


@pytest.mark.parametrize("n", [2, 4, 10])
def test_a_few_curves_differ_in_line_style_too(n):
    """Told apart without their colours (colour blindness, a grey print): neighbours never share a style."""
    from ordframe.plot._styles import line_styles, marker_styles

    for styles, key in ((line_styles([n]), "linestyle"), (marker_styles(n), "marker")):
        assert all(a[key] != b[key] for a, b in zip(styles, styles[1:])), key
