"""Scenery as solids (geom3d.scene.scenery; SPEC 11.1, issue 10 items 1, 3 and 4), built meshes.

An open-bottom box whose rim stands 5 mm above the table is the smallest "scan": rays
under its rim pass through its inside, which ``solid: auto`` closes and ``surface`` does
not.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.api import load_scene
from geom3d.check.record import check_scenario
from geom3d.commands.answers import lof_report
from geom3d.core.errors import ScenarioError
from geom3d.scenario import parse_scenario


def write_obj(path, v, f):
    lines = [f"v {x:.17g} {y:.17g} {z:.17g}" for x, y, z in np.asarray(v, float)]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in np.asarray(f, int)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def box_faces(bottom=True):
    """Triangles of the box with corners 0..7 (0-3 bottom ccw, 4-7 top ccw), outward."""
    f = [
        [4, 5, 6], [4, 6, 7],  # top
        [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5],
        [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7],
    ]  # fmt: skip
    if bottom:
        f += [[0, 2, 1], [0, 3, 2]]
    return f


def box_vertices(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    return [
        [x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0],
        [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1],
    ]  # fmt: skip


def open_shell(tmp_path, rim=5.0):
    """A 100 x 100 x (rim..60) box without its bottom: rim at z = rim."""
    return write_obj(
        tmp_path / "shell.obj", box_vertices((0, 0, rim), (100, 100, 60)), box_faces(False)
    )


def shell_scene(tmp_path, solid, troopers=(), rim=5.0):
    item = {"id": "s", "mesh": open_shell(tmp_path, rim), "position": [0, 0, 0]}
    if solid is not None:
        item["solid"] = solid
    return make_scene(list(troopers), [item])


UNDER = (np.array([[-50.0, 50.0, 2.0]]), np.array([[150.0, 50.0, 2.0]]))


@pytest.mark.parametrize(("solid", "blocked"), [(None, True), ("auto", True), ("closed", False),
                                                ("surface", False)])  # fmt: skip
def test_ray_under_the_rim(tmp_path, solid, blocked):
    scene = shell_scene(tmp_path, solid)
    assert bool(scene.engine.occluded(*UNDER)[0]) is blocked
    # above the rim the walls block in every mode
    assert scene.engine.occluded(UNDER[0] + [0, 0, 20], UNDER[1] + [0, 0, 20])[0]
    assert scene.closing_mask.shape == (scene.scenery.n_triangles,)
    assert bool(scene.closing_mask.any()) is blocked


def test_scan_report_and_warning_for_the_open_shell(tmp_path):
    scene = shell_scene(tmp_path, "auto")
    (rec,) = scene.scan_report()
    assert rec["id"] == "s" and rec["solid"] == "auto" and rec["method"] == "caps"
    assert rec["loops"] == 1 and rec["open_edges"] == 4
    assert rec["largest_hole_mm"] == pytest.approx(100 * 2**0.5, abs=1e-3)
    assert rec["gap_under_mm"] == 5.0 and rec["floating_fragments"] == 1
    # the rim is the base (it spans the piece): 4 rim edges, a curtain quad each, and a
    # floor of 4 triangles under them; no hole, no cap
    assert rec["base_loops"] == 1 and rec["holes"] == 0 and rec["caps"] == 0
    assert rec["curtain_triangles"] == 8 and rec["cap_triangles"] == 4
    assert int(scene.closing_mask.sum()) == 12
    assert rec["rest_gap_mm"] == 5.0
    # a line per severity for the piece (SPEC 12.2): the floating piece is a warning,
    # closing a note; the load report's "open surface" note is left to closing
    lines = [(w.severity, str(w)) for w in scene.warnings if w.startswith("s:")]
    assert lines == [
        (
            "warning",
            "s: floats 5.0 mm above the surface under it (explicit z = 0 mm; give position "
            "[x, y] to rest it on the surface)",
        ),
        (
            "note",
            "s: open scan closed as its winding-number solid: its base (1 open loop) closed "
            "down to the surface beneath (open rim up to 5.0 mm above it); 1 floating fragment",
        ),
    ]
    thin = shell_scene(tmp_path, "surface")
    assert [(w.severity, str(w)) for w in thin.warnings if w.startswith("s:")] == [
        ("note", "s: open surface: 4 boundary edges"),
        (
            "warning",
            "s: floats 5.0 mm above the surface under it (explicit z = 0 mm; give position "
            "[x, y] to rest it on the surface)",
        ),
    ]


def test_troopers_either_side_of_the_shell(tmp_path):
    # S2 troopers (40 mm tall) see each other under a rim 45 mm up only when it is thin
    ts = [trooper("a", [-40, 50]), trooper("b", [140, 50], side="red", facing_deg=180)]
    assert not shell_scene(tmp_path, "auto", ts, rim=45.0).line_of_fire("a", "b").lof
    assert shell_scene(tmp_path, "surface", ts, rim=45.0).line_of_fire("a", "b").lof


def test_watertight_piece_gives_todays_answers(tmp_path):
    path = write_obj(tmp_path / "cube.obj", box_vertices((0, 0, 0), (60, 60, 60)), box_faces())
    ring = [
        trooper(f"t{k}", [30 + 90 * np.cos(a), 30 + 90 * np.sin(a)], facing_deg=np.degrees(a) + 180)
        for k, a in enumerate(np.linspace(0, 2 * np.pi, 8, endpoint=False))
    ] + [trooper("p", [30, -50], state=["prone"])]
    docs = {}
    for solid in ("auto", "closed", "surface"):
        scene = make_scene(ring, [{"id": "c", "mesh": path, "position": [0, 0], "solid": solid}])
        assert not scene.closing_mask.any()
        docs[solid] = [r.to_dict() for r in scene.lof_matrix()]
    assert docs["auto"] == docs["surface"] == docs["closed"]
    assert any(d["lof"] for d in docs["auto"]) and not all(d["lof"] for d in docs["auto"])


def test_table_mesh_is_the_top_of_a_solid(tmp_path):
    sheet = write_obj(
        tmp_path / "sheet.obj",
        [[0, 0, 10], [100, 0, 10], [100, 100, 10], [0, 100, 10]],
        [[0, 1, 2], [0, 2, 3]],
    )
    auto = make_scene([], table={"mesh": sheet})
    thin = make_scene([], table={"mesh": sheet, "solid": "surface"})
    assert auto.engine.occluded(*UNDER)[0] and not thin.engine.occluded(*UNDER)[0]
    (rec,) = auto.scan_report()
    assert rec["method"] == "table" and rec["cap_triangles"] == 2 and rec["loops"] == 1
    assert rec["floor_z_mm"] == -1.0  # 1 mm below the plane z = 0 (lower than the sheet)


def test_table_mesh_scale_position_rotation(tmp_path):
    tri = write_obj(tmp_path / "t.obj", [[0, 0, 0], [1, 0, 0], [0, 1, 1]], [[0, 1, 2]])
    scene = make_scene(
        [],
        table={
            "mesh": tri,
            "mesh_units": "m",
            "scale": [0.5, 0.25, 0.1],
            "rotation_deg": 90,
            "position": [100, 200, -5],
            "solid": "surface",
        },
    )
    # scale: (500, 0, 0), (0, 250, 100); yaw 90: (0, 500, 0), (-250, 0, 100); then move
    v = scene.scenery.vertices
    assert np.allclose(v, [[100, 200, -5], [100, 700, -5], [-150, 200, 95]], atol=1e-9)
    assert scene.scan_report() == [
        {"id": "table", "solid": "surface", "triangles": 1, "dropped_mm": None,
         "rest_gap_mm": None,
         "messages": ["scaled m -> mm (x1000)", "open surface: 3 boundary edges"]}
    ]  # fmt: skip


def test_per_axis_scale_on_scenery(tmp_path):
    scene = make_scene([], [box("b", [10, 10, 10], [0, 0, 0], scale=[2, 3, 0.5])])
    v = scene.scenery.vertices
    assert np.allclose(v.min(0), [-10, -15, 0]) and np.allclose(v.max(0), [10, 15, 5])


def test_wrong_units_judged_at_the_placed_size(tmp_path):
    # 7 x 9 m in metres: scaled 1:6000 it is 1.5 mm... x 1000 it is 9 km (wrong units?)
    tri = write_obj(tmp_path / "dem.obj", [[0, 0, 0], [7, 0, 0], [0, 9, 1]], [[0, 1, 2]])
    big = make_scene([], table={"mesh": tri, "mesh_units": "m", "scale": 1000})
    assert [w for w in big.warnings if "were its units smaller" in w]
    ok = make_scene([], table={"mesh": tri, "mesh_units": "m", "scale": 1 / 60})
    # its one boundary loop is the table's edge, not a hole
    assert ok.warnings == [
        "table: scaled m -> mm (x1000); table edge closed down to a floor at z = -1.0 mm; 0 holes"
    ]
    (rec,) = [p for p in ok.scan_report() if p["id"] == "table"]
    assert rec["loops"] == 1 and rec["holes"] == 0 and rec["largest_hole_mm"] == 0.0


def test_scene_cache_key_includes_solid_and_table_keys(tmp_path):
    a = shell_scene(tmp_path, "auto")
    b = shell_scene(tmp_path, "surface")
    assert a.engine is not b.engine and a.engine is shell_scene(tmp_path, "auto").engine
    sheet = write_obj(tmp_path / "sq.obj", [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    s1 = make_scene([], table={"mesh": sheet, "scale": 100})
    s2 = make_scene([], table={"mesh": sheet, "scale": 200})
    assert s1.engine is not s2.engine


def _err(data_table=None, scenery=None):
    data = {"format": "geom3d/1", "troopers": []}
    if data_table is not None:
        data["table"] = data_table
    if scenery is not None:
        data["scenery"] = scenery
    with pytest.raises(ScenarioError) as ei:
        parse_scenario(data, file="t.yaml")
    return str(ei.value)


@pytest.mark.parametrize(
    ("table", "scenery", "text"),
    [
        ({"size": [10, 10], "scale": [1, 2]}, None,
         "t.yaml: table.scale: expected a positive number or [sx, sy, sz], three positive "
         "numbers"),
        ({"size": [10, 10], "scale": 2}, None,
         "t.yaml: table.scale: 'scale' needs 'mesh' (it places the table mesh)"),
        ({"size": [10, 10], "solid": "closed"}, None,
         "t.yaml: table.solid: 'solid' needs 'mesh' (it places the table mesh)"),
        ({"size": [10, 10], "tilt": 3}, None, "t.yaml: table.tilt: unknown key 'tilt'"),
        (None, [{"id": "b", "box": {"size": [1, 1, 1]}, "scale": [1, 0, 1]}],
         "t.yaml: scenery[0].scale: expected a positive number or [sx, sy, sz], three "
         "positive numbers"),
        (None, [{"id": "b", "box": {"size": [1, 1, 1]}, "scale": True}],
         "t.yaml: scenery[0].scale: expected a positive number or [sx, sy, sz], three "
         "positive numbers"),
        (None, [{"id": "b", "box": {"size": [1, 1, 1]}, "solid": "hollow"}],
         "t.yaml: scenery[0].solid: input should be 'auto', 'closed' or 'surface'"),
    ],
)  # fmt: skip
def test_bad_keys_error_texts(table, scenery, text):
    assert _err(table, scenery) == text


def test_scan_report_in_lof_json_and_check_records(tmp_path):
    open_shell(tmp_path)
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        json.dumps(
            {
                "format": "geom3d/1",
                "scenery": [{"id": "s", "mesh": "shell.obj", "position": [0, 0]}],
                "troopers": [trooper("a", [-40, 50]), trooper("b", [140, 50], side="red")],
                "expect": {"lof": [{"from": "a", "to": "b", "lof": False}]},
            }
        )
    )
    doc = lof_report(load_scene(scenario))
    (rec,) = doc["scan_report"]
    # [x, y]: dropped so the rim (its lowest point, 5 mm up in the file) rests on z = 0
    assert rec["id"] == "s" and rec["dropped_mm"] == -5.0 and rec["gap_under_mm"] == 0.0
    # the rim on the table is its base: curtains 0.05 mm deep and a floor under them
    assert rec["base_loops"] == 1 and rec["curtain_triangles"] == 8 and rec["cap_triangles"] == 4
    record = check_scenario(str(scenario))
    assert record["status"] == "pass" and record["scan_report"] == doc["scan_report"]


def grid_table(tmp_path, hole=True):
    """A 3 x 3 grid of 10 mm squares at z = 0 (30 x 30 mm), its middle square missing."""
    v = [[10 * i, 10 * j, 0.0] for j in range(4) for i in range(4)]
    f = []
    for j in range(3):
        for i in range(3):
            if hole and (i, j) == (1, 1):
                continue
            a = 4 * j + i
            f += [[a, a + 1, a + 5], [a, a + 5, a + 4]]
    return write_obj(tmp_path / "grid.obj", v, f)


def test_table_edge_is_not_a_hole_but_an_inner_hole_is(tmp_path):
    scene = make_scene([], table={"mesh": grid_table(tmp_path)})
    (rec,) = [p for p in scene.scan_report() if p["id"] == "table"]
    # edge loop: 30 x 30 (42.4 mm); the hole: 10 x 10, diagonal 14.142 mm, perimeter 40
    assert rec["loops"] == 2 and rec["holes"] == 1
    assert rec["largest_hole_mm"] == pytest.approx(200**0.5, abs=1e-3)
    assert rec["largest_hole_perimeter_mm"] == 40.0
    assert scene.warnings == [
        "table: table edge closed down to a floor at z = -1.0 mm; 1 hole, largest 14.1 mm across"
    ]
    whole = make_scene([], table={"mesh": grid_table(tmp_path, hole=False)})
    assert whole.warnings == ["table: table edge closed down to a floor at z = -1.0 mm; 0 holes"]


def test_watertight_scan_says_nothing_about_closing(tmp_path):
    path = write_obj(tmp_path / "b.obj", box_vertices((-5, -5, 0), (5, 5, 10)), box_faces())
    scene = make_scene([], [{"id": "b", "mesh": path, "position": [0, 0, 0]}])
    (rec,) = scene.scan_report()
    assert rec["method"] == "none" and scene.warnings == []
