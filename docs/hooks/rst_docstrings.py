"""Griffe extension for the API pages: the lab's docstrings are written in reStructuredText, which no
docstring style of mkdocstrings renders (it reads the text as Markdown). Before rendering, this turns
the reST constructs the lab uses into their Markdown equivalents; the docstrings themselves stay as
they are (``python -m pydoc`` and Sphinx read them unchanged).

=================================  ==========================================================
reST                               Markdown
=================================  ==========================================================
``:class:`X```, ``:func:`~a.f```  `` `X` ``, `` `f` `` (roles of the Python domain: the name as code)
``text::`` + indented block       ``text:`` + a fenced code block (``::`` alone: the block only)
a title underlined with ``---``    ``## title`` (also a title wrapped over two lines)
a simple table (``===  ===``)     a pipe table; a row whose first cell is blank, or holds only a
                                   parenthesised note, continues the row above
``q*_j`` (a mid-word asterisk)    ``q\\*_j``, so that Python-Markdown does not take two for emphasis
=================================  ==========================================================

Configured in ``mkdocs.yml`` (``plugins.mkdocstrings.handlers.python.options.extensions``); tested in
``tests/tools/test_docs.py``.
"""

from __future__ import annotations

import re
import textwrap

try:  # the site build imports this through Griffe; the tests import rst_to_markdown alone
    from griffe import Extension
except ModuleNotFoundError:  # pragma: no cover - griffe comes with the docs extra
    Extension = object  # type: ignore[misc,assignment]

_ROLE = re.compile(r":(?:py:)?(?:class|func|mod|meth|data|attr|exc|obj|const|ref):`(~?)([^`]+)`")
_BORDER = re.compile(r"^(\s*)(=+)((?: +=+)+)\s*$")  # a simple table's border: two or more runs of '='
_UNDERLINE = re.compile(r"^\s*([-=~^\"'#*+])\1{2,}\s*$")
_MIDWORD_STAR = re.compile(r"(?<=[^\s*(\[{`\\])\*(?=[\w_])")


def _role(m: re.Match) -> str:
    name = m.group(2)
    if m.group(1):  # ~a.b.C shows C
        name = name.rsplit(".", 1)[-1]
    return f"``{name}``" if "`" in name else f"`{name}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _columns(border: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _cells(line: str, cols: list[tuple[int, int]]) -> list[str]:
    out = []
    for i, (a, _) in enumerate(cols):
        b = cols[i + 1][0] if i + 1 < len(cols) else len(line)
        out.append(line[a:b].strip())
    return out


def _table(lines: list[str], start: int) -> tuple[list[str], int]:
    """The simple table whose top border is lines[start] as pipe-table lines, and the index after it."""
    indent = _BORDER.match(lines[start]).group(1)
    cols = _columns(lines[start])
    borders = [start]
    i = start + 1
    while i < len(lines):
        if _BORDER.match(lines[i]) and _columns(lines[i]) == cols:
            borders.append(i)
            # the table ends at the third border, or at the second when no header follows it
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if len(borders) == 3 or (len(borders) == 2 and not nxt.strip()):
                break
        i += 1
    end = borders[-1]
    rows: list[list[str]] = []
    header_rows = 0
    for j in range(start + 1, end):
        if j in borders:
            header_rows = len(rows)
            continue
        line = lines[j]
        if not line.strip():
            continue
        cells = _cells(line, cols)
        first = cells[0]
        if rows and (not first or (first.startswith("(") and first.endswith(")"))):
            prev = rows[-1]
            for k, c in enumerate(cells):
                if c:
                    prev[k] = f"{prev[k]} {c}".strip()
        else:
            rows.append(cells)
    if len(borders) == 2:  # no header: an empty one (Markdown tables need one)
        header = [""] * len(cols)
        body = rows
    else:
        header = [" ".join(c) for c in zip(*rows[:header_rows])] if header_rows else [""] * len(cols)
        body = rows[header_rows:]

    def fmt(r):
        return indent + "| " + " | ".join(c.replace("|", "\\|") for c in r) + " |"

    out = ["", fmt(header), indent + "|" + "---|" * len(cols), *(fmt(r) for r in body), ""]
    return out, end + 1


def _literal(lines: list[str], i: int, base: int) -> tuple[list[str], int]:
    """The indented block after a '::' paragraph (lines[i] is the first line after it) as a fenced block."""
    j = i
    while j < len(lines) and not lines[j].strip():
        j += 1
    block = []
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > base):
        block.append(lines[j])
        j += 1
    while block and not block[-1].strip():
        block.pop()
    code = textwrap.dedent("\n".join(block)).splitlines()
    pad = " " * base
    return ["", pad + "```", *(pad + c if c else "" for c in code), pad + "```", ""], j


def rst_to_markdown(text: str) -> str:
    """A docstring's reST constructs (see the module docstring) as Markdown."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```") or in_fence:  # a Markdown fence (ours, on a second pass): as is
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if _BORDER.match(line):
            table, i = _table(lines, i)
            out += [_inline(t) for t in table]
            continue
        if _UNDERLINE.match(line) and out and out[-1].strip():
            # a title: the paragraph above (one line, or a title wrapped over several)
            title = []
            while out and out[-1].strip():
                title.insert(0, out.pop().strip())
            out += ["", "## " + " ".join(title), ""]
            i += 1
            continue
        stripped = line.rstrip()
        if stripped.endswith("::") and not stripped.endswith(":::"):
            base = _indent(line)
            head = stripped[:-2].rstrip()
            if head:
                out.append(_inline(head + (":" if not stripped[:-2].endswith(" ") else "")))
            block, i = _literal(lines, i + 1, base)
            out += block
            continue
        out.append(_inline(line))
        i += 1
    return "\n".join(out)


def _inline(line: str) -> str:
    """Roles as code and mid-word asterisks escaped, outside inline code."""
    parts = re.split(r"(``.+?``|`[^`]+`)", _ROLE.sub(_role, line))
    return "".join(p if p.startswith("`") else _MIDWORD_STAR.sub(r"\\*", p) for p in parts)


class RestDocstrings(Extension):
    """Convert every object's docstring once the tree is built."""

    def on_object(self, *, obj, **kwargs) -> None:  # noqa: D401 - Griffe's hook
        if not obj.is_alias and obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
