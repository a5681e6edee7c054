"""Worked examples and published metric values transcribed from five papers.

This module holds data only: the confusion matrices, probability vectors and
cost matrices that the papers work through, with every value they print for
them. The paper-table tests and ``ordframe reproduce`` go through it. It
holds no metric code. Full citations are in ``docs/references.md``.

Sources:

* Cardoso & Sousa (2011), the OC index. Tables 1-5 and the single-sample
  example of Sec. 3.2. The closed form of Appendix A appears below as a comment.
* Pinto da Costa, Alonso & Cardoso (2008), the r_int coefficient, and the
  authors' later note correcting its formula. The note's Table 1 example.
* Galdran (2023), RPS. The examples of eqs. 3, 5 and 6.
* George, Lu & Chang (2016), the cost-sensitive d. Tables 1, 2 and 4, the
  cost-matrix example of Sec. 2.2, and the simulation study of Table 3
  (``GEORGE_2016_TABLE3``: its designs and printed shares; ``ordframe
  reproduce`` runs the simulation).
* Silva, Pinto & Cardoso (2018), UOC. Table I, classifiers A-F.

Orientation
-----------
Every ``matrix`` here has rows = TRUE class and columns = PREDICTED class (the
ordframe convention). Cardoso & Sousa, Pinto da Costa et al. and Silva et al.
print their matrices that way (Cardoso & Sousa Sec. 1.1 says "true class in
rows"; Pinto da Costa et al. say n_ij is "true class C_i ... predicted class
C_j"; Silva et al. use N_r = row sums and p(y_hat | y)). George et al. print
rows = PREDICTED and columns = TRUE (their Sec. 2.2.1), so their matrices are
stored TRANSPOSED. The transposed matrices give the true-class sizes the text
states (colon 24/57/57/39, lung 31/12/13, ovarian 16/30/32/417/84), and the
printed AMAE values are reproduced only with the transpose.

Value keys
----------
A value key is an ordframe metric name, optionally followed by the
parameters that tell one printed column from another, in brackets::

    "mer", "mae", "spearman", "kendall_tau_b", "rint", "auoc", "d", ...
    "oc[beta=0.25]", "oc[beta=0.75]", "uoc[beta=0.25]", "amae[missing=zero]"

The bracket is a label, not something to parse. ``case.params[key]`` holds the
complete keyword arguments to pass to the metric for that column (for example
``{"beta": 0.25, "gamma": 1.0}``). A key with no entry in ``params`` takes no
arguments. ``metric_name(key)`` strips the bracket.

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
integers). Such values are compared to 1e-12. ``values[key]`` can be NaN
where the paper prints "NA"; tests should then assert NaN. ``tolerance[key]``,
where present, replaces the half-unit rule; it is used only for George et al.
Table 4 (see there).

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
error). The ``CARDOSO_SOUSA_2011_SINGLE_SAMPLE`` cases encode that statement.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType

__all__ = [
    "CONFUSION_CASES",
    "PROBA_CASES",
    "CARDOSO_SOUSA_2011_SINGLE_SAMPLE",
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


class _TolMixin:
    values: Mapping[str, float]
    precision: Mapping[str, int | None]
    tolerance: Mapping[str, float]
    skip: Mapping[str, str]

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
class PaperCase(_TolMixin):
    """A confusion matrix from a paper, with the values printed for it.

    ``matrix``: counts, rows = true class, columns = predicted class, K x K in
    the declared class order (empty rows and columns included).
    ``values``/``printed``/``precision``: see the module docstring.
    ``params``: value key -> keyword arguments for the metric.
    ``skip``: value key -> reason not to test it.
    ``tolerance``: value key -> absolute tolerance replacing the half-unit rule.
    """

    source: str
    name: str
    matrix: Matrix
    values: Mapping[str, float]
    precision: Mapping[str, int | None]
    params: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    skip: Mapping[str, str] = field(default_factory=dict)
    tolerance: Mapping[str, float] = field(default_factory=dict)
    printed: Mapping[str, str] = field(default_factory=dict)
    note: str = ""

    @property
    def id(self) -> str:
        return f"{self.source}:{self.name}".replace(" ", "_")


@dataclass(frozen=True)
class PaperProbaCase(_TolMixin):
    """A probabilistic prediction for one sample, with published scores.

    ``proba`` is over the K ordered classes; ``true_index`` is the 0-based
    index of the true class.
    """

    source: str
    name: str
    proba: tuple[float, ...]
    true_index: int
    values: Mapping[str, float]
    precision: Mapping[str, int | None]
    params: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    skip: Mapping[str, str] = field(default_factory=dict)
    tolerance: Mapping[str, float] = field(default_factory=dict)
    printed: Mapping[str, str] = field(default_factory=dict)
    note: str = ""

    @property
    def id(self) -> str:
        return f"{self.source}:{self.name}".replace(" ", "_")


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
    note: str = ""


# --------------------------------------------------------------------------
# construction helpers
# --------------------------------------------------------------------------


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


def _matrix(rows: Sequence[Sequence[int]]) -> Matrix:
    m = tuple(tuple(int(x) for x in r) for r in rows)
    k = len(m)
    if any(len(r) != k for r in m):
        raise ValueError("matrix must be square")
    return m


def _transpose(rows: Sequence[Sequence[int]]) -> Matrix:
    return _matrix([list(col) for col in zip(*rows)])


def _case(source, name, matrix, printed, *, params=None, skip=None, tolerance=None, exact=(), note="") -> PaperCase:
    values, precision = {}, {}
    for key, text in printed.items():
        v, p = _parse(text)
        values[key] = v
        precision[key] = None if key in exact else p
    params = params or {}
    for key in list(params) + list(skip or {}) + list(tolerance or {}):
        if key not in values:
            raise KeyError(f"{source} {name}: unknown value key {key!r}")
    return PaperCase(
        source=source,
        name=name,
        matrix=_matrix(matrix),
        values=_ro(values),
        precision=_ro(precision),
        params=_ro({k: _ro(v) for k, v in params.items()}),
        skip=_ro(skip or {}),
        tolerance=_ro(tolerance or {}),
        printed=_ro(printed),
        note=note,
    )


def _row(columns: Sequence[str], cells: str) -> dict:
    texts = cells.split()
    if len(texts) != len(columns):
        raise ValueError(f"{len(columns)} columns but {len(texts)} cells: {cells!r}")
    return dict(zip(columns, texts))


# --------------------------------------------------------------------------
# Cardoso & Sousa, "Measuring the performance of ordinal classification"
# (2011). Rows = true class (Sec. 1.1). All tables use
# beta1 = 0.25/(N(K-1)), beta2 = 0.75/(N(K-1)) and gamma = 1.
# --------------------------------------------------------------------------

_CARDOSO_SOUSA_COLS = ("mer", "mae", "spearman", "kendall_tau_b", "rint", "oc[beta=0.25]", "oc[beta=0.75]")
_CARDOSO_SOUSA_PARAMS = {
    "oc[beta=0.25]": {"beta": 0.25, "gamma": 1.0},
    "oc[beta=0.75]": {"beta": 0.75, "gamma": 1.0},
}

_CM5_REASON = "garbled in print: the matrix gives MER 0.714, MAE 0.857, not 0.86, 1.00"


def _cardoso_sousa(table, name, matrix, cells, **kw):
    return _case(
        f"Cardoso & Sousa (2011), {table}",
        name,
        matrix,
        _row(_CARDOSO_SOUSA_COLS, cells),
        params=_CARDOSO_SOUSA_PARAMS,
        **kw,
    )


CARDOSO_SOUSA_2011_TABLES: tuple[PaperCase, ...] = (
    # Sec. 2, "four classifiers A, B, C and D ... (K = 4, N = 13)". Class 3
    # is empty. Table 1 prints classifier A to one decimal.
    _cardoso_sousa(
        "Table 1", "A", [[4, 0, 0, 0], [0, 6, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3]], "0.0 0.0 1.0 1.0 1.0 0.0 0.0"
    ),
    _cardoso_sousa(
        "Table 1", "B", [[0, 4, 0, 0], [0, 0, 6, 0], [0, 0, 0, 0], [0, 0, 0, 3]], "0.77 0.77 1.0 1.0 1.0 0.50 0.63"
    ),
    _cardoso_sousa(
        "Table 1", "C", [[0, 0, 4, 0], [0, 0, 6, 0], [0, 0, 0, 0], [0, 0, 0, 3]], "0.77 1.08 0.79 0.75 0.80 0.61 0.78"
    ),
    _cardoso_sousa(
        "Table 1", "D", [[0, 4, 0, 0], [6, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3]], "0.77 0.77 0.24 0.11 0.53 0.65 0.72"
    ),
    # Sec. 4.2, dispersed examples.
    _cardoso_sousa("Table 2", "CM1", [[2, 0, 1], [1, 1, 0], [2, 1, 2]], "0.50 0.80 0.20 0.19 0.39 0.63 0.69"),
    _cardoso_sousa(
        "Table 2",
        "CM2",
        [[1, 0, 0], [0, 4, 0], [2, 2, 1]],
        "0.40 0.60 0.10 0.11 0.45 0.53 0.58",
        note="OC is exactly 0.525 and 0.575 (the optimal path is "
        "(1,1),(2,2),(3,2),(3,3)), printed 0.53 and 0.58: on the "
        "rounding boundary, hence the 1e-9 slack in abs_tol.",
    ),
    _cardoso_sousa("Table 3", "CM3", [[1, 0, 1], [0, 0, 0], [3, 2, 0]], "0.86 1.43 -0.26 -0.254 0.34 0.79 0.93"),
    _cardoso_sousa(
        "Table 3",
        "CM4",
        [[1, 0, 1], [0, 2, 1], [1, 1, 0]],
        "0.57 0.85 -0.25 -0.250 0.08 0.71 0.75",
        skip={
            "mae": "misprint: the printed matrix gives MAE 6/7 = 0.857 (0.86), not 0.85",
        },
        note="MAE: the errors are two at distance 2 and two at distance 1, "
        "with N = 7, so MAE = 6/7. The other six printed values of the row "
        "match the matrix (MER 4/7, Rs -0.250, tau_b -0.250, r_int 0.077, "
        "OC 0.710/0.746), so the matrix is right and 0.85 looks truncated "
        "rather than rounded.",
    ),
    # Sec. 4.2, third example.
    _cardoso_sousa(
        "Table 4",
        "CM5",
        [[1, 1, 0, 0], [0, 1, 0, 1], [0, 0, 0, 3], [0, 0, 0, 0]],
        "0.86 1.00 0.89 0.84 0.81 0.58 0.75",
        skip=dict.fromkeys(_CARDOSO_SOUSA_COLS, _CM5_REASON),
        note="Recomputed from the printed matrix: MER 0.7143, MAE 0.8571, "
        "Rs 0.8538, tau_b 0.8018, r_int 0.7790, OC(0.25) 0.5330, "
        "OC(0.75) 0.6758. CM5 stays out of the table tests.",
    ),
    _cardoso_sousa(
        "Table 4",
        "CM6",
        [[0, 0, 1, 0], [1, 1, 1, 0], [1, 1, 1, 0], [0, 0, 0, 0]],
        "0.71 1.00 -0.29 -0.26 0.06 0.74 0.79",
    ),
    # Sec. 4.3: oSVM (CM10), oNN (CM11), Frank & Hall (CM12), K = 5 and
    # N = 240. Class 1 is empty. These values are symmetric in the two
    # labels, so the orientation does not change them.
    _cardoso_sousa(
        "Table 5",
        "CM10",
        [[0, 0, 0, 0, 0], [0, 50, 7, 0, 0], [0, 2, 94, 2, 0], [0, 0, 11, 39, 0], [0, 0, 0, 5, 30]],
        "0.11 0.11 0.93 0.91 0.91 0.12 0.13",
    ),
    _cardoso_sousa(
        "Table 5",
        "CM11",
        [[0, 0, 0, 0, 0], [0, 0, 45, 12, 0], [0, 0, 2, 87, 9], [0, 0, 0, 6, 44], [0, 0, 0, 0, 35]],
        "0.82 0.91 0.89 0.85 0.84 0.55 0.66",
    ),
    _cardoso_sousa(
        "Table 5",
        "CM12",
        [[0, 0, 0, 0, 0], [0, 50, 7, 0, 0], [0, 2, 94, 2, 0], [0, 0, 21, 29, 0], [0, 0, 0, 29, 6]],
        "0.25 0.25 0.90 0.86 0.86 0.23 0.26",
    ),
)

# Sec. 3.2: a single example (N = 1). "for beta = 0.5, OC already equals the
# MER". The paper's beta here is the raw weight; ordframe's relative beta is
# raw * N * (K-1)^gamma. The values are exact, stated in words, not a table.
CARDOSO_SOUSA_2011_SINGLE_SAMPLE: tuple[PaperCase, ...] = (
    _case(
        "Cardoso & Sousa (2011), Sec. 3.2",
        "single sample |r-c|=1 (K=2)",
        [[0, 1], [0, 0]],
        {"mer": "1", "oc[beta=0.5]": "1"},
        params={"oc[beta=0.5]": {"beta": 0.5, "gamma": 1.0}},  # raw 0.5
        exact=("mer", "oc[beta=0.5]"),
        note="Text: for raw beta = 0.5 a single-sample OC equals the MER. "
        "OC = min(1, 1 - 1/(1+|r-c|) + beta|r-c|) = 1 at |r-c| = 1.",
    ),
    _case(
        "Cardoso & Sousa (2011), Sec. 3.2",
        "single sample |r-c|=2 (K=3)",
        [[0, 0, 1], [0, 0, 0], [0, 0, 0]],
        {"mer": "1", "oc[beta=1.0]": "1"},
        params={"oc[beta=1.0]": {"beta": 1.0, "gamma": 1.0}},  # raw 0.5
        exact=("mer", "oc[beta=1.0]"),
        note="The same statement at |r-c| = 2: raw beta 0.5, N = 1, K = 3 gives relative beta 0.5 * 1 * 2 = 1.0.",
    ),
)


# --------------------------------------------------------------------------
# Pinto da Costa, Alonso & Cardoso (2008), r_int, and the authors' later note
# correcting its formula. The note's Table 1: v1 = (3, 2, 1, 4) and
# v2 = (1, 2, 3, 4) on o1..o4. The note lists S1 and S2 (6 pairs each) and
# says card(S1 n S2) = 3, so r_int = -1 + 2*3/sqrt(6*6) = 0. Encoded with
# v1 as the true class (rows) and v2 as predicted; r_int is symmetric.
# --------------------------------------------------------------------------

PINTO_DA_COSTA_EXAMPLES: tuple[PaperCase, ...] = (
    _case(
        "Pinto da Costa, Alonso & Cardoso (2008), correction note, Table 1",
        "v1 vs v2",
        [
            [0, 0, 1, 0],  # v1 = 1 (o3): v2 = 3
            [0, 1, 0, 0],  # v1 = 2 (o2): v2 = 2
            [1, 0, 0, 0],  # v1 = 3 (o1): v2 = 1
            [0, 0, 0, 1],
        ],  # v1 = 4 (o4): v2 = 4
        {"rint": "0"},
        exact=("rint",),
        note="r_int is not printed; it is derived exactly from the "
        "printed cardinalities card(S1) = card(S2) = 6 and "
        "card(S1 n S2) = 3. A test can also check those counts.",
    ),
)


# --------------------------------------------------------------------------
# Galdran (2023), RPS. K = 3, RPS normalised by K - 1 (eq. 4).
# --------------------------------------------------------------------------

_RPS_PARAMS = {"rps": {"normalize": True}}
_EQ3_REASON = "misprint: 1/8 and 1/4 are the RPS of [1/2, 1/2, 0] and [1/2, 0, 1/2]"
_EQ3_NOTE = (
    "The quoted values belong to p = [1/2, 1/2, 0] and [1/2, 0, 1/2], not to the "
    "printed vectors with 1/4 and 3/4. Recomputed for the printed vectors: "
    "RPS(p1) = 9/32 = 0.28125 and RPS(p2) = 9/16 = 0.5625."
)
_EQ3_FIT = "Galdran (2023), eq. 3, vectors that fit the values"


def _proba(source, name, proba, true_index, printed, *, skip=None, exact=(), note=""):
    values, precision = {}, {}
    for key, text in printed.items():
        v, p = _parse(text)
        values[key] = v
        precision[key] = None if key in exact else p
    return PaperProbaCase(
        source=source,
        name=name,
        proba=tuple(float(x) for x in proba),
        true_index=true_index,
        values=_ro(values),
        precision=_ro(precision),
        params=_ro({k: _ro(v) for k, v in _RPS_PARAMS.items() if k in values}),
        skip=_ro(skip or {}),
        printed=_ro(printed),
        note=note,
    )


GALDRAN_2023_RPS_EXAMPLES: tuple[PaperProbaCase, ...] = (
    # eq. 3 as printed (y = [1, 0, 0]): the values are skipped (a misprint).
    _proba(
        "Galdran (2023), eq. 3",
        "p1 as printed",
        (0.25, 0.75, 0.0),
        0,
        {"rps": "1/8"},
        skip={"rps": _EQ3_REASON},
        note=_EQ3_NOTE,
    ),
    _proba(
        "Galdran (2023), eq. 3",
        "p2 as printed",
        (0.25, 0.0, 0.75),
        0,
        {"rps": "1/4"},
        skip={"rps": _EQ3_REASON},
        note=_EQ3_NOTE,
    ),
    # The vectors the eq. 3 values belong to. The text does not print these
    # vectors.
    _proba(
        _EQ3_FIT,
        "p = [1/2, 1/2, 0]",
        (0.5, 0.5, 0.0),
        0,
        {"rps": "1/8"},
        note="The vector is ordframe's reading of eq. 3 (the one the value fits); the value is the paper's.",
    ),
    _proba(
        _EQ3_FIT,
        "p = [1/2, 0, 1/2]",
        (0.5, 0.0, 0.5),
        0,
        {"rps": "1/4"},
        note="The vector is ordframe's reading of eq. 3 (the one the value fits); the value is the paper's.",
    ),
    # eq. 5, y1 = [1, 0, 0]: the penalty grows linearly with distance.
    _proba("Galdran (2023), eq. 5", "[1,0,0] vs class 1", (1.0, 0.0, 0.0), 0, {"rps": "0"}, exact=("rps",)),
    _proba("Galdran (2023), eq. 5", "[0,1,0] vs class 1", (0.0, 1.0, 0.0), 0, {"rps": "1/2"}),
    _proba("Galdran (2023), eq. 5", "[0,0,1] vs class 1", (0.0, 0.0, 1.0), 0, {"rps": "1"}, exact=("rps",)),
    # eq. 6, y2 = [0, 1, 0]. The text's p_asym = [1/10, 5/10, 9/10] does not
    # sum to 1 and is not eq. 6's vector (a misprint); eq. 6 is used here.
    _proba("Galdran (2023), eq. 6", "p_sym", (0.30, 0.40, 0.30), 1, {"rps": "0.09"}),
    _proba("Galdran (2023), eq. 6", "p_asym", (0.45, 0.50, 0.05), 1, {"rps": "0.1025"}),
)


# --------------------------------------------------------------------------
# George, Lu & Chang (2016). The paper's confusion matrices are
# rows = PREDICTED and columns = TRUE (Sec. 2.2.1), so each one is written
# below as printed and passed through _transpose(): the stored matrices are
# rows = true and columns = predicted.
# --------------------------------------------------------------------------

_GLMNETCR_REASON = "misprint: the printed matrix gives d = 0.70 (Acc 0.322, MC 0.183), not 1.07"

_GEORGE_T2_COLS = ("d", "accuracy", "amae", "kendall_tau_b")


def _george_t2(name, printed_rows_pred, cells, **kw):
    return _case(
        "George, Lu & Chang (2016), Table 2", name, _transpose(printed_rows_pred), _row(_GEORGE_T2_COLS, cells), **kw
    )


GEORGE_2016_TABLES: tuple[PaperCase, ...] = (
    # Table 1(a) colon cancer (true sizes 24, 57, 57, 39) with Table 2 values.
    _george_t2("svm", [[21, 0, 0, 0], [1, 54, 2, 2], [2, 3, 55, 2], [0, 0, 0, 35]], "0.07 0.93 0.11 0.91"),
    _george_t2(
        "glmnetcr",
        [[0, 0, 0, 0], [0, 0, 0, 0], [24, 57, 57, 39], [0, 0, 0, 0]],
        "1.07 0.32 1.00 NA",
        skip={"d": _GLMNETCR_REASON},
        note="Every sample is predicted as class 3, so tau_b is undefined: the paper prints NA, ordframe gives NaN. "
        "The printed matrix gives d = 0.7022 (Acc 0.3220, MC 0.1830); d = 1.07 would need MC = 0.83. The other "
        "nine d values of Table 2 are reproduced.",
    ),
    _george_t2("rpartScore", [[15, 2, 1, 0], [8, 46, 6, 0], [1, 8, 47, 14], [0, 1, 3, 25]], "0.26 0.75 0.29 0.79"),
    # Table 1(b) lung cancer (true sizes 31, 12, 13).
    _george_t2("Sig24", [[26, 3, 0], [4, 5, 3], [1, 4, 10]], "0.33 0.73 0.34 0.72"),
    _george_t2("Shuffle24", [[16, 0, 0], [4, 12, 0], [11, 0, 13]], "0.36 0.73 0.28 0.49"),
    _george_t2("Rand24", [[18, 10, 6], [8, 0, 1], [5, 2, 6]], "0.68 0.43 0.86 0.08"),
    # Table 1(c) ovarian cancer (true sizes 16, 30, 32, 417, 84).
    _george_t2(
        "p_1E-8",
        [[7, 8, 5, 53, 2], [4, 2, 3, 44, 5], [0, 1, 1, 7, 2], [5, 19, 21, 242, 58], [0, 0, 2, 71, 17]],
        "0.55 0.46 1.15 0.19",
    ),
    _george_t2(
        "p_1E-7",
        [[10, 5, 10, 83, 3], [0, 6, 3, 18, 7], [4, 6, 9, 52, 17], [2, 11, 8, 143, 29], [0, 2, 2, 121, 28]],
        "0.70 0.34 1.1 0.19",
    ),  # AMAE printed to one decimal
    _george_t2(
        "p_1E-6",
        [[10, 5, 9, 71, 3], [3, 10, 7, 28, 2], [2, 6, 8, 71, 21], [1, 7, 6, 105, 20], [0, 2, 2, 142, 38]],
        "0.73 0.30 0.97 0.25",
    ),
    _george_t2(
        "p_1E-5",
        [[8, 6, 5, 54, 1], [4, 12, 5, 26, 1], [4, 5, 16, 105, 24], [0, 5, 3, 86, 17], [0, 2, 3, 146, 41]],
        "0.74 0.28 0.87 0.28",
    ),
)

# Table 4: simulated matrices. The text says only "a 4 class study with a
# total sample size of 800 and largest class percentage of 0.75" (so the
# design sizes are about 600/67/67/67). Table 4 agrees only to about 0.006,
# probably because the design class sizes differ slightly from the column
# sums. Every value here therefore carries tolerance 0.006 instead of the
# half-unit rule. d is the value furthest off (recomputed 0.4270, 0.4461,
# 0.3273, 0.3254 vs printed 0.428, 0.449, 0.329, 0.331). Accuracy is the
# heading's "Acc = 0.60" etc.; MC is printed as a percentage ("MC = 15%").
# chance_distance is given in the text for (b) only ("These distances are 0.12
# and 0.04").
_T4_TOL = 0.006
_T4_NOTE = "Simulation design: 4 classes, N = 800, largest class 75% (text). Table 4 agrees to about 0.006."


def _george_t4(part, name, printed_rows_pred, printed, note=_T4_NOTE):
    return _case(
        f"George, Lu & Chang (2016), Table 4({part})",
        name,
        _transpose(printed_rows_pred),
        printed,
        tolerance=dict.fromkeys(printed, _T4_TOL),
        note=note,
    )


GEORGE_2016_TABLES = GEORGE_2016_TABLES + (
    _george_t4(
        "a",
        "Acc_0.60",
        [[444, 37, 27, 57], [144, 25, 18, 0], [2, 2, 8, 7], [10, 2, 14, 3]],
        {"accuracy": "0.60", "d": "0.428", "amae": "1.222", "kendall_tau_b": "0.138", "mc": "15%"},
    ),
    _george_t4(
        "a",
        "Acc_0.70",
        [[553, 8, 18, 2], [18, 1, 43, 53], [15, 37, 4, 11], [14, 20, 2, 2]],
        {"accuracy": "0.70", "d": "0.449", "amae": "1.113", "kendall_tau_b": "0.637", "mc": "33%"},
        note=_T4_NOTE + " As printed, this matrix sums to 801, not "
        "800 (true-class sizes 600/66/67/68), so the accuracy is "
        "560/801 = 0.6991. Its AMAE is 1.1139 against the printed "
        "1.113, off by 0.0009, more than half a unit but within "
        "0.006. If the (pred 2, true 4) entry were 52 instead of "
        "53, AMAE would be 1.1132 and tau_b 0.6366, both matching "
        "to 3 decimals; d would still differ (0.4429). This is "
        "not applied.",
    ),
    _george_t4(
        "b",
        "Acc_0.70",
        [[539, 53, 33, 52], [19, 3, 24, 0], [42, 2, 3, 0], [0, 8, 7, 15]],
        {
            "accuracy": "0.70",
            "d": "0.329",
            "amae": "1.256",
            "kendall_tau_b": "0.242",
            "mc": "13%",
            "chance_distance": "0.12",
        },
    ),
    _george_t4(
        "b",
        "Acc_0.80",
        [[589, 4, 3, 1], [0, 4, 25, 17], [4, 14, 6, 8], [7, 44, 33, 41]],
        {
            "accuracy": "0.80",
            "d": "0.331",
            "amae": "0.820",
            "kendall_tau_b": "0.843",
            "mc": "26%",
            "chance_distance": "0.04",
        },
    ),
)

# Sec. 2.2: the cost matrix for 3 classes of sizes 10, 20 and 70. The paper
# (rows = predicted i, columns = true j) prints
#   C = [[0, 8, 3], [4.5, 0, 1.5], [90/70, 80/70, 0]] * |i - j|
#     ~ [[0, 8, 6], [4.5, 0, 1.5], [2.6, 1.1, 0]].
# Stored transposed: rows = true, columns = predicted.
GEORGE_2016_COST_EXAMPLE = PaperCostExample(
    source="George, Lu & Chang (2016), Sec. 2.2",
    name="class sizes 10/20/70",
    class_sizes=(10, 20, 70),
    cost=((0.0, 4.5, 180 / 70), (8.0, 0.0, 80 / 70), (6.0, 1.5, 0.0)),
    cost_printed=((0.0, 4.5, 2.6), (8.0, 0.0, 1.1), (6.0, 1.5, 0.0)),
    precision=1,
    note="c_ij = (N - n_j) / n_i * |i - j| for predicted i and true j "
    "(eq. 4). The paper's 'entry c_{1,2}' (predict 1, true 2) = 8 is "
    "cost[1][0] here.",
)


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

    def value(self, accuracy: float, largest: float | None, metric: str) -> float:
        return float(self.printed[accuracy, largest][metric])


_T3_LARGEST = (None, 0.50, 0.75)
_T3_METRICS = ("d", "amae", "kendall_tau_b")


def _table3(simulation, k, n, fixed, rows):
    """``rows``: per metric, the six printed cells (Acc 0.6: Bal, 0.50, 0.75; then Acc 0.8: the same)."""
    cells = {metric: rows[metric].split() for metric in _T3_METRICS}
    printed = {
        (accuracy, largest): MappingProxyType({m: cells[m][3 * a + j] for m in _T3_METRICS})
        for a, accuracy in enumerate((0.6, 0.8))
        for j, largest in enumerate(_T3_LARGEST)
    }
    return Table3Design(simulation, k, n, fixed, MappingProxyType(printed))


# Table 3 (Sec. 3.2): 10,000 pairs per cell. Simulations 1-2: K = 4, N = 400; 3: N = 800; 4: K = 5, N = 1000.
# Simulation 1 fixes the class-wise accuracy (Acc_i = Acc), 2-4 the overall accuracy. The text calls the
# balanced design "0.25" for K = 5 too; its classes are equal (200 each), which is what "Bal" means.
GEORGE_2016_TABLE3: tuple[Table3Design, ...] = (
    _table3(1, 4, 400, "classwise", {
        "d": "1.000 1.000 1.000 1.000 1.000 1.000",
        "amae": "1.000 0.616 0.591 1.000 0.609 0.571",
        "kendall_tau_b": "0.960 0.708 0.673 0.980 0.726 0.726",
    }),
    _table3(2, 4, 400, "overall", {
        "d": "1.000 1.000 1.000 1.000 1.000 1.000",
        "amae": "1.000 0.571 0.646 1.000 0.592 0.666",
        "kendall_tau_b": "0.905 0.671 0.606 0.956 0.703 0.443",
    }),
    _table3(3, 4, 800, "overall", {
        "d": "1.000 1.000 1.000 1.000 1.000 1.000",
        "amae": "1.000 0.570 0.651 1.000 0.572 0.661",
        "kendall_tau_b": "0.908 0.683 0.606 0.961 0.724 0.443",
    }),
    _table3(4, 5, 1000, "overall", {
        "d": "1.000 1.000 1.000 1.000 1.000 1.000",
        "amae": "1.000 0.601 0.686 0.996 0.599 0.717",
        "kendall_tau_b": "0.909 0.667 0.662 0.953 0.708 0.516",
    }),
)  # fmt: skip


# --------------------------------------------------------------------------
# Silva, Pinto & Cardoso (2018), UOC. Table I, classifiers A-F (K = 4).
# Rows = true (N_r = row sums). OC uses Cardoso & Sousa's relative beta; UOC uses
# beta directly, with gamma = 1. The AMAE column counts unobserved classes as
# zero error (classifier E has no class-3 samples).
# --------------------------------------------------------------------------

_SILVA_COLS = (
    "mer",
    "mse",
    "mae",
    "mmae",
    "amae[missing=zero]",
    "spearman",
    "kendall_tau_b",
    "rint",
    "oc[beta=0.25]",
    "oc[beta=0.75]",
    "uoc[beta=0.25]",
    "uoc[beta=0.75]",
    "auoc",
)
_SILVA_PARAMS = {
    "amae[missing=zero]": {"missing": "zero"},
    "oc[beta=0.25]": {"beta": 0.25, "gamma": 1.0},
    "oc[beta=0.75]": {"beta": 0.75, "gamma": 1.0},
    "uoc[beta=0.25]": {"beta": 0.25, "gamma": 1.0},
    "uoc[beta=0.75]": {"beta": 0.75, "gamma": 1.0},
}


def _silva(name, matrix, cells, note=""):
    return _case(
        "Silva, Pinto & Cardoso (2018), Table I",
        name,
        matrix,
        _row(_SILVA_COLS, cells),
        params=_SILVA_PARAMS,
        note=note,
    )


SILVA_2018_TABLES: tuple[PaperCase, ...] = (
    _silva(
        "A",
        [[4, 0, 0, 0], [0, 6, 0, 0], [0, 0, 5, 0], [0, 0, 0, 3]],
        "0.00 0.00 0.00 0.00 0.00 1.00 1.00 1.00 0.00 0.00 0.00 0.00 0.00",
    ),
    _silva(
        "B",
        [[0, 4, 0, 0], [0, 0, 6, 0], [0, 0, 5, 0], [0, 0, 0, 3]],
        "0.56 0.56 0.56 1.00 0.50 0.90 0.86 0.86 0.40 0.50 0.46 0.67 0.56",
    ),
    _silva(
        "C",
        [[0, 0, 4, 0], [0, 0, 6, 0], [0, 0, 5, 0], [0, 0, 0, 3]],
        "0.56 1.22 0.78 2.00 0.75 0.67 0.61 0.69 0.50 0.63 0.62 0.71 0.65",
    ),
    _silva(
        "D",
        [[0, 4, 0, 0], [6, 0, 0, 0], [0, 0, 5, 0], [0, 0, 0, 3]],
        "0.56 0.56 0.56 1.00 0.50 0.73 0.60 0.74 0.53 0.58 0.56 0.67 0.61",
    ),
    _silva(
        "E",
        [[0, 4, 0, 0], [6, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3]],
        "0.77 0.77 0.77 1.00 0.50 0.24 0.11 0.53 0.65 0.72 0.68 0.80 0.74",
        note="Class 3 is unobserved. AMAE 0.50 counts it as zero error; "
        "the default (skip) gives 2/3. UOC ignores the row (K' = 3). "
        "This is the same matrix as Cardoso & Sousa (2011) Table 1 D.",
    ),
    _silva(
        "F",
        [[0, 40, 0, 0], [6, 0, 0, 0], [0, 0, 5, 0], [0, 0, 0, 3]],
        "0.85 0.85 0.85 1.00 0.50 0.29 0.23 0.79 0.58 0.71 0.56 0.67 0.61",
    ),
)


# --------------------------------------------------------------------------
# aggregates
# --------------------------------------------------------------------------

CONFUSION_CASES: tuple[PaperCase, ...] = (
    CARDOSO_SOUSA_2011_TABLES
    + CARDOSO_SOUSA_2011_SINGLE_SAMPLE
    + PINTO_DA_COSTA_EXAMPLES
    + GEORGE_2016_TABLES
    + SILVA_2018_TABLES
)
PROBA_CASES: tuple[PaperProbaCase, ...] = GALDRAN_2023_RPS_EXAMPLES


def iter_checks(cases=CONFUSION_CASES) -> Iterator[tuple]:
    """Yield ``(case, key)`` for every value that is not skipped.

    Suited to ``pytest.mark.parametrize("case, key", list(iter_checks()),
    ids=...)``.
    """
    for case in cases:
        for key in case.checked_keys():
            yield case, key
