"""The replay page's budget: file size and time to interactive in headless Chromium (docs/replay.md).

A run folder (default: the flagship, ``lab run snake_passive_creeping``, 30 s, written to a temporary
folder) → ``lab replay`` page → opened from its file URL in a fresh headless Chromium ``--repeat``
times (a new browser each time: a cold start, as a reader opening the file). "Interactive" is the
page's own clock (``performance.now()`` from navigation) when its ``window.labReplay`` hook exists:
the libraries are compiled, the scene is built and drawn once, the charts are drawn, and the controls
answer. Load average printed beside the numbers (the machine is shared).

Usage: python benchmarks/replay_page.py [--run DIR] [--repeat N] [--screenshot docs/replay.png]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path, default=None, help="a run folder (default: run the 30 s flagship)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seek", type=float, default=20.0, help="the instant the screenshot shows [s]")
    ap.add_argument("--screenshot", type=Path, default=None, help="save a screenshot of the page here")
    args = ap.parse_args()

    from lab.replay.browser import Browser
    from lab.replay.page import page_html

    tmp = Path(tempfile.mkdtemp(prefix="lab-replay-bench-"))
    run = args.run
    if run is None:
        run = tmp / "flagship"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "lab.cli", "run", "snake_passive_creeping", "--no-plots", "-q",
                        "--out", str(run)], check=True, stdout=subprocess.DEVNULL)
        print(f"flagship run: {time.perf_counter() - t0:.1f} s wall")
    t0 = time.perf_counter()
    text = page_html(run)
    build_s = time.perf_counter() - t0
    page = tmp / "page.html"
    page.write_text(text, encoding="utf-8")
    size = page.stat().st_size
    npz = (run / "replay.npz").stat().st_size
    print(f"page: {size / 1e6:.2f} MB (replay.npz {npz / 1e6:.2f} MB in the run folder); written in {build_s:.2f} s")
    ready, stages = [], {}
    for i in range(args.repeat):
        with Browser() as b:
            ready.append(b.open(page))
            marks = b.evaluate("performance.getEntriesByType('mark').filter(m => m.name.startsWith('lab:'))"
                               ".map(m => [m.name, m.startTime / 1000])")
            for name, t in marks or []:
                stages.setdefault(name, []).append(t)
            if b.errors:
                print("errors:", b.errors)
            if i == args.repeat - 1 and args.screenshot:
                b.evaluate(f"labReplay.seek({args.seek})")
                b.evaluate("labReplay.setArrows(true)")
                args.screenshot.write_bytes(b.screenshot())
                print(f"screenshot: {args.screenshot}")
    if stages:  # the page's own marks: libraries compiled, scene built (WebGL context), charts, first frame
        print("stages (median s from navigation): " + ", ".join(f"{k[4:]} {statistics.median(v):.2f}"
                                                               for k, v in stages.items()))
    load = os.getloadavg()
    print(f"interactive after (s): {', '.join(f'{r:.2f}' for r in ready)}; median {statistics.median(ready):.2f}, "
          f"max {max(ready):.2f}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
