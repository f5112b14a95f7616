"""The hydrodynamics law's linearly implicit scheme (``[forces.<name>] scheme = "implicit"``,
lab.forces.hydrodynamics.hydro_implicit): backward Euler on a lone link's linear drag, stable where the
explicit drag is not, and one eel link in the engine decaying as the closed form of Zhang 2018's law
(eqs. 22, 27) says, at first order in the step, at 2 to 16 ms."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import make_state
from lab.forces.hydrodynamics import Hydrodynamics, hydro_implicit, hydro_loops


def _decay(scheme_dt: float, dt: float, steps: int, c: float = 9.375, m: float = 1.105, v0: float = 0.2):
    """One link's across-axis speed under linear drag, integrated as the engine does (v += dt F/m), with
    the force of hydro_implicit at ``scheme_dt`` (0: the explicit law)."""
    R = np.eye(3)[None]
    v = np.array([[0.0, v0, 0.0]])
    w = np.zeros((1, 3))
    out = []
    for _ in range(steps):
        F, _ = hydro_implicit(R, v, w, np.zeros((1, 3)), np.zeros((1, 3)), np.zeros(1), 0.0, c, 0.0, 0.0, 0.0, 0,
                              0.0, 0.0, False, 0.0, 0.0, 0.0, scheme_dt, np.array([m]), np.array([m]), np.array([1.0]))
        v = v + dt * F / m
        out.append(v[0, 1])
    return np.array(out)


def test_implicit_linear_drag_is_backward_euler_and_stable_beyond_the_explicit_bound():
    """v_k = v0/(1 + dt c/m)^k exactly; at dt = 0.3 s > 2m/c = 0.236 s the explicit drag flips the sign
    every step and grows, the implicit one decays monotonically."""
    c, m, v0 = 9.375, 1.105, 0.2
    for dt in (0.002, 0.01, 0.3):
        v = _decay(dt, dt, 20)
        np.testing.assert_allclose(v, v0 / (1 + dt * c / m) ** np.arange(1, 21), rtol=1e-13)
    explicit = _decay(0.0, 0.3, 20)
    assert np.all(np.diff(np.sign(explicit)) != 0) and abs(explicit[-1]) > v0, "explicit beyond 2m/c: grows"
    implicit = _decay(0.3, 0.3, 20)
    assert np.all(implicit > 0) and np.all(np.diff(implicit) < 0)


def test_explicit_scheme_is_the_implicit_kernel_at_dt_zero():
    """hydro_loops (the shipped, explicit law) is hydro_implicit at dt = 0, bit for bit, on general states."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(2)
    n = 5
    s = make_state(yaw=np.zeros(n), v_W=rng.normal(size=(n, 3)) * 0.3, w_W=rng.normal(size=(n, 3)))
    R = Rotation.random(n, random_state=4).as_matrix()
    law = Hydrodynamics(c_t2=0.7, c_n2=3.0, current=(0.1, -0.2))
    a = rng.normal(size=(n, 3))
    args = law._loop_args
    weight = s.model.mass * s.model.gravity
    F0, T0 = hydro_loops(R, s.v_W, s.w_W, a, a, weight, *args)
    F1, T1 = hydro_implicit(R, s.v_W, s.w_W, a, a, weight, *args, 0.0, weight, weight, weight)
    assert np.array_equal(F0, F1) and np.array_equal(T0, T1)
    F2, T2 = hydro_implicit(R, s.v_W, s.w_W, a, a, weight, *args, 0.01, s.model.mass, s.model.mass, np.ones(n))
    assert np.all(np.abs(F2[:, :2]) <= np.abs(F0[:, :2]) + 1e-15), "the implicit drag is never larger"


@pytest.mark.slow
def test_engine_link_decays_as_the_closed_form_at_first_order():
    """One eel link in still water under the implicit scheme: across, along and spin against the closed
    form v = c v0 e^{−ct/M} / (c + c₂ v0 (1 − e^{−ct/M})), max error / x0 over 1 s; the error halves
    with the step from 16 to 2 ms (first order), 3.6 % across at 20 ms (the explicit: 1.6 % at 8 ms)."""
    from lab.papers.zhang2018_eel import study as trial
    from lab.papers.zhang2018_eel.analysis import hydro_law
    from lab.papers.zhang2018_eel.checks import decay_closed_form, link_decay

    errs = {}
    for dt in (0.016, 0.008, 0.004, 0.002):
        sc = trial.load([f"sim.dt={dt}", "forces.hydro.scheme=implicit"])
        law = hydro_law(sc)
        dry = sc.robot.dry_mass_props()
        m, J = dry.mass, float(dry.inertia[2, 2])
        for label, v0_B, w0, col, M, c, c2, x0 in (
                ("across", (0.0, 0.2), 0.0, 2, m + law.u_n, law.c_n, law.cn2, 0.2),
                ("spin", (0.0, 0.0), 2.0, 3, J + law.lambda1, law.lambda2, law.lambda3, 2.0)):
            run = link_decay(sc, v0_B, w0)
            errs.setdefault(label, []).append(
                float(np.abs(run[col] - decay_closed_form(x0, M, c, c2, run[0])).max()) / x0)
    for label, e in errs.items():
        ratios = np.array(e[:-1]) / np.array(e[1:])
        assert np.all((ratios > 1.7) & (ratios < 2.3)), (label, e, ratios)
