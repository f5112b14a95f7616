"""Overlays drawn onto rendered images (lab/overlay.py): projection against an independent pinhole
model, drawing at the projected pixels, and `--screenshot` written headless however a run ends."""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pytest

from conftest import ROOT, make_state
from lab.overlay import ARROW_RGB, Scene, draw, project


@pytest.fixture(scope="module")
def client():
    from lab.core.engine import connect

    c = connect(False)
    yield c
    c.disconnect()


def _pinhole(points, eye, target, fov_deg, width, height):
    """Independent camera model: look-at frame (up = +z), vertical field of view, pixel centre origin."""
    eye, target = np.asarray(eye, float), np.asarray(target, float)
    f = (target - eye) / np.linalg.norm(target - eye)
    r = np.cross(f, [0.0, 0.0, 1.0])
    r /= np.linalg.norm(r)
    u_up = np.cross(r, f)
    d = np.asarray(points, float) - eye
    x, y, z = d @ r, d @ u_up, d @ f
    k = 1.0 / math.tan(math.radians(fov_deg) / 2.0)  # focal length in half-heights
    aspect = width / height
    return np.c_[(1 + k * x / (z * aspect)) * width / 2, (1 - k * y / z) * height / 2], z > 0


def test_projection_matches_an_independent_pinhole_model(client):
    eye, target, w, h = [1.2, -0.8, 0.9], [0.1, 0.2, 0.05], 640, 480
    view = client.computeViewMatrix(eye, target, [0, 0, 1])
    proj = client.computeProjectionMatrixFOV(50.0, w / h, 0.01, 100.0)
    rng = np.random.default_rng(3)
    pts = np.r_[[target], rng.uniform(-0.5, 0.5, (20, 3)), [[3.0, -2.5, 2.0]]]  # the last: behind the eye
    uv, front = project(pts, view, proj, w, h)
    ref, ref_front = _pinhole(pts, eye, target, 50.0, w, h)
    assert np.array_equal(front, ref_front) and not front[-1]
    assert np.allclose(uv[:1], [[w / 2, h / 2]], atol=1e-9)  # the target is the image centre
    assert np.allclose(uv[front], ref[front], atol=1e-6)


class _World:
    """Just what Scene needs: dt and a model with link length, masses and gravity."""

    dt = 0.001

    class model:
        link_length, mass, gravity = 0.08, np.full(3, 0.5), 9.81


def test_arrow_is_drawn_where_the_force_projects(client):
    w, h = 320, 240
    view = client.computeViewMatrix([0.0, -1.0, 1.0], [0.0, 0.0, 0.0], [0, 0, 1])
    proj = client.computeProjectionMatrixFOV(50.0, w / h, 0.01, 100.0)
    scene = Scene(_World())
    state = make_state(yaw=[0.0, 0.0, 0.0])
    F_W = np.zeros((3, 3))
    F_W[1] = [2.0, 0.0, 0.0]  # one arrow on the middle link, along +x
    scene.update(0, state, F_W)
    blank = np.full((h, w, 3), 200, np.uint8)
    out = draw(blank, scene, view, proj)
    red = np.all(out == ARROW_RGB, axis=2)
    tip = state.p_W[1] + scene.scale * F_W[1]
    (u0, v0), (u1, v1) = project(np.array([state.p_W[1], tip]), view, proj, w, h)[0]
    ys, xs = np.nonzero(red)
    assert red.sum() > 20
    assert xs.min() >= min(u0, u1) - 3 and xs.max() <= max(u0, u1) + 3  # along the projected segment only
    assert ys.min() >= min(v0, v1) - 6 and ys.max() <= max(v0, v1) + 6
    assert (out[:30, :150] != 200).any()  # the time/energy label in the corner
    assert (out[60:, :] == 200).all(axis=2).sum() + red[60:].sum() == (h - 60) * w  # nothing else drawn


def test_head_trail_follows_the_declared_head_and_none_without_one():
    """The blue trail is the spec's head link; a robot without a head (the tracked robot, whose last link
    is a belt slab) has none."""
    state = make_state(yaw=[0.0, 0.0, 0.0])
    snake, headless, first = Scene(_World()), Scene(_World(), head=None), Scene(_World(), head=0)
    for sc in (snake, headless, first):
        sc.update(0, state)
    assert np.allclose(snake.head[-1], state.p_W[-1]) and np.allclose(first.head[-1], state.p_W[0])
    assert len(headless.head) == 0 and len(headless.com) == 1


@pytest.mark.slow
def test_screenshot_is_written_headless_when_the_run_ends_early(tmp_path, lab_cmd):
    """A run that ends early (here it diverges at once: a kinetic-energy limit of 1e-7 J), without
    --gui: the PNG is still written, with the overlays (the force arrows' colour is in it)."""
    import imageio.v2 as imageio

    shot = tmp_path / "shot.png"
    r = subprocess.run([*lab_cmd, "run", "snake_passive_creeping", "--set", "sim.duration=1.0",
                        "--set", "sim.max_kinetic_energy=1e-7", "--screenshot", str(shot),
                        "--out", str(tmp_path / "out"), "--no-plots"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 3, r.stderr[-2000:]  # diverged (by the tiny energy limit) and still a picture
    img = np.asarray(imageio.imread(shot))[..., :3]
    assert img.shape == (768, 1024, 3) and img.std() > 5.0
    assert (np.abs(img.astype(int) - ARROW_RGB).sum(axis=2) < 30).sum() > 5  # force arrows drawn
