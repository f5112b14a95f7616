"""Generic run metrics are right for every robot: the mass-weighted centre of mass, ``head.*`` only for a
robot that declares a head, the creeping paper's gait analyses only when a scenario asks for them."""

import ast
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.cli import main
from lab.core.errors import LabError
from lab.core.metrics import run_metrics
from lab.core.recorder import Recorder
from lab.robots import EelSpec, SnakeSpec, TrackedSpec, WheeledSnakeSpec
from lab.core.runner import Simulation, run_scenario
from lab.core.state import ModelInfo, RobotState

ROOT = Path(__file__).resolve().parents[2]
BALANCE = {"residual_rel": 0.0, "residual_J": 0.0, "work_in_J": 0.0, "dissipated_J": 0.0}
GAIT_KEYS = ("time.rhythmic_s", "rhythm.period_s", "rhythm.recurrence_rate", "rhythm.lag_recurrence_end",
             "turn.radius_m", "turn.direction", "turn.swept_rad", "turn.fit_rms_m", "energy.eta2_com",
             "energy.omega_per_v_rad_m")


def urdf_link_masses(urdf: str) -> dict[str, float]:
    """Each link's mass as the URDF text states it (0 for a link without <inertial>)."""
    out = {}
    for link in ET.fromstring(urdf).iter("link"):
        mass = link.find("inertial/mass")
        out[link.get("name")] = 0.0 if mass is None else float(mass.get("value"))
    return out


def test_tracked_com_displacement_is_the_mass_weighted_com_of_the_urdf_masses():
    """The tracked robot (a 4 kg body among nine lighter links) climbing onto the step for 2 s: the
    reported COM displacement is that of Σ m_i p_i / Σ m_i with m_i read from the generated URDF and p_i
    the recorded link COMs — not the mean of the link positions the metric used to take."""
    sc = scn.load("tracked_step_climb", ["sim.duration=2.0"])
    sim = Simulation(sc)
    try:
        res = sim.run()
        names = sim.world.model.link_names  # the engine's link order, by name
    finally:
        sim.close()
    assert res.status == "ok"
    masses = urdf_link_masses(sc.robot.to_urdf())
    assert set(masses) == set(names)
    m = np.array([masses[n] for n in names])
    assert m.max() / m.min() > 100  # far from uniform: body 4.05 kg, drive marker 0.01 kg
    xy = res.series["xy"]  # (samples, links, 2) each link's COM in the world frame
    com = np.einsum("tnk,n->tk", xy, m) / m.sum()
    expected = float(np.linalg.norm(com[-1] - com[0]))
    # the same sums in another order: they agree to round-off
    assert res.metrics["com.displacement_m"] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert np.allclose(res.series["com"][:, :2], com, rtol=0, atol=1e-12)  # every recorded sample
    # the test can tell: the unweighted mean moved 0.48 mm more (measured 58.19 mm against 57.71 mm)
    unweighted = float(np.linalg.norm(xy[-1].mean(axis=0) - xy[0].mean(axis=0)))
    assert abs(unweighted - expected) > 2e-4
    assert not any(k.startswith("head.") for k in res.metrics)  # the tracked robot declares no head


def _model(mass) -> ModelInfo:
    n = len(mass)
    return ModelInfo(mass=np.asarray(mass, float), I_B=np.repeat(np.eye(3)[None] * 1e-3, n, axis=0),
                     link_length=0.1, gravity=9.81, effort=1.0)


def _state(model, p_W, t=0.0) -> RobotState:
    n = model.n_links
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    return RobotState(t=t, p_W=np.asarray(p_W, float), quat_W=quat, v_W=np.zeros((n, 3)), w_W=np.zeros((n, 3)),
                      q=np.zeros(n - 1), qd=np.zeros(n - 1), model=model)


def test_recorder_records_the_mass_weighted_com():
    """Links of 1 kg at x = 0 and 3 kg at x = 4: the COM is at x = 3, not at the mean x = 2."""
    model = _model([1.0, 3.0])
    rec = Recorder(n_steps=10, record_every=10, n_links=2, n_joints=1, dt=0.01, force_names=[])
    rec.start(_state(model, [[0.0, 0.0, 0.1], [4.0, 0.0, 0.5]]))
    com = rec.series()["com"]
    assert com.shape == (1, 3)
    assert com[0] == pytest.approx([3.0, 0.0, 0.4])


def _series(xy, com, n_joints=1):
    n = len(xy)
    t = np.linspace(0.0, 1.0, n)
    z = np.zeros(n)
    return {"t": t, "E": z, "E_T": z, "E_R": z, "W_in": z, "W_d": z, "xy": np.asarray(xy, float),
            "com": np.asarray(com, float), "q": np.zeros((n, n_joints)), "tau": np.zeros((n, n_joints))}


def test_com_metrics_follow_the_recorded_com_and_head_only_when_declared():
    # two links: the heavy one still, the light one walks a 3-4-5 path; the COM moves 0.5 m in x
    xy = np.zeros((3, 2, 2))
    xy[:, 1] = [[0.0, 0.0], [3.0, 0.0], [3.0, 4.0]]
    com = [[0.0, 0.0, 0.0], [0.25, 0.0, 0.0], [0.5, 0.0, 0.0]]
    m = run_metrics(_series(xy, com), BALANCE)
    assert m["com.displacement_m"] == pytest.approx(0.5)
    assert m["com.speed_mean_mps"] == pytest.approx(0.25 / 0.5)  # second half: 0.25 m in 0.5 s
    assert not any(k.startswith("head.") for k in m)
    m = run_metrics(_series(xy, com), BALANCE, head=1)
    assert m["head.path_length_m"] == pytest.approx(7.0)
    assert run_metrics(_series(xy, com), BALANCE, head=0)["head.path_length_m"] == 0.0


def test_undefined_metrics_are_absent():
    # no energy change and no dissipation in the window: η1 = ΔE / (ΔE + W_d) is 0/0
    m = run_metrics(_series(np.zeros((3, 2, 2)), np.zeros((3, 3))), BALANCE)
    assert "energy.eta1" not in m
    assert m["energy.kinetic_mean_J"] == 0.0


def test_specs_declare_their_head():
    assert SnakeSpec(n_modules=7).head_link == "link_6"
    assert EelSpec(n_links=5).head_link == "link_4"
    assert WheeledSnakeSpec().head_link == "head_tip"  # the paper's head point, in front of the head module
    assert TrackedSpec().head_link is None
    for spec in (SnakeSpec(), EelSpec(), WheeledSnakeSpec()):
        assert spec.head_link in urdf_link_masses(spec.to_urdf())


def test_creeping_gait_analyses_run_only_when_the_scenario_asks():
    """The flagship asks for them; the same run without them has the same generic metrics (the analyses
    only read the recorded series) and none of the creeping paper's."""
    asked = run_scenario(scn.load("snake_passive_creeping", ["sim.duration=0.5"]))
    plain = run_scenario(scn.load("snake_passive_creeping", ["sim.duration=0.5", "analyses=[]"]))
    for k in GAIT_KEYS:
        assert k in asked.metrics, k
        assert k not in plain.metrics, k
    generic = {k: v for k, v in plain.metrics.items() if k not in ("wall_time_s", "realtime_factor")}
    assert generic == {k: asked.metrics[k] for k in generic}
    for name in ("snake_passive_creeping", "snake_serpenoid", "snake_drag"):  # the creeping paper's scenarios
        assert scn.load(name).analyses == ("creeping_gait",), name
    for name in ("snake_unified_locomotion", "snake_head_tracking", "eel_forward_turn", "tracked_step_climb"):
        assert scn.load(name).analyses == (), name


def _gait_series(xy_head, n_links=3):
    """A 3-module snake whose links all follow ``xy_head`` (samples, 2), with a steady joint wave."""
    n = len(xy_head)
    t = np.linspace(0.0, 20.0, n)
    xy = np.repeat(np.asarray(xy_head, float)[:, None, :], n_links, axis=1)
    d = np.gradient(xy[:, 0, :], t, axis=0)
    yaw = np.repeat(np.arctan2(d[:, 1], d[:, 0])[:, None], n_links, axis=1)
    q = 0.3 * np.sin(2.0 * t[:, None] + np.array([0.0, 1.0]))
    E = 0.5 * np.ones(n)
    return {"t": t, "xy": xy, "yaw": yaw, "q": q, "qd": np.gradient(q, t, axis=0), "tau": q.copy(), "E": E,
            "E_T": 0.9 * E, "E_R": 0.1 * E}


def test_straight_path_has_no_fitted_radius_and_a_turn_has_one():
    from lab.papers.wang2011_creeping.gait import gait_metrics

    sc = scn.load("snake_passive_creeping")
    x = np.linspace(0.0, 2.0, 400)
    straight = gait_metrics(_gait_series(np.column_stack([x, 0.0 * x])), sc)
    assert straight["turn.direction"] == 0
    assert "turn.radius_fit_m" not in straight  # was ~1e7 m: a circle fitted to a straight line
    assert math.isinf(straight["turn.radius_m"])  # written as null
    a = np.linspace(0.0, 2.0, 400)
    turn = gait_metrics(_gait_series(np.column_stack([0.8 * np.cos(a), 0.8 * np.sin(a)])), sc)
    assert turn["turn.direction"] == 1
    assert turn["turn.radius_fit_m"] == pytest.approx(0.8, rel=1e-6)


def test_unknown_analysis_is_refused_in_one_line(capsys, tmp_path):
    with pytest.raises(LabError, match="analyses: unknown analysis 'nope'; allowed: creeping_gait"):
        scn.load("snake_serpenoid", ['analyses=["nope"]'])
    with pytest.raises(LabError, match="analyses: must be a list of names"):
        scn.load("snake_serpenoid", ["analyses=creeping_gait"])
    code = main(["run", "snake_serpenoid", "--set", 'analyses=["nope"]', "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and "analyses" in err[0], err
    assert not (tmp_path / "o").exists()


def test_metrics_module_imports_no_other_lab_module():
    """lab.analysis.energy and lab.analysis.recurrence import lab.core.metrics (second_half); metrics must not
    import back, at module level or inside a function, or the two form an import cycle."""
    tree = ast.parse((ROOT / "lab" / "core" / "metrics.py").read_text())
    lab_imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                   and ((isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("lab")))
                        or (isinstance(node, ast.Import) and any(a.name.startswith("lab") for a in node.names)))]
    assert lab_imports == [], [ast.unparse(n) for n in lab_imports]
