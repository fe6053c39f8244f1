"""Side and eye views, camera options, aimed ``from:`` views, labels behind scenery.

Scenes: trooper ``a`` (silhouette 2: 40 mm tall, 25 mm base) at x = 50 and ``b`` at
x = 250, both at y = 100, and a 10 mm thick wall across the line at x = 150 whose height
varies. Pixel checks find drawn things by colour and compare them with the camera's own
projection (``RenderResult.world_to_pixel``).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyvista")

from support import box, make_scene, trooper

from geom3d.core.errors import Geom3dError
from geom3d.visibility import ApparentView
from viewer import palette as pal
from viewer import render as vr
from viewer.layers.scenery import CLOSING_FACES
from viewer.layout import LEGEND_COLUMN, TITLE_BAND
from viewer.views import PATCH_OUTLINE

pytestmark = pytest.mark.viewer

SIZE = (800, 600)


def wall_scene(wall_h, *, a_facing=0.0):
    return make_scene(
        [
            trooper("a", [50, 100], facing_deg=a_facing),
            trooper("b", [250, 100], side="red", facing_deg=180),
        ],
        [box("wall", [10, 80, wall_h], [150, 100, 0])],
        table={"size": [300, 200]},
    )


def _grey(img):
    i = img.astype(int)
    return (i.max(axis=2) - i.min(axis=2) < 25) & (i.max(axis=2) < 235)


def _orange(img):
    i = img.astype(int)
    return (i[..., 0] - i[..., 2] > 60) & (i[..., 0] > 150)


def _top_row(mask_col):
    """The topmost flagged row below the title band (where the picture starts)."""
    rows = np.flatnonzero(mask_col)
    rows = rows[rows >= TITLE_BAND * SIZE[1]]
    return int(rows.min()) if len(rows) else None


@pytest.mark.parametrize("wall_h", [30.0, 50.0])
def test_side_view_wall_top_against_the_targets_head(wall_h):
    scene = wall_scene(wall_h)
    res = vr.render(scene, None, view="side:a:b", size=SIZE)
    img = res.image
    # heights to scale: the camera is orthographic and looks horizontally across a-b
    p = res.world_to_pixel([[150, 60, 0], [150, 60, wall_h], [250, 100, 0], [250, 100, 40]])
    mm_px = (p[0, 1] - p[1, 1]) / wall_h
    assert (p[2, 1] - p[3, 1]) / 40.0 == pytest.approx(mm_px, rel=1e-6)
    assert p[0, 0] == pytest.approx(p[1, 0], abs=1e-6)  # vertical stays vertical
    # the drawn wall: its topmost grey pixel in the column through its middle
    col_w = round(p[1, 0])
    wall_top = _top_row(_grey(img[:, col_w - 1 : col_w + 2]).any(axis=1))
    # the drawn target: topmost orange pixel left of its axis (its label is up-right)
    col_b = round(res.world_to_pixel([243, 100, 20])[0, 0])
    head = _top_row(_orange(img[:, col_b - 1 : col_b + 2]).any(axis=1))
    assert wall_top is not None and head is not None
    assert wall_top == pytest.approx(p[1, 1], abs=3)
    assert head == pytest.approx(p[3, 1], abs=3)
    # rows grow downwards: a lower wall's top lies below the head, a taller one above
    if wall_h < 40:
        assert wall_top > head + 0.5 * (40 - wall_h) * mm_px
    else:
        assert wall_top < head - 0.5 * (wall_h - 40) * mm_px
    # the silhouette outline of each trooper is drawn
    assert {"side-outline:a", "side-outline:b"} <= set(res.drawing.names())


def test_side_view_section_drops_what_stands_in_front():
    scene = make_scene(
        [
            trooper("a", [50, 100]),
            trooper("b", [250, 100], side="red"),
            trooper("c", [150, 20], side="red"),  # 80 mm in front of the line: not drawn
        ],
        [box("wall", [10, 80, 30], [150, 100, 0]), box("front", [200, 10, 80], [150, 20, 0])],
        table={"size": [300, 200]},
    )
    d = vr.render(scene, None, view="side:a:b", size=(400, 300)).drawing
    assert not any(a.meta.get("trooper") == "c" for a in d.actors)
    scen = [a for a in d.actors if a.name == "scenery"]
    assert len(scen) == 1
    # the wall (x 145..155) is kept whole, the tall piece in front (y 15..25) is gone
    pts = np.asarray(scen[0].mesh.points)
    used = pts[np.unique(np.asarray(scen[0].mesh.faces).reshape(-1, 4)[:, 1:])]
    assert used[:, 1].min() == pytest.approx(60.0) and used[:, 1].max() == pytest.approx(140.0)
    assert used[:, 2].max() == pytest.approx(30.0)


def _near_colour(img, col, row, colour, r=2, tol=12):
    c = np.array(pal.rgb255(colour))
    win = img[int(row) - r : int(row) + r + 1, int(col) - r : int(col) + r + 1].astype(int)
    return bool((np.abs(win - c).max(axis=2) <= tol).any())


def test_eye_view_shows_the_patch_outline_and_the_visible_region():
    scene = wall_scene(30.0)
    res = vr.render(scene, None, view="eye:a:b", size=SIZE)
    d = res.drawing
    lof = scene.line_of_fire("a", "b")
    assert lof.witness is not None and lof.witness_viewer == "a"
    assert d.camera["eye"] == pytest.approx(list(lof.witness.eye))
    patch = d.actor("eye-patch:a:b")
    corners = np.array(patch.meta["corners"])
    # a 3 x 3 mm square in apparent size (SPEC 3.1: measured in the plane through b's
    # centre perpendicular to the line of sight), centred on the witness patch
    view = ApparentView(np.array([lof.witness.eye]), scene.troopers["b"].cylinder)
    s, t, _ = view.project(corners)
    st = np.column_stack([s[0], t[0]])
    sides = np.linalg.norm(np.roll(st, -1, axis=0) - st, axis=1)
    assert sides == pytest.approx([3.0] * 4, abs=1e-6)
    sc, tc, _ = view.project(np.array([lof.witness.patch_center]))
    assert st.mean(axis=0) == pytest.approx([sc[0, 0], tc[0, 0]], abs=1e-6)
    px = res.world_to_pixel(corners)
    mids = 0.5 * (px + np.roll(px, -1, axis=0))
    # the patch sits just over the wall's top, whose edge line may cover its lower side
    shown = [_near_colour(res.image, col, row, PATCH_OUTLINE) for col, row in mids]
    assert sum(shown) >= 3, shown
    # the outline colour is nowhere else in the picture (the legend column has its swatch)
    picture = res.image[:, : int((1.0 - LEGEND_COLUMN) * SIZE[0])].astype(int)
    hits = np.argwhere(np.abs(picture - pal.rgb255(PATCH_OUTLINE)).max(axis=2) <= 12)
    assert len(hits)
    lo, hi = px.min(axis=0) - 4, px.max(axis=0) + 4
    assert (hits[:, 1] >= lo[0]).all() and (hits[:, 1] <= hi[0]).all()
    assert (hits[:, 0] >= lo[1]).all() and (hits[:, 0] <= hi[1]).all()
    # the visible region is shaded (and its area is the witness's)
    assert "eye-visible:a:b" in d.names()
    assert any("525 mm²" in n or f"{lof.witness.visible_area_mm2:.0f} mm²" in n for n in d.notes)
    # the wall hides b's lower part: the region's cells all lie above the wall's top
    # as seen from the eye (every clear sample ray passes over the wall)
    cells = np.asarray(d.actor("eye-visible:a:b").mesh.points)
    eye = np.array(d.camera["eye"])
    t_wall = (150 - 5 - eye[0]) / (cells[:, 0] - eye[0])
    z_at_wall = eye[2] + t_wall * (cells[:, 2] - eye[2])
    assert (z_at_wall > 30.0 - 0.6).all()


def test_eye_view_without_a_patch_has_no_outline():
    scene = wall_scene(60.0)  # taller than both: no Line of Fire
    res = vr.render(scene, None, view="eye:a:b", size=(400, 300))
    assert "eye-patch:a:b" not in res.drawing.names()
    picture = res.image[:, : int((1.0 - LEGEND_COLUMN) * 400)].astype(int)
    assert not np.any(np.abs(picture - pal.rgb255(PATCH_OUTLINE)).max(axis=2) <= 12)
    assert any("no eye point of a sees" in n for n in res.drawing.notes)


def test_from_view_aims_at_the_lof_target():
    scene = wall_scene(20.0, a_facing=180.0)  # a faces away from b
    along_facing = vr.render(scene, None, view="from:a", size=(400, 300))
    assert np.isnan(along_facing.world_to_pixel([250, 100, 20])).all()  # behind
    aimed = vr.render(scene, None, view="from:a", lof="a:b", size=(400, 300))
    assert aimed.drawing.eye["aim"] == pytest.approx([250.0, 100.0, 20.0])
    # the aim point lies at the centre of the picture area (as in test_iso_and_from_views)
    col, row = aimed.world_to_pixel([250, 100, 20])[0]
    cx = 0.5 * (0.015 + 1.0 - LEGEND_COLUMN) * 400
    cy = (1.0 - 0.5 * (1.0 - TITLE_BAND)) * 300
    assert col == pytest.approx(cx, abs=1.0) and row == pytest.approx(cy, abs=1.0)


def test_camera_options_change_the_image():
    scene = wall_scene(30.0)
    base = vr.render(scene, None, view="iso", size=(400, 300))
    turned = vr.render(scene, None, view="iso", azimuth=30.0, size=(400, 300))
    assert not np.array_equal(base.image, turned.image)
    low = vr.render(scene, None, view="iso", elevation=10.0, size=(400, 300))
    assert not np.array_equal(base.image, low.image)
    # zoom 2: distances on screen double (about the picture's centre)
    zoomed = vr.render(scene, None, view="side:a:b", zoom=2.0, size=(400, 300))
    plain = vr.render(scene, None, view="side:a:b", size=(400, 300))
    pts = [[50, 100, 0], [250, 100, 0]]
    dz = np.diff(zoomed.world_to_pixel(pts), axis=0)[0, 0]
    dp = np.diff(plain.world_to_pixel(pts), axis=0)[0, 0]
    assert dz == pytest.approx(2.0 * dp, rel=1e-6)
    # azimuth of a side view: looking along -x from +x puts b on the left of a
    east = vr.render(scene, None, view="side", azimuth=0.0, size=(400, 300))
    pa, pb = east.world_to_pixel([[50, 100, 0], [250, 100, 0]])
    assert pb[0] == pytest.approx(pa[0], abs=1.0)  # on one line of sight
    north = vr.render(scene, None, view="side", azimuth=-90.0, size=(400, 300))
    pa, pb = north.world_to_pixel([[50, 100, 0], [250, 100, 0]])
    assert pa[0] < pb[0]


@pytest.mark.parametrize(
    ("view", "kw", "match"),
    [
        ("iso", {"elevation": 89.5}, "elevation"),
        ("iso", {"zoom": 0.0}, "zoom"),
        ("iso", {"zoom": float("nan")}, "finite"),
        ("top", {"azimuth": 10.0}, "azimuth applies"),
        ("eye:a:b", {"elevation": 10.0}, "elevation applies"),
        ("side:a:a", {}, "twice"),
        ("eye:a", {}, "two trooper ids"),
        ("eye:a:zz", {}, "zz"),
    ],
)
def test_bad_views_and_camera_options(view, kw, match, tmp_path):
    scene = wall_scene(30.0)
    with pytest.raises(Geom3dError, match=match):
        vr.render(scene, tmp_path / "x.png", view=view, size=(100, 80), **kw)
    assert not list(tmp_path.iterdir())


def test_labels_behind_scenery_are_not_drawn():
    low = vr.render(wall_scene(20.0), None, view="from:a", lof="a:b", size=(400, 300))
    assert any(lab.text.startswith("b") for lab in low.drawing.labels)
    assert not any("behind scenery" in n for n in low.drawing.notes)
    # b's label anchor is 2 mm above its 40 mm head; a 60 mm wall hides it from a's view
    high = vr.render(wall_scene(60.0), None, view="from:a", lof="a:b", size=(400, 300))
    assert not any(lab.text.startswith("b") for lab in high.drawing.labels)
    assert any(n.startswith("behind scenery (labels not drawn): b") for n in high.drawing.notes)


def test_same_input_same_png_bytes_for_side_and_eye(tmp_path):
    scene = wall_scene(30.0)
    for view in ("side:a:b", "eye:a:b"):
        one = vr.render(scene, tmp_path / "one.png", view=view, size=(320, 240))
        two = vr.render(scene, tmp_path / "two.png", view=view, size=(320, 240))
        assert one.path.read_bytes() == two.path.read_bytes()


def test_closing_faces_drawn_in_their_own_colour(tmp_path):
    """An open-bottom shell (rim 5 mm above the table) is closed at its base (SPEC 12.1:
    its rim is a base loop): 4 curtains down to the ground (8 triangles) and a floor fan
    under them (4), scene.closing_mask; they are drawn apart, in CLOSING_FACES, and named
    in the legend. Seen from the side under the rim, the curtain is what shows."""
    v = [[x, y, z] for z in (5.0, 60.0) for x, y in ((0, 0), (100, 0), (100, 100), (0, 100))]
    f = [[4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5]]
    f += [[2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]]
    obj = tmp_path / "shell.obj"
    lines = [f"v {x} {y} {z}" for x, y, z in v] + [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in f]
    obj.write_text("\n".join(lines) + "\n")
    scene = make_scene(
        [trooper("a", [-60, 50]), trooper("b", [160, 50], side="red")],
        [{"id": "s", "mesh": str(obj), "position": [0, 0, 0]}],
    )
    assert int(scene.closing_mask.sum()) == 8 + 4
    res = vr.render(scene, None, view="side", size=(640, 480))
    d = res.drawing
    closing = d.actor("scenery-closing")
    assert closing.color == CLOSING_FACES and closing.mesh.n_cells == 8 + 4
    assert d.actor("scenery").mesh.n_cells == 10  # the scan's own faces
    assert any(e.label == "closed underside (added)" for e in d.legend)
    # the curtain between the table and the rim (z 0..5) in the middle of the front side
    col, row = res.world_to_pixel([50.0, 0.0, 2.5])[0]
    win = res.image[int(row) - 1 : int(row) + 2, int(col) - 3 : int(col) + 4].astype(int)
    blue = win[..., 2] - win[..., 0]  # sky blue over white: clearly bluer than red
    assert (blue > 40).all(), win
    # without closing (solid: surface) no such actor and no legend row
    plain = make_scene(
        [trooper("a", [-60, 50])],
        [{"id": "s", "mesh": str(obj), "position": [0, 0, 0], "solid": "surface"}],
    )
    d2 = vr.render(plain, None, view="side", size=(320, 240)).drawing
    assert "scenery-closing" not in d2.names()
    assert not any("closed underside" in e.label for e in d2.legend)


def test_from_view_aims_along_the_attack(scene):
    """conftest's attack shot1: a attacks t1 (main target)."""
    attacker = vr.build_drawing(scene, view="from:a", attack="shot1")
    t1 = scene.troopers["t1"]
    assert attacker.eye["aim"] == pytest.approx(
        [*t1.position[:2], t1.position[2] + 0.5 * t1.height]
    )
    # seen from the main target, the view looks back at the attacker
    target = vr.build_drawing(scene, view="from:t1", attack="shot1")
    a = scene.troopers["a"]
    assert target.eye["aim"] == pytest.approx([*a.position[:2], a.position[2] + 0.5 * a.height])
    # no target given: the view looks along the facing (no aim)
    assert "aim" not in vr.build_drawing(scene, view="from:a").eye
