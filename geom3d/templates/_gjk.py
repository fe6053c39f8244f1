"""GJK distance between a template volume and a silhouette cylinder (private).

Gilbert-Johnson-Keerthi on the Minkowski difference of two convex bodies with exact support
functions, with certified upper and lower bounds. Used only for the *distance* of a pitched
volume (:func:`geom3d.templates.volume_cylinder_distance`), never for contact decisions.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import NamedTuple

import numpy as np

from geom3d.bodies.cylinder import Cylinder
from geom3d.templates.tolerances import GJK_BARYCENTRIC_EPS, GJK_MAX_ITER, GJK_TOL_MM
from geom3d.templates.volume import TemplateVolume

__all__ = ["Gjk", "gjk"]


class Gjk(NamedTuple):
    """Bounds and witness points of a GJK run (mm)."""

    upper: float  # |v|: distance between two actual points of the bodies (>= true dist)
    lower: float  # certified lower bound on the true distance
    point_volume: np.ndarray  # (3,) point of the volume realising ``upper``
    point_cylinder: np.ndarray  # (3,) point of the cylinder realising ``upper``


def gjk(volume: TemplateVolume, cyl: Cylinder) -> Gjk:
    """GJK distance between the volume and the cylinder, with certified bounds.

    Works on the Minkowski difference ``V - C``; each simplex vertex remembers the pair
    of body points it came from, so the final barycentric weights give a point of each
    body. Stops when the upper bound ``|v|`` is <= ``GJK_TOL_MM``, the bounds agree
    within ``GJK_TOL_MM``, no new support point appears, or after ``GJK_MAX_ITER``
    iterations.
    """
    a = volume.centroid_point()
    b = cyl.center
    verts = [a - b]
    pa = [a]
    pb = [b]
    lam = np.ones(1)
    v = verts[0]
    lower = 0.0
    for _ in range(GJK_MAX_ITER):
        nv = float(np.linalg.norm(v))
        if nv <= GJK_TOL_MM:
            break
        sa = volume.support_unchecked(-v)
        sb = _cylinder_support(cyl, v)
        w = sa - sb
        lower = max(lower, float(v @ w) / nv)
        if nv - lower <= GJK_TOL_MM:
            break
        if any(np.array_equal(w, q) for q in verts):
            break  # no new support point: converged to floating-point precision
        verts.append(w)
        pa.append(sa)
        pb.append(sb)
        v, idx, lam = _closest_on_simplex(np.asarray(verts))
        verts = [verts[i] for i in idx]
        pa = [pa[i] for i in idx]
        pb = [pb[i] for i in idx]
        if len(verts) == 4 and float(v @ v) <= GJK_TOL_MM**2:
            v = np.zeros(3)
    point_a = lam @ np.asarray(pa)
    point_b = lam @ np.asarray(pb)
    upper = float(np.linalg.norm(v))
    return Gjk(upper, min(lower, upper), point_a, point_b)


def _cylinder_support(cyl: Cylinder, d: np.ndarray) -> np.ndarray:
    """(3,) float, mm: a point of the cylinder maximising ``p · d``."""
    b = cyl.base_array
    n = math.hypot(d[0], d[1])
    if n > 0.0:
        b[0] += cyl.radius * d[0] / n
        b[1] += cyl.radius * d[1] / n
    if d[2] > 0.0:
        b[2] += cyl.height
    return b


def _closest_on_simplex(P: np.ndarray):
    """Point of the convex hull of ``P`` ((k, 3), k <= 4) nearest the origin.

    Tries every face (subset of vertices); a face's candidate is the projection of the
    origin onto its affine hull when its barycentric coordinates are all >= 0. The
    nearest candidate wins (the true nearest point lies in the relative interior of
    some face, so it is among them). Returns ``(point, indices, weights)``.
    """
    k = len(P)
    best = None
    for size in range(1, k + 1):
        for idx in combinations(range(k), size):
            Q = P[list(idx)]
            if size == 1:
                lam = np.ones(1)
            else:
                D = Q[1:] - Q[0]
                mu, _, rank, _ = np.linalg.lstsq(D.T, -Q[0], rcond=None)
                if rank < size - 1:
                    continue  # degenerate face; its lower-dimensional faces cover it
                lam = np.concatenate(([1.0 - mu.sum()], mu))
                if lam.min() < -GJK_BARYCENTRIC_EPS:
                    continue
                lam = np.clip(lam, 0.0, None)
                lam /= lam.sum()
            x = lam @ Q
            d2 = float(x @ x)
            if best is None or d2 < best[0]:
                best = (d2, x, idx, lam)
    assert best is not None
    return best[1], list(best[2]), best[3]
