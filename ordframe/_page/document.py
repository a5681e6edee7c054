"""One self-contained HTML page: its style inline, its figures embedded as SVG images, nothing loaded from elsewhere.

The page opens from disk (``file://``) and reads at a desktop's width as on a phone's: the text column is at
most 70 characters wide, a table wider than the screen scrolls sideways inside its own box, and a figure
shrinks to the screen's width.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass

from ordframe.plot._figures import pyplot

STYLE = """
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --tint: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.5;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.7rem; margin: 0 0 0.5rem; }
h2 { font-size: 1.3rem; margin: 2.5rem 0 0.75rem; padding-bottom: 0.25rem; border-bottom: 1px solid var(--line); }
p, li { max-width: 70ch; }
.summary { color: var(--muted); }
nav ol { display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; padding: 0; margin: 1rem 0; list-style: none; }
a { color: #0969da; }
.scroll { overflow-x: auto; width: fit-content; max-width: 100%; border: 1px solid var(--line); border-radius: 6px; }
.scroll:focus { outline: 2px solid #0969da; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 0.95rem; }
caption { caption-side: bottom; text-align: left; padding: 0.5rem 0.75rem; color: var(--muted);
  font-size: 0.85rem; max-width: 70ch; }
th, td { padding: 0.4rem 0.75rem; border-bottom: 1px solid var(--line); white-space: nowrap; text-align: right; }
th[scope="row"], th[scope="rowgroup"], thead th:first-child, .label { text-align: left; }
th[scope="rowgroup"] { vertical-align: top; border-right: 1px solid var(--line); }
th[scope="row"] { position: sticky; left: 0; background: #fff; }
thead th { background: var(--tint); }
tbody tr:last-child > * { border-bottom: none; }
figure { margin: 1rem 0; }
.gallery { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: flex-start; }
.gallery figure { margin: 0.5rem 0; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 0.85rem; max-width: 70ch; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
footer { margin-top: 3rem; color: var(--muted); font-size: 0.85rem; }
@media (max-width: 600px) {
  main { padding: 1rem 0.75rem 2rem; }
  h1 { font-size: 1.4rem; }
  th, td { padding: 0.35rem 0.5rem; }
}
"""


@dataclass(frozen=True)
class Section:
    """A part of the page: its anchor, its heading and its HTML."""

    anchor: str
    heading: str
    body: str


def figure_html(fig, alt: str, caption: str = "") -> str:
    """``fig`` as an SVG image embedded in the page (its alt text ``alt``), and closed."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Description": alt, "Date": None})
    pyplot().close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    below = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f'<figure><img src="data:image/svg+xml;base64,{data}" alt="{html.escape(alt)}">{below}</figure>\n'


def scrolling(table: str, label: str) -> str:
    """A table in a box that scrolls sideways when the screen is narrower than the table (and takes the focus,
    so that a keyboard scrolls it too)."""
    return f'<div class="scroll" role="region" tabindex="0" aria-label="{html.escape(label)}">\n{table}</div>\n'


def gallery(figures: Sequence[str]) -> str:
    """Figures side by side while the screen has room, one under the other on a phone's."""
    return '<div class="gallery">\n' + "".join(figures) + "</div>\n"


def page(title: str, summary: str, sections: Sequence[Section], footer: str) -> str:
    """The whole page: ``title`` and ``summary`` (HTML) above a list of links to the ``sections``."""
    links = "".join(f'<li><a href="#{s.anchor}">{html.escape(s.heading)}</a></li>' for s in sections)
    parts = "".join(
        f'<section id="{s.anchor}">\n<h2>{html.escape(s.heading)}</h2>\n{s.body}</section>\n' for s in sections
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        f'<h1>{html.escape(title)}</h1>\n<div class="summary">{summary}</div>\n'
        f'<nav aria-label="sections"><ol>{links}</ol></nav>\n{parts}<footer>{footer}</footer>\n'
        "</main>\n</body>\n</html>\n"
    )
