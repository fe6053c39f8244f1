"""The blocking proofs' interior map reads the winding-number solid (SPEC 12.1, issue 32).

The statue of ``tests/mesh/test_winding.py`` (a column under an overhanging slab, holes
punched in both) closed by ``solid: auto``: the map certifies boxes inside it, and every
certified box lies inside the solid by an independent solid-angle winding number over
the raw triangles closed at the column's foot; nothing under the slab is certified.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from support import make_scene, trooper

from geom3d.scene.scenery import closed_solids

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mesh"))
from test_winding import (
    COLUMN_SIDE,
    SLAB_UNDER,
    _write,
    foot_closed,
    solid_angle_winding,
    statue,
)


def test_interior_runs_lie_in_the_winding_number_solid():
    v, f = statue(SLAB_UNDER, COLUMN_SIDE)
    scene = make_scene(
        [trooper("a", [-5, 50, 0]), trooper("b", [105, 50, 0], side="red")],
        [{"id": "statue", "mesh": _write(v, f), "position": [0, 0]}],
    )
    label, closed = closed_solids(scene._built)
    assert closed[label].all()  # scan, caps, base curtains and floor: one closed solid
    im = scene.prover.interior
    assert im.n_runs > 0
    x0, y0, g, nx, ny, _ = im.grid
    nx, ny = int(nx), int(ny)
    pts = []
    for c in range(nx * ny):
        i, j = divmod(c, ny)
        for k in range(im.run_off[c], im.run_off[c + 1]):
            lo, hi = float(im.run_lo[k]), float(im.run_hi[k])
            for fx in (0.1, 0.5, 0.9):
                for fz in (0.1, 0.5, 0.9):
                    x = x0 + (i + fx) * g
                    y = y0 + (j + fx) * g
                    pts.append([x, y, max(lo + fz * (hi - lo), 0.05)])
    pts = np.array(pts)
    in_column = (pts[:, 2] < 80) & (np.abs(pts[:, 0] - 50) < 30) & (np.abs(pts[:, 1] - 50) < 30)
    in_slab = pts[:, 2] > 80
    # the column and the slab are both certified, the air under the slab never
    assert in_column.any() and in_slab.any() and (in_column | in_slab).all()
    # an independent winding number at 400 of those points (seeded), both parts included
    rng = np.random.default_rng(5)
    pick = np.concatenate(
        [rng.choice(np.flatnonzero(m), size=min(200, int(m.sum())), replace=False)
         for m in (in_column, in_slab)]
    )  # fmt: skip
    pts = pts[pick]
    rv, rf = foot_closed(v, f)
    w = solid_angle_winding(rv, rf, pts)
    assert (w >= 0.5).all()
    # and the proof-backed matrix answers as plain casting does: blocked through the column
    assert not scene.line_of_fire("a", "b").lof
