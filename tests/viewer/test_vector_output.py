"""What every vector figure shares (viewer.vector_output): ids, bytes, the raster PDF page."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure
from pypdf import PdfReader

from viewer.vector_output import figure_bytes, raster_pdf_bytes, svg_id

pytestmark = pytest.mark.viewer


def test_svg_id_keeps_letters_digits_and_dashes():
    assert svg_id("trooper:a:front") == "trooper-a-front"
    assert svg_id("scenery:big wall/2") == "scenery-big-wall-2"
    assert svg_id("label_3.5") == "label_3.5"


def _figure():
    fig = Figure(figsize=(2, 1), dpi=96)
    fig.add_subplot().plot([0, 1], [0, 1], gid="line")
    return fig


@pytest.mark.parametrize("fmt", ["svg", "pdf"])
def test_figure_bytes_are_the_same_for_the_same_figure(fmt):
    a, b = figure_bytes(_figure(), fmt), figure_bytes(_figure(), fmt)
    assert a == b
    assert b"CreationDate" not in a and b"<dc:date>" not in a


def test_raster_pdf_page_is_the_image_at_its_dpi():
    image = np.zeros((48, 96, 3), np.uint8)  # 96 x 48 px
    page = PdfReader(io.BytesIO(raster_pdf_bytes(image, dpi=48))).pages[0]
    assert (float(page.mediabox.width), float(page.mediabox.height)) == (144.0, 72.0)  # 2 x 1 in
