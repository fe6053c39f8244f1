"""The viewer package: drawings without a window, and real off-screen images.

Scenes are small scenario files written to a temporary folder: a 400 x 300 mm table, one
wall, an attacker ``a`` facing +x, a main target ``t1`` (silhouette 4, wide base) that
the attack affects, ``t2`` that it does not, and ``t3`` excluded by total cover.

Images are rendered off-screen (EGL + Mesa llvmpipe on Linux; see viewer/render.py).
Pixel checks use colours drawn unlit (exact palette values) and positions from
``RenderResult.world_to_pixel``, the projection of the camera that made the image.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

pv = pytest.importorskip("pyvista")

from PIL import Image  # noqa: E402

from geom3d import load_scene  # noqa: E402
from geom3d.errors import InputError, UnknownIdError  # noqa: E402
from geom3d.templates import TemplateVolume, shape_from_spec  # noqa: E402
from viewer import actors, palette  # noqa: E402
from viewer import render as vr  # noqa: E402

pytestmark = pytest.mark.viewer

SCENARIO = """\
format: geom3d/1
units: mm
ruleset: infinity
table:
  size: [400, 300]
scenery:
  - id: wall
    box: {size: [10, 120, 60]}
    position: [180, 250, 0]
  - id: crate
    box: {size: [30, 30, 20]}
    position: [330, 260, 0]
    blocks_lof: false
troopers:
  - {id: a, side: blue, position: [60, 150], facing_deg: 0, silhouette: 2}
  - {id: b, side: blue, position: [60, 250], facing_deg: 0, silhouette: 2}
  - {id: t1, side: red, position: [300, 150], facing_deg: 180, silhouette: 4}
  - {id: t2, side: red, position: [300, 50], facing_deg: 180, silhouette: 4}
  - {id: t3, side: red, position: [260, 250], facing_deg: 180, silhouette: 2}
attacks:
  - id: shot1
    attacker: a
    template: large_teardrop
    mode: direct
    main_target: t1
    heading_deg: 0
"""


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    d = tmp_path_factory.mktemp("viewer")
    path = d / "table.yaml"
    path.write_text(SCENARIO)
    return load_scene(path)


def _volume(scene):
    spec = scene.scenario.attacks[0]
    return TemplateVolume(shape_from_spec(spec.template), (72.5, 150.0, 0.0), 0.0)


def _attack_doc():
    """A SPEC section 6 attack entry, as the engine's AttackResult.to_dict() gives it."""
    return {
        "id": "shot1",
        "outcome": "resolved",
        "reason": None,
        "main_target_in_area": True,
        "affected": ["t1"],
        "excluded": [{"id": "t3", "reason": "total_cover"}, {"id": "a", "reason": "attacker"}],
        "troopers": {
            "t1": {
                "role": "main",
                "dodge": "PH",
                "face_to_face": False,
                "critical_applies": True,
                "partial_cover_bonus": False,
            }
        },
        "placements": [{"focus": [72.5, 150.0, 0.0], "heading_deg": 0.0, "affected": ["t1"]}],
    }


def _attack_drawing(scene, view="top"):
    return actors.build_drawing(
        scene, view=view, attack="shot1", attack_result=(_attack_doc(), [_volume(scene)])
    )


# --------------------------------------------------------------------------- no window
def test_palette_sides_and_greyscale():
    cols = palette.side_colors(["blue", "red", "blue", "neutral", "green"])
    assert list(cols) == ["blue", "red", "neutral", "green"]
    assert cols["neutral"] == palette.NEUTRAL
    assert len(set(cols.values())) == 4
    # the first two sides stay apart in a greyscale print
    assert abs(palette.greyscale(cols["blue"]) - palette.greyscale(cols["red"])) > 50
    assert palette.rgb255("#D55E00") == (213, 94, 0)


def test_scenery_actors_shade_by_height(scene):
    specs = {a.name: a for a in actors.scenery_actors(scene)}
    assert {"table", "scenery", "scenery-edges", "scenery-nonblocking"} <= set(specs)
    wall = specs["scenery"]
    assert wall.mesh.n_cells == 12  # the wall's two triangles per face, nothing else
    rgb = wall.mesh.point_data["rgb"]
    z = np.asarray(wall.mesh.points)[:, 2]
    # tops are darker than feet
    assert rgb[z.argmax()].sum() < rgb[z.argmin()].sum()
    assert specs["scenery-nonblocking"].opacity < 1.0
    assert specs["scenery-edges"].mesh.n_cells >= 12  # the box outline


def test_trooper_actors_colour_by_side_and_label(scene):
    specs, labels = actors.trooper_actors(scene)
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
    hidden, _ = actors.trooper_actors(scene, hidden=["a"])
    assert "trooper:a" not in {s.name for s in hidden}
    assert "trooper:a:outline" in {s.name for s in hidden}


def test_template_actors_volume_and_focus(scene):
    vol = _volume(scene)
    specs = {a.name: a for a in actors.template_actors([vol])}
    body = specs["template:0"]
    assert body.opacity < 1.0
    lo, hi = vol.bounds()
    b = np.asarray(body.mesh.bounds)
    assert b[0::2] == pytest.approx(lo, abs=0.5)
    assert b[1::2] == pytest.approx(hi, abs=0.5)
    assert specs["template:0:focus"].meta["focus"] == pytest.approx(list(vol.focus))


def test_attack_drawing_highlights_and_reasons(scene):
    d = _attack_drawing(scene)
    assert "attack shot1: resolved" in d.title
    ring = d.actor("affected:t1")
    assert ring.color == palette.AFFECTED and not ring.lighting
    assert "affected:t2" not in d.names()
    assert d.actor("excluded:t3").meta["reason"] == "total_cover"
    texts = [lab.text for lab in d.labels]
    assert any("total cover" in t for t in texts)
    assert any(t.startswith("t1 (main target): hit") for t in texts)
    assert any("(attacker)" in t for t in texts)
    assert {"affected", "Blast Focus", "template volume"} <= {e.label for e in d.legend}
    assert any(e.label.startswith("side ") for e in d.legend)
    # a scale bar in the file's units
    assert any(lab.text.endswith(" mm") for lab in d.labels if lab.layer == "annotations")


def test_volumes_rebuilt_from_placements(scene):
    spec = scene.scenario.attacks[0]
    (vol,) = actors.volumes_from_placements(spec, _attack_doc()["placements"])
    assert vol.focus == pytest.approx((72.5, 150.0, 0.0))
    assert vol.height == pytest.approx(_volume(scene).height)


class _FakeAttackResult:
    """Stands in for geom3d.attacks.AttackResult: ``to_dict()`` and maybe ``volumes``."""

    def to_dict(self):
        return _attack_doc()


@pytest.mark.parametrize("with_volumes", [True, False])
def test_attack_result_contract(scene, monkeypatch, with_volumes):
    if importlib.util.find_spec("geom3d.attacks") is None:
        monkeypatch.setitem(sys.modules, "geom3d.attacks", types.ModuleType("geom3d.attacks"))
    res = _FakeAttackResult()
    if with_volumes:
        res.volumes = [_volume(scene).scaled(0.5)]
    monkeypatch.setattr(scene, "resolve_attack", lambda attack_id: res)
    doc, vols = actors.resolve_attack_for_drawing(scene, "shot1")
    assert doc["affected"] == ["t1"]
    expected = _volume(scene).scaled(0.5) if with_volumes else _volume(scene)
    assert len(vols) == 1 and vols[0].height == pytest.approx(expected.height)
    d = actors.build_drawing(scene, view="from:a", attack="shot1")
    assert d.eye["trooper"] == "a" and "affected:t1" in d.names()


def test_lof_drawing_witness_ray(scene):
    r = scene.line_of_fire("a", "t1")
    assert r.lof
    d = actors.lof_pair_actors(scene, r.to_dict())
    ray = d.actor("witness:a:t1")
    assert ray.meta["eye"] == pytest.approx(list(r.witness.eye), abs=1e-3)
    assert ray.meta["patch_center"] == pytest.approx(list(r.witness.patch_center), abs=1e-3)
    assert ray.color == palette.CLEAR_RAY


def test_blocked_rays_stop_at_the_wall(scene):
    r = scene.line_of_fire("b", "t3")
    assert not r.visible
    o, hits, _ends, blocked = actors.blocked_rays(scene, "b", "t3")
    assert len(o) == 9 and blocked.all()
    # the wall's near face is at x = 175
    assert hits[:, 0] == pytest.approx(175.0, abs=0.05)
    d = actors.lof_pair_actors(scene, r.to_dict())
    assert d.actor("blocked:b:t3").color == palette.BLOCKED_RAY
    assert "9 of 9" in d.notes[0]


def test_matrix_summary(scene):
    pairs = [
        {"from": "a", "to": "t1", "lof": True},
        {"from": "t1", "to": "a", "lof": True},
        {"from": "a", "to": "t2", "lof": True},
        {"from": "t2", "to": "a", "lof": False},
    ]
    d = actors.matrix_actors(scene, pairs)
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
    length, text = actors.nice_scale_length(approx_mm, units)
    assert length == pytest.approx(expected[0])
    assert text == expected[1]


def test_bad_ids_and_views(scene, tmp_path):
    with pytest.raises(InputError, match="unknown view"):
        actors.build_drawing(scene, view="side")
    with pytest.raises(UnknownIdError, match="nobody"):
        actors.build_drawing(scene, view="from:nobody")
    with pytest.raises(InputError, match="A:B"):
        actors.build_drawing(scene, lof="a")
    with pytest.raises(UnknownIdError):
        actors.build_drawing(scene, lof="a:nobody")
    with pytest.raises(UnknownIdError, match="unknown attack"):
        actors.build_drawing(scene, attack="nope")
    with pytest.raises(InputError, match="either"):
        actors.build_drawing(scene, attack="shot1", lof="a:t1")
    with pytest.raises(InputError, match=r"\.jpg"):
        vr.render_to_file(scene, tmp_path / "x.jpg")
    with pytest.raises(InputError, match="size"):
        vr.render_to_file(scene, tmp_path / "x.png", size=(0, 10))
    assert not list(tmp_path.iterdir())  # nothing half-written


# --------------------------------------------------------------------------- images
def test_png_size_and_dpi(scene, tmp_path):
    out = vr.render_to_file(scene, tmp_path / "plan.png", size=(320, 240), dpi=150)
    assert out == tmp_path / "plan.png"
    with Image.open(out) as im:
        assert im.size == (320, 240)
        assert im.mode == "RGB"
        # PNG stores pixels per metre (an integer): 150 dpi reads back as 150.012
        assert im.info["dpi"] == pytest.approx((150, 150), abs=0.05)


def _ring_point(scene, tid, angle_deg):
    t = scene.troopers[tid]
    r0, r1, z = actors._halo_geometry(t)
    rm = 0.5 * (r0 + r1)
    a = math.radians(angle_deg)
    x, y, _ = t.position
    return np.array([x + rm * math.cos(a), y + rm * math.sin(a), z])


def test_top_view_highlight_at_projected_pixel(scene):
    d = _attack_drawing(scene)
    res = vr.render(scene, None, view="top", size=(640, 480), drawing=d)
    img = res.image
    assert img.shape == (480, 640, 3)
    want = np.array(palette.rgb255(palette.AFFECTED))
    # halo of t1, sampled on its ring away from the label (+x+y) and the arc line (+-y)
    for ang in (-45.0, -135.0, 135.0):
        col, row = res.world_to_pixel(_ring_point(scene, "t1", ang))[0]
        assert img[int(row), int(col)] == pytest.approx(want, abs=2)
    # nowhere near t2, which stands outside the template
    col, row = res.world_to_pixel(scene.troopers["t2"].position)[0]
    c, r = int(col), int(row)
    patch = img[r - 25 : r + 26, c - 25 : c + 26].reshape(-1, 3).astype(int)
    assert np.abs(patch - want).sum(axis=1).min() > 30
    # troopers project inside the picture, left of the legend column
    for tid in scene.troopers:
        col, row = res.world_to_pixel(scene.troopers[tid].position)[0]
        assert 0 <= col < 640 * (1 - vr.LEGEND_COLUMN) and 0 <= row < 480


def test_same_input_same_png_bytes(scene, tmp_path):
    p1 = vr.render_to_file(scene, tmp_path / "one.png", lof="a:t1", size=(240, 180))
    p2 = vr.render_to_file(scene, tmp_path / "two.png", lof="a:t1", size=(240, 180))
    assert p1.read_bytes() == p2.read_bytes()


def test_svg_is_valid_xml_with_text(scene, tmp_path):
    out = vr.render_to_file(scene, tmp_path / "plan.svg", size=(320, 240), dpi=96)
    root = ET.parse(out).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert root.get("width") == f"{320 / 96:.4f}in"
    assert root.find(f".//{ns}image") is not None  # the 3D picture, rasterised
    texts = [t.text or "" for t in root.iter(f"{ns}text")]
    assert any("plan view" in t for t in texts)  # the title
    assert {"a", "t1", "t2"} <= set(texts)  # trooper labels as real text
    raw = out.read_text()
    assert "CreationDate" not in raw
    again = vr.render_to_file(scene, tmp_path / "again.svg", size=(320, 240), dpi=96)
    assert again.read_text() == raw


def test_iso_and_from_views(scene):
    iso = vr.render(scene, None, view="iso", size=(320, 240))
    assert iso.image.shape == (240, 320, 3)
    assert np.isfinite(iso.world_to_pixel(scene.troopers["t1"].position)).all()
    view = vr.render(scene, None, view="from:a", size=(320, 240))
    assert view.drawing.eye["trooper"] == "a"
    assert any(a.name == "arc-edge:a" for a in view.drawing.actors)
    # a point far ahead at eye height lies at the centre of the picture area (left of
    # the legend column, below the title band)
    t = scene.troopers["a"]
    ahead = np.array([t.position[0] + 1000.0, t.position[1], view.drawing.eye["eye_z"]])
    col, row = view.world_to_pixel(ahead)[0]
    cx = 0.5 * (0.015 + 1.0 - vr.LEGEND_COLUMN) * 320
    cy = (1.0 - 0.5 * (1.0 - vr.TITLE_BAND)) * 240
    assert col == pytest.approx(cx, abs=1.0) and row == pytest.approx(cy, abs=1.0)
    # a point behind the camera does not project
    assert np.isnan(view.world_to_pixel([t.position[0] - 5000.0, t.position[1], 10.0])).all()


def test_demo_diagrams_reuse_the_lof_document(scene, tmp_path, monkeypatch):
    doc = {"pairs": [r.to_dict() for r in scene.lof_matrix()]}

    def no_matrix(*a, **k):  # pragma: no cover - failing path
        raise AssertionError("demo_diagrams must reuse the LoF document")

    monkeypatch.setattr(type(scene), "lof_matrix", no_matrix)
    # the attack diagram through the AttackResult contract, whatever state the engine's
    # attack module is in (test_attack_through_the_engine covers the real one)
    if importlib.util.find_spec("geom3d.attacks") is None:
        monkeypatch.setitem(sys.modules, "geom3d.attacks", types.ModuleType("geom3d.attacks"))
    monkeypatch.setattr(scene, "resolve_attack", lambda attack_id: _FakeAttackResult())
    paths = vr.demo_diagrams(scene, tmp_path / "demo", doc, size=(240, 180))
    names = [p.name for p in paths]
    assert names == ["plan.png", "attack-shot1.png", "lof-a-t1.png", "view-a.png"]
    for p in paths:
        assert Path(p).stat().st_size > 0


def test_attack_through_the_engine(scene, tmp_path):
    pytest.importorskip("geom3d.attacks")
    out = vr.render_to_file(scene, tmp_path / "attack.png", attack="shot1", size=(320, 240))
    with Image.open(out) as im:
        assert im.size == (320, 240)


def test_interactive_viewer_state(scene):
    from viewer.window import build_viewer

    state = build_viewer(scene, off_screen=True, size=(320, 240))
    try:
        assert all(a.GetVisibility() for a in state.layers["scenery"])
        state.set_layer("scenery", False)
        assert not any(a.GetVisibility() for a in state.layers["scenery"])
        part = state.pick("a")
        assert part is not None and state.picked == "a"
        names = [a.name for a in part.actors]
        assert names and all(n.startswith("picked:") for n in names)
        assert all(n in state.plotter.renderer.actors for n in names)
        state.set_layer("rays", False)
        assert not any(state.plotter.renderer.actors[n].GetVisibility() for n in names)
        actor = state.plotter.renderer.actors["trooper:t1"]
        assert state.trooper_at(actor) == "t1"
        state.pick(None)
        assert not any(n in state.plotter.renderer.actors for n in names)
        with pytest.raises(ValueError):
            state.set_layer("nope", True)
    finally:
        state.plotter.close()


def test_renderer_plugin_interface():
    # the CLI loads viewer.render through the geom3d.renderers entry point
    for name in ("render_to_file", "demo_diagrams", "open_viewer"):
        assert callable(getattr(vr, name))


def test_open_viewer_without_display_is_a_clear_error(scene, monkeypatch):
    open_viewer = vr.open_viewer
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(InputError, match="needs a display"):
        open_viewer(scene)
