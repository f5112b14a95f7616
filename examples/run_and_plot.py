"""Run a scenario from Python and plot its results with matplotlib.

    python examples/run_and_plot.py --out runs/example_plot [--duration 30]

Runs the flagship scenario (Wang 2011's passive creeping snake) for ``--duration`` seconds (default 30 s:
the creeping gait sets in after ~10–15 s, so a shorter run shows only the start-up), takes the
recorded samples as a pandas DataFrame (the columns of timeseries.csv) and saves one figure:
every module's path in the plane and the kinetic energy E(t) against the controller's E_ref.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt

import lab


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for the PNG")
    ap.add_argument("--duration", type=float, default=30.0, help="simulated seconds (the creeping gait sets in after ~10–15 s)")
    ap.add_argument("--scenario", default="snake_passive_creeping")
    args = ap.parse_args()

    res = lab.run(args.scenario, {"sim.duration": args.duration})
    df = res.timeseries  # one row per recorded sample: t, E, …, x_i, y_i, yaw_i, q_j, qd_j, tau_j
    n_links = sum(c.startswith("x_") for c in df.columns)

    fig, (ax_xy, ax_e) = plt.subplots(1, 2, figsize=(11, 4.2))
    for i in range(n_links):
        ax_xy.plot(df[f"x_{i}"], df[f"y_{i}"], lw=0.8, color=plt.cm.viridis(i / max(1, n_links - 1)))
    ax_xy.set(xlabel="x [m]", ylabel="y [m]", title=f"{args.scenario}: module paths (tail dark, head light)")
    ax_xy.set_aspect("equal", adjustable="datalim")
    ax_e.plot(df["t"], df["E"], label="kinetic energy E")
    e_ref = getattr(res.scenario.controller, "E_ref", None)
    if e_ref is not None:
        ax_e.axhline(e_ref, ls="--", color="grey", label="E_ref")
    ax_e.set(xlabel="t [s]", ylabel="E [J]", title="energy")
    ax_e.legend()
    fig.tight_layout()

    args.out.mkdir(parents=True, exist_ok=True)
    png = args.out / f"{args.scenario}.png"
    fig.savefig(png, dpi=110)
    m = res.metrics
    print(f"{res.status}: {m['sim_time_s']:.1f} s simulated, COM moved {m['com.displacement_m']:.3f} m; "
          f"figure {png}")


if __name__ == "__main__":
    main()
