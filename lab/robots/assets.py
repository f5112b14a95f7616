"""The default robots' URDFs committed under ``assets/urdf/<robot>/`` (``make urdf`` rewrites them;
a test checks that the generator still produces them byte for byte)."""

from __future__ import annotations

import inspect
from dataclasses import fields
from pathlib import Path

from lab.core.resources import asset_dir
from lab.robots.base import ROBOTS

ASSET_DIR = asset_dir()  # the checkout's assets/urdf/, or the wheel's copy (lab.core.resources)


def default_assets() -> dict[str, str]:
    """Relative path → file text for every default robot (URDF and a README of its parameters)."""
    out = {}
    for name, cls in ROBOTS.items():
        if not getattr(cls, "default_asset", True):  # a robot read from the user's file has no default
            continue
        spec = cls()
        out[f"{name}/{name}.urdf"] = spec.to_urdf()
        mp = spec.mass_props()
        lines = [f"# {name}: default generated model", "", inspect.cleandoc(cls.__doc__ or ""), "",
                 f"Regenerate with `make urdf` (or `lab urdf {name} -o assets/urdf/{name}/{name}.urdf`).", "",
                 "| parameter | value |", "|---|---|"]
        lines += [f"| `{f.name}` | {getattr(spec, f.name)} |" for f in fields(spec)]
        lines += ["", "Derived (from the geometry, never typed):", "",
                  f"- link mass: {mp.mass:.6g} kg",
                  f"- link inertia about the COM (link frame): Ixx = {mp.inertia[0, 0]:.6g}, "
                  f"Iyy = {mp.inertia[1, 1]:.6g}, Izz = {mp.inertia[2, 2]:.6g} kg·m²",
                  "- frames: link 0 is the tail and the URDF base; the last link is the head; x points to the head;"
                  " joints are yaw (z) revolutes at the links' front ends.", ""]
        notes = getattr(spec, "asset_notes", None)  # robots with more than one kind of link say what else
        if notes is not None:
            lines[-1:] = notes()
        out[f"{name}/README.md"] = "\n".join(lines)
    return out


def write_assets(root: Path = ASSET_DIR) -> list[Path]:
    written = []
    for rel, text in default_assets().items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        written.append(p)
    return written


if __name__ == "__main__":
    for p in write_assets():
        print(p)
