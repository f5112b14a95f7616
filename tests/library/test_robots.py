"""Every generated robot: loads, valid inertia (as the engine sees it), passes check_urdf,
survives 1 s of pseudo-random torques, and the committed default URDFs are reproducible."""

import re
import subprocess

import numpy as np
import pytest
from conftest import ROOT, need_tool

from lab.robots import ROBOTS, EelSpec, SnakeSpec
from lab.robots.assets import ASSET_DIR, default_assets
from lab.robots.urdf import MassProps, fmt
from lab.core.tolerances import tol
from lab.core.world import World

SPECS = [SnakeSpec(), SnakeSpec(n_modules=2), SnakeSpec(n_modules=30, module_length=0.1, mass=0.3), EelSpec(),
         EelSpec(n_links=4)]


def test_committed_assets_are_reproduced_byte_for_byte():
    for rel, text in default_assets().items():
        path = ASSET_DIR / rel
        assert path.exists(), f"{rel} missing: run `make urdf`"
        assert path.read_bytes() == text.encode("utf-8"), f"{rel} differs from the generator: run `make urdf`"


def test_urdf_numbers_are_plain_floats():
    assert fmt(np.float64(0.5)) == "0.5"
    text = SnakeSpec(module_length=float(np.float64(0.08))).to_urdf()
    assert "np." not in text and "float64" not in text
    for value in re.findall(r'(?:value|ixx|iyy|izz|effort|lower|upper)="([^"]+)"', text):
        float(value)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{type(s).__name__}-{s.n_links}")
def test_check_urdf_accepts_generated_robot(spec, tmp_path):
    exe = need_tool("check_urdf")
    f = tmp_path / "robot.urdf"
    f.write_text(spec.to_urdf())
    res = subprocess.run([exe, str(f)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Successfully Parsed XML" in res.stdout


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{type(s).__name__}-{s.n_links}")
def test_engine_inertia_is_the_spec_inertia_and_physical(spec):
    mp = spec.mass_props()
    assert mp.is_physical()
    w = World()
    try:
        w.load_robot(spec.to_urdf(), [0, 0, spec.rest_height], 0.0, spec.link_length, spec.effort)
        assert w.n_links == spec.n_links
        for i in range(w.n_links):
            I = w.model.I_B[i]
            assert MassProps(w.model.mass[i], (0, 0, 0), I).is_physical()
            np.testing.assert_allclose(np.diag(I), np.diag(mp.inertia), rtol=tol("robot.inertia_rel"))
            assert w.model.mass[i] == pytest.approx(mp.mass, rel=1e-9)
            assert w.client.getDynamicsInfo(w.robot, i - 1)[1] == 0.0  # engine tangential friction off
    finally:
        w.close()


def test_snake_inertia_matches_wang2011_table1():
    I = SnakeSpec().mass_props().inertia
    assert I[2, 2] == pytest.approx(2.7e-4, rel=0.02)  # Table 1: I = 0.00027 kg·m²


def test_eel_is_neutrally_buoyant_per_zhang2018():
    e = EelSpec()
    assert e.mass == pytest.approx(1000 * np.pi * 0.0375**2 * 2 * 0.0626)


def test_mass_props_reject_unphysical_inertia():
    assert not MassProps(1.0, (0, 0, 0), np.diag([1.0, 1.0, 3.0])).is_physical()  # triangle inequality
    assert not MassProps(1.0, (0, 0, 0), np.diag([1.0, -1.0, 1.0])).is_physical()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{type(s).__name__}-{s.n_links}")
def test_random_torques_for_one_second_stay_finite(spec):
    rng = np.random.default_rng(42)
    w = World(dt=0.001)
    try:
        w.load_robot(spec.to_urdf(), [0, 0, spec.rest_height], 0.0, spec.link_length, spec.effort)
        state = w.read_state()
        for _ in range(1000):
            tau = rng.uniform(-1, 1, w.n_joints) * spec.effort
            w.apply(tau, None, state)
            w.step_engine()
            state = w.read_state()
            assert state.is_finite()
        assert state.p_W[:, 2].min() > spec.rest_height + tol("robot.random_torque_floor_m")
    finally:
        w.close()


def test_robot_specs_validate_fields():
    with pytest.raises(ValueError, match="n_modules"):
        SnakeSpec(n_modules=1)
    with pytest.raises(ValueError, match="radius"):
        SnakeSpec(radius=0.5)
    with pytest.raises(ValueError, match="density"):
        EelSpec(density=-1.0)
    assert set(ROBOTS) >= {"snake", "eel"}


def test_urdf_cli_writes_file(tmp_path, lab_cmd):
    out = tmp_path / "s12.urdf"
    res = subprocess.run([*lab_cmd, "urdf", "snake", "--set", "n_modules=12", "-o", str(out)], capture_output=True,
                         text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert out.read_text() == SnakeSpec(n_modules=12).to_urdf()
