"""mkdocs hook: the figures drawn when the site is built carry their alt text, and a figure without one fails the build.

The pages draw matplotlib figures into the page as inline SVG (markdown-exec).
Their alt text is given where the figure is saved, as the SVG's description:
``fig.savefig(buffer, format="svg", metadata={"Description": "..."})``. This
hook makes such an SVG an image with that text as its label
(``role="img" aria-label="..."``), which screen readers read out; an SVG that
already has an ``aria-label`` keeps it. Any other SVG is logged as a warning
(an error under ``mkdocs build --strict``), and so is a figure of more than
``MAX_FIGURE_CHARACTERS``: a browser lays out every shape of an inline SVG,
and one of thousands of marks kept a page from opening.
"""

import html
import logging
import re

log = logging.getLogger("mkdocs.hooks.figures")

MAX_FIGURE_CHARACTERS = 1_000_000
SVG = re.compile(r"<svg\b([^>]*)>(.*?)</svg>", re.S)
DESCRIPTION = re.compile(r"<dc:description>(.*?)</dc:description>", re.S)


def on_page_content(content: str, page, **kwargs) -> str:
    def label(match: re.Match) -> str:
        attributes, body = match.groups()
        if len(match.group(0)) > MAX_FIGURE_CHARACTERS:
            log.warning(
                f"{page.file.src_uri}: a figure of {len(match.group(0)) / 1e6:.1f} MB of SVG; draw dense marks "
                "as an image (rasterized=True) or fewer of them"
            )
        if "aria-label=" in attributes:
            return match.group(0)
        described = DESCRIPTION.search(body)
        if described is None:
            log.warning(
                f"{page.file.src_uri}: a figure without alt text; save it with "
                'fig.savefig(..., format="svg", metadata={"Description": "what it shows"})'
            )
            return match.group(0)
        alt = html.escape(html.unescape(described.group(1)).strip(), quote=True)
        return f'<svg role="img" aria-label="{alt}"{attributes}>{body}</svg>'

    return SVG.sub(label, content)
