"""Interactive HTML (``--out scene.html``): a standalone page, opened in headless Chromium.

The page must work offline: no external scripts or styles, the scene inside the file.
Chromium (Debian package ``chromium``; ``.ci/run`` installs it) loads the page from disk
and takes a screenshot; a page that rendered its 3D scene shows many colours (shaded
silhouettes, scenery ramp, table), a blank or failed one a few. Without Chromium the test
skips, except in CI (``$CI`` set), where it must run.
"""

from __future__ import annotations

import html
import re
import subprocess

import numpy as np
import pytest

pytest.importorskip("pyvista")
pytest.importorskip("trame_vtk")

from devtools import chromium
from PIL import Image

from viewer import render as vr
from viewer.html import panel_html
from viewer.model import Drawing

pytestmark = pytest.mark.viewer

#: A page whose WebGL scene rendered has far more distinct *chromatic* colours (channels
#: more than 24 apart: not the greys of text) than this: lit and shaded coloured
#: surfaces. An empty page, the text panel alone or an error message has none or a few
#: (the legend's swatches).
MIN_COLOURS = 100


def _chromatic_colours(img: np.ndarray) -> int:
    px = img.reshape(-1, 3).astype(int)
    px = px[px.max(axis=1) - px.min(axis=1) > 24]
    return len(np.unique(px, axis=0))


def _screenshot(browser: str, page, out, tmp_path, size=(800, 600)) -> np.ndarray:
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu-sandbox",
        "--enable-unsafe-swiftshader",
        "--use-angle=swiftshader",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--window-size={size[0]},{size[1]}",
        "--virtual-time-budget=15000",
        f"--screenshot={out}",
        page.as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert out.exists(), proc.stderr[-2000:]
    with Image.open(out) as im:
        return np.asarray(im.convert("RGB"))


def test_html_page_is_standalone_and_renders_in_chromium(scene, tmp_path):
    browser = chromium()
    page = tmp_path / "scene.html"
    res = vr.render(scene, page, view="iso", size=(800, 600))
    assert res.path == page
    text = page.read_text(encoding="utf-8")
    # offline: nothing loaded from elsewhere
    assert not re.search(r"<script[^>]+src=", text)
    assert not re.search(r"<link[^>]+href=[\"']https?:", text)
    assert f"<title>{res.drawing.title}</title>" in text
    assert "side red" in text  # the legend, written into the page
    img = _screenshot(browser, page, tmp_path / "shot.png", tmp_path)
    colours = _chromatic_colours(img)
    assert colours > MIN_COLOURS, colours
    # the scene's colours are there: the table (#EFECE4, lit) covers a good part
    table = (np.abs(img.astype(int) - [0xEF, 0xEC, 0xE4]).max(axis=2) <= 40).mean()
    assert table > 0.02, table


def test_a_blank_page_fails_the_colour_check(tmp_path):
    """The check above can fail: the page without its scene shows only the panel."""
    browser = chromium()
    page = tmp_path / "blank.html"
    d = Drawing(title="blank")
    page.write_text(f"<html><body>{panel_html(d)}</body></html>", encoding="utf-8")
    img = _screenshot(browser, page, tmp_path / "blank.png", tmp_path)
    assert _chromatic_colours(img) <= MIN_COLOURS


def test_html_same_input_same_bytes(scene, tmp_path):
    one = vr.render(scene, tmp_path / "one.html", view="top", size=(400, 300)).path
    two = vr.render(scene, tmp_path / "two.html", view="top", size=(400, 300)).path
    assert one.read_bytes() == two.read_bytes()


def _dom_after_scripts(browser: str, page, tmp_path) -> str:
    """The page's DOM once its scripts ran (vtk.js loaded the scene into its box)."""
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu-sandbox",
        "--enable-unsafe-swiftshader",
        "--use-angle=swiftshader",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1200,800",
        "--virtual-time-budget=15000",
        "--dump-dom",
        page.as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.parametrize("view", ["iso", "side:a:t1", "eye:a:t1"])
def test_html_text_survives_the_viewer_script(scene, tmp_path, view):
    """Issue 34: the loader emptied the body, and the title, legend and notes with it."""
    browser = chromium()
    page = tmp_path / "scene.html"
    res = vr.render(
        scene, page, view=view, attack="shot1", lof="a:t1", size=(800, 600),
        caption="A caption for the article.",
    )  # fmt: skip
    dom = _dom_after_scripts(browser, page, tmp_path)
    assert "<canvas" in dom  # the scripts ran and drew into their box
    panel = html.unescape(dom[dom.index('id="g3-panel"') :])  # serialised as it likes
    assert res.drawing.title in panel
    assert "A caption for the article." in panel
    for lab in res.drawing.labels:  # every trooper label (and the others) is listed
        assert f'<li class="g3-label">{lab.text}</li>' in panel
    troopers = {lab.trooper for lab in res.drawing.labels if lab.trooper}
    assert "t1" in troopers and ("a" in troopers or view.startswith("eye"))
    for e in res.drawing.legend:
        assert e.label in panel
    for n in res.drawing.notes:
        assert n in panel
    # the scene's box sits beside the text column, not under it
    assert 'id="g3-scene" class="content"' in dom


def test_html_scene_frames_the_subject(tmp_path):
    """The scene opens centred on what the diagram is about and large: ``--lof a:t`` on a
    1200 x 800 mm table, a at (900, 600) and t at (1100, 600), far from the table's
    centre. The middle of the two must be the middle of the scene's box (it used to keep
    the picture's title band and legend column, off centre)."""
    from support import make_scene, trooper

    from viewer.html import PANEL_WIDTH_PCT

    browser = chromium()
    sc = make_scene(
        [trooper("a", [900, 600]), trooper("t", [1100, 600], side="red", facing_deg=180)],
        table={"size": [1200, 800]},
    )
    page = tmp_path / "scene.html"
    vr.render(sc, page, view="top", lof="a:t", size=(1000, 600))
    img = _screenshot(browser, page, tmp_path / "shot.png", tmp_path, size=(1000, 600))
    box_w = round(1000 * (100 - PANEL_WIDTH_PCT) / 100)
    px = img[:, : box_w - 2].astype(int)
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    blue = np.argwhere((b > r + 60) & (b > g + 20))  # a (side blue, #0072B2)
    orange = np.argwhere((r > b + 90) & (g > b + 40) & (r > 150))  # t (side red, #E69F00)
    assert len(blue) > 50 and len(orange) > 50
    mid = 0.5 * (blue.mean(axis=0) + orange.mean(axis=0))  # (row, column)
    assert abs(mid[1] - 0.5 * box_w) < 0.08 * box_w, (mid, box_w)
    assert abs(mid[0] - 300) < 0.15 * 600, mid  # the scale bar sits under them
    # 200 mm apart, in bounds with 60 mm margins: they span much of the box
    gap = orange.mean(axis=0)[1] - blue.mean(axis=0)[1]
    assert gap > 0.4 * box_w, (gap, box_w)


def test_the_3d_scene_labels_its_models(scene, tmp_path):
    """Each trooper's label is a text mesh in the scene, next to its model (issue 47)."""
    from viewer.compose import build_drawing
    from viewer.html import _add_model_labels, _perspective_matrix
    from viewer.plotter import make_plotter

    d = build_drawing(scene, view="iso", lof="a:t1")
    pl = make_plotter((400, 300))
    try:
        pl.camera.position, pl.camera.focal_point, pl.camera.up = (
            (0, -400, 400),
            (200, 150, 0),
            (0, 0, 1),
        )
        placed = _add_model_labels(pl, d, (400, 300))
        names = [n for n in pl.actors if str(n).startswith("label3d:")]
        assert len(names) == len([lab for lab in d.labels if lab.text.strip()]) == len(placed)
        m = _perspective_matrix(pl, (400, 300))

        def px(points):
            c = np.column_stack([points, np.ones(len(points))]) @ m.T
            return np.column_stack([(c[:, 0] / c[:, 3] + 1) * 200, (1 - c[:, 1] / c[:, 3]) * 150])

        for i, lab in enumerate(d.labels):
            mesh = pl.actors[f"label3d:{i}"].mapper.dataset
            p = px(np.asarray(mesh.points))
            (ax, ay) = px(np.asarray([lab.point]))[0]
            # drawn in its placed box, as the page opens, and beside its anchor there
            # (touching it, or at most the solver's farthest ring of label heights away)
            x0, y0, x1, y1 = next(b["box"] for b in placed if b["text"] == lab.text)
            assert x0 - 1 <= p[:, 0].min() and p[:, 0].max() <= x1 + 1
            assert y0 - 1 <= p[:, 1].min() and p[:, 1].max() <= y1 + 1
            gap = np.hypot(max(x0 - ax, 0, ax - x1), max(y0 - ay, 0, ay - y1))
            assert gap <= 16.5 * (y1 - y0)
    finally:
        pl.close()
    out = tmp_path / "p.html"
    vr.render(scene, out, view="iso", lof="a:t1", size=(640, 480))
    assert (
        out.read_bytes()
        == vr.render(
            scene, tmp_path / "q.html", view="iso", lof="a:t1", size=(640, 480)
        ).path.read_bytes()
    )
