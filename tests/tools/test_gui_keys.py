"""The window's keyboard controls as pure functions (lab.gui.on_keys, control_lines), and the mute of
the engine's C-level stdout: no display needed."""

from __future__ import annotations

import ctypes
from dataclasses import replace
from types import SimpleNamespace

from lab.core.engine import engine_stdout_muted, mute_engine_stdout, pb, restore_engine_stdout
from lab.gui import KEYS, Controls, Tunable, control_lines, nice_step, on_keys, status_lines

PRESS = pb.KEY_IS_DOWN | pb.KEY_WAS_TRIGGERED
UP, DOWN, LEFT, RIGHT = pb.B3G_UP_ARROW, pb.B3G_DOWN_ARROW, pb.B3G_LEFT_ARROW, pb.B3G_RIGHT_ARROW


def _controls(**kw) -> Controls:
    tun = (Tunable("E_ref", 0.0, 3.0, 0.2), Tunable("phi_t", -1.0, 1.0, 0.1))
    return Controls(tun, (1.0, 0.0), **kw)


def _keys(c: Controls, *keys, state=PRESS) -> Controls:
    for k in keys:
        c = on_keys(c, {ord(k) if isinstance(k, str) else k: state})
    return c


def _same(a: Controls, b: Controls) -> bool:
    """Equal but for the keys held down (bookkeeping, not a setting)."""
    return replace(a, held=frozenset()) == replace(b, held=frozenset())


def test_a_key_acts_once_per_press():
    """Pressed (triggered), held, released: one action. A release whose press was never reported (the
    server keeps one state per key: a quick tap's release overwrites its press) acts once too."""
    c = _controls()
    for state in (pb.KEY_IS_DOWN, 0):
        assert _keys(c, RIGHT, "f", " ", "q", state=state) == c
    assert on_keys(c, {}) == c
    assert _same(_keys(c, "x", "1", pb.B3G_F1), c)  # keys without a meaning
    down, held, up = PRESS, pb.KEY_IS_DOWN, pb.KEY_WAS_RELEASED
    seq = c
    for state in (down, held, held, up):
        seq = on_keys(seq, {RIGHT: state})
    assert seq.values == (1.2, 0.0) and seq.held == frozenset()
    tap = on_keys(c, {RIGHT: up})  # the press was never seen
    assert tap.values == (1.2, 0.0)
    both = on_keys(on_keys(c, {RIGHT: down}), {RIGHT: up})
    assert both.values == (1.2, 0.0)  # seen pressed, then released: once


def test_up_down_select_with_wrap_around():
    c = _controls()
    assert _keys(c, DOWN).selected == 1
    assert _keys(c, DOWN, DOWN).selected == 0
    assert _keys(c, UP).selected == 1


def test_left_right_step_the_selected_parameter_within_its_range():
    c = _controls()
    assert _keys(c, RIGHT).values == (1.2, 0.0)
    assert _keys(c, RIGHT, RIGHT, RIGHT, RIGHT, RIGHT).values == (2.0, 0.0)  # snapped: no 1.9999999999999998
    assert _keys(c, *[RIGHT] * 20).values == (3.0, 0.0)  # held at the range's top
    assert _keys(c, *[LEFT] * 20).values == (0.0, 0.0)
    assert _keys(c, DOWN, LEFT, LEFT, LEFT).values == (1.0, -0.3)
    assert _keys(c, "+", "=", "-").values == (1.2, 0.0)
    off = Controls((Tunable("x", 0.0, 1.0, 0.1),), (0.55,))  # a start value between multiples
    assert _keys(off, RIGHT).values == (0.6,) and _keys(off, LEFT).values == (0.5,)


def test_several_keys_in_one_read_act_in_order():
    c = on_keys(_controls(), {DOWN: PRESS, RIGHT: PRESS, ord("c"): PRESS})
    assert c.selected == 1 and c.values == (1.0, 0.1) and not c.follow


def test_toggles_pause_and_quit():
    c = _controls()
    assert not _keys(c, "c").follow and _keys(c, "c", "c").follow
    assert not _keys(c, "f").forces and not _keys(c, "F").forces  # either case
    assert not _keys(c, "h").head_trail
    assert not _keys(c, "m").com_trail
    assert _keys(c, " ").paused and not _keys(c, " ", " ").paused
    assert _keys(c, "q").quit and _keys(c, "Q").quit
    assert c == _controls()  # pure: the input is not changed


def test_a_controller_without_parameters_ignores_the_arrows():
    c = Controls()
    assert _same(_keys(c, UP, DOWN, LEFT, RIGHT, "+"), c)
    assert control_lines(c)[0][0].startswith("parameters: none")


def test_steps_are_round_numbers_near_a_twentieth_of_the_range():
    assert nice_step(0.0, 3.0) == 0.2
    assert nice_step(-1.0, 1.0) == 0.1
    assert nice_step(0.0, 30.0) == 2.0
    assert nice_step(0.0, 0.06) == 0.0025
    for lo, hi in ((0.0, 1.2), (-0.3, 0.3), (0.05, 1.0), (0.0, 6.0)):
        s = nice_step(lo, hi)
        assert 0.6 < s / ((hi - lo) / 20) < 1.5


def test_controls_start_at_the_controllers_values_and_widen_a_range_to_hold_them():
    ctrl = SimpleNamespace(tunables=lambda: {"a": (0.0, 1.0), "b": (-1.0, 1.0)},
                           params=SimpleNamespace(a=0.5, b=2.5))
    c = Controls.for_controller(ctrl)
    assert c.values == (0.5, 2.5)
    assert (c.tunables[1].lo, c.tunables[1].hi) == (-1.0, 2.5)
    assert c.value("b") == 2.5


def test_panel_lines_name_every_parameter_the_selection_and_every_key():
    c = _keys(_controls(), DOWN, "h", " ")
    lines = [t for t, _ in control_lines(c)]
    assert "   E_ref = 1    in [0, 3], step 0.2" in lines
    assert "> phi_t = 0    in [-1, 1], step 0.1" in lines
    assert any("[h] head trail: off" in t and "[f] forces: on" in t for t in lines)
    assert "[space] resume   [q] or [Esc] quit" in lines
    text = " ".join(lines)
    for key in ("Up/Down", "Left/Right", "[c]", "[f]", "[h]", "[m]", "[space]", "[q]", "[Esc]"):
        assert key in text
    assert {k for k, _ in KEYS} == {"Up/Down", "Left/Right", "c", "f", "h", "m", "space", "q or Esc"}
    status = [t for t, _ in status_lines(c, 1.5, 0.0021, "red arrows: …", ["margin 3 cm"])]
    assert status == ["t =   1.50 s   E =    2.100 mJ   PAUSED", "red arrows: …", "margin 3 cm"]


def test_engine_stdout_is_muted_for_c_and_not_for_python(capfd):
    """C printf (the GUI threads' "ven = Mesa", "numActiveThreads") goes nowhere while a viewer is
    open; Python's own stdout is untouched; nested mutes release in order."""
    libc = ctypes.CDLL(None)
    libc.printf.argtypes = [ctypes.c_char_p]
    libc.fflush.argtypes = [ctypes.c_void_p]

    def c_print(text: str) -> None:
        libc.printf(text.encode())
        libc.fflush(None)

    assert not engine_stdout_muted()
    mute_engine_stdout()
    mute_engine_stdout()
    try:
        c_print("engine noise 1\n")
        print("python 1", flush=True)
        restore_engine_stdout()
        assert engine_stdout_muted()
        c_print("engine noise 2\n")
    finally:
        restore_engine_stdout()
    assert not engine_stdout_muted()
    c_print("C after\n")
    out = capfd.readouterr().out
    assert "python 1" in out and "C after" in out
    assert "engine noise" not in out
    restore_engine_stdout()  # one too many: ignored
    assert not engine_stdout_muted()

