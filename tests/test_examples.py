"""examples/*.py run as a user runs them (a subprocess, another working folder, short durations)
and make what they promise (issue 17, item 2)."""

import csv
import json
import math
import subprocess
import sys

import pytest
from PIL import Image

from conftest import ROOT

EXAMPLES = ROOT / "examples"


def run_example(name: str, out, cwd, duration: float) -> str:
    proc = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), "--out", str(out), "--duration",
                           str(duration)], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def looks_like_a_figure(png) -> None:
    img = Image.open(png).convert("L")
    w, h = img.size
    assert w > 300 and h > 200
    lo, hi = img.getextrema()
    assert hi - lo > 100  # something drawn on the white background, not a blank canvas


def test_every_example_is_tested():
    assert {p.stem for p in EXAMPLES.glob("*.py")} == {"run_and_plot", "parameter_loop", "custom_force"}


def test_run_and_plot(tmp_path):
    out = tmp_path / "plot"
    stdout = run_example("run_and_plot", out, tmp_path, 1.0)
    assert stdout.startswith("ok:")
    looks_like_a_figure(out / "snake_passive_creeping.png")


def test_parameter_loop(tmp_path):
    out = tmp_path / "loop"
    run_example("parameter_loop", out, tmp_path, 1.0)
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert [float(r["mu_n"]) for r in rows] == [0.2, 0.3, 0.5]
    assert all(r["status"] == "ok" for r in rows)
    # each row is its own run: the lateral friction changed what the snake did
    assert len({r["kinetic_mean_J"] for r in rows}) == 3
    looks_like_a_figure(out / "speed_vs_mu_n.png")


def test_custom_force_law_from_user_code(tmp_path):
    out = tmp_path / "wind"
    duration = 1.0
    run_example("custom_force", out, tmp_path, duration)
    rows = {r["run"]: r for r in csv.DictReader((out / "wind.csv").open())}
    calm, windy = float(rows["calm"]["com_dx_m"]), float(rows["windy"]["com_dx_m"])
    # The wind (1 m/s along the snake's axis, c = 0.5 N·s/m per 0.5 kg link) beats the tangential
    # friction: the snake drifts downwind, but no further than it would with no friction at all,
    # x(t) = w (t − τ (1 − e^{−t/τ})), τ = m/c (every link starts at rest and sees the same drag).
    tau = 0.5 / 0.5
    frictionless = 1.0 * (duration - tau * (1.0 - math.exp(-duration / tau)))
    assert calm < windy < frictionless
    assert abs(calm) < 0.1 * windy
    # the wind put energy in: the force laws' net work is negative dissipation, booked by the ledger
    assert float(rows["windy"]["dissipated_J"]) < 0 < float(rows["calm"]["dissipated_J"])
    # the law is recorded in the run's resolved scenario, so the run folder says what pushed it
    assert 'type = "wind"' in (out / "windy" / "scenario.toml").read_text()
    assert json.loads((out / "windy" / "metrics.json").read_text())["status"] == "ok"
