"""A sweep axis's ``also``: more fields given the axis's value at every point (copies that must agree, e.g.
the tracked robot's gear ratio and its controller's, lab.papers.hu2013_tracked.trials.check_drive_constants)."""

from __future__ import annotations

import pytest

from lab.core.errors import LabError
from lab.sweep.definition import expand, parse_sweep


def _sweep(axis_extra: dict, **top):
    return parse_sweep({"base": "tracked_step_climb", "axis": [{"key": "robot.i2", "values": [0.1, 0.3], **axis_extra},
                                                               {"key": "arena.friction", "values": [0.8, 1.6]}], **top})


def test_also_keys_get_the_axis_value():
    runs = expand(_sweep({"also": ["controller.i2"]}))
    assert len(runs) == 4
    for r in runs:
        assert r.overrides["controller.i2"] == r.overrides["robot.i2"] == r.point["controller.i2"]
    assert [r.point["robot.i2"] for r in runs] == [0.1, 0.1, 0.3, 0.3]
    assert _sweep({"also": ["controller.i2"]}).to_dict()["axis"][0]["also"] == ["controller.i2"]


@pytest.mark.parametrize("extra, top, field", [
    ({"also": "controller.i2"}, {}, "also"),  # not a list
    ({"also": ["arena.friction"]}, {}, "already swept"),  # swept by another axis
    ({"also": ["controller.i2"]}, {"set": {"controller": {"i2": 0.2}}}, "set"),  # fixed and swept
])
def test_also_keys_are_checked(extra, top, field):
    with pytest.raises(LabError) as e:
        _sweep(extra, **top)
    assert field in str(e.value)
