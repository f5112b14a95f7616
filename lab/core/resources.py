"""Where the shipped scenarios and default URDF assets are: one resolver for the checkout and the wheel.

In a git checkout they live in the top-level folders ``scenarios/`` (with ``sweeps/`` and ``suites/``)
and ``assets/urdf/``, where people edit them. A wheel carries copies of those folders as package data
under ``lab/_data/`` (``[tool.hatch.build.targets.wheel.force-include]`` in pyproject.toml), found
here through :mod:`importlib.resources`. The checkout wins when there is one, so an edited scenario
is the one that runs; "a checkout" means the folder above the ``lab`` package holds the project's
``pyproject.toml`` next to the folder asked for (a stray ``scenarios/`` in site-packages is not one).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
from importlib import resources
from pathlib import Path

PACKAGE_DATA = "_data"  # lab/_data/ in a wheel: scenarios/, assets/urdf/


def checkout_root() -> Path | None:
    """The repository root when ``lab`` is imported from a checkout, else None."""
    root = Path(__file__).resolve().parents[2]  # lab/core/resources.py -> the checkout
    pyproject = root / "pyproject.toml"
    try:
        if pyproject.is_file() and 'name = "lab"' in pyproject.read_text(encoding="utf-8"):
            return root
    except OSError:
        pass
    return None


@functools.cache
def _package_data() -> Path:
    """lab/_data as a real folder (an installed wheel is unpacked, so this is a plain path; a zipped
    import would be extracted once and removed at exit)."""
    node = resources.files("lab").joinpath(PACKAGE_DATA)
    if isinstance(node, Path):
        return node
    stack = contextlib.ExitStack()
    atexit.register(stack.close)
    return Path(stack.enter_context(resources.as_file(node)))


def data_dir(rel: str) -> Path:
    """A shipped folder by its checkout-relative path (``"scenarios"``, ``"assets/urdf"``): the
    checkout's when it has it, else the package data's copy."""
    root = checkout_root()
    if root is not None and (root / rel).is_dir():
        return root / rel
    return _package_data() / rel


def scenario_dir() -> Path:
    """The shipped scenarios (``*.toml``, with ``sweeps/`` and ``suites/`` inside)."""
    return data_dir("scenarios")


def asset_dir() -> Path:
    """The default robots' URDFs (``<robot>/<robot>.urdf``)."""
    return data_dir("assets/urdf")


__all__ = ["asset_dir", "checkout_root", "data_dir", "scenario_dir"]
