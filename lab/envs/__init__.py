"""Gymnasium environments over the lab's scenarios (``pip install 'lab[gym]'``).

``import lab.envs`` registers these ids in the ``lab/`` namespace (``gymnasium.make("lab/Eel-v2")``,
or without the import: ``gymnasium.make("lab.envs:lab/Eel-v2")``):

===========================  ==========================  ============================================
id                           scenario                    robot and task
===========================  ==========================  ============================================
``lab/SnakeCreeping-v2``     snake_passive_creeping      10-module snake on anisotropic Coulomb friction
``lab/SnakeDrag-v2``         snake_drag                  the same snake pulling a 1 kg box on a rope
``lab/Eel-v2``               eel_forward_turn            9-link eel in water (Zhang 2018 hydrodynamics)
``lab/TrackedClimb-v2``      tracked_step_climb          tracked robot with an arm before a 15 cm step
``lab/TrackedStairs-v2``     tracked_stairs              the same robot before three 7 cm steps
``lab/Scenario-v2``          any (``scenario=``)         any scenario or .toml, e.g. snake_head_tracking
===========================  ==========================  ============================================

Each id also exists as v1, as published (its physics step and the motors' explicit lines, below); the
v2 ids take the motors' lines implicitly (stable at any step) and run the snakes and the eel at 5 ms and
the tracked robot at 2 ms (:mod:`lab.envs.env`, "Version history").

The tracked ids run the robot with Table 1's motor line (``robot.motor_speed_line = true``: the arm's
no-load speed 0.52 rad/s, the belt's 3.5 cm/s), which its scenarios leave off. The spec of
observation, action, reward and episode end is :mod:`lab.envs.env`'s docstring (with the version
history: v0 ids raise Gymnasium's ``DeprecatedEnv`` naming v1). Keyword arguments of
:class:`LabEnv` pass through ``gymnasium.make`` (``overrides``, ``control_dt``, ``action_mode``,
``reward``, ``terminate``, ``divergence_penalty``, ``render_mode``). Episodes end at the scenario's
``sim.duration`` (truncated); shorten it with ``overrides={"sim.duration": 10}``.

Gymnasium's conventions: ``env.unwrapped.dt`` is the control step (seconds per ``step()``), each id's
spec has ``max_episode_steps`` (the scenario's ``sim.duration`` / ``dt``, so ``TimeLimit`` truncates
and wrappers and monitors read the episode length from ``env.spec``), and ``metadata["render_fps"]``
is 1/dt. With overrides that change the episode's length (``sim.duration``, ``control_dt``), and for
``lab/Scenario-v1`` (whose length is its scenario's), use :func:`make`: it passes the matching
``max_episode_steps`` to ``gymnasium.make``.

:mod:`lab.envs.cem` is a small numpy learner (the cross-entropy method) that proves the ids learnable.
"""

try:
    import gymnasium
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    if exc.name != "gymnasium":
        raise
    raise ModuleNotFoundError("lab.envs needs gymnasium: pip install 'lab[gym]' (or 'gymnasium>=1.0')",
                              name="gymnasium") from None

from lab.envs.env import CONTROL_DT, DEFAULTS, DIVERGENCE_PENALTY, LabEnv, Reward, actuators, turned_over

# id → (scenario, the id's own overrides, applied under the user's, LabEnv's own keyword arguments). The v1
# ids keep the physics step they were published with (1, 1, 2, 1, 1 ms) whatever step their scenarios ship
# at (issue 34), with their published start (no settle) and sample period, the drive link's published inertia (the tracked scenarios now ship 1e-3 kg·m²) and
# sample period, and the motors' explicit lines: under full random torques the flagship's joints reach 6.9×
# their motor's no-load speed at 5 ms with those, against the < 5× the ids promise (tests/tools/test_envs.py).
# The v2 ids take the lines implicitly (lab.core.actuators), stable at any step, at a coarser step: the
# creeping snake 5 ms (the flagship's step converged within 0.7 % over 30 s, docs/benchmarks.md; under random
# torques its joints stay within 1.6 ω0), the dragging snake its scenario's 2 ms (at 5 ms the payload's
# course is not converged: the first half 9.04 s against 10.57 s at 2.5 ms), the tracked robot 2 ms (its converged step, issue 34's goal),
# the eel its shipped 5 ms (2.35 ω0 under random torques; 3.36 with the explicit lines).
_V1 = {"motor_lines": "explicit"}
IDS = {
    "lab/SnakeCreeping-v1": ("snake_passive_creeping", {"sim.dt": 0.001, "init.settle_s": 0.0,
                                                        "sim.record_every": 10}, _V1),
    "lab/SnakeDrag-v1": ("snake_drag", {"sim.dt": 0.001, "sim.record_every": 10}, _V1),
    "lab/Eel-v1": ("eel_forward_turn", {"sim.dt": 0.002}, _V1),
    "lab/TrackedClimb-v1": ("tracked_step_climb", {"robot.motor_speed_line": True, "sim.dt": 0.001,
                                                   "robot.drive_inertia": 2e-5, "sim.record_every": 20}, _V1),
    "lab/TrackedStairs-v1": ("tracked_stairs", {"robot.motor_speed_line": True, "sim.dt": 0.001,
                                                   "robot.drive_inertia": 2e-5, "sim.record_every": 20}, _V1),
    "lab/Scenario-v1": (None, {}, _V1),
    "lab/SnakeCreeping-v2": ("snake_passive_creeping", {"sim.dt": 0.005}, {}),
    "lab/SnakeDrag-v2": ("snake_drag", {"sim.dt": 0.002}, {}),
    "lab/Eel-v2": ("eel_forward_turn", {"sim.dt": 0.005}, {}),
    "lab/TrackedClimb-v2": ("tracked_step_climb", {"robot.motor_speed_line": True, "sim.dt": 0.002}, {}),
    "lab/TrackedStairs-v2": ("tracked_stairs", {"robot.motor_speed_line": True, "sim.dt": 0.002}, {}),
    "lab/Scenario-v2": (None, {}, {}),
}


def episode_steps(scenario: str | None, overrides=None, control_dt: float | None = None) -> int:
    """The number of ``step()`` calls in an episode of ``scenario`` (None: :class:`LabEnv`'s default) with
    ``overrides``: ``sim.duration`` over the control step, as :class:`LabEnv` truncates. Reads the
    scenario file only (no engine), so registering the ids stays cheap."""
    import inspect

    from lab.core import scenario as scn

    if scenario is None:
        scenario = inspect.signature(LabEnv).parameters["scenario"].default
    if isinstance(scenario, scn.Scenario):
        sim = scenario.sim
        data = {"sim": {"duration": sim.duration, "dt": sim.dt}}
    else:
        data = scn.read_toml(scn.resolve_path(str(scenario)))
    data = scn.apply_overrides(data, dict(overrides or {}))
    sim = data.get("sim", {})
    defaults = scn.SimConfig()
    dt, duration = float(sim.get("dt", defaults.dt)), float(sim.get("duration", defaults.duration))
    frame_skip = max(1, int(round((control_dt or CONTROL_DT) / dt)))
    return max(1, int(round(duration / dt)) // frame_skip)


def make(env_id: str, **kwargs):
    """``gymnasium.make(env_id, **kwargs)`` with the spec's ``max_episode_steps`` made to match the
    episode the ``overrides`` and ``control_dt`` ask for (gymnasium.make would keep the registered one)."""
    spec = gymnasium.spec(env_id)
    if "max_episode_steps" not in kwargs:
        merged = {**spec.kwargs, **kwargs}
        overrides = {**(merged.get("base_overrides") or {}), **(merged.get("overrides") or {})}
        kwargs["max_episode_steps"] = episode_steps(merged.get("scenario"), overrides, merged.get("control_dt"))
    return gymnasium.make(env_id, **kwargs)


def register() -> None:
    """Register :data:`IDS` with Gymnasium (done on import; again is harmless). The v0 ids are gone:
    ``gymnasium.make("lab/Eel-v0")`` raises Gymnasium's DeprecatedEnv naming the v1 id."""
    for env_id, (scenario, base, own) in IDS.items():
        if env_id in gymnasium.registry:
            continue
        kwargs = {} if scenario is None else {"scenario": scenario}
        kwargs.update(own)
        if base:
            kwargs["base_overrides"] = dict(base)
        # lab/Scenario-v1's length depends on the scenario it is made with: no fixed limit on its spec
        # (a registered one would truncate another scenario's episode at the default's); lab.envs.make sets it.
        steps = episode_steps(scenario, base) if scenario is not None else None
        gymnasium.register(id=env_id, entry_point="lab.envs.env:LabEnv", kwargs=kwargs, max_episode_steps=steps,
                           disable_env_checker=False, order_enforce=True)


register()

__all__ = ["DEFAULTS", "DIVERGENCE_PENALTY", "IDS", "LabEnv", "Reward", "actuators", "episode_steps", "make",
           "register", "turned_over"]
