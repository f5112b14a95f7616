"""The hydrodynamics law (Zhang 2018 eqs. 22–27): closed forms on hand-made states, and the added-mass
formulation's stability on the engine (a link pushed in still water decays as m v̇ = −c v − c₂|v|v says,
with and without doubling u_n)."""

import math

import numpy as np
import pytest
from conftest import make_state

from lab.core import scenario as scn
from lab.arenas import Water
from lab.core.errors import LabError
from lab.forces import FORCES, Wrench
from lab.forces.hydrodynamics import Hydrodynamics
from lab.robots.eel import EelSpec
from lab.core.tolerances import tol
from lab.core.world import World
from oracles.hydrodynamics import reference, terms

U_N, LAMBDA1 = 0.5522, 7.1905e-4


# ---------------------------------------------------------------- the law on hand-made states


def test_registered_and_defaults_are_the_papers():
    assert FORCES["hydrodynamics"] is Hydrodynamics
    law = Hydrodynamics()
    assert (law.c_t, law.c_n, law.u_n, law.lambda1, law.lambda2, law.lambda3) == \
        (0.2209, 9.3750, 0.5522, 7.1905e-4, 0.0015, 7.1526e-5)
    assert law.ct2 == law.c_t and law.cn2 == law.c_n


def test_drag_in_the_link_frame_and_buoyancy():
    """A link at yaw 30° moving with (v_t, v_n) = (0.2, −0.1): f = −(c v + c₂|v|v) per axis, rotated back."""
    yaw = math.radians(30)
    t_W = np.array([math.cos(yaw), math.sin(yaw), 0])
    n_W = np.array([-math.sin(yaw), math.cos(yaw), 0])
    v = 0.2 * t_W - 0.1 * n_W
    s = make_state(yaw=[yaw], v_W=[v], mass=0.7, g=9.81)
    law = Hydrodynamics(added_mass="none")
    w = law(s, 0.0)
    assert isinstance(w, Wrench)
    ft = -(0.2209 * 0.2 + 0.2209 * 0.04)
    fn = -(9.375 * -0.1 + 9.375 * 0.1 * -0.1)
    np.testing.assert_allclose(w.F_W[0, :2], (ft * t_W + fn * n_W)[:2], atol=1e-12)
    assert w.F_W[0, 2] == pytest.approx(0.7 * 9.81)  # neutral buoyancy: the engine mass's weight
    assert np.dot(w.F_W[0, :2], v[:2]) < 0  # drag takes energy out


def test_current_makes_drag_relative_and_adds_kelasidis_term():
    """In a current V_c the drag acts on v − V_c; a link turning at ω_z gets −u_n ω_z (t·V_c) n."""
    Vc = (0.3, 0.1)
    s = make_state(yaw=[0.4], v_W=[[0.3, 0.1, 0.0]], w_W=[[0, 0, 0.5]])  # drifting with the current
    law = Hydrodynamics(current=Vc, added_mass="folded", buoyancy=False, lambda2=0.0, lambda3=0.0)
    w = law(s, 0.0)
    t_W = np.array([math.cos(0.4), math.sin(0.4), 0])
    n_W = np.array([-math.sin(0.4), math.cos(0.4), 0])
    np.testing.assert_allclose(w.F_W[0], -U_N * 0.5 * np.dot(t_W[:2], Vc) * n_W, atol=1e-12)


def test_fluid_torque_eq27():
    s = make_state(yaw=[0.0, 0.1], w_W=[[0, 0, 2.0], [0, 0, -1.0]])
    law = Hydrodynamics(added_mass="none", buoyancy=False)
    T = law(s, 0.0).T_W
    np.testing.assert_allclose(T[:, 2], [-0.0015 * 2 - 7.1526e-5 * 4, 0.0015 + 7.1526e-5], atol=1e-15)
    np.testing.assert_allclose(T[:, :2], 0)


def test_added_mass_forms():
    """folded: +u_n t(t·a) undoes the tangential share of the isotropic folded mass; lagged: −u_n n(n·a)."""
    s = make_state(yaw=[0.3], v_W=[[0.0, 0.0, 0.0]])
    s.__dict__["a_W"] = np.array([[1.0, 2.0, 0.0]])
    s.__dict__["dw_W"] = np.array([[0.0, 0.0, 3.0]])
    t_W = np.array([math.cos(0.3), math.sin(0.3), 0])
    n_W = np.array([-math.sin(0.3), math.cos(0.3), 0])
    a = np.array([1.0, 2.0, 0.0])
    kw = dict(buoyancy=False, lambda2=0.0, lambda3=0.0)
    folded = Hydrodynamics(added_mass="folded", **kw)(s, 0.0)
    np.testing.assert_allclose(folded.F_W[0], U_N * np.dot(a, t_W) * t_W, atol=1e-12)
    np.testing.assert_allclose(folded.T_W, 0)
    lagged = Hydrodynamics(added_mass="lagged", **kw)(s, 0.0)
    np.testing.assert_allclose(lagged.F_W[0], -U_N * np.dot(a, n_W) * n_W, atol=1e-12)
    assert lagged.T_W[0, 2] == pytest.approx(-LAMBDA1 * 3.0)
    # folded mass (m + u_n) I minus the correction u_n t tᵀ is m I + u_n n nᵀ: the same effective mass
    m = 0.55
    eff_folded = (m + U_N) * a[:2] - U_N * np.dot(a, t_W) * t_W[:2]
    eff_lagged = m * a[:2] + U_N * np.dot(a, n_W) * n_W[:2]
    np.testing.assert_allclose(eff_folded, eff_lagged, atol=1e-12)


@pytest.mark.parametrize("mode", ["folded", "lagged", "none"])
def test_terms_sum_to_the_law(mode):
    rng = np.random.default_rng(0)
    s = make_state(yaw=rng.uniform(-1, 1, 4), v_W=rng.normal(size=(4, 3)) * 0.2, w_W=rng.normal(size=(4, 3)))
    s.__dict__["a_W"] = rng.normal(size=(4, 3))
    s.__dict__["dw_W"] = rng.normal(size=(4, 3))
    law = Hydrodynamics(added_mass=mode, current=(0.1, -0.2))
    parts = terms(law, s).values()
    w = law(s, 0.0)
    np.testing.assert_allclose(sum(p.F_W for p in parts), w.F_W, atol=1e-12)
    np.testing.assert_allclose(sum(p.T_W for p in parts if p.T_W is not None), w.T_W, atol=1e-12)


def test_bad_parameters_and_inconsistent_scenarios_are_rejected():
    with pytest.raises(ValueError, match="added_mass"):
        Hydrodynamics(added_mass="implicit")
    with pytest.raises(ValueError, match="current"):
        Hydrodynamics(current=(1.0,))
    with pytest.raises(LabError, match="added_mass"):  # the robot does not carry the folded u_n
        scn.load("eel_forward_turn", ["robot.added_mass=0.0"])
    with pytest.raises(LabError, match="c_n"):  # the controller linearises another c_n
        scn.load("eel_forward_turn", ["forces.hydro.c_n=5.0"])
    scn.load("eel_forward_turn", ["forces.hydro.c_n=5.0", "controller.c_n=5.0"])


# ---------------------------------------------------------------- engine: the stability of the added mass


def closed_form_speed(v0: float, M: float, c: float, c2: float, t: np.ndarray) -> np.ndarray:
    """v(t) of M v̇ = −c v − c₂|v|v, v0 > 0: v = c v0 e^{−ct/M} / (c + c₂ v0 (1 − e^{−ct/M}))."""
    E = np.exp(-c * t / M)
    return c * v0 * E / (c + c2 * v0 * (1.0 - E))


def push_link(u_n: float, mode: str, v0_B, duration: float = 1.0, dt: float = 0.001):
    """One eel link in still water launched with body-frame velocity v0_B; returns t, v_t, v_n, m_dry."""
    folded = mode == "folded"
    spec = EelSpec(added_mass=u_n if folded else 0.0, added_yaw_inertia=LAMBDA1 if folded else 0.0)
    law = Hydrodynamics(u_n=u_n, added_mass=mode)
    world = World(dt=dt, gravity=9.81, arena=Water())
    try:
        yaw = 0.5
        world.load_robot(spec.module_urdf(), [0, 0, 0.5], yaw, spec.link_length, spec.effort)
        c, s = math.cos(yaw), math.sin(yaw)
        world.set_base_velocity([c * v0_B[0] - s * v0_B[1], s * v0_B[0] + c * v0_B[1], 0.0])
        state = world.read_state()
        ts, vt, vn, z = [], [], [], []
        for _ in range(int(round(duration / dt))):
            world.apply(None, law(state, state.t), state)
            world.step_engine()
            state = world.read_state()
            v = state.v_W[0]
            ts.append(state.t)
            vt.append(c * v[0] + s * v[1])
            vn.append(-s * v[0] + c * v[1])
            z.append(state.p_W[0, 2])
            if not np.isfinite(v).all() or np.abs(v).max() > 100:
                break
        return np.array(ts), np.array(vt), np.array(vn), np.array(z), spec.mass
    finally:
        world.close()


@pytest.mark.parametrize("u_n", [U_N, 2 * U_N])
def test_folded_added_mass_decays_as_the_closed_form(u_n):
    """Launched obliquely, each axis decays on its own: along the link with the dry mass m (the lagged
    tangential correction removes the folded u_n), across it with m + u_n. Doubling u_n changes the
    decay rate as the closed form says and does not destabilise the correction (gain u_n/(m+u_n) < 1)."""
    v0t, v0n = 0.3, 0.2
    t, vt, vn, z, m = push_link(u_n, "folded", (v0t, v0n))
    assert len(t) == 1000
    c_t, c_n = 0.2209, 9.375
    err_t = np.abs(vt - closed_form_speed(v0t, m, c_t, c_t, t)).max() / v0t
    err_n = np.abs(vn - closed_form_speed(v0n, m + u_n, c_n, c_n, t)).max() / v0n
    assert err_t < tol("hydro.decay_rel") and err_n < tol("hydro.decay_rel"), (err_t, err_n)
    np.testing.assert_allclose(z, 0.5, atol=1e-9)  # neutral buoyancy: no sinking


def test_lagged_added_mass_is_unstable_at_twice_u_n():
    """Why the law folds: an explicit −u_n n(n·a) with last step's a feeds back with gain −u_n/m. At the
    paper's u_n ≈ m the normal acceleration rings at the Nyquist frequency; at 2u_n it grows."""
    t, vt, vn, z, m = push_link(2 * U_N, "lagged", (0.0, 0.2), duration=0.2)
    assert len(t) < 200 or np.abs(vn).max() > 10.0  # blew up (stopped early) or is running away
    t, vt, vn, z, m = push_link(U_N, "lagged", (0.0, 0.2), duration=0.2)
    a = np.diff(vn) / np.diff(t)
    flips = np.mean(np.sign(a[1:]) != np.sign(a[:-1]))
    assert flips > 0.5  # the acceleration changes sign nearly every step: the ringing


def test_eel_with_doubled_added_mass_swims_stably():
    from lab.core.runner import run_scenario

    sc = scn.load("eel_forward_turn", ["sim.duration=3.0", f"forces.hydro.u_n={2 * U_N}",
                                       f"controller.u_n={2 * U_N}", f"robot.added_mass={2 * U_N}"])
    r = run_scenario(sc)
    assert r.status == "ok"
    com = r.series["xy"].mean(axis=1)
    assert 0.1 < np.linalg.norm(com[-1] - com[0]) < 2.0


def test_engine_joint_convention_matches_the_models():
    """Set the lab's joint angles q on the engine eel and compare the link COMs with the model's
    kinematics for φ = −q (paper convention, tail first)."""
    from lab.papers.zhang2018_eel.model.params import link_angles, link_positions, phi_from_q

    spec = EelSpec()
    world = World(dt=0.001, arena=Water())
    try:
        world.load_spec(spec, [0, 0, 0.5], 0.2)
        rng = np.random.default_rng(3)
        q = rng.uniform(-0.6, 0.6, spec.n_links - 1)
        world.set_joint_angles(q)
        s = world.read_state()
        theta0 = float(np.mean(s.yaw[0] + np.concatenate([[0], np.cumsum(q)])))
        theta = link_angles(phi_from_q(q), theta0, spec.n_links)
        np.testing.assert_allclose(np.unwrap(s.yaw), theta, atol=1e-9)
        X, Y = link_positions(theta, s.p_W[:, :2].mean(axis=0), spec.half_length)
        np.testing.assert_allclose(s.p_W[:, 0], X, atol=1e-9)
        np.testing.assert_allclose(s.p_W[:, 1], Y, atol=1e-9)
    finally:
        world.close()


# ---------------------------------------------------------------- the three-way check, briefly


def test_eel_checks_pass_on_a_short_run(tmp_path, capsys):
    """`lab check eel_models eel_engine` end to end over the first 4 s (the full 50 s is `make check`)."""
    import json

    from lab.cli import main

    code = main(["check", "eel_models", "eel_engine", "--set", "sim.duration=4.0", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads((tmp_path / "checks.json").read_text())
    assert set(data["eel_engine"]) >= {"eel.heading_rms_deg", "eel.com_err_rel", "eel.torque_nrmse"}
    assert "eel.models_max_rel" in data["eel_models"]
    assert all(f["passed"] for c in data.values() for f in c.values())


def test_engine_controller_tracks_the_reference():
    """φ = −q follows eq. 34 with the error dynamics of eq. 38: feedback linearisation makes the joint error
    e = φ_ref − φ obey ë + K_d ė + K_p e = 0 from e(0) = φ_ref(0), ė(0) = φ̇_ref(0) (the eel starts straight
    and at rest). Past the fast pole's start-up, the engine's error departs from that closed form only by
    the step's first-order error (the engine is not the model the controller linearises)."""
    from lab.papers.zhang2018_eel.controllers import reference
    from lab.core.runner import run_scenario

    sc = scn.load("eel_forward_turn", ["sim.duration=4.0"])
    r = run_scenario(sc)
    s, p = r.series, sc.controller
    t = s["t"]
    k = t > 3.0
    e = np.array([reference(p, tt, 8)[0] for tt in t]) + s["q"]  # φ_ref − φ, φ = −q
    slow, fast = sorted(np.roots([1.0, p.kd, p.kp]).real, reverse=True)  # −2.04 and −97.96 s⁻¹
    r0, rd0, _ = reference(p, 0.0, 8)
    a_slow = (rd0 - fast * r0) / (slow - fast)
    e38 = np.outer(np.exp(slow * t), a_slow) + np.outer(np.exp(fast * t), r0 - a_slow)
    assert np.abs(e38[k]).max() > 1e-3  # eq. 38's remainder is not negligible at t > 3 s …
    assert np.abs(e[k] - e38[k]).max() < tol("eel.tracking_rad")  # … and the engine follows it
    assert np.abs(e[k]).max() > np.abs(e[k] - e38[k]).max()  # eq. 38 explains part of the error


@pytest.mark.parametrize("group", ["linear drag", "quadratic drag", "added mass (u_n, λ1)", "fluid torques (λ2, λ3)"])
def test_term_overrides_give_consistent_scenarios(group):
    from lab.papers.zhang2018_eel.analysis import hydro_law, model_params_from_scenario
    from lab.papers.zhang2018_eel.study import TERMS, term_overrides

    sc = scn.load("eel_forward_turn", term_overrides(TERMS[group]))  # the loader's cross-checks pass
    P = model_params_from_scenario(sc)
    law = hydro_law(sc)
    on = {"linear drag": P.c_n, "quadratic drag": P.c_n2, "added mass (u_n, λ1)": P.u_n,
          "fluid torques (λ2, λ3)": P.lambda2}
    assert on[group] > 0 and sum(v > 0 for v in on.values()) == 1
    assert (sc.robot.added_mass > 0) == (law.u_n > 0)


@pytest.mark.parametrize("mode", ["folded", "lagged", "none"])
@pytest.mark.parametrize("current", [(0.0, 0.0), (0.1, -0.2)])
def test_compiled_loops_equal_the_numpy_reference(mode, current):
    """Hydrodynamics.__call__ (the compiled hydro_loops) against the vectorised oracle, with links in
    general 3-D orientations (drag along b too), and hydro_loops run as plain Python."""
    from scipy.spatial.transform import Rotation

    from lab.forces.hydrodynamics import _MODES, hydro_loops

    rng = np.random.default_rng(1)
    n = 6
    s = make_state(yaw=np.zeros(n), v_W=rng.normal(size=(n, 3)) * 0.3, w_W=rng.normal(size=(n, 3)))
    s.__dict__["R_WB"] = Rotation.random(n, random_state=3).as_matrix()
    s.__dict__["a_W"] = rng.normal(size=(n, 3))
    s.__dict__["dw_W"] = rng.normal(size=(n, 3))
    law = Hydrodynamics(added_mass=mode, current=current, c_t2=0.7, c_n2=3.0)
    ref, fast = reference(law, s), law(s, 0.0)
    scale = np.abs(ref.F_W).max()
    np.testing.assert_allclose(fast.F_W, ref.F_W, rtol=1e-13, atol=1e-14 * scale)
    np.testing.assert_allclose(fast.T_W, ref.T_W, rtol=1e-13, atol=1e-16)
    as_python = getattr(hydro_loops, "py_func", hydro_loops)
    F, T = as_python(s.R_WB, s.v_W, s.w_W, s.a_W, s.dw_W, s.model.mass * s.model.gravity, law.c_t, law.c_n,
                     law.ct2, law.cn2, law.u_n, _MODES[mode], *current, True, law.lambda1, law.lambda2, law.lambda3)
    np.testing.assert_allclose(F, ref.F_W, rtol=1e-13, atol=1e-14 * scale)
    np.testing.assert_allclose(T, ref.T_W, rtol=1e-13, atol=1e-16)
