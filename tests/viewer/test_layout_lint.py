"""The layout lint (SPEC 13.5): each rule caught on a hand-made layout, the renderer's own
records of real figures passing it, and the records agreeing with the written SVG."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyvista")

from PIL import ImageColor
from support import crowded_scene

from viewer import palette as pal
from viewer import render as vr
from viewer.layout_lint import (
    MIN_TEXT_PX,
    Layout,
    TextBox,
    check_svg,
    empty_fraction,
    lint,
    segment_hits_box,
    svg_texts,
)

pytestmark = pytest.mark.viewer
BG = ImageColor.getrgb(pal.BACKGROUND)


def _page(**kw) -> Layout:
    lay = Layout((400, 300), (10.0, 40.0, 300.0, 290.0))
    for k, v in kw.items():
        setattr(lay, k, v)
    return lay


def test_a_clean_layout_passes():
    lay = _page(
        texts=[
            TextBox("title", "T", (5, 5, 100, 20), 15.0),
            TextBox("label-0", "a", (50, 60, 60, 72), 12.0),
        ],
        troopers={"a": (70, 60, 90, 80)},
        about=["a"],
        rays=[((80, 70), (200, 70))],
        patches=[(195, 65, 205, 75)],
    )
    assert lint(lay) == []


@pytest.mark.parametrize(
    "change, words",
    [
        ({"texts": [TextBox("t", "off", (390, 5, 420, 20), 12.0)]}, "runs off the page"),
        ({"texts": [TextBox("t", "tiny", (5, 5, 40, 12), 10.9)]}, "px (< 11)"),
        (
            {
                "texts": [
                    TextBox("a", "x", (5, 5, 50, 20), 12.0),
                    TextBox("b", "y", (40, 10, 90, 25), 12.0),
                ]
            },
            "overlaps text",
        ),
        (
            {
                "texts": [TextBox("l", "on", (75, 65, 95, 78), 12.0)],
                "troopers": {"a": (70, 60, 90, 80)},
            },
            "covers trooper a",
        ),
        (
            {
                "texts": [TextBox("l", "ray", (100, 60, 140, 75), 12.0)],
                "rays": [((80, 70), (200, 70))],
            },
            "deciding ray",
        ),
        (
            {
                "texts": [TextBox("l", "p", (190, 60, 200, 70), 12.0)],
                "patches": [(195, 65, 205, 75)],
            },
            "deciding patch",
        ),
        ({"troopers": {"b": (280, 100, 320, 140)}, "about": ["b"]}, "cut by the frame"),
        ({"about": ["ghost"]}, "is not drawn"),
        ({"leaders": [((0, 0), (10, 10)), ((0, 10), (10, 0))]}, "leader lines cross"),
    ],
)
def test_each_rule_is_caught(change, words):
    problems = lint(_page(**change))
    assert any(words in p for p in problems), problems


def test_touching_boxes_and_a_trooper_outside_the_picture_are_fine():
    lay = _page(
        texts=[TextBox("a", "x", (5, 5, 50, 20), 12.0), TextBox("b", "y", (50, 5, 90, 20), 12.0)],
        troopers={"far": (320, 100, 340, 120)},  # not in the frame, not what it is about
    )
    assert lint(lay) == []


def test_segment_hits_box_against_brute_force_sampling():
    rng = np.random.default_rng(7)
    box = (10.0, 10.0, 30.0, 20.0)
    for _ in range(300):
        p, q = rng.uniform(0, 40, 2), rng.uniform(0, 40, 2)
        t = np.linspace(0, 1, 4001)[:, None]
        pts = p + t * (q - p)
        inside = (pts[:, 0] > 10.6) & (pts[:, 0] < 29.4) & (pts[:, 1] > 10.6) & (pts[:, 1] < 19.4)
        if inside.any():  # clearly inside somewhere: must be a hit
            assert segment_hits_box(p, q, box)
        far = (pts[:, 0] < 10.4) | (pts[:, 0] > 29.6) | (pts[:, 1] < 10.4) | (pts[:, 1] > 19.6)
        if far.all():  # clearly outside everywhere: no hit
            assert not segment_hits_box(p, q, box)


def test_empty_fraction_counts_the_margin_around_what_is_drawn():
    img = np.full((100, 200, 3), 255, np.uint8)
    img[20:60, 50:150] = 0  # drawn: 40 x 100 of the 100 x 200 frame
    assert empty_fraction(img, (0, 0, 200, 100), (255, 255, 255)) == pytest.approx(0.8)
    img[0, 0] = img[99, 199] = 0  # two corners drawn: the box is the whole frame
    assert empty_fraction(img, (0, 0, 200, 100), (255, 255, 255)) == 0.0
    lay = _page()
    assert any("empty" in p for p in lint(lay, np.full((300, 400, 3), 255, np.uint8), (255,) * 3))


def test_svg_texts_reads_positions_sizes_and_anchors():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="300pt" height="150pt" '
        'viewBox="0 0 300 150"><g id="title">'
        '<text style="font-size: 12px; text-anchor: start" x="10" y="20">Ab</text></g>'
        '<g id="x"><text style="font: 9px DejaVu; text-anchor: middle" x="150" y="100">mid'
        "</text></g></svg>"
    )
    (t, m) = svg_texts(svg, (600, 300))  # 2 output px per SVG unit
    assert t.id == "title" and t.px == pytest.approx(24.0)
    assert t.box[0] == pytest.approx(20.0) and t.box[3] == pytest.approx((20 + 0.24 * 12) * 2)
    assert m.text == "mid" and 0.5 * (m.box[0] + m.box[2]) == pytest.approx(300.0)


@pytest.mark.parametrize("view", ["top", "side:a:t-main", "eye:a:t-main"])
def test_rendered_figures_pass_the_lint_and_match_their_svg(view, tmp_path):
    scene = crowded_scene()
    out = tmp_path / "f.svg"
    res = vr.render(scene, out, view=view, lof="a:t-main", size=(800, 500))
    lay = res.layout
    assert lay is not None and lay.texts and lay.troopers
    assert {"a", "t-main"} & set(lay.about)
    assert all(t.px >= MIN_TEXT_PX for t in lay.texts)
    assert lint(lay, res.image, BG) == []
    assert check_svg(lay, out.read_bytes()) == []
    if view != "eye:a:t-main":  # the eye view looks along the ray: it is a point there
        assert lay.rays


def test_check_svg_notices_a_moved_or_missing_text(tmp_path):
    scene = crowded_scene()
    out = tmp_path / "f.svg"
    res = vr.render(scene, out, lof="a:t-main", size=(800, 500))
    lay = res.layout
    t = lay.texts[0]
    moved = TextBox(
        t.id, t.text, (t.box[0] + 60, t.box[1] + 40, t.box[2] + 60, t.box[3] + 40), t.px
    )
    lay.texts[0] = moved
    assert any("from its record" in p for p in check_svg(lay, out.read_bytes()))
    lay.texts.pop(0)
    assert any("no layout record" in p for p in check_svg(lay, out.read_bytes()))
