"""The wheeled snake's faults (Guo 2015).

Faults of the matrix (``lab check --faults``, :mod:`lab.checks.faults`) that only Guo 2015's checks can
catch: each a plausible wrong edit of this paper's model, robot or controller, restored when its block ends."""

from __future__ import annotations

from dataclasses import replace

from lab.checks.faults import Fault, _wrap_function, fault


def _guo_el_rod_inertia():
    """The E–L model's mass matrix with the module's J = m l²/3 (a uniform rod) instead of the paper's m l²."""
    from lab.papers.guo2015_wheeled import model as gw

    def make(orig):
        def mass_matrix(p, q):
            return orig(replace(p, J=p.m * p.l**2 / 3.0), q)

        return mass_matrix

    return _wrap_function(gw, "mass_matrix", make)


def _guo_pfl_mass():
    """The PFL's torques computed for modules 10 % heavier than the plant's (m and J = m l² together)."""
    from lab.papers.guo2015_wheeled import model as gw

    def make(orig):
        def pfl_torque(p, q, r_dot_W, t, **kw):
            return orig(replace(p, m=1.1 * p.m, J=1.1 * p.J), q, r_dot_W, t, **kw)

        return pfl_torque

    return _wrap_function(gw, "pfl_torque", make)


fault(Fault(
    "wheel_spin_inertia_x10",
    "the wheeled snake's wheels ten times heavier (spin inertia ×10; the module's mass and yaw inertia are "
    "kept by the body link), which the Guo 2015 model has no place for",
    "a wheel mass typed in g where kg was meant, or a heavier wheel fitted",
    ("pfl_engine",), "only the wheeled snake has wheels; pfl_tracking runs the model only",
    overrides={"*": ("robot.wheel_mass=0.1",)}))


fault(Fault(
    "guo_el_rod_inertia",
    "the constrained Euler–Lagrange model's module yaw inertia J = m l²/3 (a uniform rod) instead of Guo 2015's "
    "m l²",
    "the rod's textbook inertia typed into one formulation (the closed forms hold only for J = m l²)",
    ("nonholonomic_models",),
    "only nonholonomic_models evaluates the E–L mass matrix: the engine's PFL controller runs the fused closed "
    "form (measured: every pfl_engine figure bit-identical under this fault)",
    patch=_guo_el_rod_inertia))


fault(Fault(
    "guo_pfl_mass_10pct",
    "the head-tracking PFL's torques computed for modules 10 % heavier than the plant's",
    "the controller's module mass not updated to the robot's (e.g. the wheels or housings left out)",
    ("pfl_tracking", "pfl_engine"), "only the Guo 2015 checks run the PFL",
    patch=_guo_pfl_mass))
