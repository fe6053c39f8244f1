"""Off-screen diagrams: real PNG and SVG images of a drawing (viewer.render).

Images are rendered off-screen (EGL + Mesa llvmpipe on Linux; see viewer/plotter.py).
Pixel checks use colours drawn unlit (exact palette values) and positions from
``RenderResult.world_to_pixel``, the projection of the camera that made the image.
"""

from __future__ import annotations

import math
import sys
import xml.etree.ElementTree as ET
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyvista")

from PIL import Image

from geom3d.core.errors import InputError
from viewer import palette
from viewer import render as vr
from viewer.compose import build_drawing
from viewer.layers.troopers import halo_geometry
from viewer.layout import LEGEND_COLUMN, TITLE_BAND

pytestmark = pytest.mark.viewer


def test_bad_file_and_size(scene, tmp_path):
    with pytest.raises(InputError, match=r"\.jpg"):
        vr.render_to_file(scene, tmp_path / "x.jpg")
    with pytest.raises(InputError, match="size"):
        vr.render_to_file(scene, tmp_path / "x.png", size=(0, 10))
    assert not list(tmp_path.iterdir())  # nothing half-written


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
    r0, r1, z = halo_geometry(t)
    rm = 0.5 * (r0 + r1)
    a = math.radians(angle_deg)
    x, y, _ = t.position
    return np.array([x + rm * math.cos(a), y + rm * math.sin(a), z])


def test_top_view_highlight_at_projected_pixel(scene, attack_doc, volume):
    d = build_drawing(scene, attack="shot1", attack_result=(attack_doc, [volume]))
    res = vr.render(scene, None, view="top", size=(640, 480), drawing=d)
    img = res.image
    assert img.shape == (480, 640, 3)
    want = np.array(palette.rgb255(palette.AFFECTED))
    # halo of t1, sampled on its ring below (-y): away from its label (above), the arc
    # line (+-y) and the Blast Focus rays, which end on its near side (-x)
    for ang in (-45.0, -60.0, -135.0):
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
        assert 0 <= col < 640 * (1 - LEGEND_COLUMN) and 0 <= row < 480


def test_same_input_same_png_bytes(scene, tmp_path):
    p1 = vr.render_to_file(scene, tmp_path / "one.png", lof="a:t1", size=(240, 180))
    p2 = vr.render_to_file(scene, tmp_path / "two.png", lof="a:t1", size=(240, 180))
    assert p1.read_bytes() == p2.read_bytes()


def test_3d_svg_is_valid_xml_with_text(scene, tmp_path):
    # 3D views in SVG: the picture is one raster <image>, the text real text (plan views
    # are true vector: tests/viewer/test_vector.py)
    out = vr.render_to_file(scene, tmp_path / "iso.svg", view="iso", size=(320, 240), dpi=96)
    root = ET.parse(out).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert root.get("width") == f"{320 / 96:.4f}in"
    assert root.find(f".//{ns}image") is not None  # the 3D picture, rasterised
    texts = [t.text or "" for t in root.iter(f"{ns}text")]
    assert any("3D view" in t for t in texts)  # the title
    assert {"a", "t1", "t2"} <= set(texts)  # trooper labels as real text
    raw = out.read_text()
    assert "CreationDate" not in raw
    again = vr.render_to_file(scene, tmp_path / "again.svg", view="iso", size=(320, 240), dpi=96)
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
    cx = 0.5 * (0.015 + 1.0 - LEGEND_COLUMN) * 320
    cy = (1.0 - 0.5 * (1.0 - TITLE_BAND)) * 240
    assert col == pytest.approx(cx, abs=1.0) and row == pytest.approx(cy, abs=1.0)
    # a point behind the camera does not project
    assert np.isnan(view.world_to_pixel([t.position[0] - 5000.0, t.position[1], 10.0])).all()


def test_demo_diagrams_reuse_the_lof_document(scene, tmp_path, monkeypatch, fake_attack):
    doc = {"pairs": [r.to_dict() for r in scene.lof_matrix()]}

    def no_matrix(*a, **k):  # pragma: no cover - failing path
        raise AssertionError("demo_diagrams must reuse the LoF document")

    monkeypatch.setattr(type(scene), "lof_matrix", no_matrix)
    # the attack diagram through the AttackResult contract (fake_attack);
    # test_attack_through_the_engine covers the real one
    paths = vr.demo_diagrams(scene, tmp_path / "demo", doc, size=(240, 180))
    names = [p.name for p in paths]
    assert names == ["plan.png", "attack-shot1.png", "lof-a-t1.png", "view-a.png"]
    for p in paths:
        assert Path(p).stat().st_size > 0


def test_attack_through_the_engine(scene, tmp_path):
    out = vr.render_to_file(scene, tmp_path / "attack.png", attack="shot1", size=(320, 240))
    with Image.open(out) as im:
        assert im.size == (320, 240)


def test_renderer_plugin_interface():
    # the CLI loads this module through the geom3d.renderers entry point and calls these
    (ep,) = [e for e in entry_points(group="geom3d.renderers") if e.name == "pyvista"]
    plugin = ep.load()
    assert plugin is vr
    for name in ("render_to_file", "demo_diagrams", "open_viewer"):
        assert callable(getattr(plugin, name))


def test_open_viewer_without_display_is_a_clear_error(scene, monkeypatch):
    open_viewer = vr.open_viewer
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(InputError, match="needs a display"):
        open_viewer(scene)
