"""Recorders: the energy ledger (every step) and the strided time series.

Work accounting (Wang 2011, eq. 6: Ė = ẋᵀτ − P_d). Bullet integrates semi-implicitly
(v₊ = v + h·a, x₊ = x + h·v₊), so over one step a constant force F changes ½m|v|² by exactly
F·h·(v + v₊)/2. The ledger therefore counts each step's work with the **mean of the pre- and
post-step velocities** (trapezoid). Counting with pre-step velocities alone over-counts and with
post-step ones under-counts by O(h); the mean closes the balance to the solver's own error.

Robots that touch the world through the engine's own contacts (the tracked robot: belt and guide
wheel on the ground and the step, with the engine's Coulomb friction) also climb and slip, so their
ledger adds the work of gravity and of every contact force (normal and friction, from the contact
snapshot, at the contact point's velocity). The snake and eel keep the plain ledger: their ground
normal force and gravity cancel on level ground and their friction is a force law.
"""

from __future__ import annotations

import numpy as np

from lab.core import kernels
from lab.core.wrench import Wrench
from lab.core.state import RobotState


class Recorder:
    def __init__(self, n_steps: int, record_every: int, n_links: int, n_joints: int, dt: float,
                 force_names: list[str], gravity_W: np.ndarray | None = None, mass: np.ndarray | None = None):
        self.every = record_every
        self.dt = dt
        n = n_steps // record_every + 2  # + the initial sample and a final flush
        self.n_alloc = n
        self.k = 0  # samples written
        self.t = np.zeros(n)
        self.E = np.zeros(n)
        self.E_T = np.zeros(n)
        self.E_R = np.zeros(n)
        self.P_in = np.zeros(n)
        self.P_d = np.zeros(n)
        self.W_in = np.zeros(n)
        self.W_d = np.zeros(n)
        self.W_g = np.zeros(n)  # gravity's and the engine contacts' work so far (0 unless the ledger meters them)
        self.W_c = np.zeros(n)
        self.xy = np.zeros((n, n_links, 2))  # each link's COM in the ground plane
        self.z = np.zeros((n, n_links))  # each link's COM height (side views: the tracked robot on a step)
        # each link's x axis (world frame) at the samples: the pitch (its elevation above the ground plane, rad)
        # and the yaw (its heading in the plane) are worked out from it in series(), for all samples at once
        # (numpy's arcsin and arctan2 give each element the same value in a block as row by row: measured on
        # 3000 random blocks; tests/core/test_step_pieces.py), not with four ufunc calls at every sample
        self.x_axis = np.zeros((n, n_links, 3))
        self.com = np.zeros((n, 3))  # the robot's mass-weighted centre of mass (RobotState.com_W)
        # the samples of World snapshots, kept as their own arrays (row, p_W, x axes, com_W or None, q, q̇, fn,
        # model) and written into the rows above in series() (a snapshot is read-only and its arrays are its
        # own): the same values, copied outside the stepping loop, where numpy's small copies and the centre
        # of mass's matmul cost a fraction of what they cost between two engine steps (~8 µs the matmul)
        self._due: list = []
        self.q = np.zeros((n, n_joints))
        self.qd = np.zeros((n, n_joints))
        self.tau = np.zeros((n, n_joints))
        self.fn = np.zeros((n, n_links))
        self.force_names = list(force_names)
        # each channel's cumulative work at the samples (the ledger's columns: timeseries.csv W_<channel>)
        self.W_law = np.zeros((n, len(force_names)))
        self.W_gravity = np.zeros(n)
        self.W_contacts = np.zeros(n)
        # Ledger totals (every step).
        self.E0 = 0.0
        self.work_in = 0.0
        self.work_in_abs = 0.0
        self.work_ext = {name: 0.0 for name in force_names}
        # gravity and engine contacts (only for runs whose snapshot carries the contacts)
        self.mg_W = None if gravity_W is None or mass is None else np.outer(mass, gravity_W)
        self.work_gravity = 0.0
        self.work_contact = 0.0
        # gravity's power summed in the compiled ledger step (numpy's order, one pairwise block of 3N terms)
        self._one_block = self.mg_W is not None and self.mg_W.size <= kernels.PAIRWISE_BLOCK
        self.steps = 0

    def start(self, state: RobotState) -> None:
        self.E0 = state.kinetic_energy
        self._sample(state, np.zeros(self.q.shape[1]), 0.0, 0.0)

    def on_step(self, pre: RobotState, tau: np.ndarray, forces: dict, post: RobotState) -> None:
        """Book one step: the joints' work τ·q̇ and each force law's work (``forces``: name → the
        law's output, an (N, 3) force array or a Wrench), both with the trapezoidal velocity."""
        dt = self.dt
        if len(forces) == 1 and self.mg_W is None:
            # the common step (one law's force array, no engine contacts metered): both powers in one
            # compiled call; the same sums in the same order as the general path below
            (name, out), = forces.items()
            if type(out) is np.ndarray:
                p_in, p = kernels.ledger_powers(tau, pre.qd, post.qd, out, pre.v_W, post.v_W)
                self.work_in += dt * p_in
                self.work_in_abs += dt * abs(p_in)
                self.work_ext[name] += dt * p
                self.steps += 1
                if self.steps % self.every == 0:
                    self._sample(post, tau, p_in, -(0.0 + p))
                return
        metered = self.mg_W is not None and post.contacts is not None
        if metered and self._one_block:  # the joints', gravity's and the contacts' powers in one compiled call
            p_in, p_g, p_c = kernels.metered_powers(tau, pre.qd, post.qd, self.mg_W, pre.p_W, pre.v_W, pre.w_W,
                                                    post.v_W, post.w_W, post.contacts)
        else:
            p_in = 0.5 * kernels.joint_power2(tau, pre.qd, post.qd) if tau.size else 0.0
        self.work_in += dt * p_in
        self.work_in_abs += dt * abs(p_in)
        p_ext_total = 0.0
        work_ext = self.work_ext
        for name, out in forces.items():
            if isinstance(out, Wrench):
                p = 0.5 * kernels.power2(out.F_W, pre.v_W, post.v_W)
                if out.T_W is not None:
                    p += 0.5 * kernels.power2(out.T_W, pre.w_W, post.w_W)
            else:
                p = 0.5 * kernels.power2(out, pre.v_W, post.v_W)
            work_ext[name] += dt * p
            p_ext_total += p
        if metered:
            if not self._one_block:  # beyond numpy's one pairwise block: its own sum, as before
                p_g = 0.5 * float(np.sum(self.mg_W * (pre.v_W + post.v_W)))
                p_c = 0.5 * contact_power(post.contacts, pre, post)
            self.work_gravity += dt * p_g
            self.work_contact += dt * p_c
            p_ext_total += p_c
        self.steps += 1
        if self.steps % self.every == 0:
            self._sample(post, tau, p_in, -p_ext_total)

    def flush(self, state: RobotState) -> None:
        """Record the last good state if the run ended between two samples (diverged, stopped)."""
        if self.k and self.t[self.k - 1] < state.t:
            self._sample(state, self.tau[self.k - 1], self.P_in[self.k - 1], self.P_d[self.k - 1])

    def _sample(self, s: RobotState, tau: np.ndarray, p_in: float, p_d: float) -> None:
        k = self.k
        if k >= self.n_alloc:
            return
        self.t[k] = s.t
        self.E[k] = s.kinetic_energy
        self.E_T[k] = s.energy_translational
        self.E_R[k] = s.energy_rotational
        self.P_in[k] = p_in
        self.P_d[k] = p_d
        self.W_in[k] = self.work_in
        self.W_d[k] = -sum(self.work_ext.values())
        row, work_ext = self.W_law[k], self.work_ext
        for i, name in enumerate(self.force_names):
            row[i] = work_ext[name]
        self.W_gravity[k] = self.work_gravity
        self.W_contacts[k] = self.work_contact
        self.tau[k] = tau
        self.k = k + 1
        if type(s) is RobotState:  # a World's snapshot (read-only, its arrays its own): its rows in series()
            self._due.append((k, s.p_W, s.x_axis_W, s.__dict__.get("com_W"), s.q, s.qd, s.fn, s.model))
        else:
            self._rows(k, s.p_W, s.x_axis_W, s.com_W, s.q, s.qd, s.fn, None)

    def _rows(self, k, p_W, x_axis_W, com_W, q, qd, fn, model) -> None:
        """Sample k's per-link and per-joint rows; a centre of mass not given (None) by RobotState.com_W's
        formula on the snapshot's own p_W (its strides: numpy's matmul takes another BLAS path, and other
        bits, on a copy)."""
        self.xy[k] = p_W[:, :2]
        self.z[k] = p_W[:, 2]
        self.x_axis[k] = x_axis_W  # pitch and yaw from it in series()
        self.com[k] = com_W if com_W is not None else (model.mass @ p_W) / model.total_mass
        self.q[k] = q
        self.qd[k] = qd
        if fn is not None:
            self.fn[k] = fn

    def _settle(self) -> None:
        """The rows of the samples kept as their snapshots' arrays (:meth:`_sample`), written now."""
        for due in self._due:
            self._rows(*due)
        self._due.clear()

    @property
    def metered(self) -> bool:
        """True when the ledger books gravity and the engine's contact forces (runs on engine contacts)."""
        return self.mg_W is not None

    def series(self) -> dict[str, np.ndarray]:
        """The recorded samples (trimmed to what was written). ``work.<channel>`` is each channel the
        ledger books, as cumulative work [J] at the samples: ``work.joints`` (τ·q̇), every force law by
        its scenario name (``work.friction``, ``work.hydro``, ``work.tether``, ``work.cleats`` …) and,
        on engine contacts, ``work.gravity`` and ``work.contacts``. ΔE − Σ work is the balance
        residual of :meth:`balance`."""
        self._settle()
        k = self.k
        out = {name: getattr(self, name)[:k] for name in
               ("t", "E", "E_T", "E_R", "P_in", "P_d", "W_in", "W_d", "xy", "z", "com", "q", "qd", "tau", "fn")}
        ax = self.x_axis[:k]
        # the pitch: arcsin of the x axis's height clipped to [−1, 1] (maximum then minimum select what np.clip
        # would); the yaw: RobotState.yaw's formula
        pitch = np.maximum(ax[:, :, 2], -1.0)
        np.minimum(pitch, 1.0, out=pitch)
        out["pitch"] = np.arcsin(pitch, out=pitch)
        out["yaw"] = np.arctan2(ax[:, :, 1], ax[:, :, 0])
        out = {name: out[name] for name in ("t", "E", "E_T", "E_R", "P_in", "P_d", "W_in", "W_d", "xy", "z", "pitch",
                                            "com", "yaw", "q", "qd", "tau", "fn")}  # the columns' order as before
        out["work.joints"] = self.W_in[:k]
        for i, name in enumerate(self.force_names):  # a law named like a ledger channel keeps its own column
            out[f"work.{name}_law" if name in ("joints", "gravity", "contacts") else f"work.{name}"] = self.W_law[:k, i]
        if self.metered:
            out["work.gravity"] = self.W_gravity[:k]
            out["work.contacts"] = self.W_contacts[:k]
        return out

    def balance(self, E_end: float) -> dict[str, float]:
        """ΔE − ∫(P_in − P_d)dt, absolute and relative to ∫|P_in|dt (plus |W_gravity| + |W_contacts|
        on engine contacts)."""
        w_ext = sum(self.work_ext.values()) + self.work_contact
        resid = (E_end - self.E0) - (self.work_in + w_ext + self.work_gravity)
        # on engine contacts the turnover is not only the joints' work: a robot that drops onto its
        # arm or climbs trades most of its energy with gravity and the contacts
        scale = self.work_in_abs
        if self.mg_W is not None:
            scale += abs(self.work_gravity) + abs(self.work_contact)
        rel = resid / scale if scale > 0 else 0.0
        out = {"residual_J": resid, "residual_rel": rel, "work_in_J": self.work_in,
               "work_in_abs_J": self.work_in_abs, "dissipated_J": -w_ext}
        if self.mg_W is not None:
            out.update(gravity_work_J=self.work_gravity, contact_work_J=self.work_contact)
        return out


def work_channels(series: dict) -> dict[str, np.ndarray]:
    """Each channel the energy ledger books → its cumulative work [J] (lab.core.recorder.Recorder.series)."""
    return {k[len("work."):]: v for k, v in series.items() if k.startswith("work.")}


def balance_residual(series: dict) -> np.ndarray:
    """(E − E(0)) − Σ channels' work at every sample: what the ledger leaves unexplained [J]."""
    E = series["E"]
    total = sum(work_channels(series).values())
    return (E - E[0]) - total if len(E) else E


def contact_power(contacts: np.ndarray, pre: RobotState, post: RobotState) -> float:
    """Σ F·(v + v₊) over the contact rows (World._read_contacts) — twice the trapezoidal power of the
    contact forces on the robot; v at each contact point from its link's COM velocity and spin. The
    contact points were found at the start of the step (see lab.core.state), so their lever arm is taken
    from the pre-step COM."""
    if contacts is None or not len(contacts):
        return 0.0
    return float(kernels.contact_power2(contacts, pre.p_W, pre.v_W, pre.w_W, post.v_W, post.w_W))
