"""The eel's faults (Zhang 2018).

Faults of the matrix (``lab check --faults``, :mod:`lab.checks.faults`) that only Zhang 2018's checks can
catch: each a plausible wrong edit of this paper's model, robot or controller, restored when its block ends."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from lab.checks.faults import Fault, _registry_entry, _setattr, fault


def _hydro_without_torque():
    from lab.forces.base import FORCES, Wrench
    from lab.forces.hydrodynamics import Hydrodynamics

    class NoFluidTorque(Hydrodynamics):
        """The hydrodynamics law's wrench with its torques (λ1, λ2, λ3 terms) dropped."""

        def __call__(self, state, t):
            w = super().__call__(state, t)
            return Wrench(w.F_W, np.zeros_like(w.T_W))

    NoFluidTorque.__module__ = Hydrodynamics.__module__
    return _registry_entry(FORCES, "hydrodynamics", NoFluidTorque)


def _eel_dry_urdf():
    """The eel's URDF written with the dry cylinder's mass properties (the added mass not folded in)."""
    from lab.robots.eel import EelSpec

    return _setattr(EelSpec, "mass_props", EelSpec.dry_mass_props)


def _eel_noninertial_without_added_mass():
    from lab.papers.zhang2018_eel.model import noninertial

    cls = noninertial.NonInertialModel
    orig = cls.__init__

    def init(self, params, controller=None):
        orig(self, replace(params, u_n=0.0), controller)

    return _setattr(cls, "__init__", init)


fault(Fault(
    "added_mass_dropped",
    "the water's normal added mass u_n and added yaw inertia left out of the engine's eel (the model keeps them)",
    "the robot's URDF written from the dry mass properties (a refactor of EelSpec.mass_props; the scenario's "
    "own robot.added_mass = 0 is refused by the loader, which checks it against the law's u_n)",
    ("hydro_decay", "eel_engine"), "only the eel swims; eel_models runs no engine",
    patch=_eel_dry_urdf))


fault(Fault(
    "fluid_torque_dropped",
    "the hydrodynamics law's torques (added yaw inertia, linear and quadratic fluid torque) dropped",
    "a refactor of the law returning its forces only",
    ("hydro_decay", "eel_engine"), "only the eel swims; eel_models runs no engine",
    patch=_hydro_without_torque))


fault(Fault(
    "eel_noninertial_added_mass",
    "the non-inertial eel model (Zhang 2018 eqs. 28–33) computes without the normal added mass u_n",
    "a term lost in a refactor of one of the two eel models",
    ("eel_models",), "only eel_models runs the non-inertial model",
    patch=_eel_noninertial_without_added_mass))
