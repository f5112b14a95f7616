import pytest
"""`lab check` end to end: the foundation's two cross-checks pass and checks.json has the contract shape."""

import json

from lab.checks import CHECKS
from lab.cli import main


@pytest.mark.slow
def test_friction_block_and_energy_balance_pass(tmp_path, capsys):
    code = main(["check", "friction_block", "energy_balance", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads((tmp_path / "checks.json").read_text())
    assert set(data) == {"friction_block", "energy_balance"}
    for figs in data.values():
        for fig in figs.values():
            assert set(fig) >= {"value", "tolerance", "passed"} and fig["passed"] is True


def test_check_list(capsys):
    assert main(["check", "--list"]) == 0
    out = capsys.readouterr().out
    for name in CHECKS:
        assert name in out


@pytest.mark.slow
def test_exit_code_follows_the_pass_flags(tmp_path, capsys):
    # A coarser step breaks the 1 % energy bar only if the ledger's residual really grows with dt:
    # at 4 ms (still inside the friction stability bound) the first-order residual is ~4× the 1 ms one.
    code = main(["check", "energy_balance", "--set", "sim.dt=0.004", "--set", "controller.E_ref=3.0",
                 "--out", str(tmp_path)])
    data = json.loads((tmp_path / "checks.json").read_text())
    fig = data["energy_balance"]["residual_rel"]
    assert (code == 0) == fig["passed"]
