"""The lab from Python: load a scenario, build a simulation, step or run it, read the results.

Everything here is a thin layer over what ``lab run`` uses — :func:`lab.core.scenario.load` for the
scenario and its overrides, :class:`lab.core.runner.Simulation` for the World, controller, force laws and
recorder, :func:`lab.results.write_run` for the output folder — so a run from Python and the same
run from the CLI give the same numbers::

    import lab

    res = lab.run("snake_passive_creeping", {"sim.duration": 5, "friction.mu_n": 0.4})
    res.metrics["com.speed_mean_mps"]       # the metrics of metrics.json, as a dict
    df = res.timeseries                     # timeseries.csv as a pandas DataFrame
    res.save("runs/mine")                   # the usual run folder (metrics, CSV, plots, provenance)

    with lab.Sim("snake_serpenoid") as sim: # step by hand: the scenario's controller, or your torques
        for _ in range(100):
            state = sim.step()              # a lab.core.state.RobotState (p_W, v_W, q, qd, com_W, …)
        state = sim.step(torques=[0.1] * sim.n_joints)

Overrides are the ``--set`` keys, as a dict (``{"robot.n_modules": 12}``) or as ``"key=value"``
strings. A force law written in user code joins a scenario by ``@lab.register_force("name")`` and a
``forces.<name>.type = "name"`` override (examples/custom_force.py); a controller by
``@lab.register_controller("name", params=…)`` (examples/user_controller.py); a robot by
``@lab.register_robot("name")``, or with no code from a URDF file, ``[robot] type = "urdf"``
(examples/user_robot.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:  # pandas is imported when a DataFrame is asked for
    import pandas as pd

    from lab.core.runner import RunResult
    from lab.core.scenario import Scenario
    from lab.core.state import RobotState

from lab.core.errors import LabError

Overrides = Mapping[str, Any] | Sequence[str] | None
API_OVERRIDE = "overrides[{!r}]"  # how an error names an override: the argument, not the CLI's --set


class LabTypeError(LabError, TypeError):
    """An argument of the wrong type (``duration=True``): a LabError and a TypeError."""

    def __init__(self, where: str, what: str | None = None):
        if what is None:  # rebuilt from its message: gymnasium.make re-raises an env's TypeError as type(e)(text)
            where, _, what = str(where).partition(": ")
        super().__init__(where, what)


class LabValueError(LabError, ValueError):
    """An argument of the right type but not allowed (``duration=-1``, a closed Sim): a LabError and a
    ValueError."""


def _duration(duration, where: str = "duration") -> float | None:
    """``duration=`` checked as ``lab run --duration`` is (sim.duration's type and range); None stays None."""
    if duration is None:
        return None
    from lab.core.fields import declarations
    from lab.core.scenario import SimConfig

    decl = declarations(SimConfig)["duration"]
    if isinstance(duration, bool) or not isinstance(duration, (int, float, np.integer, np.floating)):
        raise LabTypeError(where, f"must be {decl.expected()}, got {duration!r}")
    value = float(duration)
    problem = decl.problem(value)
    if problem:
        raise LabValueError(where, problem)
    return value


def _with_duration(overrides: Overrides, duration: float | None):
    """The overrides plus ``sim.duration`` (so the resolved scenario, and scenario.toml, says what ran)."""
    plain = _plain(overrides)
    if duration is None:
        return plain
    if isinstance(plain, dict):
        return {**plain, "sim.duration": duration}
    return [*plain, f"sim.duration={duration!r}"]


def load_scenario(scenario: "str | PathLike | Scenario", overrides: Overrides = None) -> "Scenario":
    """A validated scenario: a name from ``lab list`` (``"snake_passive_creeping"``), a path to a
    ``.toml``, or a Scenario already loaded (then ``overrides`` are applied to its resolved fields).

    ``overrides``: ``{"friction.mu_n": 0.5}`` or ``["friction.mu_n=0.5"]``, the CLI's ``--set``.
    Bad input raises :class:`lab.core.errors.LabError` naming the file and field."""
    from lab.core import scenario as scn

    if not isinstance(scenario, (str, PathLike, scn.Scenario)):
        raise LabTypeError("scenario", f"must be a scenario name, a path to a .toml or a Scenario, got {scenario!r}")
    if isinstance(scenario, scn.Scenario):
        if not overrides:
            return scenario
        items = scn.override_items(_plain(overrides), API_OVERRIDE)
        data = scn.apply_overrides(scenario.to_dict(), dict(items), API_OVERRIDE)
        try:
            return scn.from_dict(data, where=scenario.name)
        except LabError as exc:  # a bad value an override set is the override's, as with a file
            raise scn.blame(exc, scenario.name, (k for k, _ in items), API_OVERRIDE) from None
    return scn.load(str(scenario), _plain(overrides), API_OVERRIDE)


def _plain(overrides: Overrides):
    if overrides is None or isinstance(overrides, Mapping):
        plain = dict(overrides or {})
        bad = next((k for k in plain if not isinstance(k, str)), None)
        if bad is not None:
            raise LabTypeError("overrides", f"keys must be strings like 'robot.n_modules', got {bad!r}")
        return plain
    if isinstance(overrides, str):
        return [overrides]
    if not isinstance(overrides, (list, tuple)) or not all(isinstance(o, str) for o in overrides):
        raise LabTypeError("overrides", "must be a dict {'key': value} or a list of 'key=value' strings, "
                                        f"got {overrides!r}")
    return list(overrides)


@dataclass
class Result:
    """One finished run: ``status`` (``ok``, ``diverged``, ``unstable``, ``stopped``), ``metrics`` (the dict of
    metrics.json plus the wall-clock figures), the resolved ``scenario``, ``error`` (one line when
    diverged or unstable), and the recorded samples as DataFrames."""

    run: "RunResult"

    @property
    def status(self) -> str:
        return self.run.status

    @property
    def metrics(self) -> dict:
        return self.run.metrics

    @property
    def scenario(self) -> "Scenario":
        return self.run.scenario

    @property
    def error(self) -> str:
        return self.run.error

    @property
    def series(self) -> dict[str, np.ndarray]:
        """The recorder's arrays: ``t`` (K,), ``xy`` (K, N, 2) link COMs, ``z``, ``yaw``, ``pitch`` (K, N),
        ``q``, ``qd``, ``tau`` (K, J), energies ``E``, ``E_T``, ``E_R``, powers/works ``P_in``, ``P_d``,
        ``W_in``, ``W_d`` and the ledger's ``work.<channel>`` (K,) (lab.core.recorder.Recorder.series)."""
        return self.run.series

    @property
    def timeseries(self) -> "pd.DataFrame":
        """timeseries.csv as a DataFrame: ``t, E, …, W_<channel>, balance_residual_J, x_i, y_i, z_i, yaw_i,
        pitch_i, q_j, qd_j, tau_j`` (links and joints in the engine's order), one row per recorded sample
        (every ``sim.record_every`` steps); the columns are listed in docs/outputs.md."""
        return _frame(self.run.series)

    def save(self, out: str | PathLike, overwrite: bool = False, plots: bool = True) -> Path:
        """Write the run folder ``lab run --out`` writes (metrics.json, timeseries.csv, scenario.toml,
        provenance.json, plots) under the same folder rule (:mod:`lab.core.outputs`). Returns the folder."""
        from lab.results import write_run

        if not isinstance(out, (str, PathLike)):
            raise LabTypeError("out", f"must be a folder path (str or os.PathLike), got {out!r}")
        return Path(write_run(Path(out), self.run, plots=bool(plots), overwrite=bool(overwrite), label="out",
                              flag="overwrite=True"))


def _frame(series: dict) -> "pd.DataFrame":
    import pandas as pd

    from lab.results import timeseries_columns

    return pd.DataFrame(timeseries_columns(series))


def run(scenario: "str | PathLike | Scenario", overrides: Overrides = None, *, duration: float | None = None,
        gui: bool = False, out: str | PathLike | None = None, overwrite: bool = False,
        progress: bool = False) -> Result:
    """Run a scenario to its end (``sim.duration``, or ``duration`` seconds) and return its
    :class:`Result`; with ``out``, also write the run folder. ``gui=True`` opens the PyBullet window
    (paced to real time, the same physics). This is ``lab run`` without the command line."""
    from lab.present import run_scenario

    # duration= is sim.duration, as `lab run --duration` is: checked the same way and in the scenario it ran
    sc = load_scenario(scenario, _with_duration(overrides, _duration(duration)))
    if out is not None and not isinstance(out, (str, PathLike)):
        raise LabTypeError("out", f"must be a folder path (str or os.PathLike), got {out!r}")
    res = Result(run_scenario(sc, gui=gui, progress=progress))
    if out is not None:
        res.save(out, overwrite=overwrite)
    return res


def gui(scenario: "str | PathLike | Scenario", overrides: Overrides = None, **kwargs) -> Result:
    """Open the scenario in the PyBullet window (the lab's panel and keys, trails, force arrows; q or Esc ends it) and
    return the result when the window closes or the run ends: ``run(..., gui=True)``."""
    return run(scenario, overrides, gui=True, **kwargs)


class Sim:
    """A scenario built into a World (robot, arena, trial bodies, controller, force laws, recorder),
    advanced one step at a time. Use as a context manager, or call :meth:`close`.

    :meth:`step` is exactly the step of ``lab run`` (:meth:`lab.core.runner.Simulation.step`: the
    controller and force laws read the snapshot, the World applies torques and forces in one place,
    the engine steps, the energy ledger books the step). :meth:`run` runs a fresh Sim to the end and
    returns a :class:`Result` with the metrics. The underlying objects are ``sim.simulation``,
    ``sim.world``, ``sim.controller``."""

    def __init__(self, scenario: "str | PathLike | Scenario", overrides: Overrides = None, gui: bool = False):
        from lab.present import simulation

        self.scenario = load_scenario(scenario, overrides)
        self._gui = bool(gui)
        self.simulation = simulation(self.scenario, gui=gui)
        self.state: "RobotState" = self.simulation.world.read_state()
        self._started = False
        self._closed = False

    def _open(self, what: str) -> None:
        if self._closed:
            raise LabValueError(f"Sim.{what}", "this Sim is closed; make a new one")

    @property
    def world(self):
        return self.simulation.world

    @property
    def controller(self):
        return self.simulation.controller

    @property
    def n_joints(self) -> int:
        return self.simulation.world.n_joints

    @property
    def t(self) -> float:
        return self.state.t

    def step(self, n: int = 1, torques: Sequence[float] | np.ndarray | None = None) -> "RobotState":
        """Advance ``n`` engine steps (of ``sim.dt``) and return the new snapshot. ``torques`` (J,) N·m
        replace the controller's output for these steps (the controller is then not called, so its
        internal state does not advance); None runs the scenario's controller. A blow-up raises
        :class:`lab.core.errors.Diverged`. A Sim runs to ``sim.duration`` and no further: more steps than are
        left raise :class:`LabValueError` (``n``)."""
        self._open("step")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise LabTypeError("n", f"must be an integer number of steps, got {n!r}")
        if n < 0:
            raise LabValueError("n", f"must be at least 0, got {n}")
        left = self.scenario.sim.n_steps - self.simulation.world.steps
        if n > left:  # a Sim runs to sim.duration, as lab run does (10**12 steps would never return)
            raise LabValueError("n", f"{n} steps would run past sim.duration = {self.scenario.sim.duration:g} s: "
                                     f"{max(left, 0)} step(s) of {self.scenario.sim.dt:g} s are left; make the Sim "
                                     "with a longer sim.duration")
        tau = None
        if torques is not None:
            try:
                tau = np.asarray(torques, dtype=float).reshape(-1)
            except (TypeError, ValueError):
                raise LabTypeError("torques", f"must be {self.n_joints} numbers (N·m, one per joint), "
                                              f"got {torques!r}") from None
            if tau.shape != (self.n_joints,):
                raise LabValueError("torques", f"expected {self.n_joints} values (one per joint), got {tau.size}")
            if not np.isfinite(tau).all():
                raise LabValueError("torques", f"must be finite, got {tau.tolist()}")
        sim = self.simulation
        if not self._started:
            sim.recorder.start(self.state)
            self._started = True
        state = self.state
        for _ in range(int(n)):
            state, _ = sim.step(state, tau)  # tau None: the scenario's controller acts
            self.state = state
        return self.state

    def timeseries(self) -> "pd.DataFrame":
        """What the recorder holds so far, as :attr:`Result.timeseries`."""
        return _frame(self.simulation.recorder.series())

    def run(self, duration: float | None = None, progress: bool = False) -> Result:
        """Run from t = 0 to ``sim.duration`` (or ``duration`` s) with the scenario's controller: the
        same result as :func:`run`. Only on a Sim that has not been stepped."""
        self._open("run")
        if self._started:
            raise RuntimeError("Sim.run starts at t = 0: make a new Sim (this one has been stepped)")
        duration = _duration(duration)
        if duration is not None and duration != self.scenario.sim.duration:
            # as lab.run: the duration is the scenario's, so the Result's scenario says what ran
            from lab.present import simulation

            scenario = load_scenario(self.scenario, {"sim.duration": duration})
            self.simulation.close()
            self.scenario, self.simulation = scenario, simulation(scenario, gui=self._gui, progress=progress)
            self.state = self.simulation.world.read_state()
        elif progress and not self._gui:  # a Simulation's observers are fixed when it is made: make it with a bar
            from lab.present import simulation

            self.simulation.close()
            self.simulation = simulation(self.scenario, progress=True)
            self.state = self.simulation.world.read_state()
        self._started = True
        return Result(self.simulation.run())

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.simulation.close()

    def __enter__(self) -> "Sim":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def scenarios() -> list[str]:
    """The names of the shipped scenarios (``lab list``)."""
    from lab.core.scenario import list_scenarios

    return [p.stem for p in list_scenarios()]


__all__ = ["LabTypeError", "LabValueError", "Result", "Sim", "gui", "load_scenario", "run", "scenarios"]
