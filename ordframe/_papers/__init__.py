"""Worked examples and published metric values transcribed from five papers.

The data are in one JSON file per paper beside this module; this module
reads them (``json`` and ``importlib.resources``, so they are found in an
installed wheel too) into the frozen objects below, which the paper-table
tests and ``ordframe reproduce`` go through. It holds no metric code. Full
citations are in ``docs/references.md``.

Sources:

* ``cardoso_sousa_2011.json``: Cardoso & Sousa (2011), the OC index.
  Tables 1-5 and the single-sample example of Sec. 3.2. The closed form of
  Appendix A is given below.
* ``pinto_da_costa_2008.json``: Pinto da Costa, Alonso & Cardoso (2008), the
  r_int coefficient, and the authors' later note correcting its formula. The
  note's Table 1 example.
* ``galdran_2023.json``: Galdran (2023), RPS. The examples of eqs. 3, 5 and 6.
* ``george_2016.json``: George, Lu & Chang (2016), the cost-sensitive d.
  Tables 1, 2 and 4, the cost-matrix example of Sec. 2.2, and the simulation
  study of Table 3 (``GEORGE_2016_TABLE3``: its designs and printed shares;
  ``ordframe reproduce`` runs the simulation).
* ``silva_2018.json``: Silva, Pinto & Cardoso (2018), UOC. Table I,
  classifiers A-F.

Data files
----------
A file holds ``paper`` (authors and year), a ``comment`` (what the paper's
tables share), ``matrix_rows`` (see Orientation) and ``tables``: groups of
cases that share a ``source`` ("Authors (year), Table n"), the ``columns``
(value keys) the paper prints for each case, and optionally ``params`` (value
key -> keyword arguments), ``tolerance`` (one absolute tolerance for every
value of the group), ``note`` (put before each case's own note) and a
``comment``. A case has a ``name``, a ``matrix`` (or a ``proba`` vector and
the ``true_index`` of the true class), ``printed`` (the texts, one per
column), and optionally ``exact`` (value keys whose printed digits are
exact), ``skip`` (value key -> reason), ``note`` and ``comment``. ``comment``
texts are for the reader and are not loaded. ``george_2016.json`` also holds
``cost_example`` (Sec. 2.2) and ``table3`` (the designs of the simulation and
each metric's six printed cells). Write a matrix one row per line.

Orientation
-----------
Every loaded ``matrix`` has rows = TRUE class and columns = PREDICTED class
(the ordframe convention). Cardoso & Sousa, Pinto da Costa et al. and Silva
et al. print their matrices that way (Cardoso & Sousa Sec. 1.1 says "true
class in rows"; Pinto da Costa et al. say n_ij is "true class C_i ...
predicted class C_j"; Silva et al. use N_r = row sums and p(y_hat | y)); their
files say ``"matrix_rows": "true"``. George et al. print rows = PREDICTED
and columns = TRUE (their Sec. 2.2.1): their file keeps the matrices as
printed, says ``"matrix_rows": "predicted"``, and every matrix of it (cost
matrices included) is loaded TRANSPOSED. The transposed matrices give the
true-class sizes the text states (colon 24/57/57/39, lung 31/12/13, ovarian
16/30/32/417/84), and the printed AMAE values are reproduced only with the
transpose.

Value keys
----------
A value key is an ordframe metric name, optionally followed by the
parameters that tell one printed column from another, in brackets::

    "mer", "mae", "spearman", "kendall_tau_b", "rint", "auoc", "d", ...
    "oc[beta=0.25]", "oc[beta=0.75]", "uoc[beta=0.25]", "amae[missing=zero]"

The bracket is a label, written as a ``metrics=`` request is.
``case.params[key]`` holds the complete keyword arguments to pass to the
metric for that column (for example ``{"beta": 0.25, "gamma": 1.0}``). A key
with no entry in ``params`` takes no arguments. ``metric_name(key)`` strips
the bracket.

* ``oc``: ``beta`` is ordframe's relative beta (see ``docs/architecture.md``).
  The paper's raw weight is beta / (N (K-1)^gamma); its tables use 0.25 and
  0.75, with gamma = 1 throughout ("we only present the experimental study for
  gamma = 1").
* ``uoc``: ``beta`` is used as is, with gamma = 1.
* ``amae[missing=zero]``: Silva et al. Table I counts classes with no true
  samples as zero error (AMAE(E) = 0.50; skipping them would give 0.667).
  ordframe exposes this as ``missing="zero"``. A plain ``amae`` uses the
  default, which skips such classes. In George et al. every class is observed,
  so the two agree.
* ``mc`` and ``d`` (George et al.) use the default cost with class sizes equal
  to the true-class counts, and ``chance_distance`` = |Acc + MC - 1| / sqrt(2).
* ``rps`` (Galdran) is normalised by K - 1, as in the paper.

Precision and tolerance
-----------------------
``printed[key]`` is the text exactly as the paper prints it (with the
PDF-garbled minus signs restored). ``values[key]`` is that text as a float.
``precision[key]`` is the number of decimals printed. Compare with

    abs(got - value) <= case.abs_tol(key)

``abs_tol`` is half a unit in the last printed digit, plus 1e-9 of slack.
Some values need that slack because they fall exactly on a rounding boundary.
For example, Cardoso & Sousa's CM2 has OC = 0.525 and 0.575 exactly, printed
0.53 and 0.58. A ``precision`` of ``None`` means the value is exact (a
fraction written in the text, or a value derived exactly from printed
integers: the file's ``exact``). Such values are compared to 1e-12.
``values[key]`` can be NaN where the paper prints "NA"; tests should then
assert NaN. ``tolerance[key]``, where present, replaces the half-unit rule;
it is used only for George et al. Table 4 (see there).

``skip[key]`` gives, in words, the reason a printed value must not be tested:
a misprint in the paper's text, which the recomputed value shows (the list,
with the reasons, is in ``docs/architecture.md``). ``iter_checks`` yields only
the values that are not skipped.

Worked material not encoded (it has no matrix, or no number to test):

* Cardoso & Sousa Table 6: OC means over 50 splits on real datasets (SWD, LEV,
  ESL, Balance, BCCT). The text has no confusion matrices for them.
* Cardoso & Sousa Sec. 4.1 / Fig. 5: the tridiagonal limits as K -> infinity
  (MER and MAE -> 2/3; OC -> 0.6; r_int, Rs and tau_b -> 1). These are
  asymptotic statements, not finite cases.
* Cardoso & Sousa Appendix A: the counterexample to the triangle inequality.
  With K = 2 and symbolic N, CM(a,b) = [[N-1,0],[1,0]], CM(b,c) = [[N-1,1],[0,0]]
  and CM(a,c) = [[N-2,1],[1,0]]; then OC(a,b) + OC(b,c) < OC(a,c) for raw
  beta < (N-1)/((N+1)(N+2)). This is an inequality, not a printed value.
* Cardoso & Sousa eq. 8: OC^1_{0,0} = MAE/(1+MAE). This is for the generalised
  index over all paths, which ordframe does not implement.
* Silva et al. Table II: real-data results. Their matrices exist only as
  figures (Figs. 4 and 5), not as text.
* Silva et al. Figs. 1-3 and Galdran Figs. 1-2 and Table 1 (AURSC means over
  bootstrap runs): no numbers in the text that can be tied to an input.
* Galdran: the text says the Brier and log scores "produce the same penalty"
  for p1 and p2 of eq. 3. That is an equality, with no value printed. No
  sa-RPS value is printed anywhere.

Cardoso & Sousa Appendix A: closed form when the diagonal is the optimal path
----------------------------------------------------------------------------
For raw beta >= 1/(N+1), the optimal consistent path of eq. 7 is the main
diagonal, and

    OC = 1 - (sum_{r} n_{r,r}) / (N + (sum_{r,c} n_{r,c} |r-c|^gamma)^(1/gamma))
       = (M + H) / (M + N)
       = M / (M + N) + H / (M + N)

where H = N - trace is the Hamming distance between the true and predicted
label vectors, and M = (sum n_{r,c} |r-c|^gamma)^(1/gamma) is their Minkowski
distance. In that regime OC is a metric. In ordframe's relative beta, the
condition reads beta >= N (K-1)^gamma / (N+1).

Cardoso & Sousa Sec. 3.2 single-sample form (N = 1, one count at (r, c)), raw
beta:

    OC = min(1, 1 - 1/(1 + |r-c|) + beta |r-c|)

The text adds that for beta = 0.5, OC already equals the MER (= 1 for any
error). The Sec. 3.2 cases encode that statement.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from types import MappingProxyType
from typing import Any

__all__ = [
    "CONFUSION_CASES",
    "PROBA_CASES",
    "CARDOSO_SOUSA_2011_TABLES",
    "PINTO_DA_COSTA_EXAMPLES",
    "GALDRAN_2023_RPS_EXAMPLES",
    "GEORGE_2016_COST_EXAMPLE",
    "GEORGE_2016_TABLES",
    "GEORGE_2016_TABLE3",
    "Table3Design",
    "SILVA_2018_TABLES",
    "PaperCase",
    "PaperCostExample",
    "PaperProbaCase",
    "iter_checks",
    "metric_name",
]

_EXACT_TOL = 1e-12
_SLACK = 1e-9

Matrix = tuple[tuple[int, ...], ...]


def metric_name(key: str) -> str:
    """Return the ordframe metric name of a value key ("oc[beta=0.25]" -> "oc")."""
    return key.split("[", 1)[0]


@dataclass(frozen=True)
class _Published:
    """A case of a paper, with the values printed for it.

    ``values``/``printed``/``precision``: see the module docstring.
    ``params``: value key -> keyword arguments for the metric.
    ``skip``: value key -> reason not to test it.
    ``tolerance``: value key -> absolute tolerance replacing the half-unit rule.
    """

    source: str
    name: str
    values: Mapping[str, float]
    precision: Mapping[str, int | None]
    params: Mapping[str, Mapping[str, object]]
    skip: Mapping[str, str]
    tolerance: Mapping[str, float]
    printed: Mapping[str, str]
    note: str

    @property
    def id(self) -> str:
        return f"{self.source}:{self.name}".replace(" ", "_")

    def abs_tol(self, key: str) -> float:
        """Absolute tolerance for ``values[key]`` (see the module docstring)."""
        if key in self.tolerance:
            return self.tolerance[key]
        p = self.precision[key]
        if p is None:
            return _EXACT_TOL
        return 0.5 * 10.0 ** (-p) + _SLACK

    def checked_keys(self) -> tuple[str, ...]:
        """Value keys that are not skipped, in table order."""
        return tuple(k for k in self.values if k not in self.skip)


@dataclass(frozen=True)
class PaperCase(_Published):
    """A confusion matrix from a paper, with the values printed for it.

    ``matrix``: counts, rows = true class, columns = predicted class, K x K in
    the declared class order (empty rows and columns included).
    """

    matrix: Matrix


@dataclass(frozen=True)
class PaperProbaCase(_Published):
    """A probabilistic prediction for one sample, with published scores.

    ``proba`` is over the K ordered classes; ``true_index`` is the 0-based
    index of the true class.
    """

    proba: tuple[float, ...]
    true_index: int


@dataclass(frozen=True)
class PaperCostExample:
    """A default cost matrix for given class sizes (George, Lu & Chang 2016, Sec. 2.2).

    ``cost`` and ``cost_printed`` have rows = TRUE class and columns =
    PREDICTED class (the transpose of the paper's layout). ``cost`` is exact:
    the element-wise product of the two factor matrices the paper prints
    exactly. ``cost_printed`` is the paper's rounded "approximately equal"
    matrix, with ``precision`` decimals.
    """

    source: str
    name: str
    class_sizes: tuple[int, ...]
    cost: tuple[tuple[float, ...], ...]
    cost_printed: tuple[tuple[float, ...], ...]
    precision: int
    note: str


@dataclass(frozen=True)
class Table3Design:
    """One simulation of George, Lu & Chang (2016), Sec. 3.2, and its printed row of Table 3 for each cell.

    ``printed[(accuracy, largest)][metric]`` is the share of the 10,000 pairs of equal-accuracy matrices in
    which the metric favours the matrix with the lower misclassification cost, as printed (3 decimals).
    ``largest`` is the share of the largest class, ``None`` for the balanced design ("Bal").
    """

    simulation: int
    k: int
    n: int
    fixed: str
    printed: Mapping[tuple[float, float | None], Mapping[str, str]]


def _parse(text: str) -> tuple[float, int | None]:
    """Printed text -> (value, decimals); None decimals = exact or NA."""
    t = text.strip()
    if t == "NA":
        return math.nan, None
    if t.endswith("%"):
        num = t[:-1]
        dec = len(num.split(".")[1]) if "." in num else 0
        return float(num) / 100.0, dec + 2
    if "/" in t:
        return float(Fraction(t)), None
    dec = len(t.split(".")[1]) if "." in t else 0
    return float(t), dec


def _ro(d: Mapping) -> Mapping:
    return MappingProxyType(dict(d))


def _read(paper: str) -> dict[str, Any]:
    """The data file ``<paper>.json`` beside this module."""
    return json.loads(resources.files(__name__).joinpath(f"{paper}.json").read_text(encoding="utf-8"))


def _oriented(rows: Sequence[Sequence[Any]], data: Mapping[str, Any], cell: Callable[[Any], Any] = int) -> tuple:
    """A matrix of the file ``data`` as rows = true class (transposed where the file's ``matrix_rows`` is "predicted")."""
    matrix = tuple(tuple(cell(x) for x in row) for row in rows)
    return tuple(zip(*matrix, strict=True)) if data["matrix_rows"] == "predicted" else matrix


def _entries(data: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Every case of a file: the fields ``PaperCase`` and ``PaperProbaCase`` share, and the case's own entry."""
    for table in data["tables"]:
        for entry in table["cases"]:
            printed = dict(zip(table["columns"], entry["printed"], strict=True))
            parsed = {key: _parse(text) for key, text in printed.items()}
            exact = entry.get("exact", ())
            fields = {
                "source": table["source"],
                "name": entry["name"],
                "values": _ro({key: value for key, (value, _) in parsed.items()}),
                "precision": _ro({key: None if key in exact else decimals for key, (_, decimals) in parsed.items()}),
                "params": _ro({key: _ro(kwargs) for key, kwargs in table.get("params", {}).items()}),
                "skip": _ro(entry.get("skip", {})),
                "tolerance": _ro(dict.fromkeys(printed, table["tolerance"]) if "tolerance" in table else {}),
                "printed": _ro(printed),
                "note": " ".join(filter(None, (table.get("note"), entry.get("note")))),
            }
            yield fields, entry


def _confusion_cases(data: Mapping[str, Any]) -> tuple[PaperCase, ...]:
    return tuple(PaperCase(matrix=_oriented(entry["matrix"], data), **fields) for fields, entry in _entries(data))


def _proba_cases(data: Mapping[str, Any]) -> tuple[PaperProbaCase, ...]:
    return tuple(
        PaperProbaCase(proba=tuple(map(float, entry["proba"])), true_index=entry["true_index"], **fields)
        for fields, entry in _entries(data)
    )


def _cost_example(data: Mapping[str, Any]) -> PaperCostExample:
    example = data["cost_example"]
    return PaperCostExample(
        source=example["source"],
        name=example["name"],
        class_sizes=tuple(example["class_sizes"]),
        cost=_oriented(example["cost"], data, lambda text: float(Fraction(text))),
        cost_printed=_oriented(example["cost_printed"], data, float),
        precision=example["precision"],
        note=example["note"],
    )


def _table3(data: Mapping[str, Any]) -> tuple[Table3Design, ...]:
    table = data["table3"]
    cells = [(accuracy, largest) for accuracy in table["accuracy"] for largest in table["largest"]]
    designs = []
    for design in table["designs"]:
        printed = {cell: _ro({m: texts[i] for m, texts in design["printed"].items()}) for i, cell in enumerate(cells)}
        designs.append(Table3Design(design["simulation"], design["k"], design["n"], design["fixed"], _ro(printed)))
    return tuple(designs)


_GEORGE_2016 = _read("george_2016")

CARDOSO_SOUSA_2011_TABLES: tuple[PaperCase, ...] = _confusion_cases(_read("cardoso_sousa_2011"))
PINTO_DA_COSTA_EXAMPLES: tuple[PaperCase, ...] = _confusion_cases(_read("pinto_da_costa_2008"))
GALDRAN_2023_RPS_EXAMPLES: tuple[PaperProbaCase, ...] = _proba_cases(_read("galdran_2023"))
GEORGE_2016_TABLES: tuple[PaperCase, ...] = _confusion_cases(_GEORGE_2016)
GEORGE_2016_COST_EXAMPLE: PaperCostExample = _cost_example(_GEORGE_2016)
GEORGE_2016_TABLE3: tuple[Table3Design, ...] = _table3(_GEORGE_2016)
SILVA_2018_TABLES: tuple[PaperCase, ...] = _confusion_cases(_read("silva_2018"))

CONFUSION_CASES: tuple[PaperCase, ...] = (
    CARDOSO_SOUSA_2011_TABLES + PINTO_DA_COSTA_EXAMPLES + GEORGE_2016_TABLES + SILVA_2018_TABLES
)
PROBA_CASES: tuple[PaperProbaCase, ...] = GALDRAN_2023_RPS_EXAMPLES


def iter_checks(cases: Sequence[PaperCase] | Sequence[PaperProbaCase] = CONFUSION_CASES) -> Iterator[tuple]:
    """Yield ``(case, key)`` for every value that is not skipped.

    Suited to ``pytest.mark.parametrize("case, key", list(iter_checks()),
    ids=...)``.
    """
    for case in cases:
        for key in case.checked_keys():
            yield case, key
