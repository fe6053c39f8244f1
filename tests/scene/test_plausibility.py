"""Severity and size/unit sanity in every command (SPEC 12.2, issue 32).

Expected texts and sizes are worked out by hand from meshes written in the test.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import yaml
from support import make_scene, trooper

from geom3d.check.record import apply_strict, check_scenario
from geom3d.check.reports import github_lines, warning_lines
from geom3d.cli import main
from geom3d.core.messages import Message, note, notes_of, severity_of, terminal_lines, warnings_of
from geom3d.scene.plausibility import better_unit, off_table, piece_size, table_mesh_size


def cube_obj(path, side):
    """A closed cube ``side`` file units wide, its origin at the bottom centre."""
    h = side / 2.0
    v = [[x, y, z] for z in (0.0, side) for y in (-h, h) for x in (-h, h)]
    f = [[0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6], [0, 1, 5], [0, 5, 4],
         [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5]]  # fmt: skip
    lines = [f"v {a:g} {b:g} {c:g}" for a, b, c in v] + [
        f"f {a + 1} {b + 1} {c + 1}" for a, b, c in f
    ]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_messages_are_text_with_a_severity():
    m = note("scaled m -> mm (x1000)")
    assert m == "scaled m -> mm (x1000)" and m.severity == "note"
    assert severity_of("plain") == "warning"
    back = pickle.loads(pickle.dumps(m))  # worker processes keep it
    assert back == m and back.severity == "note"
    msgs = [m, Message("a piece floats", "warning")]
    assert notes_of(msgs) == ["scaled m -> mm (x1000)"] and warnings_of(msgs) == ["a piece floats"]
    assert terminal_lines(msgs, "t.yaml") == ["warning: t.yaml: a piece floats"]
    assert terminal_lines(msgs, "t.yaml", verbose=True) == [
        "note: t.yaml: scaled m -> mm (x1000)",
        "warning: t.yaml: a piece floats",
    ]
    with pytest.raises(ValueError, match="severity"):
        Message("x", "error")


def test_better_unit_by_hand():
    # 3080 mm read as cm is 308 units: as mm 308 mm, |ln 3.08| = 1.12 beats cm's |ln 30.8|
    assert better_unit(3080.0, "cm", 100.0) == "mm"
    # 1 mm read as mm (a glTF tile of 1): in gives 25.4 mm (|ln 0.254| = 1.37) and m gives
    # 1000 mm (|ln 10| = 2.30): in
    assert better_unit(1.0, "mm", 100.0) == "in"
    assert better_unit(100.0, "mm", 100.0) is None


def test_piece_size_table_mesh_size_and_off_table_texts():
    assert piece_size([308.0, 300.0, 140.0], "mm", 1.0) is None
    w = piece_size([3080.0, 3000.0, 1400.0], "cm", 1.0)
    assert w.severity == "warning" and w == (
        "3.08 m across as placed (mesh_units: cm), larger than 2 m: are its units right?; "
        "as mm it would be 308 mm"
    )
    w = piece_size([3.0, 2.0, 1.0], "mm", 1.0)
    assert w.startswith("3 mm across as placed (mesh_units: mm), smaller than 5 mm")
    assert table_mesh_size(1195.0, "m", (1200.0, 1500.0)) is None
    w = table_mesh_size(9000.0, "mm", (1200.0, 1200.0))
    assert w == (
        "the table mesh (mesh_units: mm) spans 9 m but table.size is 1.2 m on its longer side"
    )  # no unit named: read as cm it is 90 m, as m 9 km, as in 229 m; mm is nearest
    w = off_table([0, 0, -160], [1195, 1495, 100], (1200.0, 1200.0), "the table mesh")
    assert w == (
        "the table mesh hangs 295 mm off the table (x 0..1200, y 0..1200 mm; it spans "
        "x 0..1195, y 0..1495 mm)"
    )
    assert off_table([0, 0, 0], [1203, 100, 10], (1200.0, 1200.0)) is None  # 3 mm: fine
    w = off_table([0, 0, -50], [10, 10, -20], (1200.0, 1200.0))
    assert "wholly below the table top" in w and "z = -20.0 mm" in w


def test_every_command_sees_a_piece_declared_in_the_wrong_unit(tmp_path):
    # a 30-unit cube declared in m is 30 m across; as cm it would be 300 mm
    path = cube_obj(tmp_path / "cube.obj", 30.0)
    scene = make_scene(
        [trooper("a", [100, 100])],
        [{"id": "crate", "mesh": path, "mesh_units": "m", "position": [600, 600]}],
        table={"size": [1200, 1200]},
    )
    (w,) = [m for m in scene.warnings if m.startswith("crate:") and m.severity == "warning"]
    assert "crate: scaled m -> mm (x1000)" in notes_of(scene.warnings)
    assert (
        "30 m across as placed (mesh_units: m), larger than 2 m: are its units right?; "
        "as cm it would be 300 mm" in w
    )
    assert "hangs 14400 mm off the table" in w  # 600 - 15000 = -14400
    # the same cube in cm: a 300 mm crate, only the "scaled" fact, a note
    ok = make_scene(
        [trooper("a", [100, 100])],
        [{"id": "crate", "mesh": path, "mesh_units": "cm", "position": [600, 600]}],
        table={"size": [1200, 1200]},
    )
    assert [(m.severity, str(m)) for m in ok.warnings] == [("note", "crate: scaled cm -> mm (x10)")]


def test_notes_are_quiet_on_the_terminal_and_never_fail_strict(tmp_path, capsys):
    path = cube_obj(tmp_path / "cube.obj", 30.0)
    data = {
        "format": "geom3d/1",
        "units": "mm",
        "table": {"size": [1200, 1200]},
        "scenery": [{"id": "crate", "mesh": path, "mesh_units": "cm", "position": [600, 600]}],
        "troopers": [
            {"id": "a", "side": "blue", "position": [100, 100], "silhouette": 2},
            {"id": "b", "side": "red", "position": [1100, 1100], "silhouette": 2},
        ],
        "expect": {"lof": [{"from": "a", "to": "b", "lof": False}]},
    }
    scn = tmp_path / "s.yaml"
    scn.write_text(yaml.safe_dump(data))
    assert main(["lof", str(scn)]) == 0
    assert "note:" not in capsys.readouterr().err
    assert main(["lof", str(scn), "-v"]) == 0
    assert "note: s.yaml: crate: scaled cm -> mm (x10)" in capsys.readouterr().err
    rec = check_scenario(str(scn))
    assert rec["status"] == "pass"
    assert rec["warnings"] == [{"severity": "note", "message": "crate: scaled cm -> mm (x10)"}]
    assert apply_strict(rec)["status"] == "pass"  # --strict fails on warnings only
    assert warning_lines(rec) == [f"{rec['path']}: note: crate: scaled cm -> mm (x10)"]


def test_github_lines_carry_notes(tmp_path):
    from types import SimpleNamespace

    from geom3d.core.messages import record_messages

    msgs = [note("n1"), Message("w1", "warning")]
    rec = {"path": "s.yaml", "status": "pass", "results": [], "warnings": record_messages(msgs)}
    assert rec["warnings"] == [{"severity": "note", "message": "n1"}, "w1"]
    assert github_lines(SimpleNamespace(records=[rec])) == [
        "::notice file=s.yaml,title=scene note::n1",  # a note is no warning (SPEC 13.4)
        "::warning file=s.yaml,title=scene warning::w1",
    ]


def test_plausible_bundled_scale_is_quiet():
    # a 60 mm box on a 600 mm table: no size or unit message at all
    scene = make_scene(
        [trooper("a", [100, 100])],
        [{"id": "b", "box": {"size": [60, 60, 60]}, "position": [300, 300]}],
        table={"size": [600, 600]},
    )
    assert scene.warnings == []
    assert np.isfinite(scene.trooper("a").position[2])
