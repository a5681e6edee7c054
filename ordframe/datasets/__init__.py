"""Five small real ordinal datasets that ship with ordframe, to try the metrics on real labels.

``load(name)`` returns a dataset as a ``pandas.DataFrame`` whose target column
is an **ordered** ``pandas.Categorical`` in the class order (so ordframe needs
no ``labels=``), with the features exactly as they are in the file; ``list()``
gives a table of the datasets, their targets, class orders, sources, citations
and licences. The CSV files are copies of public data (see ``list()``); every
file's sha256 is recorded in ``DATASETS``.

Examples
--------
>>> import ordframe.datasets
>>> ordframe.datasets.list().index.tolist()
['winequality_red', 'esl', 'lev', 'swd', 'balance_scale']
>>> df = ordframe.datasets.load("lev")
>>> df.shape
(1000, 5)
>>> df["Out1"].dtype
CategoricalDtype(categories=[0, 1, 2, 3, 4], ordered=True, categories_dtype=int64)
>>> df.assign(pred=2).ordinal.mae("Out1", "pred")  # always predict the middle class
0.717
"""

from __future__ import annotations

import builtins
import difflib
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType

import pandas as pd

__all__ = ["DATASETS", "Dataset", "load"]  # and list(), left out so that ``import *`` does not shadow the built-in


@dataclass(frozen=True)
class Dataset:
    """The metadata of one bundled dataset: its file, shape, target, class order and provenance.

    Attributes
    ----------
    name : str
        The name ``load`` takes.
    title : str
        The dataset's usual name.
    file : str
        The CSV file inside ``ordframe/datasets``.
    rows : int
        The number of data rows.
    features : tuple of str
        The feature columns, in file order; the target is the last column.
    target : str
        The target column.
    class_order : tuple
        The classes of the target from lowest to highest.
    description : str
        What the rows, features and target are.
    source : str
        Where the data come from.
    conversion : str
        What was changed from the source file (only the format, never a value).
    citation : str
        The reference to cite.
    licence : str
        The licence under which the source distributes the data.
    sha256 : str
        The SHA-256 digest of the shipped file.
    """

    name: str
    title: str
    file: str
    rows: int
    features: tuple[str, ...]
    target: str
    class_order: tuple[int, ...] | tuple[str, ...]
    description: str
    source: str
    conversion: str
    citation: str
    licence: str
    sha256: str


_BEN_DAVID = "A. Ben-David's ordinal datasets, distributed with Weka (collection `datasets-arie_ben_david`, file `{}`)"
_ARFF_ROWS = (
    "Data rows are exactly those of the ARFF `@data` section, in the same order; "
    "column names are the ARFF attribute names."
)
_NO_LICENCE = "No explicit license is stated in the original distribution."

_ALL = (
    Dataset(
        name="winequality_red",
        title="Wine Quality (red)",
        file="winequality_red.csv",
        rows=1599,
        features=(
            "fixed acidity",
            "volatile acidity",
            "citric acid",
            "residual sugar",
            "chlorides",
            "free sulfur dioxide",
            "total sulfur dioxide",
            "density",
            "pH",
            "sulphates",
            "alcohol",
        ),
        target="quality",
        class_order=(3, 4, 5, 6, 7, 8),
        description=(
            'Red variants of Portuguese "Vinho Verde" wine: eleven physicochemical measurements (numeric) '
            "and `quality`, an integer sensory score (median of at least three expert ratings). "
            "The classes are the six scores that occur, 3 to 8."
        ),
        source=(
            'UCI Machine Learning Repository, "Wine Quality" data set, file `winequality-red.csv` '
            '(red variant of Portuguese "Vinho Verde" wine).'
        ),
        conversion=(
            "The original file is semicolon-separated with a quoted header line. Here the separator is a comma "
            "and the quotes around the header names are removed; nothing else was changed. The original "
            "semicolon-separated file used (84,199 bytes, 1599 data rows) has sha256 "
            "`4a402cf041b025d4566d954c3b9ba8635a3a8a01e039005d97d6a710278cf05e`."
        ),
        citation=(
            'P. Cortez, A. Cerdeira, F. Almeida, T. Matos, J. Reis, "Modeling wine preferences by data mining '
            'from physicochemical properties", *Decision Support Systems* 47(4):547–553, 2009.'
        ),
        licence="CC BY 4.0 (UCI Machine Learning Repository).",
        sha256="d22f4f11db0456ff21745d2fa96d26fa348a8cdb889efda65bde802085be45fd",
    ),
    Dataset(
        name="esl",
        title="ESL (Employee Selection)",
        file="esl.csv",
        rows=488,
        features=("in1", "in2", "in3", "in4"),
        target="out1",
        class_order=(1, 2, 3, 4, 5, 6, 7, 8, 9),
        description=(
            "Profiles of applicants for certain industrial jobs. Expert psychologists of a recruiting company "
            "determined the input values (`in1` to `in4`, integer-coded ordinal ratings) from psychometric test "
            "results and interviews; the output `out1` is an overall score of the candidate's fitness for the "
            "job. All inputs and the output are ordinal; no missing values."
        ),
        source=(
            _BEN_DAVID.format("ESL.arff") + ". Donor: Arie Ben-David (Holon Academic Institute of Technology, "
            "Israel); owner: Yoav Ganzah (Tel Aviv University)."
        ),
        conversion=_ARFF_ROWS,
        citation=(
            "No paper is named by the source; credit the donor, Arie Ben-David, and the owner, Yoav Ganzah, "
            "and name the collection (A. Ben-David's ordinal datasets, distributed with Weka)."
        ),
        licence=_NO_LICENCE,
        sha256="286965503017fb9e37106135ed3b5dd6283b1de144da08d709e13500c37092fa",
    ),
    Dataset(
        name="lev",
        title="LEV (Lecturer Evaluation)",
        file="lev.csv",
        rows=1000,
        features=("In1", "In2", "In3", "In4"),
        target="Out1",
        class_order=(0, 1, 2, 3, 4),
        description=(
            "Anonymous lecturer evaluations taken at the end of MBA courses. Before receiving their final "
            "grades, students scored their lecturers on four attributes (`In1` to `In4`, values 0 to 4; such as "
            "oral skills and contribution to professional/general knowledge); the output `Out1` is the overall "
            "evaluation of the lecturer's performance. All values are ordinal; no missing values."
        ),
        source=_BEN_DAVID.format("LEV.arff") + ". Donor: Arie Ben-David; owner: Yoav Ganzah.",
        conversion=_ARFF_ROWS,
        citation=(
            "No paper is named by the source; credit the donor, Arie Ben-David, and the owner, Yoav Ganzah, "
            "and name the collection (A. Ben-David's ordinal datasets, distributed with Weka)."
        ),
        licence=_NO_LICENCE,
        sha256="f1acebf35120e47ac5b915eec3a3edd505ec3b99131913ac65935b459e12094f",
    ),
    Dataset(
        name="swd",
        title="SWD (Social Workers Decisions)",
        file="swd.csv",
        rows=1000,
        features=tuple(f"In{i}" for i in range(1, 11)),
        target="Out1",
        class_order=(2, 3, 4, 5),
        description=(
            "Decisions of social workers: ten integer-coded ordinal attributes (`In1` to `In10`) and the "
            "ordinal decision `Out1`."
        ),
        source=_BEN_DAVID.format("SWD.arff") + ".",
        conversion=(
            "Data rows are those of the original file, in the same order; "
            "column names are the original attribute names."
        ),
        citation=(
            "No paper is named by the source; name the collection "
            "(A. Ben-David's ordinal datasets, distributed with Weka)."
        ),
        licence=_NO_LICENCE,
        sha256="1d2723a66b14959e3ac78f99c3c7e41ab039a52ab1169f493d2766412fc3a7f2",
    ),
    Dataset(
        name="balance_scale",
        title="Balance Scale",
        file="balance_scale.csv",
        rows=625,
        features=("left-weight", "left-distance", "right-weight", "right-distance"),
        target="class",
        class_order=("L", "B", "R"),
        description=(
            "A weight on each arm of a balance scale (`left-weight`, `left-distance`, `right-weight`, "
            "`right-distance`, each 1 to 5; every one of the 625 combinations once). The target `class` says "
            "whether the scale tips to the left (`L`), is balanced (`B`) or tips to the right (`R`); in ordinal "
            "use the natural order is L < B < R: left-heavy, balanced, right-heavy, the order of the right "
            "moment (weight times distance) minus the left one, which determines the class."
        ),
        source=(
            'UCI Machine Learning Repository, "Balance Scale" data set (`balance-scale.data`). Generated to '
            "model psychological experiments reported by R. S. Siegler (1976). Donor: Tim Hume (1994)."
        ),
        conversion=(
            "The UCI file has no header and the class label in the first column. Here the class is moved to the "
            "last column and the header uses the attribute names of the Weka ARFF version of the same data "
            "(`balance-scale.arff`); row order and values are unchanged."
        ),
        citation=(
            'R. S. Siegler (1976), "Three Aspects of Cognitive Development", *Cognitive Psychology* 8:481–520 '
            "(the experiments the data model); donor of the data set: Tim Hume (1994)."
        ),
        licence="Not recorded with this copy: check the terms of the UCI Machine Learning Repository.",
        sha256="ef70fa31a682a11bad412c262dd2d8b3ea3a53f0f127b8b1ce87a0ad8fb9450b",
    ),
)

DATASETS = MappingProxyType({d.name: d for d in _ALL})
"""The metadata of every bundled dataset (a read-only mapping from name to ``Dataset``), in ``list()`` order."""


def _dataset(name: str) -> Dataset:
    """The metadata of ``name``, matched case-insensitively (``-`` and spaces read as ``_``)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str such as 'esl', got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key in DATASETS:
        return DATASETS[key]
    close = [n for n in DATASETS if key and (key in n or n in key)]
    close += [n for n in difflib.get_close_matches(key, DATASETS, n=3) if n not in close]
    hint = f"; did you mean {', '.join(map(repr, close[:3]))}?" if close else ""
    raise ValueError(f"no dataset named {name!r} (the datasets are {', '.join(DATASETS)}){hint}")


def load(name: str) -> pd.DataFrame:
    """One bundled dataset, its target an ordered ``pandas.Categorical`` in the class order.

    Parameters
    ----------
    name : str
        One of the names of ``list()`` (``"winequality_red"``, ``"esl"``,
        ``"lev"``, ``"swd"``, ``"balance_scale"``), in any case.

    Returns
    -------
    pandas.DataFrame
        Every row and column of the file, in file order: the features as read
        by ``pandas.read_csv`` and, last, the target as an ordered categorical
        whose categories are the classes from lowest to highest (numbers in
        numeric order; balance scale's ``L < B < R``). A new frame each call.

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        If there is no dataset of that name (the message lists the names and
        suggests close ones).

    Examples
    --------
    >>> import ordframe.datasets
    >>> ordframe.datasets.load("lev")["Out1"].cat.categories.tolist()
    [0, 1, 2, 3, 4]
    >>> wine = ordframe.datasets.load("WineQuality_Red")
    >>> wine.shape
    (1599, 12)
    >>> round(wine.assign(pred=5).ordinal.accuracy("quality", "pred"), 3)  # always the most frequent score
    0.426
    >>> ordframe.datasets.load("balance_scale")["class"].cat.categories.tolist()
    ['L', 'B', 'R']
    >>> ordframe.datasets.load("wine")
    Traceback (most recent call last):
    ...
    ValueError: no dataset named 'wine' (the datasets are winequality_red, esl, ...); did you mean 'winequality_red'?
    """
    info = _dataset(name)
    with resources.files(__name__).joinpath(info.file).open("rb") as f:
        frame = pd.read_csv(f)
    expected = [*info.features, info.target]
    if frame.columns.tolist() != expected or len(frame) != info.rows:
        raise RuntimeError(
            f"the file {info.file} of ordframe is damaged: expected {info.rows} rows and columns {expected}, "
            f"found {len(frame)} rows and columns {frame.columns.tolist()}; reinstall ordframe"
        )
    target = pd.Categorical(frame[info.target], categories=info.class_order, ordered=True)
    if target.isna().any():
        unknown = frame.loc[target.isna(), info.target].unique().tolist()
        raise RuntimeError(f"the file {info.file} of ordframe has classes {unknown} outside {info.class_order}")
    frame[info.target] = target
    return frame


def list() -> pd.DataFrame:
    """A table of the bundled datasets, one row per dataset.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``name`` (what ``load`` takes), with columns ``title``,
        ``rows``, ``classes`` (the number of classes), ``target`` (the target
        column), ``class_order`` (the classes from lowest to highest, a list),
        ``source``, ``citation`` and ``licence``. The full metadata (features,
        conversion from the source, sha256) is in ``DATASETS``.

    Examples
    --------
    >>> import ordframe.datasets
    >>> table = ordframe.datasets.list()
    >>> table.loc["esl", "rows"]
    np.int64(488)
    >>> table[["rows", "classes", "target", "class_order"]]
                     rows  classes   target                  class_order
    name
    winequality_red  1599        6  quality           [3, 4, 5, 6, 7, 8]
    esl               488        9     out1  [1, 2, 3, 4, 5, 6, 7, 8, 9]
    lev              1000        5     Out1              [0, 1, 2, 3, 4]
    swd              1000        4     Out1                 [2, 3, 4, 5]
    balance_scale     625        3    class                    [L, B, R]
    """
    columns = ["title", "rows", "classes", "target", "class_order", "source", "citation", "licence"]
    records = [
        {
            "name": d.name,
            "title": d.title,
            "rows": d.rows,
            "classes": len(d.class_order),
            "target": d.target,
            "class_order": builtins.list(d.class_order),
            "source": d.source,
            "citation": d.citation,
            "licence": d.licence,
        }
        for d in DATASETS.values()
    ]
    return pd.DataFrame.from_records(records, index="name", columns=["name", *columns])
