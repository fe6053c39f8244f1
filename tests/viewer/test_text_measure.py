"""Text measured as VTK draws it (viewer.text_measure): sizes, word wrap, fitting."""

from __future__ import annotations

import pytest

pytest.importorskip("pyvista")

from vtkmodules.vtkRenderingCore import vtkTextProperty

from viewer.text_measure import text_px, wrap

pytestmark = pytest.mark.viewer


@pytest.fixture
def prop():
    p = vtkTextProperty()
    p.SetFontFamilyToArial()
    p.SetFontSize(20)
    return p


def test_text_px_grows_with_the_text(prop):
    w1, h1 = text_px(prop, "Ag")
    w2, h2 = text_px(prop, "AgAg")
    assert w1 > 0 and h1 > 0
    assert w2 > w1 and h2 == h1


def test_wrap_breaks_at_the_measured_width_and_indents_continuations(prop):
    width = text_px(prop, "  alpha beta")[0]  # room for the first two words, not three
    assert wrap(prop, ["  alpha beta gamma", "", "delta"], width) == [
        "  alpha beta",
        "    gamma",  # the line's indent plus two spaces
        "",
        "delta",
    ]
    # a word wider than the width is kept whole on its own line
    assert wrap(prop, ["a verylongword"], text_px(prop, "a")[0]) == ["a", "  verylongword"]
