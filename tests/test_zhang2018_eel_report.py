import pytest
"""The Zhang 2018 eel report section (id seed003) from a short run (--quick): figures 2–7 and the agreement table."""

from lab.cli import main


@pytest.mark.slow
def test_quick_seed003_section(tmp_path):
    out = tmp_path / "r"
    assert main(["report", "--quick", "--only", "seed003", "--workers", "1", "--out", str(out)]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## seed003" in md and "Quick mode" in md
    names = sorted(f.name for f in (out / "figures").glob("seed003_*.png"))
    assert names == ["seed003_fig2_heading.png", "seed003_fig3_trajectory.png", "seed003_fig4_vx.png",
                     "seed003_fig5_vy.png", "seed003_fig6_torques.png", "seed003_fig7_torque1.png"]
    for key in ("eel.models_max_rel", "eel.heading_rms_deg", "eel.com_err_rel", "eel.torque_nrmse"):
        assert key in md
    assert "| c_n | 2π ρ C_D R l |" in md  # the formula-vs-number table
    assert "section seed003 failed" not in md
