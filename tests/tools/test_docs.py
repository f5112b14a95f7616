"""The documentation against the code: every CLI flag (from the argparse parser) and every scenario
field (from the JSON Schema) appears in the docs, the README stays short and its links resolve, the
architecture page's layout matches the tree, the project files people look for are there and valid,
and no internal label ("seed NNN", issue numbers) reaches what a user reads.

``python tests/tools/test_docs.py --write`` regenerates the generated blocks of ``docs/cli.md`` and
``docs/scenarios.md`` (between their ``<!-- …:start -->`` / ``<!-- …:end -->`` markers) from the parser
and the schema. The site itself is built by ``make docs`` (``mkdocs build --strict``), which ``make test``
runs: a broken link or a missing API reference fails there.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


# ------------------------------------------------------------------ generated blocks
def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return {c.dest: c.help or "" for c in a._choices_actions}
    return {}


def _options(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if a.option_strings and a.help is not argparse.SUPPRESS]


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def cli_block() -> str:
    """Every command's usage and flags, from the parser the CLI runs."""
    from lab.cli import build_parser

    ap = build_parser()
    out = ["### Global options", "", "| flag | meaning |", "|---|---|"]
    for a in _options(ap):
        out.append(f"| `{', '.join(a.option_strings)}` | {_cell(a.help or '')} |")
    helps = _helps(ap)
    for name, p in _subcommands(ap).items():
        out += ["", f"### `lab {name}`", "", _cell(p.description or helps.get(name, "")), "",
                "```", p.format_usage().strip().replace("usage: ", ""), "```", ""]
        subs = _subcommands(p)
        rows = _options(p)
        if rows:
            out += ["| flag | meaning |", "|---|---|"]
            for a in rows:
                meta = f" {a.metavar}" if a.metavar else ""
                out.append(f"| `{', '.join(a.option_strings)}{meta}` | {_cell(a.help or '')} |")
        shelps = _helps(p)
        for sname, sp in subs.items():
            out += ["", f"#### `lab {name} {sname}`", "", _cell(sp.description or shelps.get(sname, "")), "", "```", sp.format_usage().strip().replace("usage: ", ""), "```",
                    "", "| flag | meaning |", "|---|---|"]
            for a in _options(sp):
                meta = f" {a.metavar}" if a.metavar else ""
                out.append(f"| `{', '.join(a.option_strings)}{meta}` | {_cell(a.help or '')} |")
    return "\n".join(out)


def _schema() -> dict:
    return json.loads((DOCS / "scenario.schema.json").read_text())


def _range(p: dict) -> str:
    lo = ("[", p["minimum"]) if "minimum" in p else ("(", p["exclusiveMinimum"]) if "exclusiveMinimum" in p else None
    hi = (p["maximum"], "]") if "maximum" in p else (p["exclusiveMaximum"], ")") if "exclusiveMaximum" in p else None
    if lo is None and hi is None:
        if "enum" in p:
            return ", ".join(f"`{v}`" for v in p["enum"])
        return ""
    return f"{lo[0] if lo else '('}{lo[1] if lo else '−∞'}, {hi[0] if hi else '∞'}{hi[1] if hi else ')'}"


def _type(p: dict) -> str:
    t = p.get("type", "")
    if isinstance(t, list):
        t = " or ".join(t)
    if t == "array" and isinstance(p.get("items"), dict):
        t = f"array of {p['items'].get('type', '')}".strip()
    return t or ("constant" if "const" in p else "")


def schema_block() -> str:
    """Every table and field of the scenario format, from ``docs/scenario.schema.json``."""
    s = _schema()
    out = ["### Top level", "", "| field | type | default | allowed | meaning |", "|---|---|---|---|---|"]
    for name, p in s["properties"].items():
        if "$ref" in p or "oneOf" in p or "anyOf" in p or name in ("forces",):
            continue
        out.append(f"| `{name}` | {_type(p)} | {_cell(json.dumps(p['default']) if 'default' in p else '')} | "
                   f"{_cell(_range(p))} | {_cell(p.get('description', ''))} |")
    for key, d in s["$defs"].items():
        table, _, kind = key.partition(".")
        head = f"[{table}] type = \"{kind}\"" if kind and table != "forces" else (
            f"[forces.<name>] type = \"{kind}\"" if kind else f"[{table}]")
        out += ["", f"### `{head}`", "", _cell(d.get("description", "")), "",
                "| field | type | default | allowed | meaning |", "|---|---|---|---|---|"]
        for f, p in d.get("properties", {}).items():
            if f == "type" and "const" in p:
                continue
            out.append(f"| `{table}.{f}` | {_type(p)} | {_cell(json.dumps(p['default']) if 'default' in p else '')} | "
                       f"{_cell(_range(p))} | {_cell(p.get('description', ''))} |")
    return "\n".join(out)


BLOCKS = {"cli": (DOCS / "cli.md", cli_block), "fields": (DOCS / "scenarios.md", schema_block)}


def _between(text: str, tag: str) -> str:
    m = re.search(rf"<!-- {tag}:start -->\n(.*?)\n<!-- {tag}:end -->", text, re.S)
    assert m, f"the <!-- {tag}:start --> … <!-- {tag}:end --> markers are missing"
    return m.group(1)


def write_blocks() -> None:
    for tag, (path, make) in BLOCKS.items():
        text = path.read_text()
        new = re.sub(rf"(<!-- {tag}:start -->)\n.*?(<!-- {tag}:end -->)",
                     lambda m: m.group(1) + "\n" + make() + "\n" + m.group(2), text, flags=re.S)
        path.write_text(new)


# ------------------------------------------------------------------ tests
def _site_text() -> str:
    return "\n".join(p.read_text() for p in DOCS.rglob("*.md"))


def test_every_cli_flag_is_documented():
    from lab.cli import build_parser

    doc = (DOCS / "cli.md").read_text()
    ap = build_parser()
    missing = [f"lab {' '.join(path)} {opt}"
               for path, p in _walk(ap, ())
               for a in _options(p) for opt in a.option_strings
               if not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", _section(doc, path))]
    assert not missing, f"flags missing from docs/cli.md (python tests/tools/test_docs.py --write): {missing}"


def _walk(p, path):
    yield path, p
    for name, sp in _subcommands(p).items():
        yield from _walk(sp, path + (name,))


def _section(doc: str, path: tuple) -> str:
    """The part of docs/cli.md about ``lab <path>``: from its heading to the next one of its level."""
    if not path:
        return _between(doc, "cli").split("### `lab ")[0]
    title = f"`lab {' '.join(path)}`"
    level = "###" if len(path) == 1 else "####"
    m = re.search(rf"^{level} {re.escape(title)}\n(.*?)(?=^{level} |^### |\Z)", doc, re.S | re.M)
    assert m, f"docs/cli.md has no section {level} {title}"
    return m.group(1)


def test_every_scenario_field_is_documented():
    doc = (DOCS / "scenarios.md").read_text()
    s = _schema()
    missing = [n for n in s["properties"] if f"`{n}`" not in doc and f"`[{n}" not in doc]  # a field or a table
    for key, d in s["$defs"].items():
        table, _, kind = key.partition(".")
        if kind and f'type = "{kind}"' not in doc:
            missing.append(key)
        missing += [f"{table}.{f}" for f in d.get("properties", {}) if f != "type" and f"`{table}.{f}`" not in doc]
    assert not missing, f"scenario fields missing from docs/scenarios.md (python tests/tools/test_docs.py --write): {missing}"


def test_generated_blocks_detect_a_missing_flag(monkeypatch):
    """The flag test can fail: a flag the parser gains is reported until the docs name it."""
    import lab.cli

    real = lab.cli.build_parser

    def more():
        ap = real()
        _subcommands(ap)["run"].add_argument("--brand-new-flag", action="store_true", help="x")
        return ap

    monkeypatch.setattr(lab.cli, "build_parser", more)
    with pytest.raises(AssertionError, match="--brand-new-flag"):
        test_every_cli_flag_is_documented()


def test_readme_is_short_and_has_what_people_look_for():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    for must in ("make run", "make test", "make docs", "Cite", "Licence", "import lab", "lab run"):
        assert must in text, must
    # the five papers, by authors and year, each linking to its page
    for key in ("wang2011_creeping", "wang2011_unified", "hu2013_tracked", "guo2015_wheeled", "zhang2018_eel"):
        assert f"docs/papers/{key}.md" in text, key


def test_readme_links_resolve():
    text = README.read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    missing = [t for t in targets if not t.startswith(("http://", "https://")) and not (ROOT / t).exists()]
    assert not missing, missing


def test_architecture_layout_matches_the_tree():
    block = _between((DOCS / "architecture.md").read_text(), "layout")
    lines = [ln for ln in block.splitlines() if ln and not ln.startswith("```")]
    listed = {}
    for ln in lines:
        folder, *names = ln.split()
        listed[folder] = set(names)

    def entries(folder: Path) -> set:
        return {p.stem for p in folder.iterdir()
                if (p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists())}

    packages = {"lab/"} | {f"lab/{p.name}/" for p in (ROOT / "lab").iterdir()
                           if p.is_dir() and (p / "__init__.py").exists() and p.name != "papers"} | {"lab/papers/"}
    assert set(listed) == packages, f"packages listed vs in the tree: {sorted(set(listed) ^ packages)}"
    for folder, names in listed.items():
        actual = entries(ROOT / folder)
        assert names == actual, f"{folder}: listed but absent {sorted(names - actual)}, present but unlisted " \
                                f"{sorted(actual - names)}"


def test_project_files_people_look_for():
    for name in ("LICENSE", "CITATION.cff", "CHANGELOG.md", "CONTRIBUTING.md", "mkdocs.yml"):
        assert (ROOT / name).is_file(), name
    lic = (ROOT / "LICENSE").read_text()
    assert lic.startswith("MIT License") and "the lab's authors" in lic
    import tomllib

    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == "MIT"


def test_citation_cff_is_valid_cff_1_2():
    yaml = pytest.importorskip("yaml")
    jsonschema = pytest.importorskip("jsonschema")
    data = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    data = json.loads(json.dumps(data, default=str))  # dates as the strings the schema expects
    schema = json.loads((ROOT / "tests" / "data" / "cff-1.2.0.schema.json").read_text())
    jsonschema.Draft7Validator(schema).validate(data)
    assert data["cff-version"] == "1.2.0" and data["license"] == "MIT"
    bad = dict(data, authors=[{"unknown-key": 1}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema).validate(bad)


INTERNAL = re.compile(r"seed ?0[0-4]|issue #|#[12][0-9]\b", re.I)  # the issues so far are #1–#29


def test_no_internal_labels_in_what_users_read():
    """Papers are named by authors and year; no "seed NNN" and no issue numbers in the package, the
    docs, the scenarios, the examples or the README (text files: images are binary)."""
    hits = []
    paths = [README, *(ROOT / "lab").rglob("*.py"), *(ROOT / "lab").rglob("*.md"), *DOCS.rglob("*.md"),
             *(ROOT / "scenarios").rglob("*.toml"), *(ROOT / "examples").rglob("*.py"),
             *(ROOT / "examples").rglob("*.toml"),
             ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md"]
    for p in paths:
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if INTERNAL.search(line):
                hits.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()[:100]}")
    assert not hits, "\n".join(hits)


def test_internal_label_pattern_catches_what_it_should():
    """The label test can fail: the pattern finds the internal labels and leaves equation numbers alone."""
    for bad in ("seed 003", "Seed000", "issue #14", "see #29", "(#22)"):
        assert INTERNAL.search(bad), bad
    for fine in ("eq. 24", "Fig 12", "seed = 3", "a 30 s run", "color #2a2a2a"):
        assert not INTERNAL.search(fine), fine


# ------------------------------------------------------------------ the API pages' docstrings
def _converter():
    import importlib.util

    spec = importlib.util.spec_from_file_location("rst_docstrings", DOCS / "hooks" / "rst_docstrings.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_rst_docstrings_become_markdown():
    """The API pages' converter: roles, a literal block, a wrapped title and a simple table with a
    continued row become Markdown; a mid-word asterisk is escaped once, and converting twice changes
    nothing (Griffe may hand an object over more than once)."""
    conv = _converter().rst_to_markdown
    text = """Uses :class:`lab.core.world.World` and :func:`~lab.api.run`. A decorator::

    @register("x")
    class X: ...

Observation (float64; J joints, N links;
x forward)
------------------------------
====  ====  ==========
name  unit  what
====  ====  ==========
q_j   rad   joint angles,
            in URDF order
qd_j  rad/s rates
====  ====  ==========

A target q*_j = a_j, emphasis on *points*."""
    md = conv(text)
    assert "`lab.core.world.World`" in md and "`run`" in md and ":class:" not in md and ":func:" not in md
    assert "A decorator:\n\n```\n@register(\"x\")\nclass X: ...\n```" in md
    assert "## Observation (float64; J joints, N links; x forward)" in md and "-----" not in md
    assert "| name | unit | what |" in md and "|---|---|---|" in md
    assert "| q_j | rad | joint angles, in URDF order |" in md and "| qd_j | rad/s | rates |" in md
    assert "q\\*_j" in md and "*points*" in md
    assert conv(md) == md


def test_api_pages_have_no_rest_left():
    """Every docstring on the API reference pages, as the site renders it: no role, no '::' literal
    marker, no simple-table border, no underlined title is left for Markdown to garble."""
    griffe = pytest.importorskip("griffe")
    conv = _converter().rst_to_markdown
    mods = [m for f in sorted((DOCS / "reference").glob("*.md"))
            for m in re.findall(r"^::: (\S+)", f.read_text(), re.M)]
    assert "lab.envs.env" in mods and "lab.api" in mods
    left = []

    def walk(obj):
        if obj.docstring is not None:
            fence = False
            for line in conv(obj.docstring.value).splitlines():
                if line.lstrip().startswith("```"):
                    fence = not fence
                if not fence and (re.search(r":(class|func|mod|meth|data|attr|exc|obj):`", line)
                                  or line.rstrip().endswith("::") or re.match(r"^\s*([-=~^])\1{2,}\s*$", line)
                                  or re.match(r"^\s*=+( +=+)+\s*$", line)):
                    left.append(f"{obj.path}: {line.strip()[:80]}")
        for m in obj.members.values():
            if not m.is_alias:
                walk(m)

    lab_pkg = griffe.load("lab", search_paths=[str(ROOT)])  # once: loading a submodule loads the package
    for m in mods:
        walk(lab_pkg[m.removeprefix("lab.")])
    assert not left, "\n".join(left)


def test_paper_pages_are_the_reports():
    """docs/papers/ is lab report's output (its marker lists the pages), one page per report section,
    each saying how it was built and carrying the paper's BibTeX."""
    from lab.core.outputs import read_marker
    from lab.report import load_sections

    papers = DOCS / "papers"
    marker = read_marker(papers, "docs")
    assert marker is not None and marker["kind"] == "docs", "docs/papers/ was not written by lab report --docs"
    for key in load_sections():
        page = papers / f"{key}.md"
        assert page.name in marker["files"], key
        text = page.read_text()
        assert "Written by `lab report`" in text and ("quick" in text or "full" in text)
        assert "```bibtex" in text and "@article{" in text
        for img in re.findall(r"\]\((figures/[^)]+)\)", text):
            assert (papers / img).is_file(), img


def test_report_docs_writes_pages_keeps_the_others_and_refuses_foreign_folders(tmp_path):
    """``lab report --docs``: a page per section with its figures, reference, BibTeX and the notes of
    full runs; ``--only`` with ``--overwrite`` rewrites that page and keeps the others; a folder
    holding the user's files is refused before anything runs."""
    from lab.cli import main

    docs = tmp_path / "site" / "papers"
    notes = tmp_path / "site" / "paper-notes"
    notes.mkdir(parents=True)
    (notes / "zhang2018_eel.md").write_text("Measured on a full run: **42**.\n")
    docs.mkdir()
    (docs / "guo2015_wheeled.md").write_text("a page the lab did not write")
    assert main(["report", "--quick", "--only", "zhang2018_eel", "--workers", "1", "--out", str(tmp_path / "r0"),
                 "--docs", str(docs)]) == 2
    assert (docs / "guo2015_wheeled.md").read_text() == "a page the lab did not write"
    assert not (tmp_path / "r0").exists()
    (docs / "guo2015_wheeled.md").unlink()

    assert main(["report", "--quick", "--only", "zhang2018_eel", "--workers", "1", "--out", str(tmp_path / "r1"),
                 "--docs", str(docs)]) == 0
    page = (docs / "zhang2018_eel.md").read_text()
    assert "**quick** build" in page and "Zhang et al. 2018" in page and "@article{zhang2018_eel," in page
    assert "Measured on a full run: **42**." in page
    figs = sorted(p.name for p in (docs / "figures").iterdir())
    assert figs and all(f.startswith("zhang2018_eel_") for f in figs)
    assert all(f"(figures/{f})" in page for f in figs)
    assert "[zhang2018_eel](zhang2018_eel.md)" in (docs / "index.md").read_text()
    # the report's own figures are the page's: byte for byte
    assert all((docs / "figures" / f).read_bytes() == (tmp_path / "r1" / "figures" / f).read_bytes() for f in figs)
    # the headline run's replay (lab.replay), embedded, with the shared libraries beside it
    assert (docs / "replays" / "zhang2018_eel.html").is_file() and (docs / "replays" / "replay-lib.js").is_file()
    assert '<iframe src="../replays/zhang2018_eel.html"' in page

    # a user's file in the folder survives a rebuild; another section's page stays with --only
    (docs / "my-notes.txt").write_text("mine")
    keep = (docs / "zhang2018_eel.md").read_bytes()
    assert main(["report", "--quick", "--only", "wang2011_unified", "--workers", "1", "--out", str(tmp_path / "r2"),
                 "--docs", str(docs), "--overwrite"]) == 0
    assert (docs / "zhang2018_eel.md").read_bytes() == keep and (docs / "wang2011_unified.md").is_file()
    assert (docs / "my-notes.txt").read_text() == "mine"
    assert (docs / "replays" / "zhang2018_eel.html").is_file() and (docs / "replays" / "replay-lib.js").is_file()
    index = (docs / "index.md").read_text()
    assert index.index("wang2011_unified.md") < index.index("zhang2018_eel.md")  # the papers by year


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        sys.path.insert(0, str(ROOT))
        write_blocks()
    else:
        sys.exit("usage: python tests/tools/test_docs.py --write   (regenerates the docs' generated blocks)")
