"""mkdocs hook: the pages' TeX becomes MathML when the site is built, so formulas show without JavaScript or network.

``pymdownx.arithmatex`` (generic mode) marks inline math as ``<span class="arithmatex">\\(...\\)</span>`` and
display math as ``<div class="arithmatex">\\[...\\]</div>``; latex2mathml turns each into a ``<math>`` element,
which every current browser renders natively.
"""

import html
import re

from latex2mathml.converter import convert

MATH = re.compile(r'<(span|div) class="arithmatex">\s*\\[(\[](.*?)\\[)\]]\s*</\1>', re.S)


def _mathml(match: re.Match) -> str:
    tag, tex = match.group(1), html.unescape(match.group(2))
    display = "block" if tag == "div" else "inline"
    return f'<{tag} class="arithmatex">{convert(tex, display=display)}</{tag}>'


def on_page_content(content: str, **kwargs) -> str:
    return MATH.sub(_mathml, content)
