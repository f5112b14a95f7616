"""The lab as an installed package: a wheel built from the checkout carries the scenarios, sweep
files, suites and default URDFs, and works from a venv outside the checkout (issue 17, item 1)."""

import importlib.util
import json
import os
import site
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest

from conftest import IN_CI, ROOT

from lab.core.resources import asset_dir, checkout_root, data_dir, scenario_dir
from lab.core import scenario as scn


def test_checkout_resolves_to_the_top_level_folders():
    # from a checkout the editable scenarios are the ones that run, not a packaged copy
    assert checkout_root() == ROOT
    assert scenario_dir() == ROOT / "scenarios"
    assert asset_dir() == ROOT / "assets" / "urdf"
    assert data_dir("scenarios/sweeps") == ROOT / "scenarios" / "sweeps"


def _built_wheel(tmp: Path) -> Path:
    if importlib.util.find_spec("hatchling") is None:  # the dev extra installs it (offline build)
        if IN_CI:
            pytest.fail("hatchling is required in CI (the dev extra installs it)")
        pytest.skip("hatchling not installed: pip install -e '.[dev]'")
    out = tmp / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "-w", str(out), str(ROOT)], check=True, capture_output=True, text=True, timeout=120)
    (whl,) = out.glob("lab-*.whl")
    return whl


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    t0 = time.perf_counter()
    whl = _built_wheel(tmp_path)
    t_build = time.perf_counter() - t0
    names = set(zipfile.ZipFile(whl).namelist())
    shipped = {f"lab/_data/{p.relative_to(ROOT).as_posix()}" for p in
               [*(ROOT / "scenarios").rglob("*.toml"), *(ROOT / "assets" / "urdf").rglob("*") ] if p.is_file()}
    assert shipped and shipped <= names, sorted(shipped - names)
    assert not any("__pycache__" in n for n in names)
    vendored = {f"lab/replay/{p.relative_to(ROOT / 'lab' / 'replay').as_posix()}"
                for p in [ROOT / "lab" / "replay" / "template.html", *(ROOT / "lab" / "replay" / "vendor").iterdir()]}
    assert vendored <= names, sorted(vendored - names)  # the replay page's libraries and licences

    # A venv outside the checkout that sees the lab venv's dependencies (a .pth line: no download, and
    # not the lab venv's own editable install, whose .pth files a plain path line does not run).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    purelib = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    deps = [p for p in {*site.getsitepackages(), sysconfig.get_paths()["purelib"]} if Path(p).is_dir()]
    (purelib / "_lab_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(whl)], check=True,
                   capture_output=True, text=True, timeout=120)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    lab = str(venv / "bin" / "lab")

    where = subprocess.run([str(py), "-c", "import json, lab, lab.core.resources as r; print(json.dumps("
                            "[lab.__file__, str(r.scenario_dir()), str(r.asset_dir()), r.checkout_root()]))"],
                           cwd=elsewhere, env=env, check=True, capture_output=True, text=True)
    lab_file, scn_dir, urdf_dir, root = json.loads(where.stdout)
    assert Path(lab_file).is_relative_to(venv) and root is None
    assert Path(scn_dir) == purelib / "lab" / "_data" / "scenarios"
    assert (Path(urdf_dir) / "snake" / "snake.urdf").is_file()

    listed = subprocess.run([lab, "list"], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    entries = {line.split()[0] for line in listed.stdout.splitlines() if line.startswith("  ")}
    wanted = {p.stem for p in (ROOT / "scenarios").rglob("*.toml")}  # scenarios, sweep files, suites
    assert wanted <= entries, sorted(wanted - entries)

    t1 = time.perf_counter()
    out = tmp_path / "run1"
    ran = subprocess.run([lab, "run", "snake_passive_creeping", "--set", "sim.duration=1", "--out", str(out)],
                         cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300)
    t_run = time.perf_counter() - t1
    assert ran.returncode == 0, ran.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    shipped_dt = scn.load("snake_passive_creeping").sim.dt  # the checkout's file, which the wheel carries
    assert metrics["status"] == "ok" and metrics["steps"] == round(1.0 / shipped_dt)
    assert (out / "timeseries.csv").is_file() and (out / "trajectories.png").is_file()
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["git"] is None  # installed, not a checkout
    page = subprocess.run([lab, "replay", str(out), "--html", str(tmp_path / "run1.html")], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=120)
    assert page.returncode == 0 and (tmp_path / "run1.html").stat().st_size > 500_000, page.stderr
    assert not any(elsewhere.iterdir())  # nothing written into the working folder
    print(f"wheel build {t_build:.1f} s, 1 s run {t_run:.1f} s, total {time.perf_counter() - t0:.1f} s")
