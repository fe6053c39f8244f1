"""The gallery (docs/gallery/cases.yaml) passes the layout lint, and each defect of issue 47
is a gallery case with its own assertion.

The quick run draws each case's first figure at 800 x 500 (SVG: the records also agree
with the written file) and at 1600 x 1200; the full sweep (``slow``) draws every figure at
the three gallery sizes.
"""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

pytest.importorskip("pyvista")

from geom3d import load_scene
from geom3d.core.errors import UnknownIdError
from viewer import render as vr
from viewer.compose import LOF_MATRIX_MAX_TROOPERS, build_drawing
from viewer.gallery import SIZES, load_cases, render_figure
from viewer.layout_lint import MIN_TEXT_PX, lint

pytestmark = pytest.mark.viewer

CASES = load_cases()
#: pypdf (a development dependency) reads the PDFs back; without it they are not drawn.
_PYPDF = importlib.util.find_spec("pypdf") is not None
_SCENES: dict = {}


def _scene(case):
    if case.name not in _SCENES:
        _SCENES[case.name] = load_scene(case.scenario)
    return _SCENES[case.name]


def _fig(name, kind):
    case = next(c for c in CASES if c.name == name)
    return case, next(f for f in case.figures if f.kind == kind)


def test_the_gallery_has_twenty_scenarios_that_all_load():
    assert len(CASES) >= 20
    assert len({c.name for c in CASES}) == len(CASES)
    for case in CASES:
        assert case.figures, case.name
        assert case.scenario.exists(), case.scenario


@pytest.mark.parametrize(
    "size, ext", [((800, 500), "svg"), ((1600, 1200), "png")], ids=["800x500-svg", "1600x1200"]
)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_first_figure_of_each_case_passes_the_lint(case, size, ext, tmp_path):
    fig = case.figures[0]
    _res, problems, _ = render_figure(_scene(case), fig, tmp_path / f"f.{ext}", size)
    assert problems == [], (case.name, fig.kind, problems)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_figure_passes_the_lint(case, size, tmp_path):
    for fig in case.figures:
        ext = "svg" if fig.options.get("view", "top") != "iso" else "png"
        if size == (1600, 1200) and _PYPDF:  # the PDF's text agrees with the records too
            ext = "pdf"
        _res, problems, _ = render_figure(_scene(case), fig, tmp_path / f"f.{ext}", size)
        assert problems == [], (case.name, fig.kind, size, problems)


@pytest.mark.parametrize(
    "name, kind", [("duel", "plan-lof"), ("peek-hidden", "eye"), ("flamer40k", "attack"),
                   ("flamer40k", "side"), ("impact", "attack-iso")],
)  # fmt: skip
def test_pdf_text_agrees_with_the_layout_records(name, kind, tmp_path):
    pytest.importorskip("pypdf")
    case, fig = _fig(name, kind)
    _res, problems, _ = render_figure(_scene(case), fig, tmp_path / "f.pdf", (800, 500))
    assert problems == [], (name, kind, problems)


# --- the defects of issue 47, each a gallery case -------------------------------------


def test_plans_above_8_troopers_draw_no_lof_by_default():
    case, _ = _fig("table-16", "plan")
    scene = _scene(case)
    assert len(scene.troopers) > LOF_MATRIX_MAX_TROOPERS
    d = build_drawing(scene)
    assert not [a for a in d.actors if a.name.startswith("lof:")]
    assert "not drawn" in d.subtitle
    small = _scene(_fig("duel", "plan-lof")[0])
    assert any(a.name.startswith("lof:") for a in build_drawing(small).actors)


def test_lof_from_id_draws_only_that_troopers_lines():
    case, _ = _fig("buildings", "plan")
    scene = _scene(case)
    full = build_drawing(scene, lof="all")
    mine = build_drawing(scene, lof="from:b1")
    none = build_drawing(scene, lof="none")
    assert "Line of Fire from b1" in mine.title
    assert not [a for a in none.actors if a.name.startswith("lof:")]
    seen = [n for n in mine.notes if n.startswith("  ")]
    assert seen and all(n.startswith("  b1: ") for n in seen)
    assert len([n for n in full.notes if n.startswith("  ")]) == len(scene.troopers)
    with pytest.raises(UnknownIdError):
        build_drawing(scene, lof="from:nobody")


@pytest.mark.parametrize("name", ["table-16", "table-40"])
def test_800x500_plans_have_text_of_11px_or_more(name, tmp_path):
    case, fig = _fig(name, "plan")
    res, problems, _ = render_figure(_scene(case), fig, tmp_path / "p.svg", (800, 500))
    assert problems == []
    assert min(t.px for t in res.layout.texts) >= MIN_TEXT_PX
    # the SVG's own font sizes, in output pixels (the page is 600 pt for 800 px)
    sizes = [
        float(v) for v in re.findall(r"font-size: ([0-9.]+)px", (tmp_path / "p.svg").read_text())
    ]
    assert sizes and min(sizes) * 800 / 600 >= MIN_TEXT_PX - 0.01


@pytest.mark.parametrize(
    "name, kind", [("impact", "attack"), ("long-lof", "plan-lof"), ("edge-of-table", "plan"),
                   ("table-16", "plan-lof")],
)  # fmt: skip
def test_framing_never_cuts_a_trooper_the_figure_is_about(name, kind):
    case, fig = _fig(name, kind)
    scene = _scene(case)
    res = vr.render(scene, None, size=(800, 500), **fig.options)
    lay = res.layout
    assert lay.about
    fx0, fy0, fx1, fy1 = lay.frame
    for tid in lay.about:
        x0, y0, x1, y1 = lay.troopers[tid]
        assert fx0 - 0.5 <= x0 and x1 <= fx1 + 0.5 and fy0 - 0.5 <= y0 and y1 <= fy1 + 0.5, tid


def test_zoom_on_a_long_line_keeps_both_ends():
    case, _ = _fig("long-lof", "plan-lof")
    scene = _scene(case)
    plain = vr.render(scene, None, size=(800, 500), lof="sniper:mark")
    zoomed = vr.render(scene, None, size=(800, 500), lof="sniper:mark", zoom=4)
    # both ends stay in the frame: zoom 4 cannot magnify a line that spans the picture
    for res in (plain, zoomed):
        for tid in ("sniper", "mark"):
            x0, _, x1, _ = res.layout.troopers[tid]
            assert res.layout.frame[0] - 0.5 <= x0 and x1 <= res.layout.frame[2] + 0.5


def test_hidden_target_eye_view_is_level_with_marks_and_a_ghost(tmp_path):
    case, fig = _fig("peek-hidden", "eye")
    scene = _scene(case)
    res, problems, _ = render_figure(scene, fig, tmp_path / "e.svg", (800, 500))
    assert problems == []
    d = res.drawing
    names = [a.name for a in d.actors]
    assert "eye-ghost:a:t" in names  # the ghost outline
    assert not any(n.endswith(":rest") for n in names)  # no stray faint rays
    marks = next(a for a in d.actors if a.name == "blocked:a:t")
    # a few clean marks (crosses: two segments each), not balls
    assert marks.mesh.n_cells == 2 * len(marks.meta["marks"]) and marks.mesh.faces.size == 0
    assert 1 <= len(marks.meta["marks"]) <= 9
    # level camera: a vertical edge in the world stays vertical in the picture
    p = res.world_to_pixel(np.array([[225.0, 150.0, 0.0], [225.0, 150.0, 30.0]]))
    assert abs(p[0, 0] - p[1, 0]) < 0.5
    # framed on the target: its ghost is inside the picture
    t = res.layout.troopers.get("t")
    fx0, fy0, fx1, fy1 = res.layout.frame
    assert t is not None and fx0 <= t[0] and t[2] <= fx1 and fy0 <= t[1] and t[3] <= fy1
    # the legend lists only what is drawn
    labels = [e.label for e in d.legend]
    assert not any(lab.startswith("deciding ray") for lab in labels)


def test_hidden_target_side_view_draws_clean_stopped_rays(tmp_path):
    case, fig = _fig("peek-hidden", "side")
    res, problems, _ = render_figure(_scene(case), fig, tmp_path / "s.svg", (800, 500))
    assert problems == []
    names = [a.name for a in res.drawing.actors]
    assert not any(n.endswith(":rest") for n in names)
    rays = next(a for a in res.drawing.actors if a.name == "blocked:a:t")
    assert rays.mesh.faces.size == 0  # lines only: no balls at the stops
    # each line ends where its ray stops
    hits = np.asarray(rays.meta["hits"])
    assert np.allclose(np.asarray(rays.mesh.points)[1::2], hits)


@pytest.mark.parametrize(
    "name, kind", [("flamer40k", "attack"), ("wall-of-death", "attack"),
                   ("lof-40k-inches", "plan-lof"), ("lof-40k-inches", "side")],
)  # fmt: skip
def test_40k_in_inches_speaks_inches_in_every_text(name, kind):
    case, fig = _fig(name, kind)
    res = vr.render(_scene(case), None, size=(1600, 1200), **fig.options)
    words = " ".join(t.text for t in res.layout.texts)
    assert not re.search(r"\d mm\b|mm²", words), words
    assert " in" in words


def test_iso_zoom_magnifies_about_the_subject_and_keeps_its_troopers():
    case, fig = _fig("impact", "attack-iso")
    scene = _scene(case)
    opts = {k: v for k, v in fig.options.items() if k != "zoom"}
    plain = vr.render(scene, None, size=(800, 500), **opts)
    zoomed = vr.render(scene, None, size=(800, 500), zoom=2, **opts)

    def width(res):
        t = next(a for a in res.drawing.actors if a.name == "template:0")
        p = res.world_to_pixel(np.asarray(t.mesh.points))
        return float(np.ptp(p[:, 0]))

    assert width(zoomed) > 1.2 * width(plain)  # the template is drawn larger
    for res in (plain, zoomed):
        lay = res.layout
        fx0, fy0, fx1, fy1 = lay.frame
        sx, sy = res.world_to_pixel(res.drawing.camera["subject"])[0]
        assert fx0 <= sx <= fx1 and fy0 <= sy <= fy1  # the subject is in the picture
        for tid in lay.about:
            x0, y0, x1, y1 = lay.troopers[tid]
            assert fx0 - 0.5 <= x0 and x1 <= fx1 + 0.5 and fy0 - 0.5 <= y0 and y1 <= fy1 + 0.5


def test_cli_lof_modes(tmp_path, capsys):
    from geom3d.cli import main

    yaml_path = str(next(c for c in CASES if c.name == "buildings").scenario)
    out = tmp_path / "p.svg"
    assert main(["render", yaml_path, "--out", str(out), "--lof", "from:b1", "--quiet"]) == 0
    assert "Line of Fire from b1" in out.read_text()
    assert main(["render", yaml_path, "--out", str(out), "--lof", "none", "--quiet"]) == 0
    assert 'id="lof-' not in out.read_text()
    bad = tmp_path / "bad.svg"
    rc = main(["render", yaml_path, "--out", str(bad), "--lof", "from:nobody"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "nobody" in err
    assert not bad.exists()


# --- the survey and exposure maps (SPEC 13.5; viewer/map_page.py) ---------------------


def test_a_map_with_a_long_title_wraps_it_inside_the_page(tmp_path):
    case, fig = _fig("exposure-map", "long-title")
    for size in SIZES[:2]:
        res, problems, _ = render_figure(_scene(case), fig, tmp_path / "m.svg", size)
        assert problems == []
        lines = [t for t in res.layout.texts if t.id == "title" or t.id.startswith("title-")]
        assert " ".join(" ".join(t.text for t in lines).split()) == fig.options["title"]
        if size == (800, 500):
            assert len(lines) >= 2  # wrapped, not clipped
        for t in lines:
            assert 0 <= t.box[0] and t.box[2] <= size[0] and 0 <= t.box[1]


def test_a_map_of_both_sides_colours_each_observer_by_its_side(tmp_path):
    from matplotlib.colors import to_hex

    from viewer.exposure import exposure_figure
    from viewer.map_render import map_document
    from viewer.palette import side_colors

    case, fig = _fig("exposure-map", "exposure-both-sides")
    scene = _scene(case)
    res, problems, _ = render_figure(scene, fig, tmp_path / "m.svg", (800, 500))
    assert problems == []
    assert sorted(res.layout.about) == sorted(fig.options["observers"].split(","))
    # the other troopers block Line of Fire: drawn (faded, no label), kept clear of text
    assert set(res.layout.troopers) == set(scene.troopers)
    assert not {t.text for t in res.layout.texts} & (set(scene.troopers) - set(res.layout.about))
    figure, _ = exposure_figure(scene, map_document(scene, fig.options), size=(800, 500))
    colour = side_colors(t.side for t in scene.troopers.values())
    for p in figure.axes[0].patches:
        gid = p.get_gid() or ""
        if gid.startswith("observer-"):
            side = scene.troopers[gid.removeprefix("observer-")].side
            assert to_hex(p.get_facecolor()) == colour[side].lower()
    names = [t.get_text() for t in figure.legends[0].get_texts()]
    assert "observer, side red" in names and "observer, side blue" in names


@pytest.mark.parametrize(
    "name, view", [("flamer40k", "side:sarge:boy-1"), ("wall-of-death", "side:sarge:boy-1"),
                   ("hull", "side:flamer:rhino")],
)  # fmt: skip
@pytest.mark.parametrize("size", [(800, 500), (1600, 1200)], ids=["800x500", "1600x1200"])
def test_40k_side_view_labels_point_at_their_models(name, view, size):
    """Issue 47: in the 40k side views the labels sat half a model off (their plan anchor
    lies up and to the right of the base). Each trooper label now points at the middle of
    its model, and sits over it (or has a leader line to that point)."""
    case = next(c for c in CASES if c.name == name)
    res = vr.render(_scene(case), None, size=size, view=view)
    lay = res.layout
    assert lint(lay) == []
    checked = 0
    for tid, (ax, ay) in lay.anchors.items():
        lab = res.drawing.labels[int(tid.split("-")[1])]
        if lab.trooper is None or lab.trooper not in lay.troopers:
            continue
        x0, y0, x1, _y1 = lay.troopers[lab.trooper]
        centre, half = 0.5 * (x0 + x1), 0.5 * (x1 - x0)
        assert abs(ax - centre) < 0.1 * half + 1.0, (lab.text, ax, (x0, x1))
        assert ay <= y0 + 1.0, (lab.text, ay, y0)  # over the model's top
        box = next(t.box for t in lay.texts if t.id == tid)
        over = box[0] < x1 and x0 < box[2]
        led = any(np.hypot(q[0] - ax, q[1] - ay) < 1.0 for _p, q in lay.leaders)
        assert over or led, (lab.text, box, (x0, x1))
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("size", [(800, 500), (1600, 1200)], ids=["800x500", "1600x1200"])
def test_iso_legend_text_is_11px_or_more_and_recorded(size):
    """Issue 47: VTK's legend box scaled its text to the box (5-7 px at 800 x 500). The
    rows are now drawn at a pixel size of their own and recorded, so the lint sees them."""
    case, fig = _fig("impact", "attack-iso")
    res = vr.render(_scene(case), None, size=size, **fig.options)
    lay = res.layout
    assert lint(lay, res.image) == []
    rows = [t for t in lay.texts if t.id.startswith("legend-")]
    # every legend entry is recorded, whole (its wrapped lines joined)
    joined = " ".join(t.text.strip() for t in rows)
    for e in res.drawing.legend:
        assert " ".join(e.label.split()) in " ".join(joined.split()), e.label
    assert min(t.px for t in rows) >= MIN_TEXT_PX
    # and drawn that large: the ink of "side blue" (ascenders, no descenders) is at least
    # the cap height of an 11 px font
    first = next(t for t in rows if t.text == "side blue")
    x0, y0, x1, y1 = (round(v) for v in first.box)
    ink = res.image[max(0, y0 - 2) : y1 + 2, x0 : x1 + 1].astype(int).sum(axis=2) < 3 * 128
    rows_inked = np.flatnonzero(ink.any(axis=1))
    assert rows_inked.size and rows_inked[-1] - rows_inked[0] + 1 >= 0.7 * MIN_TEXT_PX


def test_iso_note_names_troopers_by_id_and_quotes_other_labels():
    """Issue 47: a 3D view's note on labels behind scenery listed a label ("not affected:
    total cover") as if it were one more trooper, in a second note of the same words, and
    named troopers by their whole label ("target (main target): hit")."""
    from viewer.views import BEHIND_SCENERY, behind_scenery_note

    case, fig = _fig("impact", "attack-iso")
    scene = _scene(case)
    opts = {k: v for k, v in fig.options.items() if k != "zoom"}
    seen = {}
    for az in (0.0, 180.0):
        res = vr.render(scene, None, size=(800, 500), azimuth=az, **opts)
        notes = [n for n in res.drawing.notes if n.startswith(BEHIND_SCENERY)]
        assert len(notes) <= 1, notes  # one note, whatever it hides
        if notes:
            seen[az] = notes[0]
            ids, _, others = notes[0][len(BEHIND_SCENERY) :].partition("; ")
            assert set(ids.split(", ")) <= set(scene.troopers), notes[0]
            assert not others or others.startswith("the label"), notes[0]
            # what the note names is not drawn; what is drawn is not named
            drawn = {lab.trooper for lab in res.drawing.labels}
            assert not set(ids.split(", ")) & drawn
    # from behind the wall (180): trooper `behind` and its reason label are hidden
    assert seen[180.0] == BEHIND_SCENERY + 'behind; the label "not affected: total cover"'
    assert seen[0.0] == BEHIND_SCENERY + "target, beside"
    assert behind_scenery_note([], ["50 mm", "a"]) == BEHIND_SCENERY + 'the labels "50 mm", "a"'


def test_3d_view_records_every_text_and_cuts_long_notes():
    """A 3D view records its title, subtitle, legend, notes and caption too, so the lint
    sees them all; the squad's 3D view had 45 lines of notes that ran 400 px past the
    bottom of an 800 x 500 page: now they stop above the caption, the last line counting
    what was left out."""
    case, fig = _fig("squad-template", "attack")
    res = vr.render(_scene(case), None, size=(800, 500), view="iso", **fig.options)
    lay = res.layout
    assert lint(lay, res.image) == []
    ids = {t.id for t in lay.texts}
    assert {"title", "subtitle", "legend-0", "notes-0", "caption-0"} <= ids
    notes = [t for t in lay.texts if t.id.startswith("notes-")]
    last = max(notes, key=lambda t: t.box[1])
    assert re.fullmatch(r"\.\.\. \d+ more lines not shown", last.text), last.text
    caption = next(t for t in lay.texts if t.id == "caption-0")
    assert last.box[3] <= caption.box[1]
    assert next(t for t in lay.texts if t.id == "title").text == res.drawing.title
