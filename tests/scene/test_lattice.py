"""Inner probes shared on one lattice (geom3d.scene.lattice) give each disc the heights
its own rays would: from above everything, or from its start under a roof."""

from __future__ import annotations

import numpy as np
from support import box, make_scene

from geom3d.scene.lattice import inner_heights
from geom3d.scene.standing import disc_samples
from geom3d.scene.tolerances import STAND_GRID_MM


def test_lattice_heights_equal_each_discs_own_rays():
    scene = make_scene(
        [],
        [
            box("roof", (80, 80, 5), (100, 100, 60)),  # over part of the grid
            box("block", (30, 30, 7), (150, 60, 0), rotation_deg=20.0),
        ],
        table={"size": [200, 200]},
    )
    s = scene.surface
    grid = disc_samples(12.5)
    grid = grid[: int(np.sum(np.all(np.isclose(grid % STAND_GRID_MM, 0.0), axis=1)))]
    xs = 20.5 + 10.0 * np.arange(16)
    cx, cy = np.meshgrid(xs, xs)
    c = np.column_stack([cx.ravel(), cy.ravel()])
    rng = np.random.default_rng(5)
    # some discs start under the roof (a lower level), the others above everything
    start = np.where(rng.random(len(c)) < 0.5, 40.0, 200.0)
    h = inner_heights(s, c, grid, STAND_GRID_MM, start)
    assert h is not None and h.shape == (len(c), len(grid))
    pts = (c[:, None, :] + grid[None]).reshape(-1, 2)
    own = s.tops_from(pts, np.repeat(start, len(grid))).reshape(h.shape)
    assert np.array_equal(np.isnan(h), np.isnan(own))
    ok = ~np.isnan(h)
    assert np.abs(h[ok] - own[ok]).max() <= 1e-6
    under_roof = (np.abs(c[:, 0] - 100) < 30) & (np.abs(c[:, 1] - 100) < 30) & (start == 40.0)
    # under the roof: the table top (no table mesh: nothing met), never the roof
    assert under_roof.any() and np.all(np.nan_to_num(h[under_roof], nan=0.0) < 1.0)


def test_discs_off_one_lattice_are_not_shared():
    scene = make_scene([], [], table={"size": [100, 100]})
    grid = np.array([[0.0, 0.0], [1.0, 0.0]])
    c = np.array([[10.0, 10.0], [20.3, 10.0]])
    assert inner_heights(scene.surface, c, grid, 1.0, np.full(2, 50.0)) is None
