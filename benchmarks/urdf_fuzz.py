"""The URDF fuzzer at length: N generated files (default 2000) through ``lab run`` in a child process,
tallied by outcome (ran, diverged, refused: by the first words of the error) and any contract breach.

    PYTHONPATH=. python benchmarks/urdf_fuzz.py [--examples 2000] [--seed 0]

Prints the number of examples Hypothesis tried, the outcomes and the wall time with the machine's load;
exit 1 if any file crashed the process or broke the one-line error contract (the first such is shown).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "faults"))
from _urdf_gen import Loader, prepare_folder, urdf, verdict  # noqa: E402
from hypothesis import HealthCheck, given, settings, seed  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", "-v", action="store_true", help="one error line of each kind")
    ap.add_argument("--keep", metavar="DIR", help="save the files the engine (not the validator) refused here")
    args = ap.parse_args(argv)
    tally: collections.Counter = collections.Counter()
    breaches: list[str] = []
    sample: dict[str, str] = {}
    loader = Loader()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "robot"
        folder.mkdir()
        prepare_folder(folder)
        n = [0]

        @seed(args.seed)
        @settings(max_examples=args.examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
                  phases=["generate"])
        @given(urdf())
        def run(text):
            n[0] += 1
            path = folder / "r.urdf"
            path.write_text(text, encoding="utf-8")
            res = loader.load(path)
            wrong = verdict(res)
            if wrong:
                tally["BREACH"] += 1
                if len(breaches) < 5:
                    breaches.append(f"{wrong}\n{text[:2000]}")
                return
            if res["code"] == 0:
                tally["ran"] += 1
            elif res["code"] == 3:
                tally["diverged"] += 1
            else:
                what = res["stderr"].split("robot.path: ", 1)[-1]
                what = re.sub(r"^[^:]*:\d+: (?:<[^>]*> ?)*:? ?", "", what)  # drop file, line and element(s)
                key = "refused: " + " ".join(re.sub(r"[\d'\"=].*", "", what).split()[:5])
                tally[key] += 1
                if args.keep and "engine refused" in key:  # what the validator let through to the engine
                    Path(args.keep).mkdir(parents=True, exist_ok=True)
                    (Path(args.keep) / f"engine_refused_{tally[key]}.urdf").write_text(text, encoding="utf-8")
                sample.setdefault(key, res["stderr"].strip()[:300])

        run()
    loader.close()
    wall = time.perf_counter() - t0
    print(f"examples tried: {n[0]} (asked {args.examples}, seed {args.seed}); wall {wall:.0f} s; "
          f"load {os.getloadavg()[0]:.2f}")
    for k, v in tally.most_common():
        print(f"{v:6d}  {k}" + (f"\n        e.g. {sample[k]}" if args.verbose and k in sample else ""))
    for b in breaches:
        print("---", b, sep="\n")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
