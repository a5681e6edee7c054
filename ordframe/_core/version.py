"""The installed ordframe's version, read once from the package's metadata (its one source is ``pyproject.toml``).

Every labelled result records it in its ``ordframe_version`` attr, so a file written from it says which release
computed its numbers.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import version

VERSION_ATTR = "ordframe_version"


@cache
def ordframe_version() -> str:
    """The version of the installed ordframe, e.g. ``"0.1.0"``."""
    return version("ordframe")
