"""A written PDF read back (pypdf) agrees with the figure's layout records, and the check
finds a text that moved, went missing or was never recorded (issue 47, SPEC 13.5)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("pyvista")
pytest.importorskip("pypdf")

from geom3d import load_scene
from viewer import render as vr
from viewer.gallery import GALLERY
from viewer.layout_pdf import PDF_POSITION_EM, check_pdf, pdf_images, pdf_texts

pytestmark = pytest.mark.viewer


@pytest.fixture(scope="module")
def duel():
    return load_scene(GALLERY / "duel.yaml")


@pytest.mark.parametrize(
    "options", [{"lof": "shooter:target"}, {"view": "side:shooter:target"}], ids=["plan", "side"]
)
def test_vector_pdf_text_is_the_recorded_text_at_its_place(duel, options, tmp_path):
    out = tmp_path / "f.pdf"
    res = vr.render(duel, out, size=(800, 500), **options)
    data = out.read_bytes()
    assert check_pdf(res.layout, data, res.image) == []
    found = pdf_texts(data, res.layout.size)
    recorded = sorted(t.text for t in res.layout.texts if t.text.strip())
    assert sorted(t.text for t in found) == recorded  # every text once, nothing extra
    assert res.drawing.title in recorded
    # the title's baseline starts where the record's box does (pixels of the output)
    title = next(t for t in found if t.text == res.drawing.title)
    rec = next(t for t in res.layout.texts if t.text == res.drawing.title)
    assert abs(title.box[0] - rec.box[0]) < 2.0
    assert abs(title.px - rec.px) < 0.5


def test_the_pdf_check_finds_moved_missing_and_unrecorded_text(duel, tmp_path):
    out = tmp_path / "f.pdf"
    res = vr.render(duel, out, size=(800, 500), lof="shooter:target")
    data = out.read_bytes()
    lay = res.layout
    i = next(k for k, t in enumerate(lay.texts) if t.text == res.drawing.title)
    t = lay.texts[i]
    shift = 3 * PDF_POSITION_EM * t.px + 0.2 * (t.box[2] - t.box[0])
    moved = replace(t, box=(t.box[0] + shift, t.box[1], t.box[2] + shift, t.box[3]))
    bad = replace(lay, texts=[*lay.texts[:i], moved, *lay.texts[i + 1 :]])
    assert any("from its record in the PDF" in p for p in check_pdf(bad, data))
    gone = replace(lay, texts=[*lay.texts[:i], *lay.texts[i + 1 :]])
    assert check_pdf(gone, data) == [f"PDF text {t.text!r} has no layout record"]
    extra = replace(lay, texts=[*lay.texts, replace(t, id="x", text="not on the page")])
    assert check_pdf(extra, data) == ["text x 'not on the page' is not in the PDF"]


def test_a_3d_views_pdf_is_its_pixels_and_no_text(duel, tmp_path):
    out = tmp_path / "iso.pdf"
    res = vr.render(duel, out, view="iso", size=(800, 500), lof="shooter:target")
    data = out.read_bytes()
    assert pdf_texts(data, res.size) == []
    (img,) = pdf_images(data)
    assert img.shape == res.image.shape
    assert check_pdf(res.layout, data, res.image) == []
    other = res.image.copy()
    other[10:20, 10:20] = 255 - other[10:20, 10:20]
    assert check_pdf(res.layout, data, other) != []
    assert np.array_equal(img, res.image)
