"""Layout of the published figures (issue 34), read back from the SVG files.

Every ``<text>`` element's box is estimated from its font size, anchor and string, the
string's width measured with PIL's own TrueType reader on the same DejaVu Sans font (not
with matplotlib, which laid the page out). The boxes must lie inside the page, must not
overlap each other, and labels must not cover any trooper's drawn shape (the union box of
the paths of its ``trooper-<id>`` groups) nor the deciding patch.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib
import numpy as np
import pytest

pytest.importorskip("pyvista")

from PIL import ImageFont
from support import crowded_scene

from geom3d import load_scene
from viewer import render as vr

pytestmark = pytest.mark.viewer

REPO = Path(__file__).resolve().parents[2]
FONT = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
SVG = "{http://www.w3.org/2000/svg}"
#: Boxes may touch within this many SVG units (anti-aliasing, rounding).
TOUCH = 0.5


def _num(style: str, key: str) -> float:
    m = re.search(rf"{key}:\s*([0-9.]+)px", style)
    assert m, style
    return float(m.group(1))


def text_boxes(svg: Path):
    """[(group id, text, (x0, y0, x1, y1))] of every ``<text>``; and the page size."""
    root = ET.parse(svg).getroot()
    page = (float(root.get("width").rstrip("pt")), float(root.get("height").rstrip("pt")))
    out = []

    def walk(node, gid):
        gid = node.get("id") or gid
        for child in node:
            if child.tag == f"{SVG}text":
                style = child.get("style", "")
                fs = _num(style, "font-size")
                text = "".join(child.itertext())
                width = ImageFont.truetype(str(FONT), 100).getlength(text) * fs / 100
                x, y = float(child.get("x", 0)), float(child.get("y", 0))
                m = re.match(r"translate\(([-0-9.e]+) ([-0-9.e]+)\)", child.get("transform", ""))
                if m:  # a line of a multi-line text: placed by its transform
                    x, y = x + float(m.group(1)), y + float(m.group(2))
                anchor = re.search(r"text-anchor:\s*(\w+)", style)
                a = anchor.group(1) if anchor else "start"
                x0 = x - (width if a == "end" else 0.5 * width if a == "middle" else 0.0)
                # DejaVu Sans: ascent 0.76 em over the baseline, descent 0.24 em
                out.append((gid, text, (x0, y - 0.76 * fs, x0 + width, y + 0.24 * fs)))
            else:
                walk(child, gid)

    walk(root, None)
    return out, page


def shape_boxes(svg: Path, names) -> dict[str, tuple]:
    """Union box of the path coordinates of every group ``<name>`` or ``<name>-<n>``."""
    root = ET.parse(svg).getroot()
    boxes: dict[str, list] = {}
    pats = {n: re.compile(rf"^{re.escape(n)}(-\d+)?$") for n in names}
    for g in root.iter(f"{SVG}g"):
        gid = g.get("id") or ""
        name = next((n for n, p in pats.items() if p.match(gid)), None)
        if name is None:
            continue
        for p in g.iter(f"{SVG}path"):
            nums = [float(v) for v in re.findall(r"-?[0-9.]+(?:e-?\d+)?", p.get("d", ""))]
            if len(nums) >= 2:
                xy = np.array(nums[: len(nums) // 2 * 2]).reshape(-1, 2)
                boxes.setdefault(name, []).append(xy)
    out = {}
    for name, parts in boxes.items():
        xy = np.vstack(parts)
        out[name] = (*xy.min(axis=0), *xy.max(axis=0))
    return out


def _overlap(a, b, tol=TOUCH) -> bool:
    return a[0] < b[2] - tol and b[0] < a[2] - tol and a[1] < b[3] - tol and b[1] < a[3] - tol


def check_layout(svg: Path, troopers, labels_expected=()):
    texts, (w, h) = text_boxes(svg)
    assert texts
    for _gid, text, b in texts:  # inside the page
        assert b[0] >= -TOUCH and b[1] >= -TOUCH, (text, b)
        assert b[2] <= w + TOUCH and b[3] <= h + TOUCH, (text, b, (w, h))
    for i, (_, t1, b1) in enumerate(texts):  # no two overlap
        for _, t2, b2 in texts[i + 1 :]:
            assert not _overlap(b1, b2), (t1, b1, t2, b2)
    ids = [f"trooper-{t}" for t in troopers]
    patch = [g.get("id") for g in ET.parse(svg).getroot().iter(f"{SVG}g")]
    patch = sorted({p for p in patch if p and p.startswith("eye-patch-")})
    shapes = shape_boxes(svg, ids + patch)
    assert shapes, "no trooper drawn"
    for gid, text, b in texts:  # labels stay off every trooper and the patch
        if not (gid or "").startswith("label-"):
            continue
        for name, s in shapes.items():
            assert not _overlap(b, s), (text, b, name, s)
    shown = {t for g, t, _ in texts if (g or "").startswith("label-")}
    for lab in labels_expected:
        assert any(t.startswith(lab) for t in shown), (lab, shown)
    return texts


@pytest.mark.parametrize("size", [(800, 500), (1600, 1200), (3200, 2400)])
@pytest.mark.parametrize("view", ["side:a:t-main", "eye:a:t-main"])
def test_side_and_eye_svg_text_inside_and_apart(view, size, tmp_path):
    scene = crowded_scene()
    out = tmp_path / "f.svg"
    res = vr.render(scene, out, view=view, lof="a:t-main", size=size)
    texts = check_layout(out, scene.troopers)
    title = " ".join(t for g, t, _ in texts if (g or "").startswith("title"))
    assert title.replace("  ", " ").strip().endswith(res.drawing.title.split()[-1])
    # vector: no raster inside, and the page is the output size (96 px per inch)
    body = out.read_text()
    assert "<image" not in body
    assert f'width="{size[0] * 0.75:g}pt"' in body or f'width="{size[0] * 0.75}pt"' in body


def test_plan_svg_long_title_wraps_and_labels_apart(tmp_path):
    scene = crowded_scene()
    out = tmp_path / "p.svg"
    long = "A title long enough to run off the right edge of the page at this size: " * 2
    vr.render(scene, out, lof="a:t-main", size=(800, 500), title=long + "the answer")
    texts = check_layout(out, scene.troopers, ["a", "t-main", "t-near", "t-prone"])
    assert any(t.endswith("the answer") for g, t, _ in texts if (g or "").startswith("title"))


def test_no_subtitle(tmp_path):
    scene = crowded_scene()
    out = tmp_path / "s.svg"
    vr.render(scene, out, view="side:a:t-main", size=(800, 500), subtitle=False)
    assert "file units" not in out.read_text()
    vr.render(scene, out, view="side:a:t-main", size=(800, 500))
    assert "file units mm" in out.read_text()


def test_font_sizes_follow_the_output_size(tmp_path):
    scene = crowded_scene()
    sizes = {}
    for w, h in ((800, 500), (3200, 2400)):
        out = tmp_path / f"{w}.svg"
        vr.render(scene, out, view="side:a:t-main", size=(w, h))
        texts, page = text_boxes(out)
        label = next(b for g, _, b in texts if (g or "").startswith("label-"))
        sizes[w] = (label[3] - label[1]) / page[1] * h  # label height in output pixels
    assert sizes[800] >= 11  # readable at the smallest size
    assert sizes[3200] > 3 * sizes[800]


def test_wall_of_death_svg_says_d3_and_labels_the_unit(tmp_path):
    scene = load_scene(REPO / "docs/images/wall-of-death.yaml")
    out = tmp_path / "w.svg"
    vr.render(scene, out, attack="wall-of-death", size=(1200, 900))
    texts = check_layout(out, scene.troopers)
    words = " ".join(t for _, t, _ in texts)
    assert "D3 hits" in words
    unit = [t.id for t in scene.troopers.values() if t.unit == "boyz"]
    labels = {t for g, t, _ in texts if (g or "").startswith("label-")}
    for tid in unit:  # the whole target unit is in the frame, labelled
        assert f"{tid} (target unit)" in labels
    assert 'id="wod-ring' in out.read_text()


def test_40k_in_inches_says_no_mm_and_no_infinity_words(tmp_path):
    scene = load_scene(REPO / "docs/images/flamer40k.yaml")
    for ext in ("svg",):
        out = tmp_path / f"f.{ext}"
        vr.render(scene, out, attack="flamer", annotate="templates,distances", size=(1200, 900))
        words = " ".join(t for _, t, _ in text_boxes(out)[0])
        assert " mm" not in words and "mm²" not in words, words
        for infinity_only in ("Blast Focus", "direct", "secondary", "dodge"):
            assert infinity_only not in words
        assert "hits: 3" in words
        assert " in " in words  # lengths in the file's unit


def test_one_page_size_per_output_size_for_every_view(tmp_path):
    """800 x 600 px is 600 x 450 pt (96 px per inch) whatever the view, SVG and PDF."""
    scene = crowded_scene()
    for view in ("top", "iso", "from:a", "side:a:t-main", "eye:a:t-main"):
        svg, pdf = tmp_path / "v.svg", tmp_path / "v.pdf"
        vr.render(scene, svg, view=view, lof="a:t-main", size=(800, 600))
        vr.render(scene, pdf, view=view, lof="a:t-main", size=(800, 600))
        root = ET.parse(svg).getroot()
        assert (root.get("width"), root.get("height")) == ("600pt", "450pt"), view
        data = pdf.read_bytes()
        box = re.search(rb"/MediaBox\s*\[\s*([0-9. ]+)\]", data)
        assert [float(v) for v in box.group(1).split()] == [0, 0, 600, 450], view
        if view.startswith(("top", "side", "eye")):  # 2D drawings: vector, no raster
            assert b"/Subtype /Image" not in data and b"<image" not in svg.read_bytes(), view
