"""The interval methods of bootstrap replicates: one table that every door, the command line and the docs read.

Each entry says what the method needs, where it applies and which function of
``ordframe._inference.intervals`` computes its bounds (by name, so that this
module stays light: the command line's parser reads it without numpy). The
rules that follow from an entry:

- ``needs``: ``"estimate"``, the metric on the data; ``"jackknife"``, its
  leave-one-out values (on replicates alone the cube's, which cannot leave one
  cluster out: there clusters rule it out); ``"cube"``, the data's cube itself
  (a frame builds it only when a method asks); ``"draws"``, it draws from the
  cube sample by sample (never with clusters). ``ordframe.ci`` takes them all
  from ``cube=``.
- ``metric``: the ``Metric`` field that a metric must set for the method to
  apply to it (``Metric.share``, ``Metric.per_class``).
- ``drawn_by``: replicates of its own, not a frame's or ``bootstrap_cube``'s
  of N samples: how to draw them.
- ``instead``: the method that a metric's default of this one becomes where
  the design rules it out everywhere (m-out-of-n on a frame, whose replicates
  are of N samples; a method that draws samples, with clusters).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

#: Where an interval method applies: ``ordframe.ci`` (replicates), ``df.ordinal.ci`` (frame), ``compare`` and
#: ``df.ordinal.compare`` (differences), ``df.ordinal.skill`` (skill).
PLACES = ("replicates", "frame", "differences", "skill")
#: What a method may need beyond the replicates (see the module docstring), as the docs say it.
NEEDS: Mapping[str, str] = MappingProxyType(
    {
        "estimate": "the metric on the data",
        "jackknife": "its jackknife",
        "cube": "the data's cube",
        "draws": "draws from the cube sample by sample",
    }
)


class MetricField(NamedTuple):
    """A ``Metric`` field that a method may require (its ``metric``), in the words of the messages."""

    kind: str  # what such a metric is
    setting: str  # how its declaration says so
    needs: str  # what the method needs of it


METRIC_FIELDS: Mapping[str, MetricField] = MappingProxyType(
    {
        "share": MetricField("a share of samples", "share=True", "a metric that is a share of samples"),
        "per_class": MetricField(
            "the worst of per-class values", "per_class=", "the per-class values whose worst the metric is"
        ),
    }
)


@dataclass(frozen=True)
class IntervalMethod:
    """One interval method: its name, what it needs, where it applies, its bounds function, its citation (authors
    and year) and the full references of that citation (authors, title, venue, year)."""

    name: str
    bounds: str
    description: str
    citation: str
    references: tuple[str, ...] = ()
    places: tuple[str, ...] = ("replicates", "frame")
    needs: tuple[str, ...] = ()
    metric: str | None = None
    drawn_by: str | None = None
    instead: str | None = None

    def __post_init__(self):
        for field, values, allowed in (
            ("places", self.places, PLACES),
            ("needs", self.needs, tuple(NEEDS)),
            ("metric", {self.metric} - {None}, tuple(METRIC_FIELDS)),
        ):
            if not set(values) <= set(allowed):
                raise ValueError(f"interval method {self.name!r}: {field} must be of {allowed}, got {values}")

    def clusters(self, *, frame: bool) -> bool:
        """Whether it applies to replicates that drew whole clusters (on a frame, or on replicates alone)."""
        return "draws" not in self.needs and (frame or "jackknife" not in self.needs)


INTERVAL_METHODS: Mapping[str, IntervalMethod] = MappingProxyType(
    {
        entry.name: entry
        for entry in (
            IntervalMethod(
                "percentile",
                "percentile_interval",
                "the alpha/2 and 1 - alpha/2 quantiles of the replicates",
                "Efron & Tibshirani (1993), ch. 13",
                ("B. Efron, R. J. Tibshirani, An Introduction to the Bootstrap, Chapman & Hall, 1993",),
                places=PLACES,
            ),
            IntervalMethod(
                "basic",
                "basic_interval",
                "the percentile interval reflected about the estimate, against the bootstrap's bias",
                "Davison & Hinkley (1997), eq. 5.6",
                (
                    "A. C. Davison, D. V. Hinkley, Bootstrap Methods and their Application, Cambridge University Press, 1997",
                ),
                places=PLACES,
                needs=("estimate",),
            ),
            IntervalMethod(
                "bca",
                "bca_interval",
                "bias corrected and accelerated: the levels moved by the estimate's rank and the jackknife",
                "Efron (1987); Efron & Tibshirani (1993), ch. 14",
                (
                    "B. Efron, Better bootstrap confidence intervals, J. Am. Stat. Assoc. 82(397), 1987",
                    "B. Efron, R. J. Tibshirani, An Introduction to the Bootstrap, Chapman & Hall, 1993",
                ),
                places=("replicates", "frame", "differences"),
                needs=("estimate", "jackknife"),
            ),
            IntervalMethod(
                "m_out_of_n",
                "m_out_of_n_interval",
                "the spread of replicates of m < N samples rescaled by sqrt(m/N), for a statistic that is not smooth",
                "Bickel, Götze & van Zwet (1997); Bickel & Sakov (2008)",
                (
                    "P. J. Bickel, F. Götze, W. R. van Zwet, Resampling fewer than n observations: gains, losses, and "
                    "remedies for losses, Statistica Sinica 7(1), 1997",
                    "P. J. Bickel, A. Sakov, On the choice of m in the m out of n bootstrap and confidence bounds for "
                    "extrema, Statistica Sinica 18(3), 2008",
                ),
                places=("replicates",),
                needs=("estimate",),
                drawn_by="ordframe.bootstrap_cube(cube, n_resamples, size=m)",
                instead="bca",
            ),
            IntervalMethod(
                "calibrated",
                "calibrated_interval",
                "the percentile interval at levels calibrated by a double bootstrap",
                "Hall (1986); Hall & Martin (1988)",
                (
                    "P. Hall, On the bootstrap and confidence intervals, Ann. Stat. 14(4), 1986",
                    "P. Hall, M. A. Martin, On bootstrap resampling and iteration, Biometrika 75(4), 1988",
                ),
                needs=("estimate", "cube", "draws"),
                instead="basic",
            ),
            IntervalMethod(
                "jeffreys",
                "jeffreys_interval",
                "a share of samples: Beta quantiles at the bootstrap's effective sample size",
                "Brown, Cai & DasGupta (2001); Korn & Graubard (1998)",
                (
                    "L. D. Brown, T. T. Cai, A. DasGupta, Interval estimation for a binomial proportion, Statistical "
                    "Science 16(2), 2001",
                    "E. L. Korn, B. I. Graubard, Confidence intervals for proportions with small expected number of "
                    "positive counts estimated from survey data, Survey Methodology 24(2), 1998",
                ),
                needs=("estimate", "cube"),
                metric="share",
            ),
            IntervalMethod(
                "intersection",
                "intersection_interval",
                "the worst of per-class values, bounded jointly over the classes that may be worst",
                "Chernozhukov, Lee & Rosen (2013)",
                (
                    "V. Chernozhukov, S. Lee, A. M. Rosen, Intersection bounds: estimation and inference, Econometrica 81(2), 2013",
                ),
                needs=("cube", "draws"),
                metric="per_class",
                instead="basic",
            ),
        )
    }
)
"""The interval methods by name, in the order that messages and docs list them."""


def methods(place: str) -> tuple[str, ...]:
    """The names of the methods that apply at ``place`` (one of ``PLACES``), in the table's order."""
    return tuple(name for name, entry in INTERVAL_METHODS.items() if place in entry.places)


def choices(place: str, *, none: bool = False) -> str:
    """The methods of ``place`` as a docstring's choices, ``{"percentile", "basic", ...}`` (``None`` first with ``none``)."""
    return "{" + ", ".join([*(["None"] if none else []), *(f'"{name}"' for name in methods(place))]) + "}"
