"""What ``--video`` and ``--gui`` add to a run of the flagship scenario (snake, dt = 1 ms).

video:  VideoWriter's own clock: ms per frame in getCameraImage (ER_TINY_RENDERER, 640×480) and in
        the encoder, and the run's wall time per simulated second with and without recording.
gui:    (needs a display; under Xvfb: ``xvfb-run -a -s "-screen 0 1024x768x24" python ...``) per-step
        wall time, unpaced, of
          direct      the headless run, for reference
          gui         ``lab run --gui``: physics in DIRECT mode, the overlay mirroring it into a
                      viewer window opened first (lab.gui.open_viewer, with GUI_OPTIONS)
          world-gui   the alternative wiring: the World itself in GUI mode, the overlay drawing
                      into its window (every engine call of every step goes through the GUI threads)
          world-bare  the same with the overlay's update() a no-op
        GUI numbers depend on the renderer (Mesa software GL under Xvfb) and on how busy the CPUs
        are: each engine call in GUI mode is a hand-over between threads. Medians of --repeat runs.

Usage: python benchmarks/gui_video_overhead.py [--seconds S] [--repeat R] [--no-gui] [--no-video]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import lab.core.runner as runner
from lab.core import scenario as scn

SCENARIO = "snake_passive_creeping"


def _run(seconds: float, gui: str | None = None, video: str | None = None) -> tuple[float, dict]:
    from lab import present
    from lab.core.world import World

    sc = scn.load(SCENARIO, [f"sim.duration={seconds}"])
    obs = present.observers(sc, gui=gui == "gui", video=video)
    if gui in ("world-gui", "world-bare"):  # the World in GUI mode, the overlay in its own window

        class InWorld(present.Window):
            def __init__(self):
                self.viewer, self.overlay_kw, self.gui = None, {}, None

            def on_setup(self, run):
                from lab.gui import GuiOverlay

                self.gui = GuiOverlay(run.world, run.controller)
                if gui == "world-bare":
                    self.gui.update = lambda *a: True
                self._n = run.world.n_links

        runner.World = lambda *a, **k: World(*a, **{**k, "gui": True})
        try:
            sim = runner.Simulation(sc, observers=(*obs, InWorld()))
        finally:
            runner.World = World
    else:
        sim = runner.Simulation(sc, observers=obs)
    extra = {}
    try:
        t0 = time.perf_counter()
        res = sim.run()
        wall = time.perf_counter() - t0
        for ob in obs:
            if isinstance(ob, present.VideoCapture):
                v = ob.writer
                extra = {"frames": v.frames, "render_ms": 1e3 * v.render_s / v.frames,
                         "encode_ms": 1e3 * v.encode_s / v.frames}
        assert res.status == "ok", res.status
    finally:
        sim.close()
    return wall / res.metrics["steps"], extra


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="simulated seconds per run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-gui", action="store_true")
    ap.add_argument("--no-video", action="store_true")
    args = ap.parse_args()
    import lab.core.world

    lab.core.world.pace = lambda *a: None  # measure cost, not the real-time sleep
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    base = statistics.median(_run(args.seconds)[0] for _ in range(args.repeat))
    print(f"{'direct':<10} {base * 1e6:9.0f} µs/step")
    if not args.no_video:
        for suffix in (".mp4", ".gif"):
            rows = []
            with tempfile.TemporaryDirectory() as tmp:
                for i in range(args.repeat):
                    rows.append(_run(args.seconds, video=os.path.join(tmp, f"v{i}{suffix}")))
            per_step = statistics.median(r[0] for r in rows)
            render = statistics.median(r[1]["render_ms"] for r in rows)
            encode = statistics.median(r[1]["encode_ms"] for r in rows)
            print(f"video{suffix:<5} {per_step * 1e6:9.0f} µs/step; per frame {render:.1f} ms render + "
                  f"{encode:.1f} ms encode; +{(per_step - base) / base * 100:.0f}% wall time")
    if not args.no_gui:
        if not os.environ.get("DISPLAY"):
            print("gui: no DISPLAY, skipped (run under xvfb-run)")
            return
        for mode in ("gui", "world-gui", "world-bare"):
            t = statistics.median(_run(args.seconds, gui=mode)[0] for _ in range(args.repeat))
            print(f"{mode:<10} {t * 1e6:9.0f} µs/step  ({1e-3 / t:.2f}× real time unpaced)")


if __name__ == "__main__":
    main()
