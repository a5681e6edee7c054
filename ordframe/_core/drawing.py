"""How bootstrap replicates were drawn, kept in their attrs for what reads them later (``ci``, ``compare``).

Every set of replicates ordframe draws carries, in the attrs of its cube and of every metric computed on it:

* ``n_resamples``: the number of replicates;
* ``seed``: the seed that draws them again, ``seed=int(attrs["seed"])`` (a fresh one is chosen and recorded when
  none is given; a seed past 32 bits is recorded as its decimal digits, which netCDF 3 files can hold, and a
  numpy Generator or SeedSequence passed as ``seed=`` as ``"not recorded"``);
* ``method``: what a replicate draws: ``"samples"`` (rows with replacement, the same rows for every model),
  ``"clusters"`` (whole clusters of rows, ``cluster=``), ``"cells"`` (the cells of every matrix,
  multinomially: ``cube.ordinal.bootstrap``) or ``"cells within true classes"`` (``stratify=True``);
* ``sample``, ``strata``, ``cluster``: the columns that named them, where given (``strata`` as JSON, like the
  ``classes`` attr).

Every value is a string or a number, so the record survives ``to_netcdf``; xarray keeps attrs through
reductions and arithmetic, so sums over strata keep it too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ordframe._core.checks import by_names, check_progress, check_replicates, one_column

DRAWN_ATTRS = ("n_resamples", "seed", "method", "sample", "strata", "cluster")

SAMPLES, CLUSTERS, CELLS, CELLS_BY_CLASS = "samples", "clusters", "cells", "cells within true classes"


@dataclass(frozen=True)
class Resampling:
    """How a paired bootstrap draws its replicates: built and checked once, at the door.

    ``n_resamples`` replicates from ``seed`` (a fresh, recorded one for None, ``concrete_seed``);
    ``sample`` names the column that identifies a sample across models (default: the row's position within
    its model and stratum), ``strata`` the columns whose groups are drawn apart, each keeping its number of
    samples, ``cluster`` the column of the clusters drawn whole; ``progress`` shows a bar (None: for long runs).
    """

    n_resamples: int = 2000
    seed: Any = None
    sample: Any = None
    strata: Any = ()
    cluster: Any = None
    progress: bool | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_resamples", check_replicates(self.n_resamples))
        object.__setattr__(self, "seed", concrete_seed(self.seed))
        object.__setattr__(self, "strata", tuple(by_names(self.strata, "strata")))
        object.__setattr__(self, "progress", check_progress(self.progress))
        one_column(self.cluster, "cluster")

    def but(self, **changes) -> Resampling:
        """These draws with ``changes`` (checked again)."""
        return replace(self, **changes)

    def record(self) -> dict[str, Any]:
        """The attrs that say how these replicates were drawn (see the module docstring)."""
        names = by_names(self.sample, "sample")
        return drawn_record(
            self.n_resamples,
            self.seed,
            SAMPLES if self.cluster is None else CLUSTERS,
            sample=names[0] if names else None,
            strata=self.strata,
            cluster=self.cluster,
        )


def concrete_seed(seed):
    """``seed`` itself, or for ``None`` a fresh seed (from the operating system's entropy) that can be recorded."""
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1)[0] >> 1)
    return seed


def drawn_record(n_resamples: int, seed, method: str, *, sample=None, strata=(), cluster=None) -> dict[str, Any]:
    """The attrs that say how replicates were drawn (see the module docstring); ``seed`` as ``concrete_seed`` gave."""
    record: dict[str, Any] = {
        "n_resamples": int(n_resamples),
        "seed": _recorded(seed),
        "method": method,
    }
    if sample is not None:
        record["sample"] = str(sample)
    if strata:
        record["strata"] = json.dumps([str(s) for s in strata])
    if cluster is not None:
        record["cluster"] = str(cluster)
    return record


def _recorded(seed) -> int | str:
    if not isinstance(seed, (int, np.integer)):
        return "not recorded"
    return int(seed) if seed < 2**31 else str(seed)


def drawn_of(attrs: Mapping) -> dict[str, Any]:
    """The record of how replicates were drawn, from attrs that may hold other things too."""
    return {name: attrs[name] for name in DRAWN_ATTRS if name in attrs}


def clustered(attrs: Mapping) -> bool:
    """Whether the replicates of these attrs drew whole clusters."""
    return attrs.get("method") == CLUSTERS
