"""The survey and exposure maps' page (viewer/map_page.py): wrapped titles, the column
beside the map, text sizes in pixels of the output, observer labels placed, layout
records the lint passes (SPEC 13.5).

Documents are written by hand here (the figure draws whatever a document says), so each
map is quick; the gallery's maps (tests/viewer/test_gallery.py) come from the engine.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from PIL import Image, ImageColor

from tests.support import make_scene, trooper
from viewer import palette as pal
from viewer.exposure import exposure_figure
from viewer.layout_lint import MIN_TEXT_PX, check_svg, lint
from viewer.map_page import DEFAULT_MAP_SIZE, save_map
from viewer.survey import survey_figure

TABLE = (600.0, 400.0)
#: A crowded red team (discs 25 mm across, 27-30 mm apart), a blue pair, one in a corner.
OBSERVERS = [
    ("r1", "red", (300, 200), 270), ("r2", "red", (327, 206), 250),
    ("r3", "red", (273, 194), 290), ("r4", "red", (300, 228), 180),
    ("b1", "blue", (100, 60), 90), ("b2", "blue", (128, 70), 80),
    ("corner", "blue", (13, 13), 45),
]  # fmt: skip


def _scene(observers=OBSERVERS):
    ts = [trooper(i, xy, side=s, facing_deg=f) for i, s, xy, f in observers]
    return make_scene(
        ts,
        table={"size": list(TABLE)},
        zones=[
            {"id": "west-deployment", "rect": [0, 0, 150, 400]},
            {"id": "objective", "rect": [250, 150, 350, 250]},
        ],
    )


def _exposure_doc(observers=OBSERVERS):
    """Every 25 mm; a spot is seen by the observers whose x lies within 200 mm of it."""
    cells = []
    for x in np.arange(12.5, TABLE[0], 25.0):
        for y in np.arange(12.5, TABLE[1], 25.0):
            seen = [i for i, _, (ox, _), _ in observers if abs(ox - x) < 200]
            cells.append({"position": [float(x), float(y), 0.0], "level": 0, "seen_by": seen})
    safe = sum(1 for c in cells if not c["seen_by"])
    return {
        "scenario": "maps.yaml",
        "observers": [o[0] for o in observers],
        "observer_positions": [
            {"id": i, "position": [float(xy[0]), float(xy[1]), 0.0], "facing_deg": float(f)}
            for i, _, xy, f in observers
        ],
        "probe": {"silhouette": 2, "diameter_mm": 25.0, "height_mm": 40.0},
        "spacing_mm": 25.0,
        "ignore_arcs": False,
        "cells": cells,
        "safe_share": safe / len(cells),
    }


def _survey_doc():
    pos = []
    for k, (x, y) in enumerate((x, y) for x in range(50, 600, 100) for y in range(50, 400, 100)):
        pos.append({"id": f"p{k}", "position": [x, y, 0.0], "level": 0, "sees": (k * 7) % 23})
    return {
        "positions": pos,
        "lanes": [{"a": "p0", "b": "p23", "distance_mm": 608.3}],
        "visible_pairs": [["p0", "p23"]],
        "probe": {"silhouette": 2},
        "spacing_mm": 100.0,
    }


def _check(fig, layout):
    """The lint over the map's records, pixels and SVG: the list of problems."""
    files = save_map(fig, "t", ("png", "svg"))
    img = np.asarray(Image.open(io.BytesIO(files["png"])).convert("RGB"))
    assert img.shape[1::-1] == layout.size  # the PNG is the page: W x H pixels
    problems = lint(layout, img, ImageColor.getrgb(pal.BACKGROUND))
    return problems + check_svg(layout, files["svg"]), files


@pytest.mark.parametrize("size", [(800, 500), (1600, 1200)], ids=["800x500", "1600x1200"])
def test_exposure_map_passes_the_lint_with_every_observer_whole_and_labelled(size):
    fig, lay = exposure_figure(_scene(), _exposure_doc(), size=size)
    problems, _ = _check(fig, lay)
    assert problems == []
    # every observer is a trooper the figure is about, wholly inside the frame (the
    # corner one too: the limits grew to hold its disc and arrow)
    assert sorted(lay.about) == sorted(o[0] for o in OBSERVERS)
    fx0, fy0, fx1, fy1 = lay.frame
    for tid in lay.about:
        x0, y0, x1, y1 = lay.troopers[tid]
        assert fx0 <= x0 and x1 <= fx1 and fy0 <= y0 and y1 <= fy1, tid
    # each observer's id is drawn on the map (placed by the solver), or named in a note
    drawn = {t.text for t in lay.texts if t.id.startswith("label-")}
    noted = " ".join(lay.notes)
    assert all(o[0] in drawn or o[0] in noted for o in OBSERVERS)
    for t in lay.texts:
        if t.id.startswith("label-"):
            assert fx0 <= t.box[0] and t.box[2] <= fx1 and fy0 <= t.box[1] and t.box[3] <= fy1


def test_observers_keep_their_sides_colours():
    from matplotlib.colors import to_hex

    from viewer.palette import side_colors

    fig, _ = exposure_figure(_scene(), _exposure_doc(), size=(800, 500))
    want = side_colors(o[1] for o in OBSERVERS)
    discs = {p.get_gid(): to_hex(p.get_facecolor()) for p in fig.axes[0].patches if p.get_gid()}
    for tid, side, _, _ in OBSERVERS:
        assert discs[f"observer-{tid}"] == want[side].lower()
    names = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "observer, side red" in names and "observer, side blue" in names


def test_a_long_title_wraps_inside_the_page():
    title = "Where the red team sees a trooper stand " + "and then some more words " * 12
    for size in ((800, 500), (1600, 1200)):
        fig, lay = exposure_figure(_scene(), _exposure_doc(), size=size, title=title)
        lines = [t for t in lay.texts if t.id == "title" or t.id.startswith("title-")]
        assert len(lines) >= 2
        assert " ".join(" ".join(t.text for t in lines).split()) == " ".join(title.split())
        W, H = size
        for t in lines:
            assert 0 <= t.box[0] and t.box[2] <= W and 0 <= t.box[1] and t.box[3] <= H
        # the map starts under the title and subtitle
        assert max(t.box[3] for t in lay.texts if t.id.startswith(("title", "sub"))) < lay.frame[1]
        problems, _ = _check(fig, lay)
        assert problems == []


def test_legend_and_colour_bar_keep_off_the_map_and_the_axis_names():
    fig, lay = exposure_figure(_scene(), _exposure_doc(), size=(800, 500))
    r = fig.canvas.get_renderer()
    H = lay.size[1]

    def box(bb):
        return (bb.x0, H - bb.y1, bb.x1, H - bb.y0)

    def overlap(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    legend = box(fig.legends[0].get_window_extent(r))
    cbar = box(fig.axes[1].get_window_extent(r))
    names = [t.box for t in lay.texts if t.id == "ylabel"]
    names.append(box(fig.axes[0].xaxis.label.get_window_extent(r)))
    names += [box(t.get_window_extent(r)) for t in fig.axes[0].get_xticklabels()]
    for part in (legend, cbar):
        assert not overlap(part, lay.frame)
        assert not any(overlap(part, n) for n in names)
    assert legend[3] <= H and legend[1] >= cbar[3]  # under the colour bar, on the page


def test_every_text_is_11px_or_more_at_800x500_in_the_records_and_the_svg():
    for figure in (
        lambda: exposure_figure(_scene(), _exposure_doc(), size=(800, 500)),
        lambda: survey_figure(_scene(), _survey_doc(), size=(800, 500)),
    ):
        fig, lay = figure()
        assert min(t.px for t in lay.texts) >= MIN_TEXT_PX
        _, files = _check(fig, lay)
        sizes = re.findall(rb"font(?:-size)?: ?(?:[a-z ]*?)([0-9.]+)px", files["svg"])
        # the SVG page is 600 pt wide for 800 px
        assert sizes and min(float(v) for v in sizes) * 800 / 600 >= MIN_TEXT_PX - 0.01


@pytest.mark.parametrize("size", [(800, 500), (1600, 1200)], ids=["800x500", "1600x1200"])
def test_survey_map_places_zone_names_and_passes_the_lint(size):
    fig, lay = survey_figure(_scene(), _survey_doc(), size=size, title="Zones")
    problems, files = _check(fig, lay)
    assert problems == []
    texts = {t.text for t in lay.texts}
    assert {"west-deployment", "objective", "Zones"} <= texts
    assert b">Zones</text>" in files["svg"]


def test_the_default_size_is_the_commands_default():
    from geom3d.commands._maps import DEFAULT_MAP_SIZE as CLI_DEFAULT

    assert CLI_DEFAULT == f"{DEFAULT_MAP_SIZE[0]}x{DEFAULT_MAP_SIZE[1]}"


def test_a_crowd_too_dense_to_label_names_the_rest_in_a_note():
    # sixteen observers 27 mm apart in a 4 x 4 block at 800 x 500: the labels that find
    # no room are named under the title, never drawn over anything
    crowd = [
        (f"trooper-{i}", "red" if i % 2 else "blue", (200 + (i % 4) * 27, 150 + (i // 4) * 27), 0)
        for i in range(16)
    ]
    fig, lay = exposure_figure(_scene(crowd), _exposure_doc(crowd), size=(800, 500))
    problems, _ = _check(fig, lay)
    assert problems == []
    drawn = {t.text for t in lay.texts if t.id.startswith("label-")}
    missing = [c[0] for c in crowd if c[0] not in drawn]
    assert missing and lay.notes == [f"labels not shown (no room): {', '.join(missing)}"]
    sub = " ".join(t.text for t in lay.texts if t.id.startswith("subtitle"))
    assert lay.notes[0] in sub
