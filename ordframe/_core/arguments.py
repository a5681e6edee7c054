"""Messages about an argument of a call, which carry it: whoever reports one words the argument its own way.

A library message names arguments as Python spells them (``labels=[...]``);
the command line names the same thing by its option (``--labels``). So an
error or warning about an argument (``about``) is a plain ``ValueError``,
``TypeError`` or warning in Python's words that also carries its argument
and keeps its template: ``worded(error, wording)`` says it in other words.
This module imports nothing heavy: the command line reads it before pandas
is imported.
"""

from __future__ import annotations

from typing import Any, TypeVar


class Rows(str):
    """The rows a message points at, ``[3, 5, ...]`` (the labels of a frame's index): a wording may say how it counts."""


class Wording:
    """How a message spells what it names: Python's words, ``labels=``; the command line has its own.

    ``advice`` holds the advice a template names by a field that only some front ends can follow (a
    Categorical dtype, a dict of columns): another wording gives its own text, or none.
    """

    advice = {
        "or_categorical": ", or make the columns pandas ordered Categoricals (polars: an Enum)",
        "or_dict": " (or a dict label -> column)",
    }

    def keyword(self, name: str, shown: str | None, value: Any) -> str:
        """``name`` alone (``shown`` None), ``name=`` + ``shown`` (``labels=[...]``), or ``=``: ``name=<value!r>``."""
        if shown is None:
            return name
        return f"{name}={value!r}" if shown == "=" else f"{name}={shown}"

    def rows(self, rows: Rows) -> str:
        return rows


M = TypeVar("M", bound=BaseException)


def about(kind: type[M], template: str, argument: str, value: Any = None, **data: Any) -> M:
    """A ``kind`` (``ValueError``, ``TypeError``, a warning class) about one argument of a call, in Python's words.

    It carries ``argument`` (the Python keyword) and ``value`` (the value given, where it matters), and keeps
    ``template`` and ``data`` for ``worded``. In ``template`` (``str.format``) every field that is no key of
    ``data`` names an argument by its keyword: ``{labels}`` is ``labels=``, ``{labels:[...]}`` ``labels=[...]``,
    ``{dropna:True}`` ``dropna=True``, ``{cluster:=}`` the argument with ``value`` (``cluster='site'``) and
    ``{n_resamples!s}`` the bare name; the command line says ``--labels``, ``--dropna`` or ``--cluster site``.
    A field named in ``Wording.advice`` is advice that the wording words, or leaves out.
    """
    message = kind(_format(template, data, value, Wording()))
    vars(message).update(argument=argument, value=value, _template=(template, data))  # pickled with the message
    return message


def worded(message: BaseException, wording: Wording) -> str | None:
    """``message`` in ``wording``'s words, if it is ``about`` an argument (else None)."""
    if "_template" not in vars(message):
        return None
    template, data = vars(message)["_template"]
    return _format(template, data, vars(message)["value"], wording)


def _format(template: str, data: dict, value: Any, wording: Wording) -> str:
    fields = {name: wording.rows(v) if isinstance(v, Rows) else v for name, v in data.items()}
    return template.format_map(_Fields(fields, wording, value))


class _Fields(dict):
    """A template's data, and for any other field the argument it names, spelled by the wording."""

    def __init__(self, data: dict, wording: Wording, value: Any):
        super().__init__(data)
        self.wording, self.value = wording, value

    def __missing__(self, name: str) -> _Keyword | str:
        if name in self.wording.advice:
            return self.wording.advice[name]
        return _Keyword(name, self.wording, self.value)


class _Keyword:
    """An argument named in a template: ``{name}``, ``{name:shown}`` or ``{name!s}``."""

    def __init__(self, name: str, wording: Wording, value: Any):
        self.name, self.wording, self.value = name, wording, value

    def __format__(self, shown: str) -> str:
        return self.wording.keyword(self.name, shown, self.value)

    def __str__(self) -> str:
        return self.wording.keyword(self.name, None, self.value)
