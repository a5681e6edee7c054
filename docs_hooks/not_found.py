"""mkdocs hook: the 404 page's links are relative, so that it works from disk (``file://``) as every other page does.

Without a ``site_url``, mkdocs writes the 404 page's links from the server's root (``/assets/...``,
``/index.html``, the theme's ``"base": "/"``); from disk they point at the root of the file system.
``404.html`` lies in the site's root, so the same links without their leading ``/`` reach the same files.
(A server that shows it for a missing page below the root would need the site's address, ``site_url``,
which this site, built to be read from disk, does not have.)
"""

import re

ROOTED = re.compile(r'((?:href|src)=")/(?!/)')


def on_post_template(output_content: str, template_name: str, config, **kwargs) -> str:
    if template_name != "404.html":
        return output_content
    return ROOTED.sub(r"\1", output_content).replace('"base": "/"', '"base": "."')
