"""The name of every dim that ordframe creates or looks for.

A keyword argument called ``dim`` always means the dims reduced over, as in
xarray; the other roles a dim plays have their own keyword names (see the
architecture page's table of keywords).
"""

TRUE = "true"
PRED = "pred"
CUBE_DIMS = (TRUE, PRED)
"""The last two dims of a confusion cube: rows are true classes, columns predicted ones."""

CLASS_DIM = "class"
"""The default dim of a probability array that holds one probability per class; also per-class report variables."""

OBSERVED_DIM = "group"
"""The one stacked dim of the group combinations that occur (``observed=True``)."""

BOOTSTRAP_DIM = "bootstrap"
"""The default replicate dim of a bootstrap."""

REPLICATE_DIM = "replicate"
"""The default dim of simulated replicates (``ordframe.simulate``)."""

SIZE_COORD = "bootstrap_size"
"""The scalar coordinate of m-out-of-n bootstrap replicates: the samples drawn per replicate."""

CELL_DIM = "cell"
"""The leave-one-cell-out dim of a jackknife (K^2 long, row-major over ``(true, pred)``)."""

LEFT_OUT_DIM = "left_out"
"""The units (samples or clusters, or their distinct patterns) left out one at a time by a paired jackknife."""

BOUND_DIM = "bound"
"""The lower and upper ends of an interval."""

MODEL_DIM = "model"
"""The default dim of the models compared."""

FOLD_DIM = "fold"
"""The default dim of the folds of a cross-validation."""

METRIC_DIM = "metric"
"""The metrics of a comparison stacked along one dim."""

VERSUS_DIM = "versus"
"""The second model of a pairwise comparison."""

RETAINED_DIM = "retained"
"""The retained fractions of a retention curve."""

SCORE_DIM = "score"
"""The per-sample scores that order a retention curve, when several are given."""

STEP_DIM = "step"
"""The steps of an optimal OC/UOC path."""

AXIS_DIM = "axis"
"""The (row, column) position of a step of a path."""

TEST_DIM = "test"
"""The statistical tests of a result that holds several (``df.ordinal.paired_tests``)."""

DRAW_DIM = "draw"
"""The Monte-Carlo draws of a posterior distribution."""

REGION_DIM = "region"
"""The three regions of a Bayesian comparison: ``model`` better, practically equivalent, ``versus`` better."""
