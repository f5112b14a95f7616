"""Energy figures and the η2 question (Wang 2011, eqs. 9–11, Fig 7, Table 2).

- :func:`plot_energy_tracking` — Fig 7: E(t) of several runs against their dashed E_ref.
- :func:`eta2_interpretations` — extra, clearly labelled *interpretations* of the paper's energy ratio
  (``energy.eta2_com``) and the kinematic quantity that decides η2 (``energy.omega_per_v_rad_m``).
- :data:`ETA2_NOTE` — why our η2 (eq. 11) is ≈ 0.99 and Table 2's is 0.24–0.26 (markdown, for the report).

Pure numpy (matplotlib only inside the plot function); reads a run's ``series`` dict.
"""

from __future__ import annotations

import math

import numpy as np

from lab.core.metrics import second_half

# Table 1: m = 0.5 kg, I = 0.00027 kg·m². η2 = 0.25 needs E_R/E_T = 3, i.e. ⟨ω²⟩/⟨v²⟩ = 3 m / I.
PAPER_MASS = 0.5
PAPER_INERTIA = 0.00027
OMEGA_PER_V_FOR_ETA2_025 = math.sqrt(3.0 * PAPER_MASS / PAPER_INERTIA)  # ≈ 74.5 rad/m

ETA2_NOTE = r"""
**Why η2 is ≈ 0.99 here and 0.24–0.26 in Table 2.** For identical modules (mass m, yaw inertia I about
the COM), eqs. 9–11 give

    η2 = E_T / (E_R + E_T) = 1 / (1 + (I/m) · Σ⟨ω_i²⟩ / Σ⟨|v_i|²⟩),

so η2 is fixed by one kinematic ratio, the module yaw rate per unit COM speed ω/v (rad per metre
travelled). With Table 1's I/m = 0.00027/0.5 = 5.4e-4 m² (radius of gyration 2.3 cm), η2 = 0.25 needs
E_R/E_T = 3, i.e. ω_rms/v_rms = √(3m/I) ≈ 74 rad/m: every module would have to turn through 74 rad per
metre it travels. A module that follows a serpentine path without slipping sideways turns at the
path's curvature, a few rad/m for joint amplitudes of 0.5 rad on 8-cm links. The engine measures
ω_rms/v_rms = 3.6–4.8 rad/m for both gaits on all three surfaces (e.g. passive creeping at
μ_n = 0.3, μ_t = 0.03: ω_rms = 1.72 rad/s, v_rms = 0.36 m/s; serpenoid: 0.96 rad/s, 0.20 m/s), so
E_R/E_T ≈ 5.4e-4 · 4.8² ≈ 0.013 and η2 ≈ 0.988. Reaching 0.25 with the same joint motion would take
modules ~15× slower (v_rms ≈ 1–2 cm/s), i.e. a robot that slips almost completely.

Variant definitions do not close the gap (passive creeping, same run): E_R about the joint
(I + m l²/4 = 0.00107 kg·m², the paper's I_n) → 0.953; eq. 8 with the body twist V^b of a frame at
the module's rear joint and the COM's M^b → 0.988; E_R from the joint rates with I_n → 0.99; only the
velocity along each module counted in E_T → 0.983 (sideways slip carries < 2 % of E here). The one
reading that moves η2 by a large factor is the König split — the share of E in the translation of
the whole robot's COM, ``energy.eta2_com`` = ½ M |V_com|² / E — which is the sense in which the paper
compares η2 with Gans & Gasc's lizard ("≥ 65 % of the kinetic energy goes into the body wave"):
0.52–0.64 for passive creeping and 0.76–0.78 for the serpenoid here. That is an interpretation, not
eq. 11, and it still does not give 0.25.

Table 2 is not a simulation result: it is measured on the real robot (servos replaying the ODE
model's joint angles), with module poses from Optotrak at 20 Hz and velocities by finite
differences. The paper itself reads its low η2 as slip ("η2 < 0.5 shows that the robot slips") and
finds η2 inversely proportional to the experiment's duration, i.e. growing with the forward speed —
what the formula above predicts for a slow, slipping robot. Finite-difference noise on 3-D angular
velocities would lower it further (roll and pitch wobble count in E_R). The engine's wheels barely
slip sideways, so it cannot reproduce that; the lab's η2 is eq. 11 evaluated exactly, and Table 2's
values are not a target for it.
""".strip()


def _velocities(series: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, v (samples, links, 2), ω_z (samples, links)) by central differences of the recorded
    COM positions and unwrapped yaw (second order; the gait is < 3 Hz, the recorder 100 Hz)."""
    t = np.asarray(series["t"], float)
    v = np.gradient(np.asarray(series["xy"], float), t, axis=0)
    w = np.gradient(np.unwrap(np.asarray(series["yaw"], float), axis=0), t, axis=0)
    return t, v, w


def eta2_interpretations(series: dict) -> dict:
    """Labelled interpretations, averaged over the second half (links of equal mass assumed, as in
    :func:`lab.core.metrics.run_metrics`):

    ``energy.eta2_com``  *interpretation*, not eq. 11: share of the kinetic energy in the translation of
        the robot's COM, ½ M |V_com|² / E (König split), computed as (N |V_com|² / Σ|v_i|²) · E_T / E.
    ``energy.omega_per_v_rad_m``  sqrt(Σ⟨ω_z,i²⟩ / Σ⟨|v_i|²⟩): module yaw rate per unit COM speed, the
        kinematic ratio that fixes eq. 11's η2 (0.25 needs ≈ 74 rad/m with Table 1's m and I).
    """
    nan = float("nan")
    out = {"energy.eta2_com": nan, "energy.omega_per_v_rad_m": nan}
    t = np.asarray(series["t"])
    if len(t) < 3 or "xy" not in series or "yaw" not in series:
        return out
    t, v, w = _velocities(series)
    h = second_half(t)
    n = v.shape[1]
    V = v.mean(axis=1)
    sum_v2 = np.einsum("tij,tij->t", v, v)
    E = np.asarray(series["E"], float)
    E_T = np.asarray(series["E_T"], float)
    ok = h & (sum_v2 > 1e-12) & (E > 1e-12)
    if ok.any():
        ratio = n * np.einsum("ti,ti->t", V[ok], V[ok]) / sum_v2[ok]
        out["energy.eta2_com"] = float(np.mean(ratio * E_T[ok] / E[ok]))
    den = float(sum_v2[h].mean()) if h.any() else 0.0
    if den > 0:
        out["energy.omega_per_v_rad_m"] = float(math.sqrt(np.einsum("ti,ti->t", w[h], w[h]).mean() / den))
    return out


def _label_of(result) -> tuple[str, float | None]:
    sc = result.scenario
    E_ref = getattr(sc.controller, "E_ref", None)
    mu_n = getattr(sc.friction, "mu_n", None)
    mu_t = getattr(sc.friction, "mu_t", None)
    if E_ref is not None and mu_n is not None:
        return f"({E_ref:g}, {mu_n:g}, {mu_t:g})", E_ref
    return sc.name, E_ref


def plot_energy_tracking(ax, results, title: str = "Kinetic energy vs E_ref (Wang 2011, Fig 7)") -> None:
    """E(t) of several runs (solid) against their E_ref (dashed, same colour), labelled with the
    paper's triple (E_ref, μ_n, μ_t). ``results``: RunResults (``.series``, ``.scenario``), or
    (label, series, E_ref) tuples."""
    import matplotlib.pyplot as plt

    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, r in enumerate(results):
        if isinstance(r, tuple):
            label, s, E_ref = r
        else:
            s = r.series
            label, E_ref = _label_of(r)
        c = colors[k % len(colors)]
        ax.plot(s["t"], s["E"], color=c, lw=0.9, label=label)
        if E_ref is not None:
            ax.axhline(E_ref, color=c, ls="--", lw=0.9)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("kinetic energy E [J]")
    ax.set_title(title)
    ax.legend(fontsize=7, title="(E_ref [J], μ_n, μ_t)", title_fontsize=7, loc="best")
