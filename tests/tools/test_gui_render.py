"""Headless renders (lab.video.readable_frame: --screenshot without a window, video frames, the
environments' rgb_array) carry the ground grid and the overlays: each checked against the same
picture without it, rendered with the same camera from the same state."""

from __future__ import annotations

import numpy as np
import pytest

from lab.overlay import ARROW_RGB

W, H = 320, 240


def _state_after(name: str, seconds: float):
    from lab.core import scenario as scn
    from lab.core.runner import Simulation
    from lab.present import Overlays

    overlays = Overlays()
    sim = Simulation(scn.load(name, [f"sim.duration={seconds}"]), observers=(overlays,))
    scene = overlays.scene
    state = sim.world.read_state()
    for k in range(int(round(seconds / sim.world.dt))):
        state, applied = sim.step(state)
        scene.update(k, state, applied)
    return sim, state, scene


@pytest.mark.parametrize("name", ["snake_passive_creeping", "eel_forward_turn"])
def test_render_has_the_grid_and_the_overlays(name):
    """bare (camera only) → + grid (readable_frame without a scene) → + overlays (with the run's scene).
    The grid puts scattered grey marks on the floor (or, for the eel, of the water's surface: PyBullet's
    CPU renderer draws the tinted water opaque); the overlays add the red force arrows and the label's
    white box in the corner, and change nothing else much."""
    from lab.video import FollowCamera, readable_frame
    from lab.visual import robot_length

    sim, state, scene = _state_after(name, 0.2)
    try:
        cam = FollowCamera(sim.world.client, robot_length(sim.world), W, H)
        bare = cam.render(cam.view(state), shadow=True).astype(int)
        grid = readable_frame(sim.world, state, None, W, H).astype(int)
        full = readable_frame(sim.world, state, scene, W, H).astype(int)
    finally:
        sim.close()
    lum = lambda img: img.sum(axis=2)  # noqa: E731
    by_grid = np.abs(grid - bare).sum(axis=2) > 30
    assert by_grid.mean() > 0.002, f"the grid changed {by_grid.mean():.2%} of the picture"
    g = grid[by_grid]  # the grid's marks: its own grey (lab.visual: rgba 0.45, 0.45, 0.42), darker than the ground
    assert ((np.abs(g[:, 0] - g[:, 1]) < 12) & (np.abs(g[:, 1] - g[:, 2]) < 20)).mean() > 0.8
    assert lum(grid)[by_grid].mean() < lum(bare)[by_grid].mean()
    by_overlay = np.abs(full - grid).sum(axis=2) > 30
    assert 0.002 < by_overlay.mean() < 0.15
    red = lambda img: (np.abs(img - ARROW_RGB).sum(axis=2) < 40).sum()  # noqa: E731
    assert red(full) > 20 and red(grid) == 0 and red(bare) == 0
    box = lambda img: (img[8:16, 6:60] > 240).all(axis=2).mean()  # noqa: E731
    assert box(full) > 0.3 and box(grid) < 0.05


def test_unproject_inverts_project():
    """The panel's anchors: world points at a given depth that project back to their pixels."""
    from lab.core.engine import pb
    from lab.overlay import project, unproject

    view = pb.computeViewMatrixFromYawPitchRoll([0.3, -0.2, 0.05], 0.9, 30.0, -35.0, 0, 2)
    proj = (0.75, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, -1.0, -1.0, 0, 0, -0.02, 0)  # PyBullet's window's
    px = np.array([[10.0, 22.0], [512.0, 384.0], [1000.0, 700.0]])
    p_W = unproject(px, [0.3, -0.2, 0.05], view, proj, 1024, 768)
    uv, front = project(p_W, view, proj, 1024, 768)
    assert front.all() and np.abs(uv - px).max() < 1e-6
    assert np.allclose(p_W[1], [0.3, -0.2, 0.05], atol=1e-9)  # the centre pixel at the target's depth
