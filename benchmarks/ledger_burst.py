"""The ledger burst check's margin (lab.core.instability, TOL["instability.burst_rel"]): the largest ratio of
energy made by no input to the ledger's turnover, read every BURST_EVERY_S, over every run of the regression
suite (scenarios/suites/regression.toml) at its shipped step, against a user's position-step hold (the plugin
test's, tests/tools/test_user_plugins.py) at 5 and 2.5 ms on snake_serpenoid and snake_passive_creeping.

Run: PYTHONPATH=. python benchmarks/ledger_burst.py [--quick]. The bar is not applied while measuring."""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

import lab
from lab.core import instability, user_plugins
from lab.core.tolerances import TOL
from lab.regress.suite import load_suite

ROOT = Path(__file__).resolve().parents[1]
PEAKS: list[float] = []

_start, _end = instability.InstabilityWatch.on_start, instability.InstabilityWatch.on_end


def _on_start(self, run, state):
    _start(self, run, state)
    self.burst_rel = math.inf  # measure, never stop


def _on_end(self, run, state, status):
    PEAKS.append(self.burst_peak)
    return _end(self, run, state, status)


def peak(scenario, overrides=None) -> tuple[float, str]:
    PEAKS.clear()
    res = lab.run(scenario, overrides or {})
    return PEAKS[-1], res.status


def main() -> None:
    instability.InstabilityWatch.on_start, instability.InstabilityWatch.on_end = _on_start, _on_end
    sys.path.insert(0, str(ROOT))
    from tests.tools.test_user_plugins import _plugin

    user_plugins.load(str(_plugin(Path(tempfile.mkdtemp()), "hold_burst")))
    print(f"bar in force: {TOL['instability.burst_rel'].value}")
    rows = []
    for scen in ("snake_serpenoid", "snake_passive_creeping"):
        for dt in (0.005, 0.0025):
            ov = {"controller.type": "hold_burst", "controller.angle": 0.4, "sim.duration": 0.6, "sim.dt": dt}
            p, st = peak(scen, ov)
            rows.append((f"hold 0.4 rad on {scen} at {dt * 1e3:g} ms", p, st))
            print(*rows[-1], flush=True)
    # a user's force law that drives the robot (examples/custom_force.py's wind, 2 s as the example runs)
    import importlib.util

    spec = importlib.util.spec_from_file_location("custom_force", ROOT / "examples" / "custom_force.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    p, st = peak("snake_passive_creeping", {"sim.duration": 2.0, "forces.wind.type": "wind",
                                            "forces.wind.velocity": [1.0, 0.0], "forces.wind.c": 0.5})
    rows.append(("examples/custom_force.py windy, flagship", p, st))
    print(*rows[-1], flush=True)
    if "--quick" in sys.argv:
        return
    suite = load_suite(ROOT / "scenarios" / "suites" / "regression.toml")
    for e in suite.entries:
        if e.kind != "run":
            continue
        p, st = peak(e.scenario)
        rows.append((f"regression {e.id}", p, st))
        print(*rows[-1], flush=True)
    healthy = max(p for name, p, _ in rows if not name.startswith("hold"))
    print(f"largest over the regression suite and the wind: {healthy:.4g}")


if __name__ == "__main__":
    main()
