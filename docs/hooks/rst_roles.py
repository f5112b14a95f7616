"""MkDocs hook: the lab's docstrings use Sphinx roles (``:class:`X```, ``:func:`f```) that mkdocstrings
shows verbatim; on the rendered API pages the role prefix is dropped and the name kept as code."""

import re

_ROLE = re.compile(r":(?:class|func|mod|meth|data|attr|exc|obj|py:\w+):(?=<code>)")


def on_page_content(html, page, config, files):
    if page.file.src_uri.startswith("reference/"):
        return _ROLE.sub("", html)
    return html
