"""Reference inside test for ``solid: auto``: odd number of surface crossings going up.

Independent of the closing geometry (:mod:`geom3d.mesh.closing`); used to check it and to
decide whether a point (a trooper) is inside a solid.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from geom3d.mesh.boundary import _as_faces, _as_vertices

__all__ = ["inside_parity"]

#: Candidate (point, triangle) pairs tested per chunk in :func:`inside_parity`.
_PARITY_CHUNK_PAIRS = 4_000_000


def inside_parity(points, vertices, faces) -> np.ndarray:
    """Reference ``solid: auto`` inside test: odd number of surface crossings going up.

    Exact in the combinatorial sense: each triangle is tested in xy with edge functions,
    every edge's function is evaluated once from a canonical endpoint (so the two faces
    sharing an edge see exactly negated values), and a point on an edge or vertex is given
    to exactly one side by a half-open (top-left) rule. A point counts a crossing when the
    triangle's plane above its xy is strictly higher than the point. Vertical triangles
    (zero area in xy) never count. Points on the surface itself are ambiguous.

    Vectorised with a uniform xy grid over the triangles (memory ~ candidates per chunk).

    Parameters
    ----------
    points : (k, 3) float, mm
    vertices : (n, 3) float, mm
    faces : (m, 3) int

    Returns
    -------
    (k,) bool
        True where the point is inside.
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    v = _as_vertices(vertices)
    f = _as_faces(faces, len(v))
    out = np.zeros(len(p), dtype=bool)
    if len(f) == 0 or len(p) == 0:
        return out
    A, B, C = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    area2 = (B[:, 0] - A[:, 0]) * (C[:, 1] - A[:, 1]) - (B[:, 1] - A[:, 1]) * (C[:, 0] - A[:, 0])
    nz = area2 != 0.0
    A, B, C, area2 = A[nz], B[nz], C[nz], area2[nz]
    neg = area2 < 0  # orient counter-clockwise in xy
    B2 = np.where(neg[:, None], C, B)
    C2 = np.where(neg[:, None], B, C)
    B, C = B2, C2
    m = len(A)
    if m == 0:
        return out
    # grid
    txy_lo = np.minimum(np.minimum(A[:, :2], B[:, :2]), C[:, :2])
    txy_hi = np.maximum(np.maximum(A[:, :2], B[:, :2]), C[:, :2])
    lo = txy_lo.min(axis=0)
    hi = txy_hi.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    G = int(max(1, min(1024, math.isqrt(m))))
    cell = span / G
    i0 = np.clip(((txy_lo - lo) / cell).astype(np.int64), 0, G - 1)
    i1 = np.clip(((txy_hi - lo) / cell).astype(np.int64), 0, G - 1)
    nx = i1[:, 0] - i0[:, 0] + 1
    ny = i1[:, 1] - i0[:, 1] + 1
    cnt = nx * ny
    tid = np.repeat(np.arange(m), cnt)
    off = np.arange(len(tid)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    cx = i0[tid, 0] + off % nx[tid]
    cy = i0[tid, 1] + off // nx[tid]
    cid = cy * G + cx
    order = np.argsort(cid, kind="stable")
    cell_tri = tid[order]
    cell_start = np.searchsorted(cid[order], np.arange(G * G + 1))
    # points -> cells (points outside the grid cross nothing)
    q = (p[:, :2] - lo) / cell
    inside_grid = np.all((q >= 0) & (q <= G), axis=1)
    pidx = np.flatnonzero(inside_grid)
    pc = np.clip(q[pidx].astype(np.int64), 0, G - 1)
    pcell = pc[:, 1] * G + pc[:, 0]
    ncand = cell_start[pcell + 1] - cell_start[pcell]
    # canonical edge data per triangle: three directed edges A->B, B->C, C->A
    starts = (A, B, C)
    ends = (B, C, A)
    E = []
    for s, e in zip(starts, ends, strict=True):
        flip = (s[:, 0] > e[:, 0]) | ((s[:, 0] == e[:, 0]) & (s[:, 1] > e[:, 1]))
        P0 = np.where(flip[:, None], e[:, :2], s[:, :2])  # canonical start
        D = np.where(flip[:, None], s[:, :2] - e[:, :2], e[:, :2] - s[:, :2])
        d = e[:, :2] - s[:, :2]  # the triangle's own direction
        owns = (d[:, 1] < 0) | ((d[:, 1] == 0) & (d[:, 0] > 0))
        E.append((P0, D, np.where(flip, -1.0, 1.0), owns))
    counts = np.zeros(len(pidx), dtype=np.int64)
    # chunk over points so that candidate pairs stay bounded
    csum = np.cumsum(ncand)
    total = int(csum[-1]) if len(csum) else 0
    bounds = np.searchsorted(csum, np.arange(0, total, _PARITY_CHUNK_PAIRS), side="right")
    bounds = np.unique(np.concatenate([[0], bounds, [len(pidx)]]))
    for c0, c1 in itertools.pairwise(bounds):
        if c1 <= c0:
            continue
        nc = ncand[c0:c1]
        pi = np.repeat(np.arange(c0, c1), nc)
        if len(pi) == 0:
            continue
        first = np.repeat(cell_start[pcell[c0:c1]], nc)
        k = np.arange(len(pi)) - np.repeat(np.cumsum(nc) - nc, nc)
        t = cell_tri[first + k]
        pxy = p[pidx[pi], :2]
        ok = np.ones(len(pi), dtype=bool)
        w = []
        for P0, D, sgn, owns in E:
            r = pxy - P0[t]
            wc = D[t, 0] * r[:, 1] - D[t, 1] * r[:, 0]
            wi = sgn[t] * wc
            ok &= (wi > 0) | ((wi == 0) & owns[t])
            w.append(wi)
        # barycentric: weight of A is the function of edge B->C, etc.
        zh = (w[1] * A[t, 2] + w[2] * B[t, 2] + w[0] * C[t, 2]) / np.abs(area2[t])
        hit = ok & (zh > p[pidx[pi], 2])
        counts[c0:c1] += np.bincount(pi[hit] - c0, minlength=c1 - c0)
    out[pidx] = (counts % 2) == 1
    return out
