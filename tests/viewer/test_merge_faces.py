"""Lighter side and eye SVGs: consecutive faces of one colour drawn as one path, only
when that leaves the picture unchanged (viewer.figure2d.merge_faces)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyvista")

from viewer.figure2d import merge_faces
from viewer.projection import Face

RED, BLUE = (1.0, 0.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)


def _tri(*pts):
    return np.array(pts, dtype=float)


def test_a_quad_split_in_two_becomes_one_polygon():
    run = [
        Face(0, _tri((0, 0), (1, 0), (1, 1)), 1.0, RED),
        Face(0, _tri((0, 0), (1, 1), (0, 1)), 1.0, RED),
    ]
    polys, colors = merge_faces(run)
    assert len(polys) == 1 and colors == [RED]
    xy = polys[0]
    area = 0.5 * abs(
        np.dot(xy[:, 0], np.roll(xy[:, 1], 1)) - np.dot(xy[:, 1], np.roll(xy[:, 0], 1))
    )
    assert area == pytest.approx(1.0)


def test_overlapping_or_differently_coloured_faces_are_kept_in_order():
    a = Face(0, _tri((0, 0), (2, 0), (0, 2)), 1.0, RED)
    b = Face(0, _tri((0.5, 0.5), (3, 0.5), (0.5, 3)), 1.0, RED)  # overlaps a
    c = Face(0, _tri((5, 5), (6, 5), (5, 6)), 1.0, BLUE)
    d = Face(0, _tri((5, 6), (6, 5), (6, 6)), 1.0, RED)  # touches c, other colour
    polys, colors = merge_faces([a, b, c, d])
    assert colors == [RED, RED, BLUE, RED]
    assert [p.tolist() for p in polys] == [f.uv.tolist() for f in (a, b, c, d)]
