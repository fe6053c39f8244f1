"""Reachable free space on the real scans (issue 46's reproduction; skipped when
``../shared/real-meshes`` is absent): the St Helens DEM as the table, the Angel scan
standing on it and the real (hollow, sealed) container.

The references are computed here apart from the engine's standing code: the DEM's height
under a spot by downward rays on the DEM's own triangles (trimesh), the Angel's
generalized winding number (libigl ``fast_winding_number``) and the container's roof by
downward rays on its own triangles.
"""

from __future__ import annotations

import numpy as np
import pytest
from support import make_scene, real_meshes_dir

from geom3d.survey.grid import place_probes, probe_for

pytestmark = pytest.mark.realmesh

ROOT = real_meshes_dir()
NAMES = ("SainteHelens_dem_crop.ply", "Angel_decimated.ply", "container.stl")
# the DEM at 1:6000 (m -> mm), shifted so a 300 x 300 mm table frames the Angel and the
# container on the crater's northern flank
DEM_POSITION = [-450.0, -900.0, -160.0]


def _need():
    if ROOT is None or not all((ROOT / n).is_file() for n in NAMES):
        pytest.skip("../shared/real-meshes is absent")


def _own(scene, name):
    """The piece's own triangles as placed (closing faces left out)."""
    m = scene.scenery
    keep = (m.element == m.names.index(name)) & ~scene.closing_mask
    return m.vertices, m.faces[keep]


def _down_heights(v, f, xy, top=1e4):
    """Highest hit of a downward ray at each point (NaN where none): trimesh."""
    import trimesh

    mesh = trimesh.Trimesh(v, f, process=False)
    o = np.column_stack([xy, np.full(len(xy), top)])
    d = np.tile([0.0, 0.0, -1.0], (len(xy), 1))
    loc, ray, _ = mesh.ray.intersects_location(o, d, multiple_hits=False)
    z = np.full(len(xy), np.nan)
    z[ray] = loc[:, 2]
    return z


def test_no_spot_under_the_dem_inside_the_angel_or_inside_the_container():
    _need()
    import igl

    scene = make_scene(
        [],
        [
            {"id": "angel", "mesh": str(ROOT / NAMES[1]), "scale": 0.5, "position": [90, 150]},
            {"id": "container", "mesh": str(ROOT / NAMES[2]), "position": [235, 150]},
        ],
        table={
            "mesh": str(ROOT / NAMES[0]),
            "mesh_units": "m",
            "scale": 1 / 6000,
            "position": DEM_POSITION,
            "size": [300, 300],
        },
    )
    probe = probe_for(scene, 2)
    grid = place_probes(scene, probe, 8.0, all_pairs=False)
    p = grid.positions
    assert len(p) > 600
    # 1. never under the DEM's surface (the spot rests on the highest ground under its
    #    base, so its centre is never lower than the DEM straight under it)
    dv, df = _own(scene, "table")
    ground = _down_heights(dv, df, p[:, :2])
    assert np.all(np.isnan(ground) | (p[:, 2] >= ground - 0.05))
    # 2. never inside the Angel's winding-number solid: its axis at 5, 20 and 35 mm
    av, af = _own(scene, "angel")
    used = np.unique(af)
    remap = np.full(len(av), -1)
    remap[used] = np.arange(len(used))
    vs, fs = np.ascontiguousarray(av[used]), np.ascontiguousarray(remap[af])
    for dz in (5.0, 20.0, 35.0):
        q = np.ascontiguousarray(p + [0.0, 0.0, dz])
        w = igl.fast_winding_number(vs.astype(np.float64), fs.astype(np.int64), q)
        assert np.all(w < 0.5), p[w >= 0.5][:5]
    # 3. over the container only its roof: no spot under the first surface met from above
    cv, cf = _own(scene, "container")
    roof = _down_heights(cv, cf, p[:, :2])
    over = ~np.isnan(roof)
    assert over.sum() > 20  # the roof is standable
    assert np.all(p[over, 2] >= roof[over] - 0.05)
    # the dropped spots are named: the container's inside, the hill's pockets
    names = dict(grid.enclosed_by)
    assert names.get("container", 0) > 20
