"""Shared checks for the blocking-proof tests: occluders, segment tests and a brute-force
patch search written independently of geom3d.visibility."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support import make_scene, trooper

from geom3d import terrain
from geom3d.adjudication import lof
from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.terrain import FusedBlocks
from geom3d.visibility import (
    ApparentView,
    eye_points,
    pair_patch,
)

# --------------------------------------------------------------------------------------
# helpers: occluders, segment tests and the brute-force search, written independently
# --------------------------------------------------------------------------------------


def occluders(scene, a, b):
    """Volumes of the troopers other than ``a`` and ``b`` that block."""
    skip = (a.id, b.id)
    return [t.cylinder for t in scene.troopers.values() if t.id not in skip and t.blocks_lof]


def through_cylinders(o, e, cyls):
    """(n,) bool: does segment o[i] -> e[i] run more than CONTACT_EPS_MM inside a cylinder?"""
    o = np.asarray(o, float)
    d = np.asarray(e, float) - o
    length = np.linalg.norm(d, axis=1)
    out = np.zeros(len(o), bool)
    for c in cyls:
        bx, by, bz = c.base
        z0, z1 = bz, bz + c.height
        flat = np.abs(d[:, 2]) < 1e-12
        dz = np.where(flat, 1.0, d[:, 2])
        ta, tb = (z0 - o[:, 2]) / dz, (z1 - o[:, 2]) / dz
        in_slab = (o[:, 2] >= z0) & (o[:, 2] <= z1)
        lo = np.where(flat, np.where(in_slab, -np.inf, np.inf), np.minimum(ta, tb))
        hi = np.where(flat, np.where(in_slab, np.inf, -np.inf), np.maximum(ta, tb))
        px, py = o[:, 0] - bx, o[:, 1] - by
        a = d[:, 0] ** 2 + d[:, 1] ** 2
        b = 2 * (px * d[:, 0] + py * d[:, 1])
        cc = px * px + py * py - c.radius**2
        vertical = a < 1e-24
        disc = b * b - 4 * a * cc
        ok = ~vertical & (disc >= 0)
        sq = np.sqrt(np.where(ok, disc, 0.0))
        aa = np.where(ok, a, 1.0)
        in_disc = vertical & (cc <= 0)
        s0 = np.where(ok, (-b - sq) / (2 * aa), np.where(in_disc, -np.inf, np.inf))
        s1 = np.where(ok, (-b + sq) / (2 * aa), np.where(in_disc, np.inf, -np.inf))
        lo = np.maximum(np.maximum(lo, s0), 0.0)
        hi = np.minimum(np.minimum(hi, s1), 1.0)
        out |= (hi - lo) * length > CONTACT_EPS_MM
    return out


def blocked(scene, o, e, cyls):
    """(n,) bool: segments blocked by the scenery or through an occluding trooper."""
    o = np.ascontiguousarray(o, dtype=np.float64)
    e = np.ascontiguousarray(e, dtype=np.float64)
    if not len(o):
        return np.zeros(0, bool)
    return scene.engine.occluded_segments(o, e) | through_cylinders(o, e, cyls)


_RIM = np.linspace(0.0, 2 * np.pi, 720, endpoint=False)


def brute_force(scene, viewer, target, cyls, n_eyes=None):
    """Every eye sample (the first ``n_eyes``) x every 1 mm sample of its apparent view of
    ``target``.

    Returns the eyes, their (batched) apparent view, the lattice indices ``ks``, ``kt``
    (sample ``(ks[i], kt[j])`` at ``s = ks[i]`` mm, ``t = kt[j]`` mm, anchored at the
    target's centre) and ``clear`` (E, len(ks), len(kt)): the ray through the sample
    reaches the target and the segment to that point is blocked by nothing.
    """
    eyes = eye_points(viewer, target)[:n_eyes]
    view = ApparentView(eyes, target)
    bx, by, bz = target.base
    ring = np.column_stack([bx + target.radius * np.cos(_RIM), by + target.radius * np.sin(_RIM)])
    rim = np.concatenate(
        [np.column_stack([ring, np.full(len(_RIM), z)]) for z in (bz, target.top_z)]
    )
    s, t, depth = view.project(rim)
    assert depth.min() > 1.0  # the whole target in front of every eye: bounded view
    ks = np.arange(math.floor(s.min()) - 2, math.ceil(s.max()) + 3)
    kt = np.arange(math.floor(t.min()) - 2, math.ceil(t.max()) + 3)
    n_e, n_s, n_t = len(eyes), len(ks), len(kt)
    S, T = np.meshgrid(ks.astype(float), kt.astype(float), indexing="ij")
    eye_idx = np.repeat(np.arange(n_e), n_s * n_t)
    pts, hit = view.targets(eye_idx, np.tile(S.ravel(), n_e), np.tile(T.ravel(), n_e))
    clear = hit.copy()
    k = np.flatnonzero(hit)
    clear[k] = ~blocked(scene, eyes[eye_idx[k]], pts[k], cyls)
    # the rim bounds the view: no sample on the lattice's border reaches the target
    edge = hit.reshape(n_e, n_s, n_t)
    assert not (edge[:, [0, -1]].any() or edge[:, :, [0, -1]].any())
    return eyes, view, ks, kt, clear.reshape(n_e, n_s, n_t)


def windows(block, w):
    """(E, m - w + 1, n - w + 1) bool: w x w windows of set samples."""
    if block.shape[1] < w or block.shape[2] < w:
        return np.zeros((block.shape[0], 0, 0), bool)
    view = np.lib.stride_tricks.sliding_window_view(block, (w, w), axis=(1, 2))
    return view.all(axis=(-2, -1))


def largest_window(block):
    """Side (samples) of the largest full square window of ``block`` (E, m, n)."""
    w = 0
    while windows(block, w + 1).any():
        w += 1
    return w


def same_answer(scene, a, b):
    """Line of Fire's pair visibility (with proofs) against the search without proofs.

    Returns the visible flag."""
    assert scene.prover is not None  # built: pair_visibility then uses it
    w, viewer = lof.pair_visibility(scene, a, b)
    w0, k0 = pair_patch(
        a.cylinder, b.cylinder, scene.engine, occluders(scene, a, b), prover=None, patch_mm=3.0
    )
    assert (w is None) == (w0 is None), (a.id, b.id)
    if w is not None:
        assert viewer == (a.id, b.id)[k0], (a.id, b.id)
        assert w.eye == pytest.approx(w0.eye, abs=1e-9), (a.id, b.id)
        assert w.patch_center == pytest.approx(w0.patch_center, abs=1e-9), (a.id, b.id)
    return w is not None


def pairs(scene):
    ids = list(scene.troopers)
    return [(ids[i], ids[j]) for i in range(len(ids)) for j in range(i + 1, len(ids))]


def check_against_brute_force(scene, a, b, full=False):
    """The fast answer for (a, b) against :func:`brute_force` (see the module docstring).

    Eyes of a after the witness eye, and all of b's when a's is the witness, are left out
    unless ``full``. Returns the fast visible flag and the brute force's ``clear`` of each
    viewer (by id).
    """
    w, viewer = lof.pair_visibility(scene, a, b)
    cyls = occluders(scene, a, b)
    first = None if w is None else (a if viewer == a.id else b)
    found = {}
    for v, t in ((a, b), (b, a)):
        n = None
        if not full and first is not None:
            if v is not first and first is a:
                continue
            if v is first:
                n = 1 + int(np.flatnonzero((eye_points(v.cylinder, t.cylinder) == w.eye).all(1))[0])
        found[v.id] = brute_force(scene, v.cylinder, t.cylinder, cyls, n)
    clears = {k: f[4] for k, f in found.items()}
    if w is None:
        for v, clear in clears.items():
            assert not windows(clear, 5).any(), f"{a.id}-{b.id}: {v} sees a 4 mm patch"
        return False, clears
    if first is b:  # a saw no patch: no 4 mm window from any eye of a
        assert not windows(clears[a.id], 5).any(), f"{a.id} sees a 4 mm patch of {b.id}"
    i = witness_window_clear(found[first.id], w, f"{a.id}-{b.id}")
    # eyes searched before the witness eye see no 4 mm patch
    assert not windows(found[first.id][4][:i], 5).any(), f"{a.id}-{b.id}: an earlier eye sees 4 mm"
    return True, clears


def witness_window_clear(found, w, what: str) -> int:
    """Assert that witness ``w``'s window is a full 4 x 4 window of clear samples of
    ``found`` (:func:`brute_force` from the witness's viewer); the witness eye's index."""
    eyes, view, ks, kt, clear = found
    (i,) = np.flatnonzero((eyes == np.array(w.eye)).all(axis=1))
    # the witness eye's window is a full 4 x 4 window of clear samples around the centre
    s, t, _ = view.project(np.array([w.patch_center]))
    sc, tc = float(s[i, 0]), float(t[i, 0])
    assert sc - 1.5 == pytest.approx(round(sc - 1.5), abs=1e-6)
    assert tc - 1.5 == pytest.approx(round(tc - 1.5), abs=1e-6)
    p = int(np.searchsorted(ks, round(sc - 1.5)))
    q = int(np.searchsorted(kt, round(tc - 1.5)))
    assert ks[p] == round(sc - 1.5) and kt[q] == round(tc - 1.5)
    assert clear[i, p : p + 4, q : q + 4].shape == (4, 4)
    assert clear[i, p : p + 4, q : q + 4].all(), f"{what}: witness window not clear"
    pts, hit = view.targets(np.array([i]), np.array([sc]), np.array([tc]))
    assert hit[0] and pts[0] == pytest.approx(np.array(w.patch_center), abs=1e-6)
    return int(i)


#: The blocks of :func:`fused_scene`: turned 30, 0 and 45 degrees, 40, 80 and 30 mm high.
FUSED_BLOCKS = FusedBlocks(
    np.array([[150.0, 150.0], [70.0, 225.0], [230.0, 75.0]]),
    np.array([[30.0, 20.0], [22.0, 35.0], [25.0, 25.0]]),
    np.array([30.0, 0.0, 45.0]),
    np.array([40.0, 80.0, 30.0]),
)


def fused_scene(tmp_path, seed):
    """A 300 x 300 mm fused table (2.5 mm grid) with three blocks (:data:`FUSED_BLOCKS`),
    and seven troopers: two on block tops, one at a wall's foot, four on the ground
    (three of silhouette 1 or 2 behind blocks)."""
    blocks = FUSED_BLOCKS
    mesh = terrain.fused_scan_table(28_000, seed, size_mm=300.0, blocks=blocks)
    path = tmp_path / f"fused_{seed}.stl"
    mesh.export(path)
    table = {"size": [300, 300], "mesh": str(path), "mesh_units": "mm", "solid": "auto"}
    rng = np.random.default_rng(seed)
    jitter = rng.uniform(-4, 4, (7, 2))
    spots = [
        ("roof", (150.0, 150.0), 2),
        ("tower", (70.0, 225.0), 1),
        ("foot", (70.0 + 22.0 + 12.5 + 5.0, 200.0), 2),
        ("low", (245.0, 250.0), 1),
        ("open", (40.0, 60.0), 3),
        ("behind", (150.0, 215.0), 1),
        ("corner", (272.0, 28.0), 2),
    ]
    ts = [
        trooper(k, list(np.add(xy, j)), silhouette=s, side="red" if i % 2 else "blue")
        for i, ((k, xy, s), j) in enumerate(zip(spots, jitter, strict=True))
    ]
    d = blocks.signed_distance([t["position"] for t in ts])
    assert ((d < -15.0) | (d > 15.0)).all()  # no base straddles a wall
    return make_scene(ts, table=table)
