"""`lab list`'s descriptions point at documents that exist and say what the description claims."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = re.compile(r"\b[\w./-]+\.md\b")


def _descriptions():
    """Every shipped scenario, sweep and suite file: scenarios/ and each paper's scenarios/ folder."""
    for p in sorted([*(ROOT / "scenarios").rglob("*.toml"), *(ROOT / "lab" / "papers").glob("*/scenarios/*.toml")]):
        yield p, tomllib.loads(p.read_text()).get("description", "")


def test_a_description_that_points_to_a_document_names_an_existing_file():
    """'see README' sent a reader to a README that does not hold the number (issue 36); a pointer names
    the file by its path, and the file exists."""
    for p, desc in _descriptions():
        assert not re.search(r"\bsee (the )?README\b(?!\.md| of)", desc), f"{p.name}: {desc}"
        for ref in DOC.findall(desc):
            assert (ROOT / ref).is_file(), f"{p.name}: {ref} does not exist"


def test_the_tracked_climbs_claimed_height_is_on_the_page_it_points_to():
    from lab.core.scenario import resolve_path

    desc = tomllib.loads(resolve_path("tracked_step_climb").read_text())["description"]
    height = re.search(r"climbs up to (\d\.\d+) m \(([\w/.]+\.md)\)", desc)
    assert height, desc
    assert f"{height[1]} m" in (ROOT / height[2]).read_text()
