"""A paper is one folder with one manifest: the lab's lists (registries, `lab list`, the report's order,
the scenario search path, the docs' paper pages) are derived from the manifests, so a sixth paper
touches nothing outside its folder.

The toy paper is written into a temporary folder that is added to ``lab.papers.__path__`` — the same
as dropping the folder into ``lab/papers/`` — in a fresh process (registries load once per process)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

TOY_INIT = '''
from lab.papers.manifest import Paper

PAPER = Paper(key="toy2030_demo", authors=("Toy, Tess",), year=2030, title="玩具", title_en="A toy paper",
              reproduced="nothing real", figures=("Fig 1",),
              plugins={"check": (".checks",), "controller": (".controllers",), "report section": (".report",)})
'''
TOY_CHECKS = '''
from lab.checks import Figure, check


@check("toy_check")
def toy_check(overrides):
    """the toy paper's check"""
    return {"one": Figure.at_most(0.0, 1e-12, "exactly zero")}
'''
TOY_CONTROLLERS = '''
from dataclasses import dataclass

import numpy as np

from lab.controllers.base import Controller, register_controller
from lab.core.fields import Validated


@dataclass(frozen=True)
class ToyParams(Validated):
    """No parameters."""


@register_controller("toy_hold", params=ToyParams)
class ToyHold(Controller):
    def act(self, state):
        return np.zeros(len(state.q))
'''
TOY_REPORT = '''
from lab.report import SectionResult, section


@section("toy2030_demo", "Toy 2030: nothing")
def build(ctx):
    return SectionResult(body="toy")
'''
TOY_SCENARIO = '''
name = "toy_walk"
description = "the toy paper's scenario"
[robot]
type = "snake"
[controller]
type = "toy_hold"
[sim]
duration = 0.01
'''

PROBE = r'''
import json, sys
import lab.papers
lab.papers.__path__.append(sys.argv[1])
from lab.papers import papers
from lab.core.registry import registry
from lab.core import scenario as scn
out = {"papers": list(papers()), "checks": list(registry("check")), "controllers": list(registry("controller")),
       "sections": list(registry("report section")), "scenario": str(scn.resolve_path("toy_walk")),
       "names": [p.stem for p in scn.list_scenarios()]}
from lab.core.runner import run_scenario
out["status"] = run_scenario(scn.load("toy_walk")).status
print(json.dumps(out))
'''


@pytest.fixture
def toy(tmp_path):
    root = tmp_path / "extra_papers"
    pkg = root / "toy2030_demo"
    (pkg / "scenarios").mkdir(parents=True)
    (pkg / "__init__.py").write_text(TOY_INIT)
    (pkg / "checks.py").write_text(TOY_CHECKS)
    (pkg / "controllers.py").write_text(TOY_CONTROLLERS)
    (pkg / "report.py").write_text(TOY_REPORT)
    (pkg / "scenarios" / "toy_walk.toml").write_text(TOY_SCENARIO)
    return root


@pytest.mark.slow
def test_a_sixth_paper_joins_from_its_folder_alone(toy):
    out = subprocess.run([sys.executable, "-c", PROBE, str(toy)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["papers"][-1] == "toy2030_demo"  # by year: after the five
    assert r["papers"][:5] == ["wang2011_creeping", "wang2011_unified", "hu2013_tracked", "guo2015_wheeled",
                               "zhang2018_eel"]
    assert r["checks"][-1] == "toy_check" and "energy_balance" in r["checks"]
    assert r["controllers"][-1] == "toy_hold"
    assert r["sections"][-1] == "toy2030_demo"
    assert r["scenario"].endswith("toy2030_demo/scenarios/toy_walk.toml") and "toy_walk" in r["names"]
    assert r["status"] == "ok"


def test_the_five_papers_are_found_from_their_manifests():
    from lab.papers import papers

    found = papers()
    assert list(found) == ["wang2011_creeping", "wang2011_unified", "hu2013_tracked", "guo2015_wheeled",
                           "zhang2018_eel"]
    for key, p in found.items():
        assert p.key == key and p.figures and p.modules("report section") == (f"lab.papers.{key}.report",)


def test_a_manifest_is_checked():
    from lab.papers.manifest import Paper

    with pytest.raises(ValueError, match="authorYYYY_topic"):
        Paper(key="no-year", authors=("A, B",), year=2000, title="t", title_en="t")
    with pytest.raises(ValueError, match="unknown plugin kinds"):
        Paper(key="a2000_b", authors=("A, B",), year=2000, title="t", title_en="t", plugins={"robots": (".x",)})


def test_the_lists_come_from_the_manifests():
    """The order of `lab list`'s checks and the report's sections is the papers' (year, key) order."""
    from lab.core.registry import registry
    from lab.papers import papers

    sections = list(registry("report section"))
    assert sections == list(papers())
    checks = list(registry("check"))
    first = {p: min(checks.index(c) for c in checks if registry("check")._origin[c].startswith(f"lab.papers.{p}."))
             for p in papers()}
    assert sorted(first, key=first.get) == list(papers())


def test_a_paper_folder_without_manifest_is_not_a_paper(tmp_path, monkeypatch):
    import lab.papers as P

    (tmp_path / "notes2020_x").mkdir()
    (tmp_path / "notes2020_x" / "__init__.py").write_text(textwrap.dedent('"""no manifest here"""\n'))
    monkeypatch.setattr(P, "__path__", [*P.__path__, str(tmp_path)])
    P._reset()
    try:
        assert "notes2020_x" not in P.papers()
    finally:
        P._reset()
