"""Vector plan views (SVG/PDF), text options, label placement, Blast Focus rays, size cap.

SVG files are parsed with ElementTree; every shape carries an id made from its actor name
(viewer.vector_output.svg_id), so tests find troopers and templates by id.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("pyvista")
pytest.importorskip("matplotlib")

from support import REPO

from geom3d import load_scene
from geom3d.cli import main
from geom3d.core.errors import Geom3dError, InputError
from viewer import render as vr
from viewer import shapes as sh
from viewer.compose import build_drawing
from viewer.labels import place_labels, unplaced_note
from viewer.layers.annotations import parse_annotate
from viewer.model import Label
from viewer.plan_scenery import (
    HILLSHADE_CELLS,
    contour_step,
    hillshade,
    node_heights,
    plan_scenery,
)
from viewer.vector import chain_segments, project_actor

pytestmark = pytest.mark.viewer

NS = "{http://www.w3.org/2000/svg}"
SMALL = (480, 360)


def _svg(path):
    return ET.parse(path).getroot()


def _ids(root) -> set[str]:
    return {e.get("id") for e in root.iter() if e.get("id")}


def _texts(root) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{NS}text")]


# ----------------------------------------------------------------------------- geometry
def test_project_fan_is_a_half_disc_and_mantle_an_outline():
    fan = project_actor(sh.fan((0.0, 0.0), 10.0, 5.0, 0.0, math.pi, 360))
    # a half disc of radius 10: 50 pi mm^2 (the 360-gon loses < 0.01 %)
    assert fan.area.area == pytest.approx(50 * math.pi, rel=1e-4)
    mantle = project_actor(sh.mantle((0.0, 0.0, 0.0), 10.0, 0.0, 40.0, 48))
    assert mantle.area is None  # seen edge-on from above
    pts = np.vstack(mantle.lines)
    assert np.hypot(pts[:, 0], pts[:, 1]) == pytest.approx(np.full(len(pts), 10.0))


def test_chain_segments_joins_and_drops_duplicates():
    segs = np.array(
        [[[0, 0], [1, 0]], [[1, 0], [1, 1]], [[1, 0], [0, 0]], [[5, 5], [6, 5]]], dtype=float
    )
    lines = chain_segments(segs)
    assert [len(line) for line in lines] == [3, 2]
    assert lines[0].tolist() == [[0, 0], [1, 0], [1, 1]]


def test_scenery_bands_outline_the_wall_footprint(scene):
    ps = plan_scenery(scene)
    outlines = {name: geom for geom, name in ps.outlines}
    # the wall: box 10 x 120 mm; the crate 30 x 30 mm
    assert outlines["scenery-wall"].area == pytest.approx(1200.0)
    assert outlines["scenery-crate"].area == pytest.approx(900.0)
    assert ps.terrain is None
    assert any("to 60 mm" in e.label for e in ps.legend)


@pytest.mark.parametrize(
    ("span", "step"), [(20.0, 2.0), (10.0, 1.0), (95.0, 10.0), (3.0, 0.2), (262.0, 20.0)]
)
def test_contour_step(span, step):
    assert contour_step(span) == pytest.approx(step)


# ----------------------------------------------------------------------------- labels
def test_labels_at_one_point_all_placed_without_overlap():
    anchors = [(100.0, 100.0)] * 4
    sizes = [(40.0, 10.0)] * 4
    places = place_labels(anchors, sizes, (0, 400, 0, 400))
    boxes = [p.box for p in places]
    assert all(b is not None for b in boxes)
    for i in range(4):
        for j in range(i):
            a, b = boxes[i], boxes[j]
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
    # the first sits up-right of the anchor, touching it (no leader line): its lower-left
    # corner is 0.35 label heights (3.5 px) from the anchor in x and y
    assert boxes[0] == pytest.approx((103.5, 86.5, 143.5, 96.5))
    assert not places[0].leader


def test_label_without_room_is_reported_not_dropped():
    # a 100 px wide label cannot fit in a 60 px wide region
    places = place_labels([(30.0, 30.0), (30.0, 30.0)], [(20, 8), (100, 8)], (0, 60, 0, 60))
    assert places[0].placed and not places[1].placed
    assert unplaced_note(["short", "very long"], places) == "labels not shown (no room): very long"


def test_crowded_labels_note_in_png_notes(scene):
    d = build_drawing(scene)
    d.labels = [Label("annotations", (200.0, 150.0, 0.0), f"label number {i}") for i in range(60)]
    res = vr.render(scene, None, size=(320, 240), drawing=d)
    note = [n for n in res.drawing.notes if n.startswith("labels not shown")]
    assert len(note) == 1 and "label number 59" in note[0]


# ----------------------------------------------------------------------------- SVG / PDF
def test_plan_svg_is_vector_with_an_id_per_trooper_and_template(scene, tmp_path, fake_attack):
    out = tmp_path / "attack.svg"
    vr.render_to_file(scene, out, attack="shot1", size=SMALL)
    root = _svg(out)
    assert root.find(f".//{NS}image") is None
    assert b"<image" not in out.read_bytes()
    ids = _ids(root)
    for tid in scene.troopers:
        assert f"trooper-{tid}" in ids
        assert f"trooper-{tid}-outline" in ids
    assert {"template-0", "template-0-outline", "affected-t1", "excluded-t3"} <= ids
    assert {"scenery-wall", "scale-bar-dark", "legend", "title"} <= ids
    # the template's footprint path is drawn in the template colour
    tpl = next(e for e in root.iter() if e.get("id") == "template-0")
    assert "#cc79a7" in ET.tostring(tpl, encoding="unicode").lower()
    texts = _texts(root)
    assert any("plan view" in t for t in texts)
    assert {"t2", "b"} <= set(texts)


def test_title_caption_no_legend_and_mm2(scene, tmp_path):
    out = tmp_path / "lof.svg"
    vr.render_to_file(
        scene,
        out,
        lof="a:t1",
        size=SMALL,
        title="Sliver <over> a wall",
        caption="Seen & counted.",
        legend=False,
    )
    root = _svg(out)
    texts = _texts(root)
    assert "Sliver <over> a wall" in texts
    assert any("Seen & counted." in t for t in texts)
    assert "legend" not in _ids(root)
    raw = out.read_text(encoding="utf-8")
    assert "mm²" in raw and "mm^2" not in raw


def test_svg_pdf_png_bytes_identical_for_identical_input(scene, tmp_path):
    for ext in ("svg", "pdf", "png"):
        one = vr.render_to_file(scene, tmp_path / f"one.{ext}", lof="a:t1", size=SMALL)
        two = vr.render_to_file(scene, tmp_path / f"two.{ext}", lof="a:t1", size=SMALL)
        assert one.read_bytes() == two.read_bytes(), ext
    # a 3D view on a PDF page too
    one = vr.render_to_file(scene, tmp_path / "iso1.pdf", view="iso", size=SMALL)
    two = vr.render_to_file(scene, tmp_path / "iso2.pdf", view="iso", size=SMALL)
    assert one.read_bytes() == two.read_bytes()


def test_pdf_header_page_size_and_no_raster_in_plans(scene, tmp_path):
    plan = vr.render_to_file(scene, tmp_path / "plan.pdf", size=(960, 720), dpi=96)
    data = plan.read_bytes()
    assert data.startswith(b"%PDF-")
    # 960 x 720 px at 96 dpi: 10 x 7.5 in = 720 x 540 pt
    assert re.search(rb"/MediaBox \[ ?0 0 720 540 ?\]", data)
    assert b"/Subtype /Image" not in data
    assert b"CreationDate" not in data
    iso = vr.render_to_file(scene, tmp_path / "iso.pdf", view="iso", size=SMALL, dpi=96)
    raw = iso.read_bytes()
    assert raw.startswith(b"%PDF-") and b"/Subtype /Image" in raw  # a 3D view: pixels
    assert re.search(rb"/MediaBox \[ ?0 0 360 270 ?\]", raw)


def test_plan_result_projects_world_points_like_the_png(scene, tmp_path):
    res = vr.render(scene, tmp_path / "plan.svg", size=(640, 480))
    # t2's base centre is drawn in the front half's colour region: not background
    col, row = res.world_to_pixel(scene.troopers["t2"].position)[0]
    assert 0 < col < 640 and 0 < row < 480
    assert tuple(res.image[int(row), int(col)]) != (255, 255, 255)


# ----------------------------------------------------------------------------- combined
def test_attack_and_lof_combined(scene, fake_attack, tmp_path):
    d = build_drawing(scene, attack="shot1", lof="a:t1")
    names = d.names()
    assert "template:0" in names and "witness:a:t1" in names
    assert "attack shot1" in d.title and "Line of Fire a -> t1" in d.title
    out = tmp_path / "both.svg"
    vr.render_to_file(scene, out, attack="shot1", lof="a:t1", size=SMALL)
    assert {"template-0", "witness-a-t1"} <= _ids(_svg(out))


def test_annotations_heights_distances_templates(scene, fake_attack):
    d = build_drawing(
        scene, attack="shot1", lof="a:t1", annotate="heights,distances,templates", caption="C"
    )
    texts = [lab.text for lab in d.labels]
    assert "wall: 60.0 mm high" in texts
    assert any(t.startswith("t1 (main target): hit, 32 mm tall") for t in texts)
    # a (60, 150) and t1 (300, 150): 240 mm apart, bases 12.5 + 27.5 mm: 200 mm between
    assert "a - t1: 240.0 mm centre to centre, 200.0 mm base to base" in d.notes
    # the template (fake_attack: the large teardrop halved): 101.6 x 31.75 mm
    assert d.caption.startswith("C\nTemplate: large_teardrop: teardrop 101.6 x 31.75 mm")
    assert any(t.startswith("large_teardrop: teardrop 101.6 x 31.75 mm") for t in texts)
    with pytest.raises(InputError, match="unknown 'colours'"):
        parse_annotate("heights,colours")


def test_bad_text_options(scene):
    with pytest.raises(InputError, match="control character"):
        build_drawing(scene, title="bad\x1b[31m")


# ----------------------------------------------------------------------------- Blast Focus
def test_blast_focus_rays_stop_at_the_wall():
    scene = load_scene(REPO / "docs/images/impact.yaml")
    d = build_drawing(scene, attack="grenade")
    rays = d.actor("focus-rays:behind")
    assert rays.meta["dashed"]
    with pytest.raises(KeyError):
        d.actor("focus-rays:behind:clear")  # every sample ray is stopped
    # the rays run from the focus (x = 300) towards behind; each stops at the wall's near
    # face x = 314 (box 4 mm thick centred on x = 316)
    pts = np.asarray(rays.mesh.points)
    assert pts[:, 0].min() == pytest.approx(300.0, abs=1e-6)
    assert pts[:, 0].max() == pytest.approx(314.0 + 1.2, abs=0.05)  # ball radius 1.2 mm
    assert any(n.startswith("Blast Focus -> behind: 10 of 10") for n in d.notes)
    assert any(e.face == "dashed" for e in d.legend)


# ----------------------------------------------------------------------------- size cap
def test_size_cap_is_one_line_exit_2(scene, tmp_path, capsys):
    with pytest.raises(InputError, match="M pixels"):
        vr.render(scene, None, size=(5000, 5000))
    rc = main(
        ["render", str(REPO / "docs/images/sliver.yaml"), "--out", str(tmp_path / "x.png"),
         "--size", "8000x8000"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and "64.0 M pixels" in err
    assert not list(tmp_path.iterdir())


# ----------------------------------------------------------------------------- terrain
def _grid_mesh(n, size, height):
    """Vertices (n * n, 3) and faces of a regular grid over [0, size]^2, z = height(x, y)."""
    xs = np.linspace(0.0, size, n)
    v = np.array([[x, y, height(x, y)] for y in xs for x in xs])
    f = []
    for j in range(n - 1):
        for i in range(n - 1):
            a = j * n + i
            f += [(a, a + 1, a + n + 1), (a, a + n + 1, a + n)]
    return v, np.array(f, dtype=np.int64)


def _heightfield(path, n=11, size=100.0, slope=0.2, height=None):
    """A ramp z = slope * x over [0, size]^2 (z 0..20 mm), as an ASCII PLY."""
    v, f = _grid_mesh(n, size, height or (lambda x, y: slope * x))
    lines = ["ply", "format ascii 1.0", f"element vertex {len(v)}", "property float x",
             "property float y", "property float z", f"element face {len(f)}",
             "property list uchar int vertex_indices", "end_header"]  # fmt: skip
    lines += [f"{x:g} {y:g} {z:g}" for x, y, z in v] + [f"3 {a} {b} {c}" for a, b, c in f]
    path.write_text("\n".join(lines) + "\n")


def test_terrain_plan_is_contoured_vector(tmp_path):
    _heightfield(tmp_path / "ramp.ply")
    (tmp_path / "t.yaml").write_text(
        "format: geom3d/1\nunits: mm\nruleset: infinity\n"
        "table: {size: [100, 100], mesh: ramp.ply}\n"
        "troopers:\n  - {id: a, side: blue, position: [30, 50], facing_deg: 0, silhouette: 2}\n"
    )
    scene = load_scene(tmp_path / "t.yaml")
    ps = plan_scenery(scene)
    # heights 0..20 mm: a contour every 2 mm, 10 bands
    assert ps.terrain["step"] == pytest.approx(2.0)
    assert len(ps.terrain["levels"]) == 11
    assert [e.label for e in ps.legend] == ["terrain: hillshade, contours every 2 mm"]
    out = tmp_path / "plan.svg"
    vr.render_to_file(scene, out, size=SMALL)
    root = _svg(out)
    assert root.find(f".//{NS}image") is None
    assert {"terrain-fill", "terrain-contours", "trooper-a"} <= _ids(root)
    # a legend row may be wrapped to the legend column (its lines indented)
    assert "terrain: hillshade, contours every 2 mm" in " ".join(t.strip() for t in _texts(root))
    assert not any("darker" in t for t in _texts(root))


def test_cli_attack_and_lof_combined_with_text_options(tmp_path, capsys):
    out = tmp_path / "impact.svg"
    rc = main(
        ["render", str(REPO / "docs/images/impact.yaml"), "--out", str(out), "--attack",
         "grenade", "--lof", "gunner:target", "--title", "Impact", "--caption", "Cap.",
         "--annotate", "templates", "--size", "480x360", "--quiet"]
    )  # fmt: skip
    assert rc == 0 and capsys.readouterr().out == ""
    root = _svg(out)
    ids = _ids(root)
    assert {"template-0", "witness-gunner-target", "focus-rays-behind", "caption"} <= ids
    texts = _texts(root)
    assert "Impact" in texts
    assert any("Template: circular: circle 76.2 mm across, 38.1 mm high." in t for t in texts)


def test_bad_target_fails_before_rendering(scene, tmp_path):
    (tmp_path / "taken.svg").mkdir()
    with pytest.raises(Geom3dError, match="not a regular file"):
        vr.render_to_file(scene, tmp_path / "taken.svg", size=SMALL)
    with pytest.raises(Geom3dError, match="does not exist"):
        vr.render_to_file(scene, tmp_path / "missing" / "plan.pdf", size=SMALL)
    assert [p.name for p in tmp_path.iterdir()] == ["taken.svg"]


def test_no_caret_units_in_any_picture_text():
    # every picture writes mm², never mm^2 (the strings all come from viewer/)
    for path in (REPO / "viewer").rglob("*.py"):
        assert "mm^2" not in path.read_text(encoding="utf-8"), path


# ----------------------------------------------------------------------------- hillshade
# The sun of the hillshade: azimuth 315 (north-west, clockwise from +y), altitude 45 deg:
# s = (-1/2, 1/2, 1/sqrt 2). A plane z = gx x + gy y has the unit normal
# (-gx, -gy, 1) / sqrt(1 + gx^2 + gy^2), so its shade is
# (gx / 2 - gy / 2 + 1 / sqrt 2) / sqrt(1 + gx^2 + gy^2).
@pytest.mark.parametrize(
    ("gx", "gy", "shade"),
    [
        (0.0, 0.0, 0.70711),  # flat: sin 45
        (0.2, 0.0, 0.79144),  # rises to the east: faces west, towards the sun
        (-0.2, 0.0, 0.59532),  # faces east, away from it
        (0.0, 0.2, 0.59532),  # rises to the north: faces south, away
        (0.5, -0.5, 0.98560),  # (1/4 + 1/4 + 0.70711) / sqrt 1.5
        # faces the sun square on (slope 45 deg towards the north-west): sqrt 2 / sqrt 2
        (math.sqrt(0.5), -math.sqrt(0.5), 1.0),
        (-2.0, 2.0, 0.0),  # steep, facing the south-east: in its own shadow (clipped)
    ],
)
def test_hillshade_of_planes_hand_computed(gx, gy, shade):
    v, f = _grid_mesh(11, 100.0, lambda x, y: gx * x + gy * y)
    xs, ys, z = node_heights(v, f)
    # a 10 mm mesh: one cell per mesh square, nodes on the vertices
    assert len(xs) == len(ys) == 11 and xs[-1] == 100.0
    assert z == pytest.approx(gx * xs[None, :] + gy * ys[:, None])
    assert hillshade(xs, ys, z) == pytest.approx(np.full((10, 10), shade), abs=1e-5)


def test_hillshade_grid_is_capped_and_holes_are_nan():
    # a 1 mm mesh 300 mm across: capped to HILLSHADE_CELLS cells (2.5 mm)
    v, f = _grid_mesh(301, 300.0, lambda x, y: 0.0)
    xs, ys, z = node_heights(v, f)
    assert len(xs) - 1 == len(ys) - 1 == HILLSHADE_CELLS == 120
    # drop the triangles of the square [100, 200]^2: its inner nodes are not terrain
    keep = ~np.all((v[f][:, :, 0] >= 100) & (v[f][:, :, 0] <= 200)
                   & (v[f][:, :, 1] >= 100) & (v[f][:, :, 1] <= 200), axis=1)  # fmt: skip
    xs, ys, z = node_heights(v, f[keep])
    inner = (xs > 100.5)[None, :] & (xs < 199.5)[None, :] & ((ys > 100.5) & (ys < 199.5))[:, None]
    assert np.isnan(z[inner]).all() and not np.isnan(z[~inner]).any()
    assert np.isnan(hillshade(xs, ys, z)).sum() > 0


def _cone_scene(tmp_path):
    # a cone 40 mm high, slope 1/2 (radius 80 mm), centred on a 200 mm square
    _heightfield(
        tmp_path / "cone.ply", n=41, size=200.0,
        height=lambda x, y: max(0.0, 40.0 - 0.5 * math.hypot(x - 100.0, y - 100.0)),
    )  # fmt: skip
    (tmp_path / "t.yaml").write_text(
        "format: geom3d/1\nunits: mm\nruleset: infinity\n"
        "table: {size: [200, 200], mesh: cone.ply}\n"
        "troopers:\n  - {id: a, side: blue, position: [20, 20], facing_deg: 0, silhouette: 2}\n"
    )
    return load_scene(tmp_path / "t.yaml")


def _path_points(el) -> np.ndarray:
    d = " ".join(p.get("d", "") for p in el.iter(f"{NS}path"))
    nums = [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", d)]
    return np.array(nums).reshape(-1, 2)


def _fill(el) -> str:
    style = next(p for p in el.iter(f"{NS}path")).get("style")
    return re.search(r"fill: (#[0-9a-f]{6})", style).group(1)


def test_cone_hillshade_lit_from_the_north_west(tmp_path):
    scene = _cone_scene(tmp_path)
    out = tmp_path / "cone.svg"
    vr.render_to_file(scene, out, size=SMALL)
    raw = out.read_bytes()
    assert b"<image" not in raw
    assert vr.render_to_file(scene, tmp_path / "again.svg", size=SMALL).read_bytes() == raw
    root = _svg(out)
    assert root.find(f".//{NS}image") is None
    # a legend row may be wrapped to the legend column (its lines indented)
    assert "terrain: hillshade, contours every 5 mm" in " ".join(t.strip() for t in _texts(root))
    groups = {
        int(e.get("id").rsplit("-", 1)[1]): e
        for e in root.iter()
        if (e.get("id") or "").startswith("terrain-hillshade-")
    }
    # the cone's flank facing the sun: cos(45 - atan 1/2) = 0.9487 -> grey 30 of 32
    # (255 x 30.5 / 32 = 243); facing away: cos(45 + atan 1/2) = 0.3162 -> grey 10 (84);
    # the flat ground: sin 45 = 0.7071 -> grey 22 (179)
    assert max(groups) == 30 and min(groups) == 10 and 22 in groups
    assert _fill(groups[30]) == "#f3f3f3"
    assert _fill(groups[10]) == "#545454"
    assert _fill(groups[22]) == "#b3b3b3"
    # where they are: SVG y grows downwards, so north-west is smaller x and smaller y
    lit, dark = _path_points(groups[30]).mean(axis=0), _path_points(groups[10]).mean(axis=0)
    assert lit[0] < dark[0] and lit[1] < dark[1]
    # the lit flank lies up-left of the cone's middle, the dark one down-right
    mid = _path_points(groups[22]).mean(axis=0)  # the flat ground all round: the middle
    assert lit[0] < mid[0] < dark[0] and lit[1] < mid[1] < dark[1]
