"""The legend's symbols and rows (viewer.legend)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyvista")

from viewer import palette as pal
from viewer.legend import LEGEND_FONT_MIN, legend_font_size, legend_symbol

pytestmark = pytest.mark.viewer


@pytest.mark.parametrize(
    ("face", "layers"),
    [
        ("ring", ["background", "fill", "background"]),  # a disc with a hole
        ("disc", ["background", "fill"]),
        ("dashed", ["background", "fill", "fill", "fill"]),  # three dashes
        ("rectangle", ["background", "text", "fill"]),  # framed in black
    ],
)
def test_legend_symbol_layers_in_the_unit_square(face, layers):
    mesh = legend_symbol(face, "#ff0000")
    want = {"background": pal.rgb255(pal.BACKGROUND), "fill": (255, 0, 0)}
    want["text"] = pal.rgb255(pal.TEXT)
    assert [tuple(c) for c in mesh.cell_data["rgb"]] == [tuple(want[k]) for k in layers]
    pts = np.asarray(mesh.points)
    assert pts[:, :2].min() >= 0.0 and pts[:, :2].max() <= 1.0 and not pts[:, 2].any()


def test_legend_font_never_below_its_floor():
    assert legend_font_size((1600, 1200)) == 10  # the reference height
    assert legend_font_size((160, 120)) == LEGEND_FONT_MIN
