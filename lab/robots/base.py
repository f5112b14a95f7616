"""The robot registry: ``[robot] type = name`` → the robot's spec dataclass.

A robot spec is a frozen, validated dataclass (:class:`lab.core.fields.Validated`) with a pure
``to_urdf() -> str`` and the properties the World loads it with: ``link_length`` (m), ``effort``
(N·m, the joints' torque limit the controllers clip at), ``rest_height`` (m, the base height on flat
ground), ``mass_props()``; optionally ``engine_friction``, ``setup(world, body)`` and
``after_step(world)``. The built-ins are listed in :mod:`lab.core.plugins`; user code adds its own with
``@lab.register_robot(name)``.

What a run of the robot shows is declared on the base class :class:`Robot` (hooks with defaults for a
chain of modules): which links are its body, which joints are actuated, its plots (:class:`lab.core.views.View`)
and its headline metrics. A spec that does not derive from :class:`Robot` gets those defaults.
"""

from __future__ import annotations

from lab.core.fields import Validated
from lab.core.registry import Registry, registry

ROBOTS: Registry[type] = registry("robot")


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


class Robot(Validated):
    """Base of the robot specs: the hooks the plots and the summary call. The defaults suit a chain of
    modules whose every movable joint is driven (the snake, the eel, a user's URDF chain)."""

    __slots__ = ()

    def body_links(self, link_names: tuple[str, ...]) -> tuple[str, ...]:
        """The links that make up the robot's body, tail first (drawn as its shape and paths).
        Default: every link. The wheeled snake leaves out its wheels."""
        return tuple(link_names)

    def actuated_joints(self, joint_names: tuple[str, ...]) -> tuple[str, ...]:
        """The joints a controller drives (the joint plots show only these). Default: every movable joint."""
        return tuple(joint_names)

    def views(self) -> tuple:
        """The robot's own plots (:class:`lab.core.views.View`). Default: the top view of every body link's path."""
        from lab.analysis.plots import TOP_VIEW

        return (TOP_VIEW,)

    def headline(self) -> tuple:
        """The robot's headline metrics (:class:`lab.core.views.Headline`), printed after the trial's and the
        analyses'. Default: none."""
        return ()


DEFAULT_ROBOT = Robot()  # the hooks' defaults, for a registered spec that does not derive from Robot


def hooks(spec) -> Robot:
    """The object whose hooks describe ``spec``: the spec itself if it derives from :class:`Robot`."""
    return spec if isinstance(spec, Robot) else DEFAULT_ROBOT


__all__ = ["DEFAULT_ROBOT", "ROBOTS", "Robot", "hooks", "register_robot"]
