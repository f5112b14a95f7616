"""The replay page in a real browser: headless Chromium (the Debian package .ci/run installs) opens
the file URL and the tests read the page back through its ``window.labReplay`` hook.

Skipped with a reason only when no Chromium can be found (and failing in CI, which installs it).
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys

import numpy as np
import pytest

from lab.replay.browser import Browser, find_browser

from conftest import IN_CI

pytestmark = pytest.mark.slow


def _browser_or_skip():
    exe = find_browser()
    if exe is None:
        if IN_CI:
            pytest.fail("chromium is required in CI (installed by .ci/run)")
        pytest.skip("no Chromium found (apt-get install chromium, or set LAB_CHROMIUM)")
    pytest.importorskip("websocket", reason="websocket-client (a dev dependency) drives Chromium")
    return exe


def _lab(*args, cwd=None):
    p = subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], capture_output=True, text=True, cwd=cwd,
                       timeout=900)
    assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The two commands of the issue: ``lab run tracked_step_climb --html`` and ``lab replay RUN --html``."""
    _browser_or_skip()
    d = tmp_path_factory.mktemp("replay")
    _lab("run", "tracked_step_climb", "--duration", "4", "--no-plots", "--out", d / "climb", "--html", d / "climb.html")
    _lab("run", "snake_passive_creeping", "--duration", "3", "--no-plots", "--out", d / "creep")
    _lab("replay", d / "creep", "--html", d / "creep.html")
    from test_replay import user_robot_scenario  # a user's URDF robot: box, sphere, cylinder and mesh links

    _lab("run", user_robot_scenario(d, duration=3.0), "--no-plots", "--out", d / "user", "--html", d / "user.html")
    return {"climb": (d / "climb", d / "climb.html"), "creep": (d / "creep", d / "creep.html"),
            "user": (d / "user", d / "user.html")}


@pytest.fixture(scope="module")
def browser():
    exe = _browser_or_skip()
    with Browser(exe) as b:
        b.call("Network.enable")
        yield b


def _png(data: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(int)


def _columns(run):
    with open(run / "timeseries.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    a = np.array(rows[1:], float)
    return {k: a[:, i] for i, k in enumerate(rows[0])}


@pytest.mark.parametrize("which", ["climb", "creep", "user"])
def test_page_loads_without_errors_or_network(pages, browser, which):
    run, page = pages[which]
    requests = []
    browser.errors.clear()
    orig = browser._event

    def spy(msg):
        if msg.get("method") == "Network.requestWillBeSent":
            requests.append(msg["params"]["request"]["url"])
        orig(msg)

    browser._event = spy
    try:
        browser.open(page)
        browser.evaluate("labReplay.seek(1.0)")
    finally:
        browser._event = orig
    assert browser.errors == []
    assert requests and all(u.split(":", 1)[0] in ("file", "blob", "data") for u in requests), requests


@pytest.mark.parametrize("which", ["climb", "creep", "user"])
def test_webgl_canvas_is_not_blank(pages, browser, which):
    browser.open(pages[which][1])
    img = _png(browser.canvas_png())
    bg = img[2, 2]
    differs = np.any(np.abs(img - bg) > 8, axis=2).mean()
    assert differs > 0.005, differs  # the robot and the arena cover more than 0.5 % of the view
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 50  # shaded, not one flat colour


@pytest.mark.parametrize("which", ["climb", "creep", "user"])
def test_seek_puts_the_tracked_link_where_the_run_recorded_it(pages, browser, which):
    """The page's link position at t equals timeseries.csv's (the recorder's float64 record, not the
    replay file) at the last frame at or before t."""
    run, page = pages[which]
    browser.open(page)
    cols = _columns(run)
    head = browser.evaluate("labReplay.headIndex")
    seen = []
    for t in (0.0, 0.52, 1.0, 2.37, 3.0):
        shown = browser.evaluate(f"labReplay.seek({t})")
        assert shown <= t + 1e-9 and t - shown < 0.04 + 1e-9  # 25 Hz frames
        i = int(np.argmin(np.abs(cols["t"] - shown)))
        assert abs(cols["t"][i] - shown) < 1e-6
        want = np.array([cols[f"x_{head}"][i], cols[f"y_{head}"][i], cols[f"z_{head}"][i]])
        got = np.array(browser.evaluate("labReplay.headPosition()"))
        assert np.allclose(got, want, atol=1e-5), (t, got, want)
        seen.append(got)
    assert np.linalg.norm(seen[-1] - seen[0]) > 0.01  # the link moved: a seek that did nothing would fail


@pytest.mark.parametrize("which", ["climb", "creep", "user"])
def test_arrows_toggle_changes_pixels(pages, browser, which):
    browser.open(pages[which][1])
    browser.evaluate("labReplay.seek(0.95 * labReplay.duration)")  # the climb's cleats bite from ~3.4 s
    n_laws = browser.evaluate("labReplay.setArrows(false)")
    assert n_laws >= 1
    off = _png(browser.canvas_png())
    browser.evaluate("labReplay.render()")
    assert np.array_equal(off, _png(browser.canvas_png()))  # the same frame renders the same pixels
    browser.evaluate("labReplay.setArrows(true)")
    on = _png(browser.canvas_png())
    changed = np.any(on != off, axis=2).sum()
    assert changed > 30, changed
    browser.evaluate("labReplay.setArrows(false)")
    assert np.array_equal(off, _png(browser.canvas_png()))


def test_screenshot_is_a_png(pages, browser, tmp_path):
    browser.open(pages["creep"][1])
    browser.evaluate("labReplay.seek(2.5)")
    shot = browser.screenshot()
    (tmp_path / "replay.png").write_bytes(shot)
    img = _png(shot)
    assert img.shape[0] >= 600 and img.shape[1] >= 1000


def test_clicking_a_chart_seeks_there(pages, browser):
    """A real mouse click (DevTools input events) on the energy chart at 60 % of its time axis puts the
    scene and every chart's cursor at that time (to one frame and one pixel of the axis)."""
    browser.open(pages["creep"][1])
    box = browser.evaluate("(() => { const r = document.querySelector('#charts .u-over').getBoundingClientRect();"
                           " return [r.left, r.top, r.width, r.height]; })()")
    duration = browser.evaluate("labReplay.duration")
    x, y = box[0] + 0.6 * box[2], box[1] + 0.5 * box[3]
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
    shown = browser.evaluate("labReplay.time()")
    per_px = duration / box[2]
    assert abs(shown - 0.6 * duration) <= 0.04 + 2 * per_px, (shown, 0.6 * duration)


def test_play_advances_and_pause_holds(pages, browser):
    import time

    browser.open(pages["creep"][1])
    browser.evaluate("labReplay.seek(0)")
    browser.evaluate("labReplay.play()")
    deadline = time.monotonic() + 20.0  # software GL on a loaded machine: frames can take a while
    while browser.evaluate("labReplay.time()") <= 0.0 and time.monotonic() < deadline:
        time.sleep(0.2)
    t1 = browser.evaluate("labReplay.time()")
    browser.evaluate("labReplay.pause()")
    t2 = browser.evaluate("labReplay.time()")
    time.sleep(0.5)
    assert t1 > 0.0 and browser.evaluate("labReplay.time()") == t2
