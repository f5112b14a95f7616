"""lab/core/tolerances.py: one place for every tolerance, each read by some check or test."""

from __future__ import annotations


def test_every_tolerance_is_used():
    """lab/core/tolerances.py holds the tolerances the code and tests use; one nobody reads is dead (it
    documents a check that no longer exists)."""
    from pathlib import Path

    from lab.core.tolerances import TOL

    root = Path(__file__).resolve().parents[2]
    text = "\n".join(p.read_text(encoding="utf-8") for d in ("lab", "tests", "benchmarks")
                     for p in (root / d).rglob("*.py") if p.name != "tolerances.py")
    unused = [k for k in TOL if f'"{k}"' not in text and f"'{k}'" not in text]
    assert not unused, f"tolerances nobody reads: {unused}"
