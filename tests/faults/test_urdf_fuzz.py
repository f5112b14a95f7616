"""Property: any URDF file a user hands the lab either runs or is refused with one ``error:`` line (exit 2),
and never crashes the process (each file is run by ``lab run`` in a child process, so a segfault is a
failing example, not a dead test run). The generator (``_urdf_gen.py``) spoils names, tree shapes,
masses, inertias, origins and mesh paths; a bounded number of examples here, many more in
``benchmarks/urdf_fuzz.py``."""

from __future__ import annotations

import os

import pytest
from _urdf_gen import Loader, prepare_folder, urdf, verdict
from hypothesis import HealthCheck, given, settings

EXAMPLES = int(os.environ.get("LAB_URDF_FUZZ_EXAMPLES", "40"))


@pytest.fixture(scope="module")
def loader():
    ld = Loader()
    yield ld
    ld.close()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz") / "robot"
    d.mkdir()
    prepare_folder(d)
    return d


@pytest.mark.slow
def test_every_generated_urdf_runs_or_is_refused_in_one_line(loader, folder):
    counter = iter(range(10**9))

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(urdf())
    def check(text):
        path = folder / f"r{next(counter)}.urdf"
        path.write_text(text, encoding="utf-8")
        wrong = verdict(loader.load(path))
        assert wrong is None, f"{wrong}\n--- {path.name} ---\n{text[:3000]}"
        path.unlink()

    check()


def test_the_fuzz_loader_reports_a_segfault_as_a_failure_and_goes_on(tmp_path):
    """The harness itself: a child killed by SIGSEGV while loading a file is a failing verdict naming the
    signal, and the next file gets a fresh child."""
    crash_on_bad = ("import os, signal, sys, json\n"
                    "for line in sys.stdin:\n"
                    "    if 'bad' in line: os.kill(os.getpid(), signal.SIGSEGV)\n"
                    "    print('@@verdict@@' + json.dumps({'code': 0, 'stderr': ''}), flush=True)\n")
    ld = Loader(worker=crash_on_bad)
    try:
        res = ld.load(tmp_path / "bad.urdf")
        assert res["crashed"] == -11 and "died (exit -11)" in verdict(res)
        assert verdict(ld.load(tmp_path / "good.urdf")) is None
    finally:
        ld.close()
