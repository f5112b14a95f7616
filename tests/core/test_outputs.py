"""The --out rule (lab.core.outputs), file-system errors and provenance.json, with real runs.

A user's files are never lost: the lab writes only into a new folder, an empty one, or its own output
of the same kind; ``--overwrite`` replaces only the files the lab's marker lists. File-system errors
(no space, read-only, no permission) are one ``error:`` line and exit 2, and leave nothing behind.
Where the machine lets us mount a tmpfs, the disk-full and read-only cases are real, not simulated.
"""

from __future__ import annotations

import errno
import json
import os
import pathlib
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, snapshot

from lab.cli import main
from lab.core.errors import LabError
from lab.core.outputs import prepare, read_marker, unique_default

S = "snake_passive_creeping"
TINY = ["--duration", "0.05"]


def one_error_line(capsys) -> str:
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), cap.err
    assert "Traceback" not in cap.err
    return lines[0]


def lab_run(out, *extra) -> int:
    return main(["run", S, *TINY, "--out", str(out), *extra])


# ------------------------------------------------------------------ the folder rule with real runs


def test_existing_user_folder_is_refused_and_kept(tmp_path, capsys):
    user = tmp_path / "results"
    user.mkdir()
    (user / "thesis.tex").write_text("chapter 1\n")
    before = snapshot(tmp_path)
    assert lab_run(user) == 2
    assert "exists and holds files the lab did not write" in one_error_line(capsys)
    assert lab_run(user, "--overwrite") == 2  # --overwrite never touches a folder the lab did not make
    capsys.readouterr()
    assert snapshot(tmp_path) == before


def test_existing_file_is_refused_and_kept(tmp_path, capsys):
    f = tmp_path / "data.csv"
    f.write_text("1,2,3\n")
    assert lab_run(f) == 2
    assert "--out" in one_error_line(capsys)
    assert f.read_text() == "1,2,3\n" and sorted(os.listdir(tmp_path)) == ["data.csv"]


def test_empty_folder_is_used_in_place(tmp_path, capsys):
    out = tmp_path / "empty"
    out.mkdir()
    ino = out.stat().st_ino
    assert lab_run(out, "--no-plots") == 0
    assert out.stat().st_ino == ino  # the user's folder itself, not a replacement
    marker = read_marker(out)
    assert marker["kind"] == "run"
    assert sorted(marker["files"]) == ["metrics.json", "provenance.json", "replay.npz", "scenario.toml", "timeseries.csv"]
    assert sorted(os.listdir(out)) == [".lab-run", *marker["files"]]


def test_overwrite_replaces_only_the_labs_files(tmp_path, capsys):
    out = tmp_path / "run"
    assert lab_run(out) == 0
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert len(pngs) == 5 and set(pngs) <= set(read_marker(out)["files"])
    (out / "notes.txt").write_text("the user's notes\n")
    (out / "analysis").mkdir()
    (out / "analysis" / "fit.py").write_text("print(1)\n")
    old_metrics = (out / "metrics.json").read_bytes()
    capsys.readouterr()

    before = snapshot(tmp_path)
    assert lab_run(out) == 2  # a previous run is replaced only on request
    assert "holds a previous lab run; pass --overwrite" in one_error_line(capsys)
    assert snapshot(tmp_path) == before

    assert main(["run", S, "--duration", "0.1", "--out", str(out), "--overwrite", "--no-plots"]) == 0
    assert (out / "notes.txt").read_text() == "the user's notes\n"
    assert (out / "analysis" / "fit.py").read_text() == "print(1)\n"
    assert not list(out.glob("*.png"))  # the previous run's plots were the lab's: they went
    assert (out / "metrics.json").read_bytes() != old_metrics
    assert json.loads((out / "metrics.json").read_text())["sim_time_s"] == pytest.approx(0.1)
    assert sorted(read_marker(out)["files"]) == ["metrics.json", "provenance.json", "replay.npz", "scenario.toml",
                                                  "timeseries.csv"]
    assert not [n for n in os.listdir(out) if n.startswith(".lab-partial")]


def test_overwrite_refuses_a_user_file_with_a_lab_name(tmp_path, capsys):
    out = tmp_path / "run"
    assert lab_run(out, "--no-plots") == 0
    (out / "energy.png").write_bytes(b"the user's own plot")  # a name the lab would write with plots
    capsys.readouterr()
    before = snapshot(tmp_path)
    assert lab_run(out, "--overwrite") == 2
    assert "energy.png: was not written by the lab" in one_error_line(capsys)
    assert snapshot(tmp_path) == before


def test_other_kinds_refuse_each_others_folders(tmp_path, capsys):
    out = tmp_path / "run"
    assert lab_run(out, "--no-plots") == 0
    capsys.readouterr()
    before = snapshot(tmp_path)
    assert main(["report", "--out", str(out), "--overwrite"]) == 2
    assert "holds a lab run output, not a report" in one_error_line(capsys)
    assert main(["check", "--out", str(out), "--overwrite"]) == 2
    assert "holds a lab run output, not a check" in one_error_line(capsys)
    assert snapshot(tmp_path) == before


def test_a_damaged_marker_still_protects_the_folder(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / ".lab-run").write_text("{not json")
    (out / "metrics.json").write_text("{}")  # unknown provenance: not listed, so never replaced
    before = snapshot(tmp_path)
    assert lab_run(out, "--overwrite") == 2
    line = one_error_line(capsys)  # the marker is named, and what to do
    assert "/.lab-run: is damaged" in line and "remove the folder" in line
    assert snapshot(tmp_path) == before


def test_default_output_folder_never_meets_an_existing_one(tmp_path):
    base = tmp_path / "runs" / "x-20250101-000000"
    assert unique_default(base) == base and base.is_dir()  # claimed: made (empty) by this command
    assert unique_default(base).name == "x-20250101-000000-2"
    (base.parent / "x-20250101-000000-3").mkdir()  # someone else's
    assert unique_default(base).name == "x-20250101-000000-4"
    assert unique_default(tmp_path / "y", claim=False) == tmp_path / "y" and not (tmp_path / "y").exists()


def test_prepare_changes_nothing_and_a_legacy_sweep_folder_resumes(tmp_path):
    legacy = tmp_path / "sw"
    (legacy / "rows").mkdir(parents=True)
    (legacy / "sweep.toml").write_text("# resolved sweep definition, written by `lab sweep`; …\nname = \"s\"\n")
    (legacy / "runs.json").write_text("[]")
    before = snapshot(tmp_path)
    out = prepare(legacy, "sweep", name="s")
    assert out.previous["kind"] == "sweep" and "rows" in out.previous["files"]
    with pytest.raises(LabError, match="holds the sweep 's', not 't'"):
        prepare(legacy, "sweep", name="t")
    (legacy / "mine.txt").write_text("x")  # with a foreign file it is no longer recognisably the lab's
    with pytest.raises(LabError, match="did not write"):
        prepare(legacy, "sweep", name="s")
    (legacy / "mine.txt").unlink()
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------ file-system errors


def _fail_on(monkeypatch, name: str, err: int = errno.ENOSPC):
    """Make writing a file called ``name`` fail as a full disk (or another errno) would."""
    real = pathlib.Path.write_text

    def write_text(self, *a, **k):
        if self.name == name:
            raise OSError(err, os.strerror(err), str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(pathlib.Path, "write_text", write_text)


def test_disk_full_while_writing_a_new_run_leaves_nothing(tmp_path, monkeypatch, capsys):
    _fail_on(monkeypatch, "timeseries.csv")
    before = snapshot(tmp_path)
    assert lab_run(tmp_path / "out") == 2
    line = one_error_line(capsys)
    assert f"--out {tmp_path / 'out'}: cannot write: No space left on device" in line
    assert snapshot(tmp_path) == before  # no folder, no hidden partial folder


def test_disk_full_while_overwriting_keeps_the_previous_run(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    assert lab_run(out, "--no-plots") == 0
    (out / "notes.txt").write_text("mine\n")
    capsys.readouterr()
    before = snapshot(tmp_path)
    _fail_on(monkeypatch, "metrics.json")
    assert lab_run(out, "--overwrite") == 2
    assert "cannot write: No space left on device" in one_error_line(capsys)
    assert snapshot(tmp_path) == before  # the previous run whole, the user's file too


def test_read_only_folder_is_refused_before_simulating(tmp_path, monkeypatch, capsys):
    import lab.core.runner

    real_mkdir = os.mkdir

    def read_only(path, *a, **k):
        if str(path).startswith(str(tmp_path)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_mkdir(path, *a, **k)

    monkeypatch.setattr(lab.core.runner, "run_scenario", lambda *a, **k: pytest.fail("simulated first"))
    monkeypatch.setattr(os, "mkdir", read_only)
    before = snapshot(tmp_path)
    assert lab_run(tmp_path / "out") == 2
    assert f"cannot write in {tmp_path}: Read-only file system" in one_error_line(capsys)
    assert snapshot(tmp_path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permission bits")
def test_permission_denied_is_refused_before_simulating(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert lab_run(locked / "out") == 2
        assert "Permission denied" in one_error_line(capsys)
        assert main(["urdf", "snake", "-o", str(locked / "s.urdf")]) == 2
        assert "Permission denied" in one_error_line(capsys)
        assert os.listdir(locked) == []
    finally:
        locked.chmod(0o755)


def test_an_unexpected_os_error_is_one_line(monkeypatch, capsys):
    import lab.cli

    def boom(args):
        raise PermissionError(errno.EACCES, "Permission denied", "/some/where")

    monkeypatch.setitem(lab.cli.COMMANDS, "list", boom)
    assert main(["-v", "list"]) == 2
    assert one_error_line(capsys) == "error: /some/where: Permission denied"


def test_disk_full_in_check_urdf_and_report_is_one_line(tmp_path, monkeypatch, capsys):
    from lab.checks import CHECKS, Figure, check
    from lab.report import SECTIONS, SectionResult, section

    @check("zz_tiny")
    def tiny(overrides):
        """a check that computes nothing"""
        return {"x": Figure.at_most(0.0, 1.0)}

    @section("zz_text", title="Text only")
    def text(ctx):
        return SectionResult(body="hello")

    try:
        before = snapshot(tmp_path)
        import lab.core.outputs
        import lab.results

        import lab.core.writes

        real = lab.core.writes.write_text

        def full(path, text):
            if Path(path).name in ("checks.json", "s.urdf", "report.md"):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
            return real(path, text)

        monkeypatch.setattr(lab.core.writes, "write_text", full)
        assert main(["check", "zz_tiny", "--out", str(tmp_path / "c")]) == 2
        assert "--out" in (line := one_error_line(capsys)) and "No space left on device" in line
        assert snapshot(tmp_path) == before
        assert main(["urdf", "snake", "-o", str(tmp_path / "s.urdf")]) == 2
        assert "-o" in (line := one_error_line(capsys)) and "No space left on device" in line
        assert snapshot(tmp_path) == before
        assert main(["report", "--only", "zz_text", "--workers", "1", "--out", str(tmp_path / "r")]) == 2
        cap = capsys.readouterr()
        assert cap.err.count("error: ") == 1 and "No space left on device" in cap.err and "Traceback" not in cap.err
    finally:
        CHECKS.pop("zz_tiny", None)
        SECTIONS.pop("zz_text", None)


# ------------------------------------------------------------------ real file systems (tmpfs), where allowed


@pytest.fixture
def tmpfs(tmp_path):
    """Mount a small tmpfs; skipped where mounting is not allowed (unprivileged users, most CI)."""
    mounted = []

    def mount(options: str) -> Path:
        d = tmp_path / f"mnt{len(mounted)}"
        d.mkdir()
        res = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(d)], capture_output=True)
        if res.returncode != 0:
            pytest.skip("cannot mount a tmpfs here")
        mounted.append(d)
        return d

    yield mount
    for d in mounted:
        subprocess.run(["umount", str(d)], capture_output=True)


@pytest.mark.slow
def test_real_disk_full_and_read_only(tmpfs, capsys, lab_cmd):
    full = tmpfs("size=64k")
    res = subprocess.run([*lab_cmd, "-v", "run", S, "--duration", "0.5", "--out", str(full / "run")],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and "No space left on device" in res.stderr and "Traceback" not in res.stderr
    assert os.listdir(full) == []  # nothing half-written left on the full disk

    (full / "filler").write_bytes(b"\0" * (60 * 1024))  # the URDF no longer fits
    res = subprocess.run([*lab_cmd, "urdf", "snake", "--set", "n_modules=30", "-o", str(full / "s.urdf")],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "No space left" in res.stderr, res.stderr
    assert os.listdir(full) == ["filler"]

    ro = tmpfs("ro,size=64k")
    for argv in (["run", S, "--out", str(ro / "x")], ["check", "--out", str(ro / "x")],
                 ["urdf", "snake", "-o", str(ro / "x.urdf")], ["report", "--out", str(ro / "x")]):
        res = subprocess.run([*lab_cmd, *argv], capture_output=True, text=True, cwd=ROOT)
        assert res.returncode == 2, res.stderr
        assert res.stderr.count("\n") == 1 and "Read-only file system" in res.stderr, res.stderr
    assert os.listdir(ro) == []


# ------------------------------------------------------------------ provenance and determinism


def test_provenance_is_written_and_results_are_byte_identical(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    argv = ["run", S, "--duration", "0.3", "--set", "init.joint_noise=0.2", "--no-plots"]
    assert main([*argv, "--out", str(a)]) == 0
    assert main([*argv, "--out", str(b)]) == 0
    for name in ("metrics.json", "timeseries.csv", "scenario.toml"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    prov = json.loads((a / "provenance.json").read_text())
    for key in ("lab_version", "python", "pybullet_version", "numpy_version", "scipy_version", "platform",
                "command", "argv", "started", "wall_time_s", "git"):
        assert key in prov, key
    assert prov["argv"] == ["lab", *argv, "--out", str(a)]
    assert prov["pybullet_version"] and prov["numpy_version"] and prov["scipy_version"]
    assert prov["wall_time_s"] > 0 and prov["run"]["wall_time_s"] > 0
    if (ROOT / ".git").exists():
        assert len(prov["git"]["commit"]) == 40 and isinstance(prov["git"]["dirty"], bool)
    metrics = json.loads((a / "metrics.json").read_text())
    assert not set(metrics) & {"wall_time_s", "realtime_factor", "started", "git"}


def test_check_writes_provenance_and_overwrites_its_own_folder(tmp_path, capsys):
    from lab.checks import CHECKS, Figure, check

    @check("zz_tiny2")
    def tiny(overrides):
        """a check that computes nothing"""
        return {"x": Figure.at_most(0.5, 1.0)}

    try:
        out = tmp_path / "c"
        assert main(["check", "zz_tiny2", "--out", str(out)]) == 0
        assert json.loads((out / "checks.json").read_text())["zz_tiny2"]["x"]["passed"] is True
        prov = json.loads((out / "provenance.json").read_text())
        assert prov["argv"][:2] == ["lab", "check"] and "zz_tiny2" in prov["check_wall_time_s"]
        (out / "mine.txt").write_text("x")
        assert main(["check", "zz_tiny2", "--out", str(out)]) == 2
        capsys.readouterr()
        assert main(["check", "zz_tiny2", "--out", str(out), "--overwrite"]) == 0
        assert (out / "mine.txt").read_text() == "x"
        assert read_marker(out)["kind"] == "check"
    finally:
        CHECKS.pop("zz_tiny2", None)


def test_report_overwrite_keeps_user_files_and_drops_stale_figures(tmp_path, capsys):
    from lab.report import SECTIONS, SectionResult, section

    def figure():
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        return fig

    @section("zz_a", title="A")
    def sec_a(ctx):
        return SectionResult(body="a", figures=[ctx.save_figure(figure(), "line")])

    @section("zz_b", title="B")
    def sec_b(ctx):
        return SectionResult(body="b", figures=[ctx.save_figure(figure(), "line")])

    try:
        out = tmp_path / "rep"
        assert main(["report", "--only", "zz_a", "zz_b", "--workers", "1", "--out", str(out)]) == 0
        assert sorted(p.name for p in (out / "figures").iterdir()) == ["zz_a_line.png", "zz_b_line.png"]
        prov = json.loads((out / "provenance.json").read_text())
        assert set(prov["sections"]) == {"zz_a", "zz_b"} and prov["argv"][:2] == ["lab", "report"]
        (out / "figures" / "my_sketch.png").write_bytes(b"mine")
        (out / "README.txt").write_text("my notes")
        capsys.readouterr()
        assert main(["report", "--only", "zz_a", "--workers", "1", "--out", str(out)]) == 2
        assert "pass --overwrite" in one_error_line(capsys)
        assert main(["report", "--only", "zz_a", "--workers", "1", "--out", str(out), "--overwrite"]) == 0
        assert sorted(p.name for p in (out / "figures").iterdir()) == ["my_sketch.png", "zz_a_line.png"]
        assert (out / "README.txt").read_text() == "my notes"
        assert "zz_b" not in (out / "report.md").read_text()
        assert set(read_marker(out)["files"]) == {"figures/zz_a_line.png", "report.md", "report.html",
                                                  "provenance.json"}
    finally:
        SECTIONS.pop("zz_a", None)
        SECTIONS.pop("zz_b", None)


@pytest.mark.slow
def test_sweep_writes_provenance_marker_and_resumes_without_overwrite(tmp_path, monkeypatch, capsys):
    f = tmp_path / "s.toml"
    f.write_text(f'base = "{S}"\n[set]\n"sim.duration" = 0.05\n[[axis]]\nkey = "controller.E_ref"\n'
                 'values = [0.5]\n')
    out = tmp_path / "sw"
    out.mkdir()  # an empty folder is fine
    assert main(["sweep", str(f), "--workers", "1", "--out", str(out)]) == 0
    marker = read_marker(out)
    assert marker["kind"] == "sweep" and marker["name"] == "s"
    run_dir = next((out / "runs").iterdir())
    assert read_marker(run_dir)["kind"] == "run"
    run_prov = json.loads((run_dir / "provenance.json").read_text())
    assert run_prov["argv"][:2] == ["lab", "sweep"] and run_prov["run_id"] == run_dir.name
    (out / "my_analysis.ipynb").write_text("{}")  # the user's notebook beside the results
    assert main(["sweep", str(f), "--workers", "1", "--out", str(out)]) == 0  # resumes, nothing to run
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["ran"] == 0 and len(prov["previous"]) == 1 and prov["previous"][0]["ran"] == 1
    assert (out / "my_analysis.ipynb").read_text() == "{}"
    capsys.readouterr()

    import lab.sweep.table

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out / ".results.csv.x.tmp"))

    monkeypatch.setattr(lab.sweep.table, "write_tables", full)
    assert main(["-v", "sweep", str(f), "--workers", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err  # after the sweep's own progress line on stderr: one error line
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: --out {out}: cannot write: No space left on device"] and "Traceback" not in err


def test_removal_never_follows_a_symlinked_folder_out_of_the_output(tmp_path):
    """A listed file whose folder was replaced by a link to the user's own folder stays untouched:
    removal only deletes what really lies inside the lab's output."""
    from lab.core.outputs import _remove_entry

    out, mine = tmp_path / "report", tmp_path / "my_figures"
    out.mkdir()
    mine.mkdir()
    (mine / "wang2011_creeping_startup.png").write_bytes(b"user data")
    (out / "figures").symlink_to(mine, target_is_directory=True)
    _remove_entry(out, "figures/wang2011_creeping_startup.png")
    assert (mine / "wang2011_creeping_startup.png").read_bytes() == b"user data"
    _remove_entry(out, "figures")  # the link itself is the lab's entry: it goes, its target stays
    assert not (out / "figures").exists() and (mine / "wang2011_creeping_startup.png").is_file()
