"""Gymnasium environments over the lab's scenarios (``pip install 'lab[gym]'``).

``import lab.envs`` registers these ids in the ``lab/`` namespace (``gymnasium.make("lab/Eel-v1")``,
or without the import: ``gymnasium.make("lab.envs:lab/Eel-v1")``):

===========================  ==========================  ============================================
id                           scenario                    robot and task
===========================  ==========================  ============================================
``lab/SnakeCreeping-v1``     snake_passive_creeping      10-module snake on anisotropic Coulomb friction
``lab/SnakeDrag-v1``         snake_drag                  the same snake pulling a 1 kg box on a rope
``lab/Eel-v1``               eel_forward_turn            9-link eel in water (Zhang 2018 hydrodynamics)
``lab/TrackedClimb-v1``      tracked_step_climb          tracked robot with an arm before a 15 cm step
``lab/TrackedStairs-v1``     tracked_stairs              the same robot before three 7 cm steps
``lab/Scenario-v1``          any (``scenario=``)         any scenario or .toml, e.g. snake_head_tracking
===========================  ==========================  ============================================

The tracked ids run the robot with Table 1's motor line (``robot.motor_speed_line = true``: the arm's
no-load speed 0.52 rad/s, the belt's 3.5 cm/s), which its scenarios leave off. The spec of
observation, action, reward and episode end is :mod:`lab.envs.env`'s docstring (with the version
history: v0 ids raise Gymnasium's ``DeprecatedEnv`` naming v1). Keyword arguments of
:class:`LabEnv` pass through ``gymnasium.make`` (``overrides``, ``control_dt``, ``action_mode``,
``reward``, ``terminate``, ``divergence_penalty``, ``render_mode``). Episodes end at the scenario's
``sim.duration`` (truncated); shorten it with ``overrides={"sim.duration": 10}``.

:mod:`lab.envs.cem` is a small numpy learner (the cross-entropy method) that proves the ids learnable.
"""

try:
    import gymnasium
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    if exc.name != "gymnasium":
        raise
    raise ModuleNotFoundError("lab.envs needs gymnasium: pip install 'lab[gym]' (or 'gymnasium>=1.0')",
                              name="gymnasium") from None

from lab.envs.env import DEFAULTS, DIVERGENCE_PENALTY, LabEnv, Reward, actuators, turned_over

# id → (scenario, the id's own overrides, applied under the user's)
IDS = {
    "lab/SnakeCreeping-v1": ("snake_passive_creeping", {}),
    "lab/SnakeDrag-v1": ("snake_drag", {}),
    "lab/Eel-v1": ("eel_forward_turn", {}),
    "lab/TrackedClimb-v1": ("tracked_step_climb", {"robot.motor_speed_line": True}),
    "lab/TrackedStairs-v1": ("tracked_stairs", {"robot.motor_speed_line": True}),
    "lab/Scenario-v1": (None, {}),
}


def register() -> None:
    """Register :data:`IDS` with Gymnasium (done on import; again is harmless). The v0 ids are gone:
    ``gymnasium.make("lab/Eel-v0")`` raises Gymnasium's DeprecatedEnv naming the v1 id."""
    for env_id, (scenario, base) in IDS.items():
        if env_id in gymnasium.registry:
            continue
        kwargs = {} if scenario is None else {"scenario": scenario}
        if base:
            kwargs["base_overrides"] = dict(base)
        gymnasium.register(id=env_id, entry_point="lab.envs.env:LabEnv", kwargs=kwargs,
                           disable_env_checker=False, order_enforce=True)


register()

__all__ = ["DEFAULTS", "DIVERGENCE_PENALTY", "IDS", "LabEnv", "Reward", "actuators", "register", "turned_over"]
