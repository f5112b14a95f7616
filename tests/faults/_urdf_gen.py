"""Hypothesis strategies for hostile and clumsy URDF files, and a child process that loads them.

The generator draws a robot as a user might write one, then spoils it the ways users do: names (unicode,
quotes, control characters, up to 1.2 KB), tree shapes (chains and stars up to 130 links, loops, two
roots, duplicate and undefined links), masses and inertias (zero, negative, NaN, 1e308, non-numbers,
indefinite tensors, triangle-inequality breakers), origins (1e308, ``nan``), and mesh paths (a good
mesh, a missing one, ``package://``, ``/etc/passwd``, ``/dev/zero``, ``../``, a symlink out, a folder, a
text file, an empty or garbage mesh). :class:`Loader` runs ``lab run`` on each file in a long-lived
child process (one import for many files): a segfault kills the child, never the test, and is reported
with the file that caused it. Shared by ``tests/faults/test_urdf_fuzz.py`` and ``benchmarks/urdf_fuzz.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.sax.saxutils import quoteattr

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

GOOD_OBJ = """v 0 0 0
v 0.1 0 0
v 0 0.1 0
v 0 0 0.1
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 4
"""

MESHES = ("good.obj", "missing.obj", "package://robot/meshes/good.obj", "/etc/passwd", "/dev/zero",
          "../outside.obj", "link_out.obj", "folder.obj", "notes.txt", "empty.obj", "garbage.stl",
          "sub/../good.obj", "file:///etc/passwd", "GOOD.OBJ")


def prepare_folder(folder: Path) -> None:
    """The files the mesh paths above point at, made once per folder."""
    (folder / "good.obj").write_text(GOOD_OBJ)
    (folder / "sub").mkdir(exist_ok=True)
    (folder / "folder.obj").mkdir(exist_ok=True)
    (folder / "notes.txt").write_text("not a mesh\n")
    (folder / "empty.obj").write_text("")
    (folder / "garbage.stl").write_bytes(bytes(range(256)) * 3)
    (folder.parent / "outside.obj").write_text(GOOD_OBJ)
    if not (folder / "link_out.obj").is_symlink():
        (folder / "link_out.obj").symlink_to(folder.parent / "outside.obj")


SANE = st.floats(min_value=1e-3, max_value=10.0)


def number() -> st.SearchStrategy[str]:
    """A number as a user might type it: mostly sane, sometimes hostile."""
    return st.one_of(
        SANE.map(repr),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.sampled_from(["0", "-1", "nan", "inf", "-inf", "1e308", "1e-308", "abc", "", "1_0", "0x10", " 1 ",
                         "1e400", "1,5", "1 2"]),
    )


NAME = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=20),
    st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True),
    st.integers(min_value=1000, max_value=1200).map(lambda n: "J" * n),
    st.integers(min_value=300, max_value=600).map(lambda n: "é" * n),  # 2 bytes each: 600-1200 bytes
)


def _xml_text(s: str) -> str:
    """An attribute value as XML: quoted, and characters XML 1.0 cannot hold written out so the file is
    still XML (their character references make expat refuse it, which is one of the outcomes wanted)."""
    out = []
    for ch in s:
        o = ord(ch)
        if o < 0x20 and ch not in "\t\n\r" or 0xD800 <= o <= 0xDFFF or o in (0xFFFE, 0xFFFF):
            out.append(f"&#{o};")
        else:
            out.append(ch)
    return quoteattr("".join(out)).replace("&amp;#", "&#")


SPOILS = ("none", "none", "none", "names", "shape", "mass", "inertia", "origin", "mesh", "joint", "size")


@st.composite
def urdf(draw) -> str:
    """One URDF file's text: a sane robot (chain or tree, boxes or a mesh), with one kind of spoilage
    (or none, 3 times in 11) drawn per file and applied to some of its elements."""
    spoil = draw(st.sampled_from(SPOILS))
    n = draw(st.one_of(st.integers(1, 6), st.integers(1, 6), st.sampled_from([20, 127, 128, 129, 130])))

    def bad(kind: str) -> bool:  # this element spoiled? (about 1 in 3 of the chosen kind)
        return spoil == kind and draw(st.integers(0, 2)) == 0

    def num(kind: str, sane: st.SearchStrategy[str]) -> str:
        return draw(number()) if bad(kind) else draw(sane)

    pos = SANE.map(repr)
    names = [draw(NAME) if bad("names") else f"l{i}" for i in range(n)]
    parents = [None] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    shape = draw(st.sampled_from(["loop", "two_roots", "dup_link", "undefined", "self", "dup_joint"])) \
        if spoil == "shape" else "tree"
    mesh_file = draw(st.sampled_from(MESHES)) if spoil == "mesh" else "good.obj"
    links = []
    for i, name in enumerate(names):
        m = num("mass", pos)
        diag = [num("inertia", st.floats(4e-4, 6e-4).map(repr)) for _ in range(3)]  # a + b > c whatever is drawn
        off = [num("inertia", st.just("0")) for _ in range(3)]
        xyz = " ".join(num("origin", st.floats(-0.1, 0.1).map(repr)) for _ in range(3))
        if bad("mesh") or (spoil != "mesh" and draw(st.integers(0, 3)) == 0):
            geom = f"<mesh filename={_xml_text(mesh_file if spoil == 'mesh' else 'good.obj')}/>"
        else:
            size = " ".join(num("size", st.sampled_from(["0.05", "0.02"])) for _ in range(3))
            geom = f"<box size={_xml_text(size)}/>"
        inertial = ("" if bad("inertia") and draw(st.booleans()) else
                    f'<inertial><origin xyz={_xml_text(xyz)}/><mass value={_xml_text(m)}/>'
                    f'<inertia ixx={_xml_text(diag[0])} ixy={_xml_text(off[0])} ixz={_xml_text(off[1])} '
                    f'iyy={_xml_text(diag[1])} iyz={_xml_text(off[2])} izz={_xml_text(diag[2])}/></inertial>')
        links.append(f'<link name={_xml_text(name)}>{inertial}<collision><geometry>{geom}</geometry></collision>'
                     f'<visual><geometry>{geom}</geometry></visual></link>')
    joints = []
    jnames = [draw(NAME) if bad("names") else f"j{i}" for i in range(n)]
    for i in range(1, n):
        parent, child = names[parents[i]], names[i]
        if shape == "undefined" and i == n - 1:
            child = "nowhere"
        if shape == "self" and i == 1:
            child = parent
        if shape == "dup_joint" and i == n - 1:
            jnames[i] = jnames[1]
        kind = (draw(st.sampled_from(["planar", "floating", "bogus", ""])) if bad("joint") else
                draw(st.sampled_from(["revolute", "revolute", "continuous", "prismatic", "fixed"])))
        effort = num("joint", st.sampled_from(["1.0", "0.5"]))
        origin = " ".join(num("origin", st.sampled_from(["0.05", "0"])) for _ in range(3))
        joints.append(f'<joint name={_xml_text(jnames[i])} type="{kind}"><parent link={_xml_text(parent)}/>'
                      f'<child link={_xml_text(child)}/><origin xyz={_xml_text(origin)}/><axis xyz="0 0 1"/>'
                      f'<limit effort={_xml_text(effort)} lower="-1" upper="1" velocity="10"/></joint>')
    if shape == "loop" and n >= 2:
        joints.append(f'<joint name="closing" type="revolute"><parent link={_xml_text(names[-1])}/>'
                      f'<child link={_xml_text(names[0])}/><limit effort="1" velocity="1"/></joint>')
    if shape == "two_roots" and joints:
        joints.pop()
    if shape == "dup_link":
        links.append(links[0])
    if shape == "dup_link" or shape == "undefined" and n == 1:
        links = [] if draw(st.booleans()) else links  # no links at all, too
    sep = draw(st.sampled_from(["\n", ""]))  # one long line, too (Bullet's XML parser is not expat)
    return '<?xml version="1.0"?>\n<robot name="fuzz">' + sep + sep.join(links + joints) + "\n</robot>\n"


WORKER = r"""
import contextlib, io, json, shutil, sys, tempfile, warnings
from lab.cli import main
scenario, = sys.argv[1:]
for line in sys.stdin:
    path = line.strip()
    out = tempfile.mkdtemp(prefix="fuzz_out_")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(["run", scenario, "--set", f"robot.path={path}", "--duration", "0.01", "--no-plots",
                         "--out", out + "/run"])
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:
            code, err = "raised", io.StringIO(f"{type(exc).__name__}: {exc}")
    shutil.rmtree(out, ignore_errors=True)
    print("\n@@verdict@@" + json.dumps({"code": code, "stderr": err.getvalue()}), flush=True)
"""


class Loader:
    """``lab run`` on URDF files in one long-lived child; a crash (segfault) is an outcome, not the end."""

    def __init__(self, scenario: Path = ROOT / "examples" / "user_robot.toml", worker: str = WORKER):
        self.scenario = scenario
        self.worker = worker
        self.proc = None

    def _start(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env["PYTHONWARNINGS"] = "default"
        self.log = tempfile.TemporaryFile(mode="w+")  # the child's own stderr (a pipe left unread could fill)
        self.proc = subprocess.Popen([sys.executable, "-c", self.worker, str(self.scenario)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True, env=env, cwd=ROOT)

    def load(self, path: Path) -> dict:
        """{"code": exit code, "stderr": what the run printed} or {"crashed": returncode, "stderr": …}."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(str(path) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        while line and "@@verdict@@" not in line:  # the engine's own C-level chatter on fd 1
            line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait(timeout=60)
            self.log.seek(0)
            rest = self.log.read()
            self.proc = None
            return {"crashed": code, "stderr": rest[-2000:]}
        return json.loads(line.split("@@verdict@@", 1)[1])

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def verdict(res: dict) -> str | None:
    """None if the outcome keeps the contract (it ran, possibly "diverged", or one ``error:`` line, exit 2),
    else what went wrong."""
    if "crashed" in res:
        return f"the process died (exit {res['crashed']}): {res['stderr'][-300:]}"
    code, err = res["code"], res["stderr"]
    lines = err.strip().splitlines()
    if code in (0, 3):
        return None if "Traceback" not in err else f"exit {code} with a traceback: {err[-500:]}"
    if code != 2:
        return f"exit {code!r}: {err[-500:]}"
    if len(lines) != 1 or not lines[0].startswith("error: "):
        return f"exit 2 but not one error line: {err[-800:]}"
    return None
