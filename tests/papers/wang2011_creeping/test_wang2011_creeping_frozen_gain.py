"""controller.coupling_gain_fixed (Wang 2011 passive creeping): the energy integral of passive creeping held fixed, so
the steady state can be measured against the coupling gain K·∫(E_ref − E)dt of eq. 15."""

import math

import numpy as np
import pytest
from conftest import make_state

from lab.core import scenario as scn
from lab.papers.wang2011_creeping.analysis.wave import coupling_gain_series, window_state
from lab.controllers import PassiveCreeping, PassiveCreepingParams
from lab.core.errors import LabError
from lab.core.runner import run_scenario


def _moving_state(t):
    return make_state(n=4, v_W=[[0.3, 0, 0]] * 4, q=[0.1, -0.2, 0.05], qd=[0.0, 0.0, 0.4], t=t)


def test_frozen_integral_does_not_move_and_torques_follow_eq14_eq15_with_that_gain():
    G = 0.8
    c = PassiveCreeping(PassiveCreepingParams(E_ref=1.0, K_body=0.04, K_head=0.10, coupling_gain_fixed=G))
    s = _moving_state(0.25)
    c.reset(s.model, 0.01)
    assert c.coupling_gain == pytest.approx(G)
    E = 0.5 * 4 * 0.5 * 0.09
    for k in range(200):  # E ≠ E_ref all along: a running integral would move by 2 J·s over these steps
        tau = c.act(_moving_state(0.25 + 0.01 * k))
    assert c.integral == pytest.approx(G / 0.04, rel=0, abs=0)
    # eq. 15 with the gain G; eq. 14 with K_head·G/K_body in place of K_head·∫
    assert tau[0] == pytest.approx(G * (-0.2 - 0.1))
    assert tau[1] == pytest.approx(G * (0.05 + 0.2))
    t = 0.25 + 0.01 * 199
    ph = 2 * t + math.pi / 2
    I_n = s.model.I_B[-1][2, 2] + 0.5 * 0.08**2 / 4
    factor = abs(0.10 * G / 0.04 + 1.0 - E)
    expected = 10 * I_n * factor * (-2.0 * math.sin(ph) + (1.0 * math.cos(ph) - 0.4) + (0.5 * math.sin(ph) - 0.05))
    assert tau[2] == pytest.approx(expected)


def test_running_integral_moves_when_not_frozen():
    c = PassiveCreeping(PassiveCreepingParams(E_ref=1.0))
    s = _moving_state(0.0)
    c.reset(s.model, 0.01)
    for _ in range(10):
        c.act(s)
    assert c.integral == pytest.approx(10 * 0.01 * (1.0 - 0.5 * 4 * 0.5 * 0.09))


def test_frozen_gain_needs_a_body_gain_and_a_range():
    with pytest.raises(ValueError, match="coupling_gain_fixed"):
        PassiveCreepingParams(K_body=0.0, coupling_gain_fixed=0.5)
    with pytest.raises(LabError, match="controller.coupling_gain_fixed"):
        scn.load("snake_passive_creeping", ["controller.coupling_gain_fixed=-1"])


TRIPLE = (1.0, 0.3, 0.03)  # Fig 7's start-up case


@pytest.fixture(scope="module")
def frozen_runs():
    """Two short engine runs at fixed gains, named as the report names them."""
    from lab.papers.wang2011_creeping.characteristic import char_name

    out = {}
    for G in (0.6, 2.0):
        sc = scn.load("snake_passive_creeping", {"controller.coupling_gain_fixed": G, "sim.duration": 16.0})
        out[char_name(TRIPLE, G)] = run_scenario(sc)
    return out


@pytest.mark.slow
def test_frozen_gain_run_settles_and_stiffer_coupling_shortens_the_wave(frozen_runs):
    """Each run reaches a steady state (E the same over the last two periods), and the stiffer coupling
    (eq. 15) has the smaller phase lag per joint."""
    out = {}
    for G, r in zip((0.6, 2.0), frozen_runs.values()):
        gain = coupling_gain_series(r.series, 1.0, 0.04, fixed=G)
        a = window_state(r.series, 9.7, 12.85, 2.0, gain)
        b = window_state(r.series, 12.85, 16.0, 2.0, gain)
        assert b["E_J"] == pytest.approx(a["E_J"], rel=0.05)  # levelled
        assert b["speed_mps"] > 0.1  # it moves: a serpentine wave, not a wiggle in place
        assert b["gain"] == pytest.approx(G)
        out[G] = b
    assert out[2.0]["lag_rad"] < 0.8 * out[0.6]["lag_rad"]
    assert 0 < out[2.0]["lag_rad"] and out[0.6]["lag_rad"] < math.pi / 2


def test_characteristic_and_its_table_from_frozen_runs(frozen_runs):
    from lab.papers.wang2011_creeping import characteristic as ch

    char = ch.characteristic(frozen_runs, [TRIPLE, (0.7, 0.5, 0.01)])
    assert list(char) == [TRIPLE]  # a triple without runs is left out
    d = char[TRIPLE]
    E = {row["G"]: row["E_J"] for row in d["rows"]}
    assert d["E_max"] == max(E.values()) and E[d["G_at_max"]] == d["E_max"]
    for row in d["rows"]:
        assert math.isfinite(row["onset_s"]) and not row["limit"]  # it moved, joints inside ±90°
    table = ch.char_table(char)
    assert table.count("\n") == 1 + len(d["rows"]) and "**max**" in table
    # the frozen runs never reach E_ref = 1 J: a long-run record says so, with what E did instead
    rec = ch.long_record(frozen_runs[ch.char_name(TRIPLE, 0.6)], d["E_max"])
    assert not rec["reached"] and math.isnan(rec["t_reach"]) and rec["E_end"] < 0.5
    assert rec["trend"] in ("level", "rising", "peaked")
    emax = ch.e_max_by_omega(frozen_runs, char, TRIPLE)  # no runs at the other ω here: ω = 2 only
    assert emax == {2.0: (d["E_max"], d["G_at_max"], d["G_at_max"] == 2.0)}


def test_reach_table_marks_reached_and_limits():
    from lab.papers.wang2011_creeping import characteristic as ch

    recs = [dict(E_ref=0.5, omega=2.0, reached=True, t_reach=30.0, limit=False, q_max=0.8, trend="level",
                 E_end=0.5, E_peak=0.52, T=120.0),
            dict(E_ref=1.0, omega=2.0, reached=False, t_reach=float("nan"), limit=True, q_max=1.6, trend="peaked",
                 E_end=0.39, E_peak=0.46, T=120.0)]
    t = ch.reach_table(recs, {2.0: (0.44, 1.5, False)})
    assert "✓ 30 s" in t and "passed its peak" in t and "**limit**" in t and "0.44 J at K·∫ = 1.5" in t


def test_gain_series_from_recorded_energy_matches_the_integral():
    t = np.linspace(0, 10, 1001)
    series = {"t": t, "E": 0.5 * np.ones_like(t)}
    G = coupling_gain_series(series, 1.0, 0.04)
    assert G[-1] == pytest.approx(0.04 * 0.5 * 10)
