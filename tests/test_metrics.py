"""Generic run metrics are right for every robot: the mass-weighted centre of mass, ``head.*`` only for a
robot that declares a head."""

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from lab import scenario as scn
from lab.metrics import run_metrics
from lab.recorder import Recorder
from lab.robots import EelSpec, SnakeSpec, TrackedSpec, WheeledSnakeSpec
from lab.runner import Simulation
from lab.state import ModelInfo, RobotState

ROOT = Path(__file__).resolve().parents[1]
BALANCE = {"residual_rel": 0.0, "residual_J": 0.0, "work_in_J": 0.0, "dissipated_J": 0.0}


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
