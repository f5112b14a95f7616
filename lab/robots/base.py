"""The robot registry: ``[robot] type = name`` → the robot's spec dataclass.

A robot spec is a frozen, validated dataclass (:class:`lab.fields.Validated`) with a pure
``to_urdf() -> str`` and the properties the World loads it with: ``link_length`` (m), ``effort``
(N·m, the joints' torque limit the controllers clip at), ``rest_height`` (m, the base height on flat
ground), ``mass_props()``; optionally ``engine_friction``, ``setup(world, body)`` and
``after_step(world)``. The built-ins are listed in :mod:`lab.plugins`; user code adds its own with
``@lab.register_robot(name)``.
"""

from __future__ import annotations

from ..registry import Registry

ROBOTS: Registry[type] = Registry("robot")


def register_robot(name: str):
    """Register a robot spec dataclass as ``[robot] type = name`` (its fields are the table's keys)::

        @lab.register_robot("my_arm")
        @dataclass(frozen=True)
        class MyArm(Validated): ...
    """

    def deco(cls):
        missing = [a for a in ("to_urdf", "link_length", "effort", "rest_height") if not hasattr(cls, a)]
        if missing:
            raise TypeError(f"register_robot({name!r}): {cls.__name__} lacks {', '.join(missing)} "
                            "(a robot spec needs to_urdf(), link_length, effort, rest_height)")
        return ROBOTS.register(name)(cls)

    return deco


__all__ = ["ROBOTS", "register_robot"]
