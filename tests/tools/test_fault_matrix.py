"""The fault matrix's quick subset: fast checks must catch the faults that violate their claims.

The full matrix is ``lab check --faults`` (about an hour; docs/checks.md has the measured one). Here:
the fast checks (the friction block, the belt speed, one eel link in still water, the Guo 2015
formulations; seconds each) under the faults that enter them, the registry's declarations, the
restoring of every patch, and the CLI's output and error handling.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lab.checks import CHECKS
from lab.checks.faults import CAUGHT, FAULTS, MISSED, NA, run_cell, run_faults
from lab.forces.base import FORCES, FRICTION
from lab.core.world import EngineOptions, World

QUICK = {  # fault → the fast check that must catch it (the check's claim it violates)
    "default_link_damping": "friction_block",  # the block stops short of v0²/(2μg)
    "dt_x4": "step_convergence",  # the eel at 20 ms ends "unstable" (torque RMS 455 % from the 10-ms run)
    "friction_axes_swapped": "friction_block",  # stop distances of μ_n along and μ_t across
    "friction_one_link_sign": "friction_block",  # the lone module is the middle link: it accelerates
    "guo_el_rod_inertia": "nonholonomic_models",  # the E–L mass matrix no longer matches the closed form
    "belt_margin_uncompensated": "belt_speed",  # pulleys rolling as r + 1 mm: the body 3.8 % fast
    "added_mass_dropped": "hydro_decay",  # a link without u_n decays across its axis faster than eq. 22
    "fluid_torque_dropped": "hydro_decay",  # the spin no longer decays as eq. 27 says
    "inertia_from_collision": "hydro_decay",  # the spin's J + λ1 is not the spec's
}
# Left to the full matrix for time (measured at load 11): eel_noninertial_added_mass × eel_models (77 s),
# guo_pfl_mass_10pct × pfl_tracking (450 s: the mismatched PFL makes the 60-s ODE stiff).


@pytest.mark.slow
@pytest.mark.parametrize("fault_name,check_name", sorted(QUICK.items()))
def test_fast_check_catches_fault(fault_name, check_name):
    verdict, detail = run_cell(FAULTS[fault_name], check_name, [])
    assert verdict == CAUGHT, detail
    assert detail.get("failed") or detail.get("error")


FAST = {"friction_block", "nonholonomic_models", "hydro_decay"}  # < 1 s each; the others are marked slow


@pytest.mark.parametrize("name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow)
                                  for n in sorted(set(QUICK.values()))])
def test_the_same_checks_pass_without_a_fault(name):
    """A catch means something only if the check passes the correct engine and models."""
    figs = CHECKS[name].fn([])
    assert all(f.passed for f in figs.values()), {k: f.value for k, f in figs.items() if not f.passed}


def test_patches_are_restored():
    coulomb, hydro, velocity = FRICTION["coulomb"], FORCES["hydrodynamics"], FRICTION["coulomb_velocity"]
    for name in ("stale_link_frames", "default_link_damping", "inertia_from_collision", "friction_axes_swapped",
                 "friction_one_link_sign", "fluid_torque_dropped"):
        f = FAULTS[name]
        with f.patch():
            changed = (World.options != EngineOptions() or FRICTION["coulomb"] is not coulomb
                       or FORCES["hydrodynamics"] is not hydro)
            assert changed, f"{name} changed nothing"
        assert World.options == EngineOptions()
        assert FRICTION["coulomb"] is coulomb and FORCES["hydrodynamics"] is hydro
        assert FRICTION["coulomb_velocity"] is velocity


def test_friction_mutants_replace_both_coulomb_laws():
    """The friction faults mutate the regularised and the velocity-level law alike (the flagship runs the
    latter and so does the unified locomotion scenario, the welded one the former), and both come back."""
    before = {k: FRICTION[k] for k in ("coulomb", "coulomb_velocity")}
    for name in ("friction_axes_swapped", "friction_one_link_sign"):
        with FAULTS[name].patch():
            for k, cls in before.items():
                assert FRICTION[k] is not cls and issubclass(FRICTION[k], cls), (name, k)
        assert {k: FRICTION[k] for k in before} == before


def test_declarations_name_real_checks_and_cover_every_check():
    declared = set()
    for name, f in FAULTS.items():
        assert f.checks, name
        assert set(f.checks) <= set(CHECKS), (name, set(f.checks) - set(CHECKS))
        assert f.degrades and f.stands_for and f.na_reason, name
        declared |= set(f.checks)
    assert declared == set(CHECKS), set(CHECKS) - declared  # every check is entered by some fault


@pytest.mark.slow
def test_matrix_file_has_every_pair(tmp_path):
    faults = ["friction_axes_swapped", "added_mass_dropped"]
    ok, table = run_faults(faults, ["friction_block"], [], tmp_path / "m")
    m = json.loads((tmp_path / "m" / "faults.json").read_text())
    assert m == {"friction_axes_swapped": {"friction_block": CAUGHT}, "added_mass_dropped": {"friction_block": NA}}
    assert ok and "caught" in table
    detail = json.loads((tmp_path / "m" / "faults_detail.json").read_text())
    assert set(detail) == {"(no fault)", *faults}
    assert detail["(no fault)"]["friction_block"]["failing"] == []  # the baseline passes
    assert MISSED not in table


def test_a_figure_failing_without_the_fault_catches_nothing(tmp_path):
    """Caught means the fault made a passing figure fail: a figure that fails anyway proves nothing."""
    from lab.checks import Check, Figure
    from lab.checks.faults import Fault

    calls = []

    def fake(overrides):  # "always_bad" fails with or without the fault; "sensitive" fails only under it
        calls.append(list(overrides))
        hit = "sim.dt=0.004" in overrides
        return {"always_bad": Figure.at_most(2.0, 1.0), "sensitive": Figure.at_most(2.0 if hit else 0.5, 1.0)}

    CHECKS["_fake"] = Check("_fake", fake, "a fake check")
    FAULTS["_f_hit"] = Fault("_f_hit", "x", "y", ("_fake",), "z", overrides={"*": ("sim.dt=0.004",)})
    FAULTS["_f_miss"] = Fault("_f_miss", "x", "y", ("_fake",), "z", overrides={"*": ("sim.dt=0.001",)})
    try:
        ok, table = run_faults(["_f_hit", "_f_miss"], ["_fake"], [], tmp_path / "m")
    finally:
        del CHECKS["_fake"], FAULTS["_f_hit"], FAULTS["_f_miss"]
    m = json.loads((tmp_path / "m" / "faults.json").read_text())
    assert m == {"_f_hit": {"_fake": CAUGHT}, "_f_miss": {"_fake": MISSED}}
    assert len(calls) == 3  # one baseline, one run per fault
    assert not ok and "NOT CAUGHT: _f_miss" in table and "always_bad" in table


def _lab(*args, cwd):
    return subprocess.run([sys.executable, "-c", "import sys; from lab.cli import main; sys.exit(main())", *args],
                          capture_output=True, text=True, cwd=cwd)


@pytest.mark.slow
def test_cli_unknown_fault_is_one_line(tmp_path):
    r = _lab("check", "friction_block", "--faults", "no_such_fault", "--out", str(tmp_path / "x"), cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().startswith("error: --faults:") and len(r.stderr.strip().splitlines()) == 1
    assert "stale_link_frames" in r.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_cli_writes_the_matrix(tmp_path):
    r = _lab("check", "friction_block", "--faults", "dt_x4", "stale_link_frames", "--out", str(tmp_path / "m"),
             cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "m" / "faults.json").read_text()) == {
        "dt_x4": {"friction_block": CAUGHT}, "stale_link_frames": {"friction_block": NA}}
    assert "faults.json in" in r.stdout
