"""Screw-theory step-climbing model of the tracked wheel-manipulator robot (Hu et al. 2013).

No pybullet here, and nothing from the lab's library: this is the reference the engine is checked
against, so the library (the robot's ``climb_params``, the climb controller's drive limits) may import
it and it imports nothing back. The generic SE(3)/product-of-exponentials algebra it builds on is
:mod:`lab.analysis.se3`.

- :mod:`.params`      Table 1 (:class:`ClimbParams`), the motor's output limits (:class:`DriveLimits`),
  the paper's stated height limit
- :mod:`.geometry`    the belt envelope: its outline, area moments and perimeter curve
- :mod:`.chain`       frames, Table 2's twists, the flip / climb / on-top chains (eqs. 1–9), plain
  trigonometry of the closed chain
- :mod:`.climb_path`  the sampled flip-and-climb path (Fig 5, eq. 12's closure), one
  :class:`PathSample` per arm angle
- :mod:`.dynamics`    motor torque over the path (eqs. 9–12), the largest height climbed
- :mod:`.drive`       the single motor's planetary split and what its stalled flip needs
"""

from lab.papers.hu2013_tracked.model.chain import (Chain, PerimeterJoint, R_world_step, climb_chain, flip_chain, gravity_S, top_chain,
                    trig_climb_pose, trig_closure)
from lab.papers.hu2013_tracked.model.climb_path import ClimbPath, PathSample, climb_path
from lab.papers.hu2013_tracked.model.drive import differential_stall, riser_belt_capacity
from lab.papers.hu2013_tracked.model.dynamics import ClimbResult, climb, forward_distance, max_height
from lab.papers.hu2013_tracked.model.geometry import Perimeter, polygon_moments, rounded_triangle_moments, rounded_triangle_polygon
from lab.papers.hu2013_tracked.model.params import ClimbParams, DriveLimits, height_limit

__all__ = ["ClimbParams", "DriveLimits", "height_limit", "Perimeter", "polygon_moments", "rounded_triangle_polygon",
           "rounded_triangle_moments", "Chain", "PerimeterJoint", "R_world_step", "gravity_S", "climb_chain",
           "flip_chain", "top_chain", "trig_climb_pose", "trig_closure", "PathSample", "ClimbPath", "climb_path",
           "ClimbResult", "climb", "forward_distance", "max_height", "differential_stall", "riser_belt_capacity"]
