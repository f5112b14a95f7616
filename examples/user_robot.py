"""A robot of your own from a URDF file, with no code: ``[robot] type = "urdf"`` and ``path``.

    python examples/user_robot.py --out runs/example_user_robot [--duration 5]

``examples/four_link_snake.urdf`` is a hand-written four-box snake whose yaw joints have different
torque limits (0.6, 0.9, 1.2 N·m, tail to head). The lab loads the file as written (its inertias, its
limits), with the same engine set-up as its own robots, and any controller and force law apply to it:
here the serpenoid gait on the passive-creeping ground (``examples/user_robot.toml``).

The lab's controllers clip at one torque limit; for a file robot that is the smallest of its joints'
(so none is driven past its own), and ``state.model.joint_effort`` holds each joint's. The script runs
the scenario, saves the usual run folder, and writes ``summary.json``: the joint limits read from the
loaded body, the largest torque each joint saw, the total mass, and how far the snake went.
"""

import argparse
import json
from pathlib import Path

import numpy as np

import lab

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for the run folder and summary.json")
    ap.add_argument("--duration", type=float, default=5.0, help="simulated seconds")
    args = ap.parse_args()

    # robot.path in user_robot.toml is relative to that file, so this runs from any folder
    overrides = {"sim.duration": args.duration}
    with lab.Sim(HERE / "user_robot.toml", overrides) as sim:
        model = sim.world.model
        res = sim.run()
    res.save(args.out / "run")
    tau = np.abs(res.series["tau"])  # (samples, joints) applied torques
    xy = res.series["xy"]
    com = (xy * model.mass[None, :, None]).sum(axis=1) / model.mass.sum()  # mass-weighted
    summary = {
        "status": res.status,
        "joint_names": list(model.joint_names),
        "joint_effort_Nm": model.joint_effort.tolist(),
        "controller_effort_Nm": model.effort,
        "max_abs_torque_Nm": tau.max(axis=0).tolist(),
        "total_mass_kg": float(model.mass.sum()),
        "com_dx_m": float(com[-1, 0] - com[0, 0]),
        "com_dy_m": float(com[-1, 1] - com[0, 1]),
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"{res.status}: {len(model.joint_names)} joints, limits {summary['joint_effort_Nm']} N·m; "
          f"COM moved ({summary['com_dx_m']:+.3f}, {summary['com_dy_m']:+.3f}) m")


if __name__ == "__main__":
    main()
