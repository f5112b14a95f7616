"""lab replay without a browser: what the capture stores (against the recorder's own record and the
friction law's bound), that it leaves the results as they were, the folder checks and the sweep pages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.replay.capture import every_n_steps, npz_bytes
from lab.results import timeseries_csv
from lab.present import run_scenario  # lab run's observers: the replay capture among them

SHORT = ["sim.duration=0.4"]


def _run(name="snake_passive_creeping", extra=()):
    return run_scenario(scn.load(name, [*SHORT, *extra]))


@pytest.mark.slow
def test_poses_are_the_recorders_positions_at_the_stated_rate():
    """Frame k is the state after k·every steps: its link COMs equal the recorder's (float64, strided
    by record_every) at the same instant, to float32 rounding; the rate is the scenario's replay.rate_hz."""
    res = _run(extra=["replay.rate_hz=50"])
    r = res.extras["replay"]
    sc = res.scenario
    every = every_n_steps(50, sc.sim.dt)
    assert every * sc.sim.dt == pytest.approx(1 / 50)  # a frame every 20 ms: 4 steps of the flagship's 5 ms
    assert np.allclose(r["t"][:-1], np.arange(len(r["t"]) - 1) * every * sc.sim.dt, atol=1e-12)
    t = res.series["t"]
    for k, tk in enumerate(r["t"]):
        i = int(np.argmin(abs(t - tk)))
        assert abs(t[i] - tk) < 1e-12
        rec = np.column_stack([res.series["xy"][i], res.series["z"][i]])
        assert np.allclose(r["p_W"][k], rec, atol=2e-7), k
    # the robot moved, so a frame mix-up would show
    assert np.max(np.abs(r["p_W"][-1] - r["p_W"][0])) > 1e-3
    q = r["quat_W"].astype(float)
    assert np.allclose(np.linalg.norm(q, axis=2), 1.0, atol=1e-6)


@pytest.mark.slow
def test_friction_arrows_are_coulomb_forces():
    """The stored friction force on each link is within the Coulomb bound max(μ_n, μ_t)·m·g (the
    law's own magnitude) and not zero once the snake moves: a stored torque, a velocity or a law's
    sum would break one of the two."""
    res = _run()
    r = res.extras["replay"]
    F = r["F_W.friction"].astype(float)
    sc = res.scenario
    mu = max(sc.friction.mu_n, sc.friction.mu_t)
    mag = np.linalg.norm(F, axis=2)
    assert mag[1:].max() > 1e-4
    bound = mu * sc.robot.mass * sc.sim.gravity  # the snake's mass is per module
    assert mag.max() <= bound * (1 + 1e-5)
    assert np.all(mag[0] == 0)  # frame 0: nothing applied yet


@pytest.mark.slow
def test_capture_leaves_results_byte_identical():
    """The same scenario with and without the capture gives the same timeseries.csv and metrics."""
    on, off = _run(), _run(extra=["replay.rate_hz=0"])
    assert "replay" in on.extras and "replay" not in off.extras
    assert timeseries_csv(on.series) == timeseries_csv(off.series)
    from lab.core.metrics import json_safe

    def written(m):  # as metrics.json holds them (NaN → null), without the wall clock
        return json.dumps({k: v for k, v in json_safe(m).items() if k not in ("wall_time_s", "realtime_factor")},
                          sort_keys=True)

    assert written(on.metrics) == written(off.metrics)


@pytest.mark.slow
def test_replay_file_is_deterministic_and_forces_optional():
    a, b = _run(), _run()
    assert npz_bytes(a.extras["replay"]) == npz_bytes(b.extras["replay"])
    c = _run(extra=["replay.forces=false"])
    assert not any(k.startswith("F_W.") for k in c.extras["replay"])


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def test_refuses_a_folder_without_replay(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    for name in ("scenario.toml", "metrics.json", "timeseries.csv"):
        (run / name).write_text("t\n0\n" if name.endswith(".csv") else "{}" if name.endswith(".json") else "")
    p = _cli("replay", run, "--html", tmp_path / "x.html")
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "replay.npz" in lines[0]
    assert not (tmp_path / "x.html").exists()
    (run / "replay.npz").write_bytes(b"not a zip")
    p = _cli("replay", run, "--html", tmp_path / "x.html")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "unreadable" in p.stderr
    p = _cli("replay", tmp_path / "nowhere", "--html", tmp_path / "x.html")
    assert p.returncode == 2 and "not a folder" in p.stderr
    assert not (tmp_path / "x.html").exists()


def test_run_html_needs_a_replay_rate(tmp_path):
    p = _cli("run", "snake_passive_creeping", "--set", "replay.rate_hz=0", "--set", "sim.duration=0.01",
             "--out", tmp_path / "r", "--html", tmp_path / "r.html")
    assert p.returncode == 2 and "replay.rate_hz" in p.stderr
    assert not (tmp_path / "r").exists()


def test_replay_too_large_is_refused_before_the_run(tmp_path):
    p = _cli("run", "snake_passive_creeping", "--set", "sim.duration=20000", "--set", "sim.record_every=10000",
             "--set", "replay.rate_hz=1000", "--out", tmp_path / "r")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("error: scenario:replay.rate_hz") and "MiB" in p.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_page_is_self_contained(tmp_path):
    """The page inlines everything: no <script src>, no <link href> stylesheet, no import of a URL."""
    from lab.replay.page import page_html
    from lab.results import write_run

    write_run(tmp_path / "run", _run(), plots=False)
    text = page_html(tmp_path / "run")
    assert "<script src" not in text and "<link" not in text
    assert not re.search(r"%%[A-Z_]+%%", text)  # every placeholder filled
    data = json.loads(text.split('id="lab-data">', 1)[1].split("</script>", 1)[0])
    assert data["n_frames"] > 2 and data["laws"][0]["name"] == "friction"


@pytest.mark.slow
def test_sweep_index_and_pages(tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text('name = "tiny"\nbase = "snake_passive_creeping"\nseed = 1\nmode = "grid"\n'
                     '[set]\n"sim.duration" = 0.2\n[[axis]]\nkey = "controller.E_ref"\nvalues = [0.5, 1.0]\n')
    p = _cli("sweep", sweep, "--out", tmp_path / "sw")
    assert p.returncode == 0, p.stderr
    ids = [r["run_id"] for r in json.loads((tmp_path / "sw" / "runs.json").read_text())]
    p = _cli("replay", tmp_path / "sw", "--html", tmp_path / "pages", "--runs", ids[1])
    assert p.returncode == 0, p.stderr
    index = (tmp_path / "pages" / "index.html").read_text()
    assert all(i in index for i in ids) and f'href="runs/{ids[1]}.html"' in index
    assert f'href="runs/{ids[0]}.html"' not in index
    assert [f.name for f in (tmp_path / "pages" / "runs").iterdir()] == [f"{ids[1]}.html"]
    p = _cli("replay", tmp_path / "sw", "--html", tmp_path / "pages2", "--runs", "nope")
    assert p.returncode == 2 and "--runs" in p.stderr and not (tmp_path / "pages2").exists()


def test_committed_docs_replays_are_within_budget_and_current():
    """The paper pages' replays (docs/papers/replays/, written by lab report --docs) stay small, each
    names a run folder's page, and the shared library file is this lab's vendored one."""
    from lab.replay.page import vendor_lib_js
    from lab.papers import papers
    from lab.report.docs import REPLAY_LIB, REPLAY_PAGE_BUDGET

    folder = Path(__file__).resolve().parents[2] / "docs" / "papers" / "replays"
    pages = sorted(folder.glob("*.html"))
    assert {p.stem for p in pages} <= {k for k, paper in papers().items() if paper.replay_runs} and pages
    for p in pages:
        assert p.stat().st_size <= REPLAY_PAGE_BUDGET, (p.name, p.stat().st_size)
        text = p.read_text(encoding="utf-8")
        assert f'<script src="{REPLAY_LIB}"></script>' in text
        assert f"](replays/{p.stem}.html)" in (folder.parent / f"{p.stem}.md").read_text(encoding="utf-8")
    assert (folder / REPLAY_LIB).read_text(encoding="utf-8") == vendor_lib_js()


def user_robot_scenario(folder: Path, duration: float = 1.0) -> Path:
    """A user's URDF robot with every visual kind the replay draws: the example's four-link snake with
    a sphere and a box on link 1 (the sphere at the link frame's origin, 5 cm behind the COM), a
    cylinder turned along x on link 2 and an OBJ mesh on the head (written by trimesh)."""
    import trimesh

    root = Path(__file__).resolve().parents[2]
    text = (root / "examples" / "four_link_snake.urdf").read_text()
    trimesh.creation.box(extents=(0.096, 0.02, 0.02)).export(folder / "head.obj")
    links = text.split("<link ")
    box = '<geometry><box size="0.096 0.02 0.02"/></geometry>'
    links[2] = links[2].replace("</visual>", '</visual>\n    <visual><origin xyz="0 0 0" rpy="0 0 0"/>'
                                '<geometry><sphere radius="0.012"/></geometry></visual>', 1)
    links[3] = links[3].replace('<origin xyz="0.05 0 0" rpy="0 0 0"/>\n      ' + box,
                                '<origin xyz="0.05 0 0" rpy="0 1.5707963 0"/>\n      '
                                '<geometry><cylinder radius="0.01" length="0.096"/></geometry>', 1)
    links[4] = links[4].replace(box, '<geometry><mesh filename="head.obj"/></geometry>', 1)
    (folder / "robot.urdf").write_text("<link ".join(links))
    sc = (root / "examples" / "user_robot.toml").read_text()
    sc = re.sub(r'(?m)^path = ".*?"', f'path = "{folder / "robot.urdf"}"', sc, count=1)
    sc = sc.replace("duration = 5.0", f"duration = {duration}")
    (folder / "user.toml").write_text(sc)
    return folder / "user.toml"


@pytest.mark.slow
def test_a_users_urdf_robot_replays_with_its_shapes(tmp_path):
    """Every visual of the user's file reaches the page, each in its link's COM frame: the sphere at the
    link frame's origin sits 5 cm behind the COM (the file's inertial origin), the mesh's triangles are
    the OBJ's."""
    from lab.replay.page import load_run, page_data

    scenario = user_robot_scenario(tmp_path)
    run = tmp_path / "run"
    p = _cli("run", scenario, "--out", run, "--no-plots", "--html", tmp_path / "user.html")
    assert p.returncode == 0, p.stderr
    r = load_run(run)
    robot = next(b for b in r.scene["bodies"] if b["kind"] == "robot")
    geoms = sorted((s["link"], s["geom"]) for s in robot["shapes"])
    assert geoms == [(0, "box"), (1, "box"), (1, "sphere"), (2, "cylinder"), (3, "mesh")]
    sphere = next(s for s in robot["shapes"] if s["geom"] == "sphere")
    assert np.allclose(sphere["pos"], [-0.05, 0, 0], atol=1e-9) and np.isclose(sphere["dims"][0], 0.012)
    boxes = [s for s in robot["shapes"] if s["geom"] == "box"]
    assert all(np.allclose(s["pos"], 0, atol=1e-9) for s in boxes)  # visual origin = inertial origin
    mesh = next(s for s in robot["shapes"] if s["geom"] == "mesh")
    V = r.replay[mesh["mesh"] + "_V"]
    assert V.shape == (8, 3) and np.allclose(np.ptp(V, axis=0), [0.096, 0.02, 0.02], atol=1e-6)
    assert len(page_data(r)["meshes"]) == 1 and (tmp_path / "user.html").stat().st_size > 1e5


@pytest.mark.slow
def test_engine_contact_arrows_carry_the_weight_within_the_friction_cone():
    """On engine contacts (the tracked robot) the capture adds the engine's contact forces per link: at
    rest on the flat ground before the step (once settled) their normal components carry the robot's weight (measured
    within 0.05 %), and every link's friction stays inside Coulomb's cone |F_t| ≤ μ |F_n| (Bullet's
    friction is μ_track · 1 with the ground's 1). Swapping the two channels, or the normal's sign,
    breaks one of them."""
    from lab.present import simulation

    sim = simulation(scn.load("tracked_step_climb", ["sim.duration=0.3"]))
    M, g = sim.world.model.mass.sum(), sim.scenario.sim.gravity
    mu = sim.scenario.robot.track_friction
    try:
        r = sim.run().extras["replay"]
    finally:
        sim.close()
    Fn, Ft = r["F_W.contact_normal"].astype(float), r["F_W.contact_friction"].astype(float)
    settled = r["t"] >= 0.1  # it is placed a hair above the ground and settles in the first ~0.1 s
    assert settled.sum() >= 4
    assert np.allclose(Fn[settled, :, 2].sum(axis=1) / (M * g), 1.0, atol=0.01)
    n, f = np.linalg.norm(Fn, axis=2), np.linalg.norm(Ft, axis=2)
    assert np.all(f <= mu * n * (1 + 1e-5) + 1e-6)
    assert f.max() > 0.0
