"""viewer.survey: the heat map of a survey (PNG and vector SVG), reached via the plugin."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("matplotlib")

from PIL import Image

from geom3d.survey import survey


def test_heatmap_png_and_svg_are_deterministic_and_show_levels_and_zones(room):
    from viewer.render import render_survey  # the entry-point module re-exports it

    scene = room(door=True)
    doc = survey(scene, spacing_mm=100, workers=1)
    first = render_survey(scene, doc)
    again = render_survey(scene, doc)
    assert sorted(first) == ["heatmap.png", "heatmap.svg"]
    assert first == again  # same bytes, PNG and SVG
    img = Image.open(io.BytesIO(first["heatmap.png"]))
    assert img.format == "PNG" and img.size[0] > 600
    svg = first["heatmap.svg"].decode()
    assert "<image" not in svg or svg.count("<image") == 1  # background only, the rest vector
    assert "dc:date" not in svg
    assert "level 0 (9)" in svg and "level 1 (1)" in svg  # marker legend per level
    assert "positions that see it" in svg  # colour bar


def test_scan_background_is_a_hillshade(tmp_path):
    import numpy as np
    import trimesh
    from support import make_scene

    from viewer.survey import heights_raster, render_survey

    xs = np.linspace(0, 300, 13)
    gx, gy = np.meshgrid(xs, xs)
    v = np.column_stack([gx.ravel(), gy.ravel(), 20 * np.sin(gx.ravel() / 60.0) + 20])
    f = []
    for r in range(12):
        for c in range(12):
            k = r * 13 + c
            f += [[k, k + 1, k + 14], [k, k + 14, k + 13]]
    path = tmp_path / "hill.stl"
    trimesh.Trimesh(v, np.array(f), process=False).export(path)
    scene = make_scene(
        [],
        [],
        table={"mesh": str(path), "mesh_units": "mm", "size": [300, 300]},
        zones=[{"id": "west", "rect": [0, 0, 100, 300]}],
    )
    z, _xs, _ys = heights_raster(scene, (0, 0, 300, 300), cells=60)
    assert z.shape == (60, 60)
    # hand value: at x = 2.5 mm (first cell) the surface is about 20 sin(2.5/60) + 20
    assert abs(z[30, 0] - (20 * np.sin(2.5 / 60) + 20)) < 1.0
    doc = survey(scene, spacing_mm=150, workers=1)
    out = render_survey(scene, doc)
    svg = out["heatmap.svg"].decode()
    assert "west" in svg and " mm" in svg  # zone label, contour labels
