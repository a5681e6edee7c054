"""Plots of ordframe results with matplotlib (optional: ``pip install "ordframe[plot]"``).

Every function returns the matplotlib ``Figure`` and draws on new axes unless
``ax=`` (or ``axes=``) is given; a display returns itself, with the figure in
``figure_``. matplotlib is imported only when something is drawn, so
``import ordframe.plot`` works without it.

- [`ConfusionDisplay`][ordframe.plot.ConfusionDisplay]: one confusion matrix with its optimal OC / UOC path,
  from predictions, a fitted estimator or a cross-validation, like scikit-learn's displays.
- [`confusion`][ordframe.plot.confusion]: heatmaps of the matrices of a cube with the optimal OC / UOC path.
- [`cost_plane`][ordframe.plot.cost_plane]: George, Lu & Chang (2016)'s accuracy-cost plane.
- [`retention`][ordframe.plot.retention]: retained-samples curves and their area (AURSC).
- [`beta_profile`][ordframe.plot.beta_profile]: OC or UOC against its ``beta`` parameter.
- [`distribution`][ordframe.plot.distribution]: box plots of bootstrap or fold values per model.
- [`class_counts`][ordframe.plot.class_counts]: bars of the samples per class, true and as each model predicts.
- [`critical_difference`][ordframe.plot.critical_difference]: Demšar (2006)'s critical-difference diagram.
- [`reliability`][ordframe.plot.reliability]: reliability diagrams of ordinal probabilities, one panel per
  cumulative threshold, with consistency bands (Dimitriadis, Gneiting & Jordan 2021).
- [`ReliabilityDisplay`][ordframe.plot.ReliabilityDisplay]: the same diagrams from probabilities, a fitted
  estimator or a cross-validation, like scikit-learn's displays.
- [`posterior`][ordframe.plot.posterior]: the posterior of a Bayesian comparison (density with the rope, or
  the simplex of the three regions).
"""

from ordframe.plot._beta_profile import beta_profile
from ordframe.plot._class_counts import class_counts
from ordframe.plot._confusion import confusion
from ordframe.plot._cost_plane import cost_plane
from ordframe.plot._critical_difference import critical_difference
from ordframe.plot._display import ConfusionDisplay
from ordframe.plot._distribution import distribution
from ordframe.plot._posterior import posterior
from ordframe.plot._reliability import ReliabilityDisplay, reliability
from ordframe.plot._retention import retention

__all__ = [
    "ConfusionDisplay",
    "ReliabilityDisplay",
    "beta_profile",
    "class_counts",
    "confusion",
    "cost_plane",
    "critical_difference",
    "distribution",
    "posterior",
    "reliability",
    "retention",
]
