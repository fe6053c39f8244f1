"""The HTML page in headless Chromium after its scripts ran, read through the DevTools
protocol (issue 47, SPEC 13.5): its DOM holds the title and every trooper label, and the
boxes of its texts as laid out (``Range.getClientRects``: one box per line of text) do not
overlap one another and lie inside the viewport and inside the text column, not under the
3D scene. The scene's own model labels (3D text) are placed apart by the page's writer,
which records their boxes in the page (``#g3-label-boxes``); the screenshot taken from the
same session (kept under pytest's ``tmp_path`` to look at) shows each label's ink inside
its box, so the boxes are where the labels are drawn.

Chromium is the Debian package ``chromium`` (``.ci/run`` installs it). Without it the
test skips, except in CI (``$CI`` set), where it must run.
"""

from __future__ import annotations

import asyncio
import base64

import numpy as np
import pytest

pytest.importorskip("pyvista")
pytest.importorskip("trame_vtk")
aiohttp = pytest.importorskip("aiohttp")

from devtools import DevToolsPage, chromium, devtools_browser, page_socket_url  # noqa: E402
from PIL import Image, ImageColor  # noqa: E402

from geom3d import load_scene  # noqa: E402
from viewer import render as vr  # noqa: E402
from viewer.gallery import load_cases  # noqa: E402

pytestmark = pytest.mark.viewer

#: The browser window, CSS pixels.
WINDOW = (1200, 800)
#: Boxes closer than this (CSS px) do not count as overlapping (sub-pixel line boxes).
TOUCH_PX = 0.5
#: A 3D label's box in the screenshot holds at least this share of pixels of its colour
#: (thin vector-font strokes; an empty box of table or sky has none).
MIN_INK = 0.05
#: A pixel is a label's ink when each channel is within this of the label's colour (thin
#: anti-aliased strokes come out grey: 4-5 % of a box within 60, 8-34 % within 100).
INK_TOLERANCE = 100

#: Every text of the page's column, one entry per element: its kind and its line boxes.
BOXES_JS = """(() => {
  const panel = document.getElementById('g3-panel');
  const out = [];
  const sel = '.g3-title, .g3-sub, .g3-row, li.g3-label, .g3-notes > div, .g3-caption, h2';
  for (const el of panel.querySelectorAll(sel)) {
    const r = document.createRange();
    r.selectNodeContents(el);
    const rects = [...r.getClientRects()].filter(b => b.width > 0 && b.height > 0)
      .map(b => [b.left, b.top, b.right, b.bottom]);
    out.push({kind: el.className || el.tagName, text: el.textContent, rects});
  }
  const p = panel.getBoundingClientRect();
  const s = document.getElementById('g3-scene').getBoundingClientRect();
  const rec = document.getElementById('g3-label-boxes');
  return {items: out, panel: [p.left, p.top, p.right, p.bottom],
          scene: [s.left, s.top, s.right, s.bottom],
          models: rec ? JSON.parse(rec.textContent) : null,
          view: [window.innerWidth, window.innerHeight],
          canvas: !!document.querySelector('#g3-scene canvas')};
})()"""


async def _boxes_and_shot(ws_url: str, url: str) -> tuple[dict, bytes]:
    async with aiohttp.ClientSession() as http:
        page_ws = await page_socket_url(http, ws_url)
        async with http.ws_connect(page_ws, max_msg_size=0) as ws:
            page = DevToolsPage(ws)
            await page.call("Page.enable")
            await page.call(
                "Emulation.setDeviceMetricsOverride",
                width=WINDOW[0], height=WINDOW[1], deviceScaleFactor=1, mobile=False,
            )  # fmt: skip
            await page.call("Page.navigate", url=url)
            # the scripts ran: vtk.js put its canvas into the scene's box
            await page.until("document.readyState === 'complete' && "
                             "!!document.querySelector('#g3-scene canvas')")  # fmt: skip
            await page.js("new Promise(r => requestAnimationFrame(() => r(1)))")
            boxes = await page.js(BOXES_JS)
            shot = await page.call("Page.captureScreenshot", format="png")
            return boxes, base64.b64decode(shot["data"])


def _in_chromium(page, tmp_path) -> tuple[dict, np.ndarray]:
    args = [
        "--disable-gpu-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
        "--hide-scrollbars", "--allow-file-access-from-files",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
    ]  # fmt: skip
    with devtools_browser(chromium(), tmp_path / "profile", args) as ws_url:
        boxes, png = asyncio.run(_boxes_and_shot(ws_url, page.as_uri()))
    shot = tmp_path / f"{page.stem}-shot.png"
    shot.write_bytes(png)
    with Image.open(shot) as im:
        return boxes, np.asarray(im.convert("RGB"))


def _overlap(a, b) -> bool:
    return (
        a[0] < b[2] - TOUCH_PX
        and b[0] < a[2] - TOUCH_PX
        and a[1] < b[3] - TOUCH_PX
        and b[1] < a[3] - TOUCH_PX
    )


def _figure(name: str, kind: str):
    case = next(c for c in load_cases() if c.name == name)
    return case, next(f for f in case.figures if f.kind == kind)


@pytest.mark.parametrize(
    "name, kind", [("impact", "attack-iso"), ("flamer40k", "side"), ("table-16", "plan")]
)
def test_html_texts_after_the_scripts_ran_do_not_overlap(name, kind, tmp_path):
    case, fig = _figure(name, kind)
    page = tmp_path / f"{name}-{kind}.html"
    res = vr.render(load_scene(case.scenario), page, size=WINDOW, **fig.options)
    boxes, img = _in_chromium(page, tmp_path)
    assert boxes["canvas"]  # the scene's script drew into its box
    items = boxes["items"]
    texts = [it["text"] for it in items]
    # the DOM after the scripts ran holds the title and every trooper label
    assert res.drawing.title in texts
    troopers = [lab for lab in res.drawing.labels if lab.trooper]
    assert troopers
    for lab in troopers:
        assert lab.text in [it["text"] for it in items if it["kind"] == "g3-label"], lab.text
    # every text laid out, inside the viewport and the text column
    vw, vh = boxes["view"]
    px0, _py0, px1, _py1 = boxes["panel"]
    flat = [(i, r) for i, it in enumerate(items) for r in it["rects"]]
    assert len(flat) >= len(items)
    for i, (x0, y0, x1, y1) in flat:
        assert -TOUCH_PX <= x0 and x1 <= vw + TOUCH_PX, (texts[i], x0, x1, vw)
        assert -TOUCH_PX <= y0 and y1 <= vh + TOUCH_PX, (texts[i], y0, y1, vh)
        assert px0 - TOUCH_PX <= x0 and x1 <= px1 + TOUCH_PX, (texts[i], x0, x1, px0, px1)
    # no two line boxes overlap (different texts, or two lines of one text)
    for k, (i, a) in enumerate(flat):
        for j, b in flat[k + 1 :]:
            assert not _overlap(a, b), (texts[i], a, texts[j], b)
    # the screenshot is the page at the window's size, the scene drawn beside the column
    assert (vw, vh) == WINDOW and img.shape[:2] == (WINDOW[1], WINDOW[0])
    scene_px = img[:, : int(px0) - 2].reshape(-1, 3).astype(int)
    drawn = np.abs(scene_px - 255).max(axis=1) > 24
    assert drawn.mean() > 0.05  # table, models and scenery, not a blank box

    # the scene's own labels (3D text beside the models): placed apart, inside the
    # scene's box, and drawn where the page's record says (the label's ink is there)
    models = boxes["models"]
    assert models is not None
    sx0, sy0, sx1, sy1 = boxes["scene"]
    assert models["box"] == [round(sx1 - sx0), round(sy1 - sy0)]
    placed = models["labels"]
    names = {lab.text for lab in troopers}
    assert names & {m["text"] for m in placed}  # trooper labels in the scene
    colour = {lab.text: lab.color for lab in res.drawing.labels}
    for k, m in enumerate(placed):
        x0, y0, x1, y1 = m["box"]
        assert 0 <= x0 and x1 <= sx1 - sx0 and 0 <= y0 and y1 <= sy1 - sy0, m
        for other in placed[k + 1 :]:
            assert not _overlap(m["box"], other["box"]), (m, other)
        patch = img[int(sy0 + y0) : int(sy0 + y1) + 1, int(sx0 + x0) : int(sx0 + x1) + 1]
        want = np.array(ImageColor.getrgb(colour[m["text"]]))
        ink = (np.abs(patch.astype(int) - want).max(axis=2) <= INK_TOLERANCE).mean()
        assert ink > MIN_INK, (m, ink)
