"""A user's URDF never crashes the lab: every file the engine would segfault on, reject with a bare
``pybullet.error``, or feed NaN into the physics is refused first by lab.robots.urdf_validate, in one
``error:`` line naming the file, its line and the element (the issue's reproductions, one by one). The
files are run by ``lab run`` in a child process (``_urdf_gen.Loader``): a regression that reaches the
engine's segfault fails the test instead of killing it. Through ``lab.run`` and ``lab/Scenario-v1``
the same files raise a LabError."""

from __future__ import annotations

import os

import pytest
from _helpers import ROOT, inproc, one_error
from _urdf_gen import GOOD_OBJ, Loader, verdict

from lab.core.errors import LabError

USER = ROOT / "examples" / "user_robot.toml"
INERTIAL = ('<inertial><mass value="{m}"/><inertia ixx="{i}" ixy="0" ixz="0" iyy="{i}" iyz="0" izz="{i}"/>'
            '</inertial>')


def link(name, m="0.3", i="2e-4", geom='<box size="0.1 0.02 0.02"/>', inertial=True):
    return (f'<link name="{name}">' + (INERTIAL.format(m=m, i=i) if inertial else "")
            + f"<collision><geometry>{geom}</geometry></collision></link>\n")


def joint(name, parent, child, origin="0.1 0 0", effort="1.0"):
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{origin}"/><axis xyz="0 0 1"/><limit effort="{effort}" lower="-1" upper="1" '
            'velocity="10"/></joint>\n')


def chain(n, links=None, joints=None):
    """A chain of ``n`` box links: ``links``/``joints`` map an index to a replacement element."""
    links, joints = links or {}, joints or {}
    body = "".join(links.get(i, link(f"l{i}")) for i in range(n))
    body += "".join(joints.get(i, joint(f"j{i}", f"l{i - 1}", f"l{i}")) for i in range(1, n))
    return f'<?xml version="1.0"?>\n<robot name="r">\n{body}</robot>\n'


@pytest.fixture(scope="module")
def loader():
    ld = Loader()
    yield ld
    ld.close()


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "robot"
    d.mkdir()
    (d / "good.obj").write_text(GOOD_OBJ)
    (tmp_path / "outside.obj").write_text(GOOD_OBJ)
    return d


def refused(loader, folder, text, name="r.urdf") -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    res = loader.load(path)
    assert verdict(res) is None, verdict(res)
    assert res["code"] == 2, res
    line = res["stderr"].strip()
    assert f"robot.path: {path}:" in line  # the file, then its line number
    return line


def ran(loader, folder, text, name="ok.urdf") -> None:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    res = loader.load(path)
    assert verdict(res) is None and res["code"] == 0, res


def test_a_joint_name_over_the_engines_buffer_is_refused_not_a_segfault(loader, folder):
    # the reproduction: yaw_1 renamed to 1100 characters (PyBullet 3.2.7 segfaults, exit 139)
    text = (ROOT / "examples" / "four_link_snake.urdf").read_text().replace('name="yaw_1"', 'name="' + "J" * 1100 + '"')
    line = refused(loader, folder, text)
    assert "<joint name='JJJJ" in line and "name is 1100 bytes long; at most 1023" in line
    assert f"r.urdf:{text[:text.index('J' * 20)].count(chr(10)) + 1}:" in line  # the joint's own line
    ran(loader, folder, text.replace("J" * 1100, "J" * 1023))  # the limit itself loads and runs
    # bytes, not characters: 600 two-byte characters are 1200 bytes
    assert "1200 bytes" in refused(loader, folder, chain(2, links={1: link("é" * 600)},
                                                         joints={1: joint("j1", "l0", "é" * 600)}))


@pytest.mark.slow
def test_link_counts_at_and_past_the_engines_limit(loader, folder):
    # 129 links: "GetBasePositionAndOrientation failed"; 10 000: a segfault. 128 loads and runs.
    for n in (129, 10_000):
        line = refused(loader, folder, chain(n), f"c{n}.urdf")
        assert "<link name='l128'>: is link 129: at most 128 links" in line
    ran(loader, folder, chain(128))


CASES = {
    "no links": ('<robot name="r"/>', "has no <link>"),
    "a joint loop": (chain(3, joints={1: joint("j1", "l2", "l1"), 2: joint("j2", "l1", "l2")}), "loop"),
    "a loop back to the root": (chain(3).replace("</robot>", joint("back", "l2", "l0") + "</robot>"),
                                "the joints form a loop"),
    "duplicate link names": (chain(3, links={2: link("l1")}, joints={2: joint("j2", "l0", "l1")}),
                             "<link name='l1'>: a second link of this name"),
    "duplicate joint names": (chain(3, joints={2: joint("j1", "l1", "l2")}), "a second joint of this name"),
    "an undefined child link": (chain(2, joints={1: joint("j1", "l0", "ghost")}),
                                "<joint name='j1'> <child>: names link 'ghost', which the file does not define"),
    "a link the child of two joints": (chain(3, joints={2: joint("j2", "l0", "l1")}),
                                       "link 'l1' is already the child of joint 'j1'"),
    "two roots": (chain(3, joints={2: ""}), "has 2 root links ('l0', 'l2')"),
    "a missing mesh": (chain(2, links={1: link("l1", geom='<mesh filename="gone.obj"/>')}),
                       "<link name='l1'> <collision> <geometry> <mesh>: filename='gone.obj': No such file"),
    "a package:// mesh": (chain(2, links={1: link("l1", geom='<mesh filename="package://r/good.obj"/>')}),
                          "a URL or package:// path"),
    "/etc/passwd as a mesh": (chain(2, links={1: link("l1", geom='<mesh filename="/etc/passwd"/>')}),
                              "filename='/etc/passwd' is absolute"),
    "/dev/zero as a mesh": (chain(2, links={1: link("l1", geom='<mesh filename="../../../../../dev/zero"/>')}),
                            "leads outside the URDF's folder"),
    "a mesh up and out": (chain(2, links={1: link("l1", geom='<mesh filename="../outside.obj"/>')}),
                          "leads outside the URDF's folder"),
    "a mesh of a format the engine does not read": (
        chain(2, links={1: link("l1", geom='<mesh filename="r.urdf"/>')}), "is not a format the engine reads"),
    "NaN mass": (chain(2, links={1: link("l1", m="nan")}), "<link name='l1'> <inertial> <mass>: value='nan' must be"),
    "NaN inertia": (chain(2, links={1: link("l1", i="NaN")}), "ixx='NaN' must be 1 plain decimal number"),
    "an origin of 1e308": (chain(2, joints={1: joint("j1", "l0", "l1", origin="1e308 0 0")}),
                           "xyz='1e308 0 0' is out of range: m within ±1000"),
    "a negative mass": (chain(2, links={1: link("l1", m="-0.3")}), "mass -0.3 kg; must be in (0, 1e+06] kg"),
    "all-zero masses": (chain(3, links={i: link(f"l{i}", m="0") for i in range(3)}),
                        "<link name='l0'> <inertial> <mass>: mass 0 kg"),
    "a link without <inertial>": (chain(2, links={1: link("l1", inertial=False)}), "has no <inertial>"),
    "an inertia breaking the triangle inequality": (
        chain(2, links={1: link("l1").replace('izz="2e-4"', 'izz="9e-4"')}), "break the triangle inequality"),
    "an indefinite inertia": (chain(2, links={1: link("l1").replace('ixy="0"', 'ixy="5e-4"')}),
                              "not positive definite"),
    'effort="abc"': (chain(2, joints={1: joint("j1", "l0", "l1", effort="abc")}),
                     "<joint name='j1'> <limit>: effort='abc' must be 1 plain decimal number"),
    "a DOCTYPE (entities)": ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]>' + chain(1)[21:],
                             "has a DOCTYPE"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_urdf_the_engine_would_reject_is_refused_in_one_line(loader, folder, case):
    text, said = CASES[case]
    assert said in refused(loader, folder, text)


def test_a_mesh_inside_the_folder_loads(loader, folder):
    """The control for the mesh rules: a relative mesh in the URDF's folder (through ./sub/..) runs."""
    (folder / "sub").mkdir()
    ran(loader, folder, chain(2, links={1: link("l1", geom='<mesh filename="sub/../good.obj"/>')}))


def test_a_symlink_out_of_the_folder_is_refused(loader, folder, tmp_path):
    (folder / "link.obj").symlink_to(tmp_path / "outside.obj")
    line = refused(loader, folder, chain(2, links={1: link("l1", geom='<mesh filename="link.obj"/>')}))
    assert "filename='link.obj' leads outside the URDF's folder" in line


def test_lab_paths_are_confined_to_the_assets(capsys, tmp_path):
    line = one_error(inproc(capsys, "run", USER, "--set", "robot.path=lab:../../../../etc/passwd",
                            "--out", tmp_path / "o"))
    assert "robot.path: 'lab:../../../../etc/passwd' leads outside the lab's assets/urdf/" in line
    assert os.listdir(tmp_path) == []


def test_the_record_size_bound_counts_a_urdf_robots_links(capsys, tmp_path):
    p = tmp_path / "long.urdf"
    p.write_text(chain(120))
    line = one_error(inproc(capsys, "run", USER, "--set", f"robot.path={p}", "--set", "sim.duration=100000",
                            "--set", "sim.record_every=10", "--out", tmp_path / "o"))
    # 120 links: 8 + 7·120 = 848 values a sample (one link would be 15: 1.1 GiB, under the bound)
    assert "of 848 values" in line and "at most 2.0 GiB" in line
    assert sorted(os.listdir(tmp_path)) == ["long.urdf"]


def test_the_python_api_and_the_gym_env_raise_lab_errors(tmp_path):
    import gymnasium as gym

    import lab
    import lab.envs  # noqa: F401  (registers lab/Scenario-v1)

    bad = tmp_path / "bad.urdf"
    bad.write_text(chain(2, links={1: link("l1", m="-1")}))
    for make in (lambda: lab.run(str(USER), {"robot.path": str(bad)}, duration=0.01),
                 lambda: lab.Sim(str(USER), {"robot.path": str(bad)}),
                 lambda: gym.make("lab/Scenario-v1", scenario=str(USER), overrides={"robot.path": str(bad)})):
        with pytest.raises(LabError) as info:
            make()
        assert "robot.path" in info.value.where and "mass -1 kg" in info.value.what


def test_a_file_changed_after_the_scenario_was_built_is_checked_again(tmp_path):
    """The World asks the spec for its file right before loading, and the spec checks it again then."""
    import lab

    p = tmp_path / "r.urdf"
    p.write_text(chain(2))
    sim = lab.Sim(str(USER), {"robot.path": str(p)})
    sim.close()
    p.write_text(chain(2, joints={1: joint("J" * 2000, "l0", "l1")}))
    from lab.robots.urdf_file import UrdfFileSpec

    with pytest.raises(LabError, match="name is 2000 bytes"):
        UrdfFileSpec(path=str(p))
    spec = sim.scenario.robot
    with pytest.raises(LabError, match="name is 2000 bytes"):
        spec.file  # noqa: B018  (what World.load_spec reads)


def test_the_validator_refuses_what_it_must_and_nothing_more():
    """Unit checks of the rules against hand-made trees: each rule fails on its fault and passes its
    control (so no rule is vacuous and none over-refuses)."""
    from lab.robots.urdf_validate import validate

    ok = validate(chain(4), None, "t.urdf")
    assert ok.links == ("l0", "l1", "l2", "l3") and [j[0] for j in ok.joints] == ["j1", "j2", "j3"]
    star = "".join(link(f"s{i}") + joint(f"k{i}", "l0", f"s{i}") for i in range(3))
    assert validate(chain(1).replace("</robot>", star + "</robot>"), None, "t").n_links == 4  # a tree, not a chain
    # the triangle inequality at equality (a thin rod: Ixx -> 0 is excluded by > 0, Iyy = Izz) holds
    validate(chain(2, links={1: link("l1").replace('ixx="2e-4"', 'ixx="1e-9"')}), None, "t")
    with pytest.raises(LabError, match="cannot name files"):
        validate(chain(2, links={1: link("l1", geom='<mesh filename="good.obj"/>')}), None, "t")
    with pytest.raises(LabError, match=r"t:\d+: not a URDF file \(XML"):
        validate("<robot><link", None, "t")
    with pytest.raises(LabError, match="control character"):
        validate(chain(2, joints={1: joint("a&#10;b", "l0", "l1")}), None, "t")
