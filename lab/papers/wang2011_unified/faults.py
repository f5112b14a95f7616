"""The unified model's faults (Wang 2011).

Faults of the matrix (``lab check --faults``, :mod:`lab.checks.faults`) that only Wang 2011 (unified model)'s checks can
catch: each a plausible wrong edit of this paper's model, robot or controller, restored when its block ends."""

from __future__ import annotations

import contextlib

from lab.checks.faults import Fault, fault


@contextlib.contextmanager
def _unified_paper_inertia():
    """The unified model built with Table D1's I = 0.016 kg·m² where it should take the robot's."""
    from lab.papers.wang2011_unified import params as wp

    orig = wp.Wang2011Params.from_spec

    def from_spec(cls, spec, **overrides):
        return orig.__func__(cls, spec, **{**overrides, "I": wp.TABLE_D1["I"]})

    wp.Wang2011Params.from_spec = classmethod(from_spec)
    try:
        yield
    finally:
        wp.Wang2011Params.from_spec = orig


fault(Fault(
    "unified_paper_inertia",
    "the unified model computes with Table D1's I = 0.016 kg·m² while the engine's module has 2.7e-4",
    "the model's parameters taken from the paper's table instead of the robot (Wang 2011 unified)",
    ("unified_manipulation", "unified_locomotion"), "only Wang 2011's unified model reads this inertia",
    patch=_unified_paper_inertia))
