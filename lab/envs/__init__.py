"""Gymnasium environments over the lab's scenarios (``pip install 'lab[gym]'``).

``import lab.envs`` registers these ids in the ``lab/`` namespace (``gymnasium.make("lab/Eel-v0")``,
or without the import: ``gymnasium.make("lab.envs:lab/Eel-v0")``):

=========================  ==========================  ==============================================
id                         scenario                    robot and task
=========================  ==========================  ==============================================
``lab/SnakeCreeping-v0``   snake_passive_creeping      10-module snake on anisotropic Coulomb friction
``lab/SnakeDrag-v0``       snake_drag                  the same snake pulling a 1 kg box on a rope
``lab/Eel-v0``             eel_forward_turn            9-link eel in water (Zhang 2018 hydrodynamics)
``lab/TrackedClimb-v0``    tracked_step_climb          tracked robot with an arm before a 15 cm step
``lab/TrackedStairs-v0``   tracked_stairs              the same robot before three 7 cm steps
``lab/Scenario-v0``        any (``scenario=``)         any scenario or .toml, e.g. snake_head_tracking
=========================  ==========================  ==============================================

Keyword arguments of :class:`LabEnv` pass through ``gymnasium.make`` (``overrides``,
``control_dt``, ``reward``, ``terminate``, ``render_mode``). Episodes end at the scenario's
``sim.duration`` (truncated); shorten it with ``overrides={"sim.duration": 10}``.
"""

try:
    import gymnasium
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    if exc.name != "gymnasium":
        raise
    raise ModuleNotFoundError("lab.envs needs gymnasium: pip install 'lab[gym]' (or 'gymnasium>=0.29')",
                              name="gymnasium") from None

from .env import DEFAULTS, LabEnv, Reward, actuators, turned_over

IDS = {
    "lab/SnakeCreeping-v0": "snake_passive_creeping",
    "lab/SnakeDrag-v0": "snake_drag",
    "lab/Eel-v0": "eel_forward_turn",
    "lab/TrackedClimb-v0": "tracked_step_climb",
    "lab/TrackedStairs-v0": "tracked_stairs",
    "lab/Scenario-v0": None,
}


def register() -> None:
    """Register :data:`IDS` with Gymnasium (done on import; again is harmless)."""
    for env_id, scenario in IDS.items():
        if env_id in gymnasium.registry:
            continue
        kwargs = {} if scenario is None else {"scenario": scenario}
        gymnasium.register(id=env_id, entry_point="lab.envs.env:LabEnv", kwargs=kwargs,
                           disable_env_checker=False, order_enforce=True)


register()

__all__ = ["DEFAULTS", "IDS", "LabEnv", "Reward", "actuators", "register", "turned_over"]
