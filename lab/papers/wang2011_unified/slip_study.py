"""The Wang 2011 unified model's own numbers: mean joint torques over two gait periods for
locomotion and manipulation, the tail's track, and how both depend on the friction's slip speed.

Pure model (no engine); run ``python -m lab.papers.wang2011_unified.slip_study`` for the table. The engine
comparison (:mod:`.study`) uses these functions at the engine's slip speed; this study says how far
that slip speed is from the paper's bare Coulomb law (v_s → 0).

Why the two cases differ in their sensitivity to v_s: welded, every moving module slides at
centimetres per second except at the instants its velocity components reverse, so tanh(v/v_s) is a
sign almost everywhere whatever v_s ≤ 1e-3 m/s. Crawling, the external dynamics (eq. 25) settle the
base where the lateral slip of the modules is small — of the order of v_s itself over much of the
cycle — so the friction forces, and the torques that work against them, grow as v_s shrinks until
v_s is far below the remaining slip speeds.

Measured (Table D1, I = 0.016 kg·m², from rest, t ∈ [0, 2T], T = 2π s, 4001 samples; LSODA)
    v_s (m/s)   locomotion mean |τ4..τ7| (N·m)       manipulation mean |τ4..τ7| (N·m)   tail disp./path (m)
    1e-3        0.0116 0.0217 0.0201 0.0071           1.351 0.796 0.372 0.0976           0.479 / 0.499
    1e-4        0.0156 0.0352 0.0336 0.0122           1.353 0.797 0.373 0.0980           0.486 / 0.506
    1e-5        0.0506 0.1176 0.1159 0.0505           1.353 0.797 0.373 0.0980           0.486 / 0.506
    1e-6        0.0579 0.1343 0.1325 0.0578           1.352 0.797 0.373 0.0980           0.486 / 0.507
    1e-7        0.0585 0.1356 0.1338 0.0583           1.352 0.797 0.373 0.0980           0.486 / 0.507
The sampled mean of the jagged small-v_s torques moves by ~0.3 % between 1001 and 4001 samples.
The next two periods (t ∈ [2T, 4T]) give the same numbers within 4 %: the start from rest is
not what sets them. Peak manipulation |τ4| is 1.54 N·m, above the lab snake's default effort 1.5.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace

import numpy as np

from lab.papers.wang2011_unified.model import Locomotion, manipulation, mean_abs_torque
from lab.papers.wang2011_unified.params import Wang2011Params

log = logging.getLogger(__name__)

SLIP_SPEEDS = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7)


@dataclass
class CaseNumbers:
    """One slip speed: mean |τ| per joint (N·m, lab joint order = paper τ⁴ … τⁿ) over [t0, t1]."""

    v_s: float
    locomotion_mean_abs_tau: np.ndarray
    manipulation_mean_abs_tau: np.ndarray
    tail_displacement: float  # |tail end point(t1) − tail end point(t0)| (m), locomotion
    tail_path_length: float  # length of the tail end point's track over [t0, t1] (m)
    nfev: int
    wall_s: float


@dataclass
class StudyResult:
    params: Wang2011Params
    t0: float
    t1: float
    cases: list[CaseNumbers] = field(default_factory=list)

    def case(self, v_s: float) -> CaseNumbers:
        return next(c for c in self.cases if c.v_s == v_s)

    def table(self) -> str:
        p = self.params
        lines = [f"Wang 2011 model, I = {p.I:g} kg·m², mean |τ| (N·m) over t ∈ [{self.t0:.3f}, {self.t1:.3f}] s "
                 f"({(self.t1 - self.t0) / p.period:g} periods); tail = the tail end point (x¹, x²)",
                 f"{'v_s (m/s)':>10}  {'locomotion τ4..τ' + str(p.n):<44}{'manipulation τ4..τ' + str(p.n):<44}"
                 f"{'tail disp. (m)':>14}{'tail path (m)':>14}{'nfev':>8}{'wall (s)':>9}"]
        for c in self.cases:
            lo = " ".join(f"{v:10.5f}" for v in c.locomotion_mean_abs_tau)
            ma = " ".join(f"{v:10.5f}" for v in c.manipulation_mean_abs_tau)
            lines.append(f"{c.v_s:>10.0e}  {lo:<44}{ma:<44}{c.tail_displacement:>14.5f}{c.tail_path_length:>14.5f}"
                         f"{c.nfev:>8d}{c.wall_s:>9.1f}")
        return "\n".join(lines)


def run_case(p: Wang2011Params, periods: float = 2.0, t0: float = 0.0, n_samples: int = 4001,
             method: str = "LSODA") -> CaseNumbers:
    """Locomotion (integrated from rest, see :meth:`Locomotion.initial_state`) and manipulation
    (welded at the origin) on the paper's gait, averaged over [t0, t0 + periods·T]."""
    t1 = t0 + periods * p.period
    t = np.linspace(0.0, t1, n_samples)
    w = time.perf_counter()
    loco = Locomotion(p).simulate(t1, t_eval=t, method=method)
    wall = time.perf_counter() - w
    man = manipulation(p, t)
    k = t >= t0 - 1e-12
    tail = loco.tail_W[k]
    return CaseNumbers(v_s=p.v_s, locomotion_mean_abs_tau=mean_abs_torque(t, loco.tau, t0, t1),
                       manipulation_mean_abs_tau=mean_abs_torque(t, man.tau, t0, t1),
                       tail_displacement=float(np.linalg.norm(tail[-1] - tail[0])),
                       tail_path_length=float(np.linalg.norm(np.diff(tail, axis=0), axis=1).sum()),
                       nfev=loco.nfev, wall_s=wall)


def slip_speed_study(p: Wang2011Params = Wang2011Params(), slip_speeds=SLIP_SPEEDS, periods: float = 2.0,
                     t0: float = 0.0, n_samples: int = 4001) -> StudyResult:
    """:func:`run_case` for every slip speed (the rest of ``p`` unchanged)."""
    out = StudyResult(params=p, t0=t0, t1=t0 + periods * p.period)
    for v in slip_speeds:
        out.cases.append(run_case(replace(p, v_s=float(v)), periods, t0, n_samples))
    return out


def main() -> None:  # pragma: no cover - a report, run by hand
    """The three tables: Table D1 over two periods from rest, the next two periods, the geometric inertia."""
    p = Wang2011Params()
    log.info("%s", slip_speed_study(p).table())
    log.info("%s", slip_speed_study(p, slip_speeds=(1e-3, 1e-5, 1e-7), t0=2 * p.period).table())
    log.info("%s", slip_speed_study(p.with_geometric_inertia(), slip_speeds=(1e-3, 1e-5, 1e-7)).table())


if __name__ == "__main__":  # pragma: no cover
    logging.basicConfig(level=logging.INFO, format="%(message)s\n")
    main()


__all__ = ["CaseNumbers", "StudyResult", "SLIP_SPEEDS", "run_case", "slip_speed_study"]
