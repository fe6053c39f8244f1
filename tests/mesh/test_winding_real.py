"""Winding-number solids on the real scans (issue 32), skipped when they are absent.

Rings of troopers around the Angel (scale 0.5) and the bird bath (scale 0.6). Every
witness ray of a pair with Line of Fire is sampled every 0.5 mm and each sample must lie
outside the scan's solid by a winding number computed here, independently of geom3d's
closing: ``igl.fast_winding_number`` over the raw scan triangles plus, for every open loop
that touches the table (lowest point within 2 mm of z = 0), curtains down to z = 0 and a
fan on z = 0: the scan closed at its base by the surface it stands on (SPEC 12.1).
"""

from __future__ import annotations

import numpy as np
import pytest
from support import make_scene
from test_real_scans import need, piece_triangles, ring, witness_samples

pytestmark = pytest.mark.realmesh


def closed_at_base(v, f, touch_mm=2.0):
    """Raw scan plus its base closure, built from scratch (dicts, a union-find)."""
    count, first = {}, {}
    for tri in np.asarray(f).tolist():
        for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])):
            pa, pb = tuple(v[a]), tuple(v[b])
            k = (min(pa, pb), max(pa, pb))
            count[k] = count.get(k, 0) + 1
            first.setdefault(k, (a, b))
    open_edges = [first[k] for k, c in count.items() if c % 2 == 1]
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in open_edges:
        ra, rb = find(tuple(v[a])), find(tuple(v[b]))
        if ra != rb:
            parent[ra] = rb
    loops: dict = {}
    for a, b in open_edges:
        loops.setdefault(find(tuple(v[a])), []).append((a, b))
    verts, faces = [list(p) for p in v], []
    for edges in loops.values():
        if min(min(v[a, 2], v[b, 2]) for a, b in edges) > touch_mm:
            continue  # a hole, not the base
        centre = np.mean([v[a] for a, _ in edges], axis=0)
        c = len(verts)
        verts.append([centre[0], centre[1], 0.0])
        for a, b in edges:  # the face goes a -> b: the closure goes b -> a
            a2, b2 = len(verts), len(verts) + 1
            verts += [[v[a, 0], v[a, 1], 0.0], [v[b, 0], v[b, 1], 0.0]]
            faces += [[b, a, a2], [b, a2, b2], [b2, a2, c]]
    return np.array(verts, float), np.concatenate([np.asarray(f), np.array(faces, np.int64)])


@pytest.mark.parametrize(
    ("name", "scale", "radius"),
    [
        ("birdBath_decimated.off", 0.4, 80.0),
        ("Angel_decimated.ply", 0.3, 50.0),
        ("Angel_decimated.ply", 0.5, 55.0),
        ("Angel_decimated.ply", 0.5, 80.0),
        ("birdBath_decimated.off", 0.6, 110.0),
    ],
)
def test_every_witness_ray_stays_outside_the_winding_number_solid(name, scale, radius):
    import igl

    path = need(name)
    scene = make_scene(
        ring(radius, 12), [{"id": "scan", "mesh": path, "scale": scale, "position": [0, 0]}]
    )
    (rec,) = scene.scan_report()
    assert rec["method"] == "caps" and rec["caps"] > 0 and rec["base_loops"] >= 1
    v, f = piece_triangles(scene, "scan")
    rv, rf = closed_at_base(v, f)
    docs = [r.to_dict() for r in scene.lof_matrix()]
    seen = [d for d in docs if d["lof"]]
    assert seen and any(d["reason"] == "blocked" for d in docs)
    pts = np.concatenate([witness_samples(d) for d in seen])
    assert len(pts) > 100 * len(seen) ** 0.5
    assert float(igl.fast_winding_number(rv, rf, pts).max()) < 0.5


def test_the_angels_caps_sit_on_its_holes_not_on_the_table():
    scene = make_scene(
        [], [{"id": "angel", "mesh": need("Angel_decimated.ply"), "scale": 0.5, "position": [0, 0]}]
    )
    (rec,) = scene.scan_report()
    # 199 open loops: the plinth's foot (and a sliver beside it) is the base, the rest holes
    assert rec["loops"] == 199 and rec["base_loops"] == 2
    assert rec["caps"] + rec["caps_rejected"] == 197 and rec["caps"] >= 190
    assert rec["largest_cap_mm"] == pytest.approx(61.0, abs=0.1)  # the raised basin's top
    assert rec["largest_cap_height_mm"] > 120.0
    # nothing added reaches from a hole down to the table: every added face lies on the
    # base (below the rim's 5.9 mm) or within its own hole's height range
    m = scene.scenery
    added = m.vertices[m.faces[scene.closing_mask]]
    low = added[:, :, 2].max(axis=1) <= 6.0
    spans = np.ptp(added[:, :, 2], axis=1)
    assert np.all(low | (spans < 35.0))  # a cap spans at most its loop's height range
