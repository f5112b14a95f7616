"""A parameter loop in plain Python: one scenario, one field varied, the metrics in a DataFrame.

    python examples/parameter_loop.py --out runs/example_loop [--duration 20]

Runs passive creeping at three lateral friction coefficients μ_n and tabulates the steady COM speed,
the mean kinetic energy and the energy-balance residual. For many runs in parallel (and resumable),
the same loop is a sweep file: ``lab sweep scenarios/sweeps/creeping_Eref_mun.toml``.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import lab


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for results.csv and the PNG")
    ap.add_argument("--duration", type=float, default=20.0, help="simulated seconds per run")
    args = ap.parse_args()

    base = lab.load_scenario("snake_passive_creeping", {"sim.duration": args.duration})
    rows = []
    for mu_n in (0.2, 0.3, 0.5):
        res = lab.run(base, {"friction.mu_n": mu_n})
        m = res.metrics
        rows.append({"mu_n": mu_n, "status": res.status, "com_speed_mps": m["com.speed_mean_mps"],
                     "kinetic_mean_J": m["energy.kinetic_mean_J"],
                     "balance_residual_rel": m["energy.balance_residual_rel"]})
    table = pd.DataFrame(rows)

    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "results.csv", index=False)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(table["mu_n"], table["com_speed_mps"], "o-")
    ax.set(xlabel="lateral friction μ_n", ylabel="steady COM speed [m/s]",
           title=f"passive creeping, {args.duration:g} s runs")
    fig.tight_layout()
    fig.savefig(args.out / "speed_vs_mu_n.png", dpi=110)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
