"""The fault matrix: ``lab check --faults [NAME...]`` runs the checks under named, deliberate faults.

A check that passes a broken engine proves nothing. Each :class:`Fault` here is one degradation a real
user or a future code change could plausibly introduce, applied through the machinery a run already
uses — scenario overrides (``--set``), a World setting (:class:`lab.core.world.EngineOptions`), a registry
entry (a mutant of a force law registered under the law's own name), or a model's parameter — never a
test-only branch inside a law. Each check a selected fault enters first runs once without a fault;
under each fault the checks it declares run again, and a check has **caught** the fault when a figure
that passed without it fails (or the check cannot run at all), **missed** it otherwise. A figure that
fails without any fault catches nothing. The measured matrix and what each catch is: docs/checks.md.

"n/a" is declared, not guessed: a fault lists the checks whose run it enters (``checks``); every other
check is n/a for it, with the fault's ``na_reason`` saying why (e.g. a model-only check runs no
engine, a water fault touches no check on the ground, a time step ×4 leaves a scenario's explicit
friction unstable). The matrix is therefore {fault: {check: caught | missed | n/a}} for every pair,
and done means every fault caught by one check and every check catching one fault.

The faults restore what they changed when their block ends (a ``try/finally``), so a run of the
matrix leaves the process as it found it. Checks that fan out to worker processes would not see an
in-process fault: none of the checks the faults declare does (their worker counts default to 1).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from dataclasses import dataclass, field, replace
from typing import Callable, ContextManager


from lab.core.registry import Registry, registry

log = logging.getLogger(__name__)

CAUGHT, MISSED, NA = "caught", "missed", "n/a"


@dataclass(frozen=True)
class Fault:
    """One named degradation. ``overrides`` maps a check to the ``--set`` overrides the fault adds to
    that check's scenarios (``"*"``: every declared check); ``patch`` is a context manager factory for
    the faults that are not scenario fields (a World setting, a mutant law, a model parameter)."""

    name: str
    degrades: str  # what it breaks
    stands_for: str  # the plausible user error or future code change
    checks: tuple[str, ...]  # the checks whose run it enters; every other check is n/a
    na_reason: str  # why the other checks are n/a
    overrides: dict[str, tuple[str, ...]] = field(default_factory=dict)
    patch: Callable[[], ContextManager] | None = None

    def overrides_for(self, check: str) -> list[str]:
        return list(self.overrides.get(check, self.overrides.get("*", ())))

    def applies(self, check: str) -> bool:
        return check in self.checks


FAULTS: Registry[Fault] = registry("fault")


def fault(f: Fault) -> Fault:
    return FAULTS.add(f.name, f, origin=__name__)


# ---------------------------------------------------------------------- patches (restored on exit)


@contextlib.contextmanager
def _setattr(obj, name: str, value):
    old = obj.__dict__[name] if name in vars(obj) else getattr(obj, name)
    had = name in vars(obj)
    setattr(obj, name, value)
    try:
        yield
    finally:
        if had:
            setattr(obj, name, old)
        else:
            delattr(obj, name)


def engine_options(**kw):
    """The World's engine set-up with ``kw`` changed (lab.core.world.EngineOptions)."""

    def factory():
        from lab.core.world import World

        return _setattr(World, "options", replace(World.options, **kw))

    return factory


@contextlib.contextmanager
def _registry_entry(registry, name: str, entry):
    old = registry[name]
    registry[name] = entry
    try:
        yield
    finally:
        registry[name] = old


def _mutant_coulomb(kind: str):
    """The Coulomb laws (the regularised ``coulomb`` and the velocity-level ``coulomb_velocity``) as a
    plausible wrong edit of them would compute them, each registered under its own name."""

    def factory():
        from lab.forces.base import FRICTION
        from lab.forces.friction import AnisotropicCoulomb, VelocityCoulomb, coulomb

        if kind == "swapped":
            class SwappedAxes(AnisotropicCoulomb):
                """μ_t and μ_n exchanged in the call (the axes of the body frame mixed up)."""

                def __call__(self, state, t):
                    model = state.model
                    load = state.fn if self.normal_load == "contact" and state.fn is not None else model.weight
                    return coulomb(state.R_WB, state.v_W, load, float(self.mu_n), float(self.mu_n),
                                   float(self.mu_fwd), float(self.slip_tol), bool(self.head_exempt))

            class SwappedAxesVelocity(VelocityCoulomb):
                """The same exchange in the velocity-level law."""

                def __call__(self, state, t):
                    swapped = replace(self, mu_t=self.mu_n, mu_forward=None, mu_backward=None, mu_n=self.mu_fwd)
                    return VelocityCoulomb.__call__(swapped, state, t)

            classes = {"coulomb": SwappedAxes, "coulomb_velocity": SwappedAxesVelocity}
        else:
            def sign_flipped(base):
                class OneLinkSignFlipped(base):
                    """The middle link's friction force with its sign flipped (a sign slip in one branch)."""

                    def __call__(self, state, t):
                        F = super().__call__(state, t).copy()
                        F[len(F) // 2] *= -1.0
                        return F

                return OneLinkSignFlipped

            classes = {"coulomb": sign_flipped(AnisotropicCoulomb), "coulomb_velocity": sign_flipped(VelocityCoulomb)}
        stack = contextlib.ExitStack()
        for name, cls in classes.items():
            cls.__module__ = AnisotropicCoulomb.__module__  # the registry's origin check: same module, a replacement
            stack.enter_context(_registry_entry(FRICTION, name, cls))
        return stack

    return factory


@contextlib.contextmanager
def _wrap_function(module, name: str, make):
    """``module.name`` replaced by ``make(original)`` (every caller looks it up on the module)."""
    orig = getattr(module, name)
    setattr(module, name, make(orig))
    try:
        yield
    finally:
        setattr(module, name, orig)


# ---------------------------------------------------------------------- the faults

ENGINE_JOINTED = ("energy_balance", "turning_law", "eel_engine", "belt_speed", "step_climb", "unified_manipulation",
                  "unified_locomotion", "pfl_engine", "chain_climb")
ENGINE_ONE_BODY = ("friction_block", "hydro_decay")  # one body, no joints
NA_MODEL_ONLY = ("the other checks run no engine (models only) or no link frames (friction_block, hydro_decay: one "
                 "body, whose base pose is current either way)")

fault(Fault(
    "stale_link_frames",
    "every link pose and velocity the controllers and laws read is one step old (yaws off by q̇·dt)",
    "getLinkStates called without computeForwardKinematics=1 (the engine's default), e.g. in a refactor of "
    "World.read_state",
    ENGINE_JOINTED, NA_MODEL_ONLY, patch=engine_options(forward_kinematics=False)))

fault(Fault(
    "default_link_damping",
    "every link loses momentum to Bullet's linear and angular damping 0.04 (not in any model or ledger)",
    "a robot loaded without the changeDynamics(linearDamping=0, angularDamping=0) call",
    (*ENGINE_ONE_BODY, *ENGINE_JOINTED), "the other checks run no engine",
    patch=engine_options(link_damping=0.04)))

fault(Fault(
    "inertia_from_collision",
    "the engine's link inertias come from the collision shapes, not from the spec the models use",
    "loadURDF without URDF_USE_INERTIA_FROM_FILE",
    ("hydro_decay", *ENGINE_JOINTED), "the other checks run no engine, or (friction_block) slide one body "
                                      "without turning it, where no inertia enters",
    patch=engine_options(inertia_from_file=False)))

fault(Fault(
    "default_solver",
    "the wheeled snake's wheel contacts solved by Bullet's default (sequential impulses, residual 1e-7, "
    "50 iterations) instead of MLCP/PGS at 1e-14 and 1000 iterations",
    "a scenario written without the wheeled snake's contact_solver / contact_residual / solver_iterations",
    ("pfl_engine",), "only the wheeled snake needs a non-default solver; the others run Bullet's default",
    overrides={"*": ("robot.contact_solver=sequential_impulse", "robot.contact_residual=1e-7",
                     "sim.solver_iterations=50")}))

fault(Fault(
    "dt_x4",
    "the time step four times the scenario's (first-order errors ×4)",
    "a user coarsening sim.dt to run faster",
    ("friction_block", "energy_balance", "hydro_decay", "eel_engine", "step_convergence", "chain_climb"),
    "×4 leaves the explicit friction's stability bound 2·v_s/(μ g) (turning_law, the unified checks) or the "
    "stable range measured for the servo (pfl_engine at 20 ms, step_climb's belt); model-only checks run no "
    "engine",
    # ×4 the steps the flagship and the eel are converged at (5 ms, issue 34; at 8 ms the eel converges,
    # so step_convergence no longer saw the old setting)
    overrides={"friction_block": ("sim.dt=0.02",), "energy_balance": ("sim.dt=0.02",),
               "hydro_decay": ("sim.dt=0.02",), "eel_engine": ("sim.dt=0.02",),
               "step_convergence": ("sim.dt=0.02",),
               "chain_climb": ("sim.dt=0.002",)}))  # the two-module chain's scenario runs at 0.5 ms (issue 34)

fault(Fault(
    "friction_axes_swapped",
    "the Coulomb law applies μ_n along the link and μ_t across it",
    "the body-frame axes of the friction law exchanged in an edit of its kernel",
    ("friction_block", "energy_balance", "turning_law", "unified_manipulation", "unified_locomotion"),
    "the other checks use no Coulomb law (water, the wheeled snake's engine contacts, the tracked belt)",
    patch=_mutant_coulomb("swapped")))

fault(Fault(
    "friction_one_link_sign",
    "the middle link's friction force points with its slip instead of against it",
    "a sign slip in one branch of the friction kernel",
    ("friction_block", "energy_balance", "turning_law", "unified_manipulation", "unified_locomotion"),
    "the other checks use no Coulomb law",
    patch=_mutant_coulomb("sign")))

# ---------------------------------------------------------------------- running the matrix


def _run_check(check_name: str, overrides: list[str]) -> tuple[dict | None, str, float]:
    """(figures as {name: (value, passed)} or None, the error if the check raised, wall seconds)."""
    from lab.checks import CHECKS

    t0 = time.perf_counter()
    try:
        figs = CHECKS[check_name].fn(overrides)
    except Exception as exc:  # a fault may make a check's run impossible (invalid, diverged)
        log.info("check %s raised %s", check_name, exc)
        return None, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0
    return {k: (float(f.value), bool(f.passed)) for k, f in figs.items()}, "", time.perf_counter() - t0


def run_cell(f: Fault, check_name: str, overrides: list[str], baseline: dict | None = None) -> tuple[str, dict]:
    """Run one check under one fault: ("caught" | "missed", details).

    Caught means a figure that passes without the fault fails with it (``baseline``: the check's figures
    without the fault, {name: (value, passed)}; None: every figure counts as passing there), or the
    check cannot run at all (it raised, or the engine diverged: a figure the baseline does not have). A
    figure that already fails without the fault catches nothing."""
    ctx = f.patch() if f.patch is not None else contextlib.nullcontext()
    with ctx:
        figs, error, wall = _run_check(check_name, [*overrides, *f.overrides_for(check_name)])
    if figs is None:
        return CAUGHT, {"error": error, "wall_s": wall}
    failed = {k: v for k, (v, ok) in figs.items() if not ok and (baseline is None or baseline.get(k, (0, True))[1])}
    detail = {"failed": failed, "wall_s": wall, "values": {k: v for k, (v, _) in figs.items()}}
    if baseline is not None:
        detail["failing_without_fault"] = sorted(k for k, (_, ok) in baseline.items() if not ok)
    return (CAUGHT if failed else MISSED), detail


def run_faults(faults: list[str], checks: list[str], overrides: list[str], out, command=None,
               started: float | None = None, progress: bool = False, baseline: bool = True) -> tuple[bool, str]:
    """The matrix {fault: {check: caught | missed | n/a}} for ``faults`` × ``checks``; writes
    ``faults.json`` (the matrix), ``faults_detail.json`` (every figure's value under each fault, what
    failed, what already failed without a fault, wall times) and ``provenance.json`` into ``out``
    atomically. Each check that some fault enters runs once without a fault first (``baseline``).
    Returns (every fault caught and every check catching one, among those run; the table)."""
    from lab.core.outputs import Output, prepare
    from lab.core.provenance import collect
    from lab.core.writes import write_json as write_json_atomic

    output = out if isinstance(out, Output) else prepare(out, "check")
    started = time.time() if started is None else started
    t_all = time.perf_counter()
    matrix: dict[str, dict[str, str]] = {}
    detail: dict[str, dict[str, dict]] = {"(no fault)": {}}
    cells = [(fn, c) for fn in faults for c in checks if FAULTS[fn].applies(c)]
    used = [c for c in checks if any(c == cc for _, cc in cells)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(cells) + (len(used) if baseline else 0), unit="run", leave=False)
    base: dict[str, dict | None] = {}
    if baseline:
        for c in used:
            if bar is not None:
                bar.set_description(f"no fault × {c}")
            figs, error, wall = _run_check(c, overrides)
            base[c] = figs
            detail["(no fault)"][c] = {"values": {k: v for k, (v, _) in (figs or {}).items()}, "error": error,
                                       "failing": sorted(k for k, (_, ok) in (figs or {}).items() if not ok),
                                       "wall_s": wall}
            if bar is not None:
                bar.update(1)
    for fn in faults:
        f = FAULTS[fn]
        matrix[fn], detail[fn] = {}, {}
        for c in checks:
            if not f.applies(c):
                matrix[fn][c] = NA
                continue
            if bar is not None:
                bar.set_description(f"{fn} × {c}")
            matrix[fn][c], detail[fn][c] = run_cell(f, c, overrides, base.get(c))
            log.info("fault %s × check %s: %s (%.0f s)", fn, c, matrix[fn][c], detail[fn][c]["wall_s"])
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - t_all
    prov = collect(command, started, wall)

    def build(tmp) -> None:
        write_json_atomic(tmp / "faults.json", matrix)
        write_json_atomic(tmp / "faults_detail.json", detail)
        write_json_atomic(tmp / "provenance.json", prov)

    output.write_all(build)
    # among the cells run: a fault no check of this run applies to (or a check no fault applies to) is
    # neither uncaught nor idle here, only not exercised by this subset
    uncaught = [fn for fn in faults if set(matrix[fn].values()) - {NA} and CAUGHT not in matrix[fn].values()]
    idle = [c for c in checks if any(matrix[fn][c] != NA for fn in faults)
            and all(matrix[fn][c] != CAUGHT for fn in faults)]
    failing = {c: d["failing"] or d["error"] for c, d in detail["(no fault)"].items() if d["failing"] or d["error"]}
    table = format_matrix(matrix, checks, uncaught, idle, wall)
    if failing:
        table += "\nfailing without a fault (those figures catch nothing): " + "; ".join(
            f"{c}: {', '.join(v) if isinstance(v, list) else v}" for c, v in failing.items())
    return not uncaught and not idle, table


def format_matrix(matrix: dict, checks: list[str], uncaught: list[str], idle: list[str], wall: float) -> str:
    abbrev = {CAUGHT: "caught", MISSED: "MISSED", NA: "·"}
    w0 = max([len("fault")] + [len(f) for f in matrix])
    widths = [max(len(c), 6) for c in checks]
    lines = ["  ".join([f"{'fault':<{w0}}", *(f"{c:>{w}}" for c, w in zip(checks, widths))])]
    for fn, row in matrix.items():
        lines.append("  ".join([f"{fn:<{w0}}", *(f"{abbrev[row[c]]:>{w}}" for c, w in zip(checks, widths))]))
    lines.append(f"({wall:.0f} s; · = n/a, declared by the fault)")
    lines.append("every fault caught" if not uncaught else "NOT CAUGHT: " + ", ".join(uncaught))
    lines.append("every check catches a fault" if not idle else "CATCHING NONE: " + ", ".join(idle))
    return "\n".join(lines)


__all__ = ["CAUGHT", "FAULTS", "Fault", "MISSED", "NA", "fault", "format_matrix", "run_cell", "run_faults", "json"]
