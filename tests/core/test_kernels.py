"""The compiled loops of the step (lab.core.kernels) and of the laws beside them (the Coulomb law, the gaits)
against their numpy oracles (tests/oracles/) and closed forms on hand-made states."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import oracles.friction
import oracles.kernels
import oracles.passive_creeping
import oracles.serpenoid
import pytest

from lab.core import kernels
from lab.controllers import passive_creeping, serpenoid
from lab.forces import friction

REL = 1e-13  # different evaluation order (loops vs vectorised sums) and libm vs numpy tanh/sin: rounding only


def _rotations(rng, n):
    """n random proper rotations (from normalised quaternions, as the engine reports them)."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], 1)


@pytest.mark.parametrize("n", [1, 2, 10, 31])
@pytest.mark.parametrize("seed", range(5))
def test_energies_match_reference(n, seed):
    rng = np.random.default_rng(seed)
    v, w = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    R, m, I = _rotations(rng, n), rng.uniform(0.1, 1, n), rng.uniform(1e-4, 1e-2, (n, 3))
    ref = oracles.kernels.energies(v, w, R, m, I)
    got = kernels.energies(v, w, R, m, I)
    np.testing.assert_allclose(got, ref, rtol=REL)
    # and against the plain definition ½ Σ m v² + ½ Σ ωᵀ (R I Rᵀ) ω, world-frame inertia
    I_W = np.einsum("nij,nj,nkj->nik", R, I, R)
    assert got[1] == pytest.approx(0.5 * np.einsum("ni,nij,nj->", w, I_W, w), rel=1e-12)


@pytest.mark.parametrize("head_exempt", [True, False])
@pytest.mark.parametrize("mu", [(0.03, 0.03, 0.3), (0.01, 0.2, 0.5)])
@pytest.mark.parametrize("seed", range(4))
def test_coulomb_matches_reference_and_closed_form(head_exempt, mu, seed):
    rng = np.random.default_rng(seed)
    n = 10
    R, v = _rotations(rng, n), rng.normal(scale=0.02, size=(n, 3))
    load = rng.uniform(1, 5, n)
    args = (R, v, load, *mu, 0.01, head_exempt)
    ref = oracles.friction.coulomb(*args)
    got = friction.coulomb(*args)
    np.testing.assert_allclose(got, ref, rtol=REL, atol=1e-15)
    # closed form per link: F = −μ N tanh(v·e/v_s) e summed over the ground-plane tangent and normal
    for i in range(n - 1 if head_exempt else n):
        t = R[i, :, 0].copy()
        t[2] = 0.0
        t /= np.linalg.norm(t)
        nrm = np.array([-t[1], t[0], 0.0])
        vt, vn = v[i] @ t, v[i] @ nrm
        mu_t = mu[0] if vt >= 0 else mu[1]
        F = -mu_t * load[i] * math.tanh(vt / 0.01) * t - mu[2] * load[i] * math.tanh(vn / 0.01) * nrm
        np.testing.assert_allclose(got[i], F, rtol=1e-12, atol=1e-15)
    if head_exempt:
        assert not got[-1].any()


def test_power_kernels_match_reference():
    rng = np.random.default_rng(3)
    F, a, b = rng.normal(size=(3, 12, 3))
    assert kernels.power2(F, a, b) == pytest.approx(oracles.kernels.power2(F, a, b), rel=REL)
    assert kernels.power2(F, a, b) == pytest.approx(float(np.sum(F * a) + np.sum(F * b)), rel=REL)
    tau, qa, qb = rng.normal(size=(3, 9))
    assert kernels.joint_power2(tau, qa, qb) == pytest.approx(oracles.kernels.joint_power2(tau, qa, qb), rel=REL)


@pytest.mark.parametrize("seed", range(4))
def test_controller_kernels_match_reference(seed):
    rng = np.random.default_rng(seed)
    q, qd = rng.normal(scale=0.6, size=(2, 9))
    args = (q, 0.7, 0.4, 0.5)
    got = passive_creeping.coupling_torques(*args)
    np.testing.assert_array_equal(got, oracles.passive_creeping.coupling_torques(*args))
    assert got[-1] == 0.4 and np.all(np.abs(got) <= 0.5)
    args = (1.234, q, qd, 0.5, 2.0, 2 * math.pi / 9, 0.05, 2.0, 0.1, 0.3)
    np.testing.assert_allclose(serpenoid.serpenoid(*args), oracles.serpenoid.serpenoid(*args), rtol=REL, atol=1e-15)


def test_kernels_accept_strided_views():
    """The World's snapshot arrays are column views of one (N, 13) array: the kernels must read them
    as they are (numba compiles a strided specialisation), with the same result as contiguous copies."""
    rng = np.random.default_rng(7)
    a = rng.normal(size=(10, 13))
    v, w = a[:, 7:10], a[:, 10:13]
    R, m, I = _rotations(rng, 10), np.ones(10), np.full((10, 3), 1e-3)
    assert kernels.energies(v, w, R, m, I) == pytest.approx(kernels.energies(v.copy(), w.copy(), R, m, I), rel=0)


_NO_JIT = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from lab.core import kernels
from lab.forces import friction
from oracles.friction import coulomb
rng = np.random.default_rng(2)
q = rng.normal(size=(6, 4))
q /= np.linalg.norm(q, axis=1, keepdims=True)
x, y, z, w = q.T
R = np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
              np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
              np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], 1)
args = (R, rng.normal(scale=0.02, size=(6, 3)), rng.uniform(1, 5, 6), 0.01, 0.2, 0.5, 0.01, True)
got = friction.coulomb(*args)
print(json.dumps({"compiled": kernels.COMPILED, "backend": kernels.BACKEND,
                  "plain": type(friction.coulomb).__name__ == "function",
                  "err": float(np.abs(got - coulomb(*args)).max()), "scale": float(np.abs(got).max())}))
"""


def test_the_loops_run_as_plain_python_under_numba_disable_jit():
    """Debugging without the compiler: with NUMBA_DISABLE_JIT=1 a law's loop is the plain Python
    function and gives the oracle's forces (a fresh process: numba reads the switch at import)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": path}
    out = subprocess.run([sys.executable, "-c", _NO_JIT, os.path.join(root, "tests")], env=env, capture_output=True,
                         text=True, check=True, timeout=120)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["compiled"] is False and r["plain"] and "NUMBA_DISABLE_JIT" in r["backend"]
    assert r["scale"] > 0.01 and r["err"] <= 1e-13 * r["scale"]


@pytest.mark.parametrize("name", ["snake_passive_creeping", "snake_serpenoid"])
def test_run_with_compiled_loops_matches_the_numpy_oracles(name, monkeypatch):
    """A whole run through the compiled loops and through the numpy oracles: the same physics, only
    rounding apart (1 s; differences start at 1e-16 and stay far below any physical scale)."""
    from lab.core import scenario as scn
    from lab.core import world
    from lab.core.runner import run_scenario

    def run():
        return run_scenario(scn.load(name, ["sim.duration=1.0"])).series

    a = run()
    for key in ("energies", "power2", "joint_power2", "contact_power2", "ledger_powers"):
        monkeypatch.setattr(kernels, key, getattr(oracles.kernels, key))
    monkeypatch.setattr(world, "contact_rows", oracles.kernels.contact_rows)
    monkeypatch.setattr(world, "snapshot", oracles.kernels.snapshot)  # the energies inside it: the oracle's
    monkeypatch.setattr(friction, "coulomb", oracles.friction.coulomb)
    monkeypatch.setattr(passive_creeping, "coupling_torques", oracles.passive_creeping.coupling_torques)
    monkeypatch.setattr(serpenoid, "serpenoid", oracles.serpenoid.serpenoid)
    monkeypatch.setattr(serpenoid, "serpenoid_spd", oracles.serpenoid.serpenoid_spd)  # its implicit servo
    b = run()
    assert np.abs(a["E"]).max() > 1e-6  # something moved
    for k in ("xy", "q", "tau", "E", "W_in", "W_d"):
        np.testing.assert_allclose(a[k], b[k], rtol=1e-8, atol=1e-12, err_msg=k)


def _raw_contacts(rng, k):
    """k contact points as World._read_contacts packs pybullet's: [linkA, bodyB, p (3), n (3), f_n, f1,
    dir1 (3), f2, dir2 (3)], dir1 ⟂ dir2 ⟂ n, dir1 = ±btPlaneSpace1(n); steep and shallow normals."""
    raw = np.zeros((k, 17))
    for i in range(k):
        n = rng.normal(size=3)
        if i % 2:
            n[2] += 3.0  # |n_z| > 1/√2: the other branch of btPlaneSpace1
        n /= np.linalg.norm(n)
        a = np.array([1.0, 0, 0]) if abs(n[0]) < 0.9 else np.array([0, 1.0, 0])
        d1 = np.cross(n, a)
        d1 /= np.linalg.norm(d1)
        d1 *= rng.choice([-1.0, 1.0])
        d2 = np.cross(n, d1)
        raw[i] = [rng.integers(-1, 9), rng.integers(0, 3), *rng.normal(size=3), *n, rng.uniform(0, 50),
                  rng.normal(), *d1, rng.normal(), *d2]
    return raw


@pytest.mark.parametrize("k", [1, 3, 12])
@pytest.mark.parametrize("seed", range(4))
def test_contact_rows_match_reference_and_the_scalar_plane_space_rule(k, seed):
    from lab.core.world import plane_space_dot

    rng = np.random.default_rng(seed)
    raw = _raw_contacts(rng, k)
    ref = oracles.kernels.contact_rows(raw)
    got = kernels.contact_rows(raw)
    np.testing.assert_allclose(got, ref, rtol=REL, atol=1e-15)
    for i in range(k):  # the row-by-row rule the World used before the kernel
        n, d1, d2 = raw[i, 5:8], raw[i, 10:13], raw[i, 14:17]
        sgn = 1.0 if plane_space_dot(n, d1) >= 0.0 else -1.0
        assert got[i, 0] == raw[i, 0] + 1 and got[i, 1] == raw[i, 1]
        np.testing.assert_allclose(got[i, 2:9], raw[i, 2:9])
        np.testing.assert_allclose(got[i, 9:12], sgn * (raw[i, 9] * d1 + raw[i, 13] * d2), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("seed", range(4))
def test_contact_power_matches_reference_and_the_rigid_body_velocity(seed):
    rng = np.random.default_rng(seed)
    n_links, k = 10, 9
    rows = oracles.kernels.contact_rows(_raw_contacts(rng, k))
    rows[:, 0] = rng.integers(0, n_links, k)
    p, v0, w0, v1, w1 = (rng.normal(size=(n_links, 3)) for _ in range(5))
    ref = oracles.kernels.contact_power2(rows, p, v0, w0, v1, w1)
    got = kernels.contact_power2(rows, p, v0, w0, v1, w1)
    assert got == pytest.approx(ref, rel=1e-12)
    # by hand: F·(v_c + v_c₊), v_c = v + ω × (c − p) per point
    tot = 0.0
    for row in rows:
        L, c = int(row[0]), row[2:5]
        F = row[5:8] * row[8] + row[9:12]
        tot += F @ (v0[L] + np.cross(w0[L], c - p[L]) + v1[L] + np.cross(w1[L], c - p[L]))
    assert got == pytest.approx(tot, rel=1e-12)


def test_compiled_loops_are_built_once():
    """lab.core.kernels.compiled: one dispatcher per loop function (the function itself without the JIT)."""

    def twice(x):
        return 2.0 * x

    f = kernels.compiled(twice)
    assert f is kernels.compiled(twice) and f(1.5) == 3.0
    assert (f is not twice) == kernels.COMPILED


def test_no_numpy_twins_left_in_lab():
    """One implementation per law: the numpy references live in tests/oracles/, not beside the loops."""
    import pathlib

    lab = pathlib.Path(kernels.__file__).parent
    # the eel model's terms (Zhang 2018) lose their numpy twin where the model moves to its paper's home
    pending: set = set()
    for path in set(lab.rglob("*.py")) - pending:
        text = path.read_text(encoding="utf-8")
        for marker in ("LAB_NUMBA", "_np(", "wrench_reference", "def reference(self, state"):
            assert marker not in text, f"{path}: {marker}"
