"""The Zhang 2018 eel report section (id zhang2018_eel) from a short run (--quick): figures 2–7 and the agreement table."""

import pytest

from lab.cli import main


@pytest.mark.slow
def test_quick_zhang2018_eel_section(tmp_path):
    out = tmp_path / "r"
    assert main(["report", "--quick", "--only", "zhang2018_eel", "--workers", "1", "--out", str(out)]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## zhang2018_eel" in md and "Quick mode" in md
    names = sorted(f.name for f in (out / "figures").glob("zhang2018_eel_*.png"))
    assert names == ["zhang2018_eel_fig2_heading.png", "zhang2018_eel_fig3_trajectory.png", "zhang2018_eel_fig4_vx.png",
                     "zhang2018_eel_fig5_vy.png", "zhang2018_eel_fig6_torques.png", "zhang2018_eel_fig7_torque1.png",
                     "zhang2018_eel_optimum_gait.png"]  # lab optimize's committed table
    for key in ("eel.models_max_rel", "eel.heading_rms_deg", "eel.com_err_rel", "eel.torque_nrmse"):
        assert key in md
    assert "| c_n | 2π ρ C_D R l |" in md  # the formula-vs-number table
    assert "section zhang2018_eel failed" not in md
