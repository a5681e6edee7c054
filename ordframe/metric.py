"""The declaration of a metric: what a plugin returns from ``ordframe_metrics``."""

from __future__ import annotations

import keyword
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Literal, Mapping

KINDS = ("confusion", "proba")


@dataclass(frozen=True)
class Metric:
    """An ordinal evaluation index and its numpy kernel.

    Kernel signatures, vectorised over any leading axes:

    * ``kind="confusion"``: ``func(counts, **params)`` with ``counts`` a float64
      array ``(..., K, K)`` (rows = true class, columns = predicted class)
      returns an array of shape ``(...)``.
    * ``kind="proba"``: ``func(proba, true, **params)`` with ``proba`` of shape
      ``(..., K)`` and ``true`` the int64 class index of shape ``(...)`` returns a
      per-sample score of shape ``(...)``; ordframe averages it over samples.

    A kernel returns NaN for a matrix on which the metric is undefined; the
    ``undefined`` text says when that happens and is shown to the user.
    """

    name: str
    kind: Literal["confusion", "proba"]
    func: Callable[..., Any]
    higher_is_better: bool
    bounds: tuple[float, float] = (float("-inf"), float("inf"))
    defaults: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    reference: str = ""
    undefined: str = ""

    def __post_init__(self):
        if not self.name.isidentifier() or keyword.iskeyword(self.name) or self.name.startswith("_"):
            raise ValueError(
                f"metric name {self.name!r} must be a public Python identifier "
                "(it becomes an accessor method), e.g. 'my_index'"
            )
        if self.kind not in KINDS:
            raise ValueError(f"metric {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if not callable(self.func):
            raise TypeError(f"metric {self.name!r}: func must be callable, got {type(self.func).__name__}")
        low, high = self.bounds
        if not low <= high:
            raise ValueError(f"metric {self.name!r}: bounds {self.bounds} are not ordered (low <= high)")
        object.__setattr__(self, "bounds", (float(low), float(high)))
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    def params(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The defaults updated with ``given``; unknown names are an error."""
        unknown = sorted(set(given) - set(self.defaults))
        if unknown:
            allowed = ", ".join(self.defaults) or "none"
            raise TypeError(f"metric {self.name!r} got unknown parameter(s) {unknown}; its parameters are: {allowed}")
        return {**self.defaults, **given}
