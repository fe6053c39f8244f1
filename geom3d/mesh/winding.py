"""Open scans closed into winding-number solids for ``solid: auto`` (SPEC 12.1).

A scan's solid is where the **generalized winding number** of the scan, closed at its
base by the surface it stands on, is at least 1/2 (Jacobson et al. 2013). The ray engine
only knows surfaces, so :func:`close_winding` adds the triangles that bound that set:

* the **base**: every open boundary loop whose lowest point lies within
  :data:`~geom3d.mesh.tolerances.BASE_LOOP_GAP_MM` of the surface beneath (the missing
  underside of a statue, a basin), or whose plan spans
  :data:`~geom3d.mesh.tolerances.BASE_LOOP_COVER` of the piece's in x and y (the rim of a
  heightfield sheet or a bottomless hill, however high it lies) hangs a curtain from
  each of its edges down to :data:`~geom3d.mesh.tolerances.CURTAIN_FLOOR_EPS_MM` below the
  lowest floor under the loop,
  and a *floor* (a fan at that depth) closes the curtains' bottoms. This is "closed at its
  base by the surface it stands on";
* every other loop is a **hole** (in a robe, a wing, a basin) and gets a **cap**: a fan
  of triangles from the loop's centroid over its edges, wound like the scan around it.

Why caps are the winding-number solid
-------------------------------------
Let ``W`` be the winding number of the scan closed at its base and ``W_c`` that of the
same surface with every cap added: a closed surface, so ``W_c`` is an integer, 1 inside
and 0 outside. ``W = W_c - sum of the caps' own winding numbers``. A flat cap over one
hole has a winding number strictly between -1/2 and 1/2 off its plane (it subtends less
than a hemisphere), negative on its outer side and positive on its inner side, so
``W >= 1/2`` exactly where ``W_c = 1``: the capped solid *is* the winding-number solid.
Where that may fail (a warped hole, several holes seen together, the edge of a loose
flap of scan that encloses nothing) the cap is checked (``igl.fast_winding_number``): at
sample points offset along its normal by :data:`~geom3d.mesh.tolerances.CAP_CHECK_OFFSET` of
the hole's size (halved up to three times, to stay inside thin parts), a sample is *in
air* when ``W < 1/2`` on both sides at every offset. A cap in air at more than half its
samples is not added: the winding number says the hole opens onto air (a pipe's end, a
flap's edge), so it stays open. Nothing is ever hung from a hole down to the
table, so air under a wing or a raised basin stays air.

With every loop closed, the scan, its caps, curtains and floor are closed modulo 2 on
exactly shared positions, so the blocking proofs' interior map (which certifies closed
components by upward-ray parity, :mod:`geom3d.visibility.interior`) reads the very same
solid. A rejected cap leaves the piece open: the map then certifies nothing inside it.

Orientation: the caps' and the base's winding follows the scan's faces; a scan wound
inside out (negative enclosed volume) is evaluated with its orientation flipped.

Example
-------
A cube 10 mm wide raised 5 mm off the table (``box_mesh`` stands it on z = 0, so it spans
z = 5 to 15). Without its lid it is a cup: the rim spans the whole piece in plan, so it is
the piece's base, like a bowl's (SPEC 12.1: "a bowl's inside is air") and gets curtains,
no cap. With a side missing instead, the opening is a hole 5 mm above the table, capped:

>>> import numpy as np
>>> from geom3d.mesh.primitives import box_mesh
>>> v, f = box_mesh((10.0, 10.0, 10.0))
>>> v = v + [0, 0, 5.0]
>>> centres = v[f].mean(axis=1)
>>> cup = np.delete(f, np.flatnonzero(centres[:, 2] > 14.9), axis=0)
>>> rep = close_winding(v, cup, 0.0)[2]
>>> rep.method, rep.base_loops, rep.caps
('caps', 1, 0)
>>> side_open = np.delete(f, np.flatnonzero(centres[:, 0] > 4.9), axis=0)
>>> rep = close_winding(v, side_open, 0.0)[2]
>>> rep.base_loops, rep.caps, rep.caps_rejected, round(rep.largest_cap_height_mm, 1)
(0, 1, 0, 5.0)
>>> round(rep.largest_cap_mm ** 2, 6)  # the hole's diagonal, 10 * sqrt(2) mm
200.0
"""

from __future__ import annotations

import numpy as np

from geom3d.mesh.tolerances import (
    BASE_LOOP_COVER,
    BASE_LOOP_GAP_MM,
    CAP_CHECK_MAX_MM,
    CAP_CHECK_MIN_MM,
    CAP_CHECK_OFFSET,
    CAP_CHECK_SAMPLES,
    CURTAIN_FLOOR_EPS_MM,
    CURTAIN_FLOOR_STEP_MM,
)

from .boundary import _as_faces, _as_vertices, _boundary, components, merge_positions
from .closing import ClosingReport, FloorLike, _fill_report, _floor_at

__all__ = ["OpenLoops", "close_winding", "directed_loops", "winding_numbers"]


class OpenLoops:
    """Open edges of a mesh, directed as their face uses them, and their loops.

    Attributes
    ----------
    edges : (e, 2) int64
        ``(a, b)``: the face using the open edge goes ``a -> b`` (indices of the smallest
        vertex with each position). Sorted by loop, then by merged position.
    loop : (e,) int64
        Loop of each edge, ``0 .. n_loops - 1``.
    n_loops : int
    """

    def __init__(self, edges: np.ndarray, loop: np.ndarray, n_loops: int) -> None:
        self.edges = edges
        self.loop = loop
        self.n_loops = n_loops


def directed_loops(v: np.ndarray, f: np.ndarray, group: np.ndarray, rep: np.ndarray) -> OpenLoops:
    """Edges used by an odd number of faces, each directed as its first face uses it.

    Parameters
    ----------
    v : (n, 3) float64, mm
    f : (m, 3) int64
    group, rep : from :func:`geom3d.mesh.boundary.merge_positions`

    Returns
    -------
    OpenLoops
    """
    g = group[f] if len(f) else np.zeros((0, 3), np.int64)
    ok = (g[:, 0] != g[:, 1]) & (g[:, 1] != g[:, 2]) & (g[:, 0] != g[:, 2])
    g = g[ok]
    d = np.concatenate([g[:, [0, 1]], g[:, [1, 2]], g[:, [2, 0]]])  # directed, by face
    if len(d) == 0:
        return OpenLoops(np.zeros((0, 2), np.int64), np.zeros(0, np.int64), 0)
    ng = np.int64(len(rep))
    key = np.minimum(d[:, 0], d[:, 1]) * ng + np.maximum(d[:, 0], d[:, 1])
    order = np.argsort(key, kind="stable")
    sk = key[order]
    new = np.ones(len(sk), bool)
    new[1:] = sk[1:] != sk[:-1]
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, len(sk)))
    odd = starts[counts % 2 == 1]
    if not len(odd):
        return OpenLoops(np.zeros((0, 2), np.int64), np.zeros(0, np.int64), 0)
    de = d[order[odd]]  # the first use's direction
    nodes, inv = np.unique(de.ravel(), return_inverse=True)
    inv = inv.reshape(-1, 2)
    lab = components(len(nodes), inv[:, 0], inv[:, 1])
    loop = lab[inv[:, 0]]
    o = np.argsort(loop, kind="stable")
    return OpenLoops(rep[de[o]], loop[o], int(lab.max()) + 1)


def winding_numbers(vertices, faces, points) -> np.ndarray:
    """Generalized winding number (k,) float64 of the oriented soup at ``points`` (k, 3).

    ``igl.fast_winding_number`` (Barill et al. 2018): exact near the surface, a
    controlled far-field expansion elsewhere.
    """
    import igl  # type: ignore[import-untyped]

    q = np.ascontiguousarray(np.asarray(points, np.float64).reshape(-1, 3))
    if not len(q) or not len(faces):
        return np.zeros(len(q))
    v = np.ascontiguousarray(vertices, np.float64)
    f = np.ascontiguousarray(faces, np.int64)
    return np.asarray(igl.fast_winding_number(v, f, q), np.float64)


def _loop_floor(v, edges, loop, n_loops, floor_z: FloorLike) -> np.ndarray:
    """Lowest floor height (n_loops,) mm under each loop's edges (sampled along them)."""
    a, b = v[edges[:, 0]], v[edges[:, 1]]
    lxy = np.hypot(*(b[:, :2] - a[:, :2]).T)
    k = np.ceil(lxy / CURTAIN_FLOOR_STEP_MM).astype(np.int64) + 1
    eid = np.repeat(np.arange(len(edges)), k)
    first = np.cumsum(k) - k
    t = (np.arange(len(eid)) - first[eid]) / np.maximum(k[eid] - 1, 1)
    xy = a[eid, :2] + t[:, None] * (b[eid, :2] - a[eid, :2])
    fz = _floor_at(floor_z, xy)
    out = np.full(n_loops, np.inf)
    np.minimum.at(out, loop[eid], fz)
    return out


def _fan(edges: np.ndarray, centre: int) -> np.ndarray:
    """Triangles ``(b, a, centre)`` over directed edges ``(a, b)``: the loop's far side."""
    c = np.full(len(edges), centre, np.int64)
    return np.stack([edges[:, 1], edges[:, 0], c], axis=1)


def _base(v, edges, bot: float, nv: int):
    """Curtains below directed ``edges`` down to ``bot`` and a floor fan under them.

    Returns new vertices (bottom corners, the floor centre) and faces indexing
    ``concat(v, new)`` (``nv == len(v)`` before this loop's vertices were added).
    """
    idx = np.unique(edges.ravel())
    low = v[idx].copy()
    low[:, 2] = np.minimum(low[:, 2], bot)
    kept = v[idx, 2] > bot  # a vertex already at or below the floor is its own bottom
    new_id = np.where(kept, nv + np.cumsum(kept) - 1, idx)
    lookup = dict(zip(idx.tolist(), new_id.tolist(), strict=True))
    a, b = edges[:, 0], edges[:, 1]
    a2 = np.array([lookup[i] for i in a.tolist()], np.int64)
    b2 = np.array([lookup[i] for i in b.tolist()], np.int64)
    centre = nv + int(np.count_nonzero(kept))
    cxy = low[:, :2].mean(axis=0)
    new_v = np.concatenate([low[kept], [[cxy[0], cxy[1], bot]]])
    quads = np.concatenate([np.stack([b, a, a2], 1), np.stack([b, a2, b2], 1)])
    floor = np.stack([b2, a2, np.full(len(a), centre, np.int64)], axis=1)
    return new_v, quads, floor


def _oriented_volume(v: np.ndarray, f: np.ndarray) -> float:
    """Signed volume (mm^3) a closed soup encloses (positive: wound outward)."""
    t = v[f]
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum()) / 6.0


def _check_caps(v_ref, f_ref, v_all, caps, extent) -> np.ndarray:
    """Whether each cap bounds or lies in the winding-number solid of ``(v_ref, f_ref)``.

    ``caps``: list of (k_i, 3) faces indexing ``v_all``; ``extent``: (len(caps),) mm.
    A sample of a cap (a cap triangle's centroid) is *in air* when, at every offset along
    the cap's normal, the winding number is below 1/2 on both sides: the cap would fill a
    passage the winding number leaves open (a pipe's end, the edge of a loose flap). A
    cap is kept unless more than half of its samples are in air. (Which side is inside
    does not matter to blocking: a scan wound inconsistently around a hole flips it.)
    """
    centres, normals, steps, owner = [], [], [], []
    for i, cf in enumerate(caps):
        t = v_all[cf]
        n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]).sum(axis=0)
        size = float(np.linalg.norm(n))
        n = n / size if size > 0 else np.array([0.0, 0.0, 1.0])  # the cap's normal
        pick = np.unique(np.linspace(0, len(cf) - 1, min(len(cf), CAP_CHECK_SAMPLES)).round())
        c = t[pick.astype(np.int64)].mean(axis=1)
        d = min(max(CAP_CHECK_OFFSET * float(extent[i]), CAP_CHECK_MIN_MM), CAP_CHECK_MAX_MM)
        centres.append(c)
        normals.append(np.broadcast_to(n, c.shape))
        steps.append(np.full(len(c), d))
        owner.append(np.full(len(c), i))
    if not centres:
        return np.zeros(len(caps), bool)
    pc, pn = np.concatenate(centres), np.concatenate(normals)
    pd, own = np.concatenate(steps), np.concatenate(owner)
    air = np.ones(len(pc), bool)
    for s in (1.0, 0.5, 0.25, 0.125):  # a sample leaves "air" at the first offset it can
        k = np.flatnonzero(air)
        if not len(k):
            break
        off = (s * pd[k])[:, None] * pn[k]
        w = winding_numbers(v_ref, f_ref, np.concatenate([pc[k] - off, pc[k] + off]))
        air[k] = (w[: len(k)] < 0.5) & (w[len(k) :] < 0.5)
    n_air = np.bincount(own, weights=air, minlength=len(caps))
    n_all = np.bincount(own, minlength=len(caps))
    return n_air * 2 <= n_all


def close_winding(vertices, faces, floor_z: FloorLike = 0.0):
    """Caps and a base that make an open scan block like its winding-number solid.

    Parameters
    ----------
    vertices : (n, 3) float, mm
        The piece as placed on the table.
    faces : (m, 3) int
    floor_z : float or callable, mm
        The surface under the piece: a height, or ``xy (k, 2) -> heights (k,)`` mm.

    Returns
    -------
    extra_vertices : (c, 3) float64, mm
        Copies of the loop vertices the new faces use (exactly the scan's coordinates, so
        caps and curtains join it without a crack once merged), then the new points (cap
        centres, curtain bottoms, floor centres).
    extra_faces : (t, 3) int64
        Curtains and floors of the base, then the caps, indexing ``extra_vertices``
        (concatenate with :func:`geom3d.mesh.closing.concatenate`).
    report : ClosingReport
        ``method`` ``"caps"`` (``"none"`` for a closed mesh), with ``base_loops``,
        ``caps``, ``caps_rejected``, ``largest_cap_mm`` and ``largest_cap_height_mm``.
    """
    v = _as_vertices(vertices)
    f = _as_faces(faces, len(v))
    nv = len(v)
    group, rep_idx = merge_positions(v)
    bnd = _boundary(v, f, group, rep_idx)
    loops = directed_loops(v, f, group, rep_idx)
    report = ClosingReport(method="caps" if loops.n_loops else "none")
    empty = (np.zeros((0, 3)), np.zeros((0, 3), np.int64))
    if not loops.n_loops:
        _fill_report(report, v, f, bnd, floor_z, table=False, group=group)
        return *empty, report
    e, lp, nl = loops.edges, loops.loop, loops.n_loops
    fl = _loop_floor(v, e, lp, nl, floor_z)
    zlo = np.full(nl, np.inf)
    np.minimum.at(zlo, lp, np.minimum(v[e[:, 0], 2], v[e[:, 1], 2]))
    base = (zlo - fl <= BASE_LOOP_GAP_MM) | _spans_piece(v, f, e, lp, nl)
    starts = np.searchsorted(lp, np.arange(nl + 1))
    new_v: list[np.ndarray] = []
    n_new = 0
    base_f: list[np.ndarray] = []
    curtains = 0
    caps: list[np.ndarray] = []
    cap_loop: list[int] = []
    for k in range(nl):
        ek = e[starts[k] : starts[k + 1]]
        if base[k]:
            nvk, quads, floor = _base(v, ek, float(fl[k]) - CURTAIN_FLOOR_EPS_MM, nv + n_new)
            new_v.append(nvk)
            n_new += len(nvk)
            base_f += [quads, floor]
            curtains += len(quads)
        else:
            ids = np.unique(ek.ravel())
            new_v.append(v[ids].mean(axis=0, keepdims=True))
            caps.append(_fan(ek, nv + n_new))
            cap_loop.append(k)
            n_new += 1
    v_all = np.concatenate([v, *new_v]) if new_v else v
    f_base = np.concatenate(base_f) if base_f else np.zeros((0, 3), np.int64)
    f_caps = np.concatenate(caps) if caps else np.zeros((0, 3), np.int64)
    # orientation of the whole: flip everything when the closed result encloses < 0
    sign = 1.0 if _oriented_volume(v_all, np.concatenate([f, f_base, f_caps])) >= 0 else -1.0
    flip = (lambda a: a[:, ::-1]) if sign < 0 else (lambda a: a)
    ref_f = np.concatenate([flip(f), flip(f_base)])
    extent = _loop_extent(v, e, lp, nl)[cap_loop] if caps else np.zeros(0)
    ok = (
        _check_caps(v_all, ref_f, v_all, [flip(c) for c in caps], extent)
        if caps
        else np.zeros(0, bool)
    )
    kept = [c for c, good in zip(caps, ok, strict=True) if good]
    extra_f = np.concatenate([f_base, *kept]) if kept else f_base
    report.curtain_triangles = int(curtains)
    report.cap_triangles = int(len(extra_f) - curtains)
    report.base_loops = int(np.count_nonzero(base))
    report.caps = len(kept)
    report.caps_rejected = len(caps) - len(kept)
    if kept:
        ext = extent[ok]
        j = int(np.argmax(ext))
        k = cap_loop[int(np.flatnonzero(ok)[j])]
        ids = np.unique(e[starts[k] : starts[k + 1]].ravel())
        report.largest_cap_mm = float(ext[j])
        report.largest_cap_height_mm = float(v[ids, 2].min() - fl[k])
    _fill_report(report, v, f, bnd, floor_z, table=False, group=group)
    report.holes = nl - report.base_loops
    own = np.unique(extra_f[extra_f < nv])  # the scan's vertices the new faces use
    remap = np.empty(len(v_all), np.int64)
    remap[own] = np.arange(len(own))
    remap[nv:] = len(own) + np.arange(len(v_all) - nv)
    return np.concatenate([v[own], v_all[nv:]]), remap[extra_f], report


def _spans_piece(v, f, e, lp, nl) -> np.ndarray:
    """(nl,) bool: the loop's plan spans :data:`BASE_LOOP_COVER` of the piece's plan in x
    and in y (the rim of a heightfield sheet, a bottomless hill: its base, however high)."""
    used = np.zeros(len(v), bool)
    used[f.ravel()] = True
    span = np.maximum(np.ptp(v[used, :2], axis=0), 1e-12)
    lo = np.full((nl, 2), np.inf)
    hi = np.full((nl, 2), -np.inf)
    for col in (0, 1):
        np.minimum.at(lo, lp, v[e[:, col], :2])
        np.maximum.at(hi, lp, v[e[:, col], :2])
    return np.all((hi - lo) >= BASE_LOOP_COVER * span, axis=1)


def _loop_extent(v, e, lp, nl) -> np.ndarray:
    """Bounding-box diagonal (nl,) mm of each loop."""
    lo = np.full((nl, 3), np.inf)
    hi = np.full((nl, 3), -np.inf)
    for col in (0, 1):
        np.minimum.at(lo, lp, v[e[:, col]])
        np.maximum.at(hi, lp, v[e[:, col]])
    return np.linalg.norm(hi - lo, axis=1)
