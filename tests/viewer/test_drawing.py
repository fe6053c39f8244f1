"""Drawings without a window: palette, layers and composition (no OpenGL context)."""

from __future__ import annotations

import ast

import numpy as np
import pytest

pytest.importorskip("pyvista")

from support import REPO

from geom3d import load_scene
from geom3d.core.errors import InputError, UnknownIdError
from viewer import palette
from viewer.compose import build_drawing, resolve_attack_for_drawing
from viewer.layers.annotations import nice_scale_length
from viewer.layers.lof import blocked_rays, lof_pair_actors, matrix_actors
from viewer.layers.scenery import scenery_actors
from viewer.layers.templates import template_actors
from viewer.layers.troopers import trooper_actors

pytestmark = pytest.mark.viewer


def _attack_drawing(scene, doc, volume, view="top"):
    return build_drawing(scene, view=view, attack="shot1", attack_result=(doc, [volume]))


def test_palette_sides_and_greyscale():
    cols = palette.side_colors(["blue", "red", "blue", "neutral", "green"])
    assert list(cols) == ["blue", "red", "neutral", "green"]
    assert cols["neutral"] == palette.NEUTRAL
    assert len(set(cols.values())) == 4
    # the first two sides stay apart in a greyscale print
    assert abs(palette.greyscale(cols["blue"]) - palette.greyscale(cols["red"])) > 50
    assert palette.rgb255("#D55E00") == (213, 94, 0)


def test_scenery_actors_shade_by_height(scene):
    specs = {a.name: a for a in scenery_actors(scene)}
    assert {"table", "scenery", "scenery-edges", "scenery-nonblocking"} <= set(specs)
    wall = specs["scenery"]
    assert wall.mesh.n_cells == 12  # the wall's two triangles per face, nothing else
    rgb = wall.mesh.point_data["rgb"]
    z = np.asarray(wall.mesh.points)[:, 2]
    # tops are darker than feet
    assert rgb[z.argmax()].sum() < rgb[z.argmin()].sum()
    assert specs["scenery-nonblocking"].opacity < 1.0
    assert specs["scenery-nonblocking"].mesh.n_cells == 12  # the crate
    assert specs["scenery-edges"].mesh.n_cells >= 12  # the box outline


def test_trooper_actors_colour_by_side_and_label(scene):
    specs, labels = trooper_actors(scene)
    by = {a.name: a for a in specs}
    blue, red = palette.side_colors(["blue", "red"]).values()
    assert by["trooper:a"].color == blue
    assert by["trooper:t1"].color == red
    assert 0.0 < by["trooper:a"].opacity < 1.0
    # the front half of the top cap lies in front of the base centre (facing +x)
    front = np.asarray(by["trooper:a:front"].mesh.points)
    assert front[:, 0].min() == pytest.approx(60.0)
    assert front[:, 0].max() == pytest.approx(72.5)
    assert {lab.text for lab in labels} == {"a", "b", "t1", "t2", "t3"}
    hidden, _ = trooper_actors(scene, hidden=["a"])
    assert "trooper:a" not in {s.name for s in hidden}
    assert "trooper:a:outline" in {s.name for s in hidden}


def test_template_actors_volume_and_focus(volume):
    specs = {a.name: a for a in template_actors([volume])}
    body = specs["template:0"]
    assert body.opacity < 1.0
    lo, hi = volume.bounds()
    b = np.asarray(body.mesh.bounds)
    assert b[0::2] == pytest.approx(lo, abs=0.5)
    assert b[1::2] == pytest.approx(hi, abs=0.5)
    assert specs["template:0:focus"].meta["focus"] == pytest.approx(list(volume.focus))


def test_attack_drawing_highlights_and_reasons(scene, attack_doc, volume):
    d = _attack_drawing(scene, attack_doc, volume)
    assert "attack shot1: resolved" in d.title
    ring = d.actor("affected:t1")
    assert ring.color == palette.AFFECTED and not ring.lighting
    assert "affected:t2" not in d.names()
    assert d.actor("excluded:t3").meta["reason"] == "total_cover"
    texts = [lab.text for lab in d.labels]
    assert any("total cover" in t for t in texts)
    assert any(t.startswith("t1 (main target): hit") for t in texts)
    assert any("(attacker)" in t for t in texts)
    legend = [e.label for e in d.legend]
    assert {"affected", "Blast Focus", "template volume"} <= set(legend)
    # sides first, then the scenery (blocking and not), then the attack's entries
    assert legend[:4] == [
        "side blue",
        "side red",
        "scenery (darker: taller, to 60 mm)",  # the wall: 60 mm
        "scenery, no LoF block",
    ]
    # a scale bar in the file's units
    assert any(lab.text.endswith(" mm") for lab in d.labels if lab.layer == "annotations")


def test_attack_result_contract(scene, fake_attack, volume):
    doc, vols = resolve_attack_for_drawing(scene, "shot1")
    assert doc["affected"] == ["t1"]
    assert len(vols) == 1 and vols[0].height == pytest.approx(volume.scaled(0.5).height)
    d = build_drawing(scene, view="from:a", attack="shot1")
    assert d.eye["trooper"] == "a" and "affected:t1" in d.names()


def test_lof_drawing_witness_ray(scene):
    r = scene.line_of_fire("a", "t1")
    assert r.lof
    d = lof_pair_actors(scene, r.to_dict())
    ray = d.actor("witness:a:t1")
    assert ray.meta["eye"] == pytest.approx(list(r.witness.eye), abs=1e-3)
    assert ray.meta["patch_center"] == pytest.approx(list(r.witness.patch_center), abs=1e-3)
    assert ray.color == palette.CLEAR_RAY


def test_blocked_rays_stop_at_the_wall(scene):
    r = scene.line_of_fire("b", "t3")
    assert not r.visible
    o, hits, _ends, blocked = blocked_rays(scene, "b", "t3")
    assert len(o) == 9 and blocked.all()
    # the wall's near face is at x = 175
    assert hits[:, 0] == pytest.approx(175.0, abs=0.05)
    d = lof_pair_actors(scene, r.to_dict())
    assert d.actor("blocked:b:t3").color == palette.BLOCKED_RAY
    assert "9 of 9" in d.notes[0]


@pytest.mark.parametrize(("state", "stopped"), [("[]", True), ("[marker]", False)])
def test_blocked_rays_stop_only_at_troopers_that_block(tmp_path, state, stopped):
    # a tall trooper between viewer and target stops every ray; a marker stops none
    # (Trooper.blocks_lof, the engine's rule)
    path = tmp_path / "line.yaml"
    path.write_text(
        "format: geom3d/1\nunits: mm\nruleset: infinity\ntable: {size: [400, 300]}\n"
        "troopers:\n"
        "  - {id: a, side: blue, position: [60, 150], facing_deg: 0, silhouette: 2}\n"
        f"  - {{id: m, side: red, position: [180, 150], silhouette: 5, state: {state}}}\n"
        "  - {id: t, side: red, position: [300, 150], facing_deg: 180, silhouette: 2}\n"
    )
    scene = load_scene(path)
    assert scene.troopers["m"].blocks_lof is stopped
    _o, hits, _e, blocked = blocked_rays(scene, "a", "t")
    assert len(blocked) == 9
    assert blocked.all() if stopped else not blocked.any()
    if stopped:  # at the near side of m's cylinder
        assert (hits[:, 0] < 180.0).all()


def test_viewer_never_imports_the_cli():
    for path in (REPO / "viewer").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("geom3d.cli"), path
            if isinstance(node, ast.Import):
                assert all(not a.name.startswith("geom3d.cli") for a in node.names), path


def test_matrix_summary(scene):
    pairs = [
        {"from": "a", "to": "t1", "lof": True},
        {"from": "t1", "to": "a", "lof": True},
        {"from": "a", "to": "t2", "lof": True},
        {"from": "t2", "to": "a", "lof": False},
    ]
    d = matrix_actors(scene, pairs)
    assert d.actor("lof:mutual").mesh.n_lines == 1
    assert d.actor("lof:one-way").mesh.n_cells >= 1
    assert "  a: t1, t2" in d.notes
    assert "LoF in 3 of 4" in d.subtitle


@pytest.mark.parametrize(
    ("approx_mm", "units", "expected"),
    [
        (250.0, "cm", (200.0, "20 cm")),
        (90.0, "mm", (50.0, "50 mm")),
        (160.0, "in", (152.4, "6 in")),
    ],
)
def test_nice_scale_length(approx_mm, units, expected):
    length, text = nice_scale_length(approx_mm, units)
    assert length == pytest.approx(expected[0])
    assert text == expected[1]


def test_bad_ids_and_views(scene):
    with pytest.raises(InputError, match="unknown view"):
        build_drawing(scene, view="sideways")
    with pytest.raises(UnknownIdError, match="nobody"):
        build_drawing(scene, view="from:nobody")
    with pytest.raises(InputError, match="A:B"):
        build_drawing(scene, lof="a")
    with pytest.raises(UnknownIdError):
        build_drawing(scene, lof="a:nobody")
    with pytest.raises(UnknownIdError, match="unknown attack"):
        build_drawing(scene, attack="nope")
    # --attack and --lof together are one picture (test_vector.test_attack_and_lof_combined)


def test_a_table_mesh_is_terrain_smooth_shaded_without_feature_edges(tmp_path):
    """A DEM's height steps drew as stripes of feature edges across the plan."""
    from support import make_scene, trooper

    n = 12  # a terraced height field: steep 10 mm steps every 10 mm along x
    xs, ys = np.meshgrid(np.arange(n) * 10.0, np.arange(n) * 10.0)
    zs = np.floor(xs / 20.0) * 10.0
    verts = np.column_stack([xs.ravel(), ys.ravel(), zs.ravel()])
    faces = []
    for j in range(n - 1):
        for i in range(n - 1):
            a = j * n + i
            faces += [(a, a + 1, a + n + 1), (a, a + n + 1, a + n)]
    lines = [f"v {x} {y} {z}" for x, y, z in verts] + [
        f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces
    ]
    (tmp_path / "terraces.obj").write_text("\n".join(lines) + "\n")
    wall = {"id": "wall", "box": {"size": [10, 40, 30]}, "position": [50, 50, 60]}
    scene = make_scene(
        [trooper("a", (25, 25))],
        [wall],
        base_dir=tmp_path,
        table={"mesh": "terraces.obj", "mesh_units": "mm"},
    )
    names = {a.name: a for a in scenery_actors(scene)}
    assert names["terrain"].smooth
    assert "terrain-edges" not in names  # no edge lines over the terrain
    assert "scenery-edges" in names  # modelled pieces keep their outlines
    assert names["terrain"].mesh.n_cells == len(faces)


def test_a_vehicle_hull_is_drawn_in_its_side_colour():
    # meshes/scenarios/attacks/wh40k_vehicle.yaml: rhino's hull 100 x 60 x 50 at (200, 100),
    # facing 90: x 170..230, y 50..150, z 0..50
    s = load_scene(REPO / "meshes/scenarios/attacks/wh40k_vehicle.yaml")
    actors, _ = trooper_actors(s)
    hull = {a.name: a for a in actors}["trooper:rhino:hull"]
    np.testing.assert_allclose(hull.mesh.bounds, [170, 230, 50, 150, 0, 50], atol=1e-9)
    assert hull.color == palette.side_colors(t.side for t in s.troopers.values())["orks"]
    assert hull.mesh.n_cells == 12
