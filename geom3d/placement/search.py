"""Exact search over direct-template placements touching a base (SPEC 11.4, 11.5).

A direct template touches a base of centre ``C`` and radius ``R``: its narrow end (the
Blast Focus) is the edge point at angle ``phi = theta + delta`` and its axis points along
``theta``; ``|delta| <= dmax`` keeps it out of the base (:func:`geom3d.placement.direct.
max_contact_offset_deg`). A model (a disc ``[x, y, r]``) is under the template when its
plan distance to the shape is at most ``r`` (touching counts): the model's centre lies in
the shape grown by ``r``, the hull of two discs whose boundary is two circular arcs and
two straight sides. Which models are under the template is therefore a step function of
``(theta, delta)`` that changes only on the *event curves* where a model's centre lies on
that boundary.

The search is exact (no grid): every cell of the arrangement of event curves is visited.

* Headings ``theta`` are cut into slabs by the *critical headings*: where two event
  curves cross (both models tangent at once: a polynomial of degree 8 in
  ``tan(theta / 2)`` per pair of boundary pieces, solved with companion matrices), where
  a curve turns back in ``delta`` (closed form), and where a curve meets the limits
  ``delta = +-dmax`` (closed form). Inside a slab no two crossings change order, so every
  cell meeting the slab meets the slab's middle heading.
* On each slab's middle heading the contact offset ``delta`` is cut exactly at the
  models' crossings (closed form: a circle meets arcs and lines) and the placement is
  evaluated between consecutive crossings (each cell once per slab). A point on a single
  event curve is never better than the cell on its inside (touching counts, so that cell
  covers the model too) and a friendly model touched there makes it illegal; only where
  two curves meet (a vertex) or a curve meets an offset limit can a single point beat
  every cell around it, and those points are evaluated themselves.

Every evaluation uses the engine's plan test (signed distance <= r + eps), so a returned
placement is as legal as the engine judges it. Angles are radians inside this module.
Units: millimetres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.placement.tolerances import SEARCH_ANGLE_EPS, SEARCH_ROOT_IMAG_TOL
from geom3d.templates import CircleShape, TemplateShape

__all__ = ["Candidates", "radial_sweep", "rotation_sweep", "search_placements"]

TWO_PI = 2.0 * math.pi
_CHUNK = 16384


@dataclass(frozen=True)
class Candidates:
    """Evaluated placements.

    Attributes
    ----------
    theta, delta : (P,) float, radians
        Heading and contact offset (contact angle = theta + delta).
    hit : (P, N) bool
        Model j under the template at placement i.
    interior : (P,) bool
        The placement lies inside a cell (not on an event curve).
    events : int
        Critical headings found (slab boundaries).
    """

    theta: np.ndarray
    delta: np.ndarray
    hit: np.ndarray
    interior: np.ndarray
    events: int


class _Pieces:
    """Boundary pieces of the shape grown by each model's radius."""

    def __init__(self, shape: TemplateShape, rm: np.ndarray) -> None:
        a0, r0, a1, r1 = shape._discs
        single = isinstance(shape, CircleShape) or (a1 - a0) <= (r1 - r0) + 1e-9
        self.cx = np.array([a1] if single else [a0, a1])  # circle centres on the axis
        base_r = np.array([r1] if single else [r0, r1])
        self.cr = base_r[None, :] + rm[:, None]  # (N, c)
        if single:
            self.ln = np.zeros((0, 2))
            self.lk = np.zeros((len(rm), 0))
        else:
            sa = (r1 - r0) / (a1 - a0)
            ca = math.sqrt(max(0.0, 1.0 - sa * sa))
            self.ln = np.array([[-sa, ca], [-sa, -ca]])  # outward normals of the sides
            k = -a0 * sa + r0 + rm
            self.lk = np.column_stack((k, k))  # (N, 2)


def _pair(base, val):
    """Both angles ``base +- acos(val)`` ((..., 2)), NaN where ``|val| > 1``."""
    val = np.where(np.abs(val) <= 1.0 + 1e-12, np.clip(val, -1.0, 1.0), np.nan)
    a = np.arccos(val)
    return np.stack((base + a, base - a), axis=-1)


def _wrap(a):
    """Angles to [-pi, pi) (NaN stays NaN)."""
    return a - TWO_PI * np.floor((a + math.pi) / TWO_PI)


def _delta_crossings(pc: _Pieces, X, R, theta) -> np.ndarray:
    """(S, N, k) contact offsets where a model crosses the boundary at fixed headings."""
    c, s = np.cos(theta)[:, None], np.sin(theta)[:, None]
    qx = X[None, :, 0] * c + X[None, :, 1] * s
    qy = -X[None, :, 0] * s + X[None, :, 1] * c
    out = []
    for j, ox in enumerate(pc.cx):
        wx = qx - ox
        w = np.hypot(wx, qy)
        rho = pc.cr[None, :, j]
        val = (w * w + R * R - rho * rho) / (2.0 * R * np.maximum(w, 1e-300))
        out.append(_pair(np.arctan2(qy, wx), val))
    for j, n in enumerate(pc.ln):
        nq = n[0] * qx + n[1] * qy
        out.append(_pair(math.atan2(n[1], n[0]), (nq - pc.lk[None, :, j]) / R))
    return _wrap(np.concatenate(out, axis=-1))


def _fixed_delta_thetas(pc: _Pieces, X, R, delta: float) -> np.ndarray:
    """(N, k) headings where a model crosses the boundary at a fixed contact offset."""
    d = np.hypot(X[:, 0], X[:, 1])
    beta = np.arctan2(X[:, 1], X[:, 0])
    zx, zy = -R * math.cos(delta), -R * math.sin(delta)
    out = []
    for j, ox in enumerate(pc.cx):
        vx, vy = zx - ox, zy
        v = math.hypot(vx, vy)
        rho = pc.cr[:, j]
        if v < 1e-12:
            continue
        val = (rho * rho - v * v - d * d) / (2.0 * d * v)
        out.append(beta[:, None] - _pair(math.atan2(vy, vx), val))
    for j, n in enumerate(pc.ln):
        nz = n[0] * zx + n[1] * zy
        val = (pc.lk[:, j] - nz) / d
        out.append(beta[:, None] - _pair(np.full_like(d, math.atan2(n[1], n[0])), val))
    return np.concatenate(out, axis=-1) % TWO_PI if out else np.zeros((len(d), 0))


def _turning_thetas(pc: _Pieces, X, R) -> np.ndarray:
    """Headings where an event curve turns back in delta (tangent to a slice)."""
    d = np.hypot(X[:, 0], X[:, 1])
    beta = np.arctan2(X[:, 1], X[:, 0])
    out = []
    for j, ox in enumerate(pc.cx):
        if abs(ox) < 1e-12:
            continue
        for sgn in (1.0, -1.0):
            rr = R + sgn * pc.cr[:, j]
            val = (d * d + ox * ox - rr * rr) / (2.0 * d * ox)
            out.append(beta[:, None] - _pair(np.zeros_like(d), val))
    for j, n in enumerate(pc.ln):
        nu = math.atan2(n[1], n[0])
        for sgn in (1.0, -1.0):
            val = (pc.lk[:, j] + sgn * R) / d
            out.append(beta[:, None] - nu - _pair(np.zeros_like(d), val))
    return np.concatenate(out, axis=-1).ravel() % TWO_PI if out else np.zeros(0)


def _forms(pc: _Pieces, X, R):
    """Per (model, piece): the equation ``alpha + a.p + b.q + p^T M q = 0`` of tangency,
    ``p`` = (cos, sin) of the contact angle, ``q`` = (cos, sin) of the heading."""
    rows = []  # (model index, alpha, ax, ay, bx, by, M00, M01, M10, M11)
    n = len(X)
    aa = (X * X).sum(1)
    for j, ox in enumerate(pc.cx):
        rho = pc.cr[:, j]
        alpha = aa + R * R + ox * ox - rho * rho
        m = 2.0 * R * ox
        z = np.zeros(n)
        rows.append(
            np.column_stack(
                (
                    np.arange(n),
                    alpha,
                    -2 * R * X[:, 0],
                    -2 * R * X[:, 1],
                    -2 * ox * X[:, 0],
                    -2 * ox * X[:, 1],
                    z + m,
                    z,
                    z,
                    z + m,
                )
            )
        )
    for j, (nx, ny) in enumerate(pc.ln):
        # G = [[nx, -ny], [ny, nx]]: b = G^T A, M = -R G
        z = np.zeros(n)
        rows.append(
            np.column_stack(
                (
                    np.arange(n),
                    -pc.lk[:, j],
                    z,
                    z,
                    nx * X[:, 0] + ny * X[:, 1],
                    -ny * X[:, 0] + nx * X[:, 1],
                    z - R * nx,
                    z + R * ny,
                    z - R * ny,
                    z - R * nx,
                )
            )
        )
    return np.vstack(rows)  # fmt: skip


def _piece_reachable(pc: _Pieces, X, R) -> np.ndarray:
    """Rows of :func:`_forms` whose piece a model can be tangent to at all: a model on
    the arc of centre ``ox`` and radius ``rho`` is ``|ox| - rho .. |ox| + rho`` from the
    focus, itself ``R`` from the base centre (lines: always kept)."""
    d = np.hypot(X[:, 0], X[:, 1])
    keep = []
    for j, ox in enumerate(pc.cx):
        rho = pc.cr[:, j]
        keep.append((d <= R + abs(ox) + rho + 1.0) & (d >= abs(ox) - rho - R - 1.0))
    for _ in pc.ln:
        keep.append(np.ones(len(d), dtype=bool))
    return np.concatenate(keep)


def _half_angle(e0, ec, es):
    """(1 + t^2)(e0 + ec cos + es sin) as [t^2, t, 1] coefficients, t = tan(theta / 2)."""
    return np.stack((e0 - ec, 2.0 * es, e0 + ec), axis=-1)


def _pmul(a, b):
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1))
    for i in range(a.shape[1]):
        out[:, i : i + b.shape[1]] += a[:, i : i + 1] * b
    return out


def _crossing_thetas(pc: _Pieces, X, R, dmax: float, reach: float):
    """Headings where two event curves cross inside ``|delta| <= dmax``.

    Returns
    -------
    cuts : (k,) float, radians
        Every such heading (and headings where the two equations degenerate).
    theta, delta : (m,) float, radians
        The crossing points themselves (the vertices of the arrangement).
    """
    f = _forms(pc, X, R)
    idx = f[:, 0].astype(int)
    f = f[_piece_reachable(pc, X, R)]
    idx = f[:, 0].astype(int)
    i1, i2 = np.triu_indices(len(f), 1)
    keep = idx[i1] != idx[i2]
    gap = np.hypot(*(X[idx[i1]] - X[idx[i2]]).T)
    keep &= gap <= reach
    i1, i2 = i1[keep], i2[keep]
    if len(i1) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    f1, f2 = f[i1], f[i2]

    def forms(g):
        lx = _half_angle(g[:, 2], g[:, 6], g[:, 7])
        ly = _half_angle(g[:, 3], g[:, 8], g[:, 9])
        r = _half_angle(-g[:, 1], -g[:, 4], -g[:, 5])
        return lx, ly, r

    l1x, l1y, r1 = forms(f1)
    l2x, l2y, r2 = forms(f2)
    det = _pmul(l1x, l2y) - _pmul(l1y, l2x)
    nx = _pmul(r1, l2y) - _pmul(r2, l1y)
    ny = _pmul(l1x, r2) - _pmul(l2x, r1)
    poly = _pmul(nx, nx) + _pmul(ny, ny) - _pmul(det, det)  # (K, 9), highest first
    scale = np.abs(poly).max(axis=1)
    ok = scale > 0
    poly, det, nx, ny = poly[ok], det[ok], nx[ok], ny[ok]
    poly = poly / scale[ok][:, None]
    roots = []
    owner = []
    full = np.abs(poly[:, 0]) > 1e-9
    if full.any():
        p = poly[full]
        comp = np.zeros((len(p), 8, 8))
        comp[:, 0, :] = -p[:, 1:] / p[:, :1]
        comp[:, np.arange(1, 8), np.arange(7)] = 1.0
        ev = np.linalg.eigvals(comp)
        roots.append(ev.ravel())
        owner.append(np.repeat(np.flatnonzero(full), 8))
    for k in np.flatnonzero(~full):
        r = np.roots(np.trim_zeros(poly[k], "f"))
        roots.append(r)
        owner.append(np.full(len(r), k))
    if not roots:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    t = np.concatenate(roots)
    own = np.concatenate(owner)
    real = np.abs(t.imag) <= SEARCH_ROOT_IMAG_TOL * (1.0 + np.abs(t))
    t, own = t.real[real], own[real]
    th = 2.0 * np.arctan(t)

    def peval(c):
        v = np.zeros(len(t))
        for j in range(c.shape[1]):
            v = v * t + c[own, j]
        return v

    dv, xv, yv = peval(det), peval(nx), peval(ny)
    phi = np.arctan2(yv * np.sign(dv), xv * np.sign(dv))
    delta = _wrap(phi - th)
    small = np.abs(dv) <= 1e-9 * (np.abs(xv) + np.abs(yv) + 1.0)
    keep = small | (np.abs(delta) <= dmax + SEARCH_ANGLE_EPS)
    pts = ~small & keep
    return th[keep] % TWO_PI, th[pts] % TWO_PI, np.clip(delta[pts], -dmax, dmax)


def _circular_sorted(a: np.ndarray) -> np.ndarray:
    a = np.sort(np.asarray(a) % TWO_PI)
    if len(a) == 0:
        return a
    keep = np.concatenate(([True], np.diff(a) > SEARCH_ANGLE_EPS))
    return a[keep]


def _with_midpoints(cuts: np.ndarray):
    """Circular cuts -> (angles, is_midpoint): each cut and the middle of each gap."""
    if len(cuts) == 0:
        return np.array([0.0]), np.array([True])
    nxt = np.roll(cuts, -1)
    gap = (nxt - cuts) % TWO_PI
    gap[gap == 0] = TWO_PI
    mids = (cuts + 0.5 * gap) % TWO_PI
    ang = np.empty(2 * len(cuts))
    ang[0::2], ang[1::2] = cuts, mids
    mid = np.zeros(2 * len(cuts), dtype=bool)
    mid[1::2] = True
    return ang, mid


def evaluate(shape: TemplateShape, center, R, discs, theta, delta, eps=CONTACT_EPS_MM):
    """(P, N) bool: which discs are under the template at each (theta, delta) (radians)."""
    theta = np.asarray(theta, dtype=np.float64)
    delta = np.asarray(delta, dtype=np.float64)
    out = np.zeros((len(theta), len(discs)), dtype=bool)
    if len(discs) == 0:
        return out
    for lo in range(0, len(theta), _CHUNK):
        th = theta[lo : lo + _CHUNK, None]
        ph = th + delta[lo : lo + _CHUNK, None]
        fx = center[0] + R * np.cos(ph)
        fy = center[1] + R * np.sin(ph)
        dx = discs[None, :, 0] - fx
        dy = discs[None, :, 1] - fy
        c, s = np.cos(th), np.sin(th)
        sd = shape.signed_distance_xy(c * dx + s * dy, -s * dx + c * dy)
        out[lo : lo + _CHUNK] = sd <= discs[None, :, 2] + eps
    return out


def _prepare(shape, center_xy, radius, discs):
    c = np.asarray(center_xy, dtype=np.float64)[:2]
    d = np.asarray(discs, dtype=np.float64).reshape(-1, 3)
    a0, r0, a1, r1 = shape._discs
    far = max(a0 + r0, a1 + r1)
    X = d[:, :2] - c
    near = np.hypot(X[:, 0], X[:, 1]) <= radius + far + d[:, 2] + 1.0
    return c, d, X, near, far


def search_placements(shape, center_xy, radius, discs, dmax_deg: float) -> Candidates:
    """Every cell of the placement arrangement, evaluated (see the module docstring).

    Parameters
    ----------
    shape : TeardropShape or CircleShape
    center_xy : (2,) float, mm
        Centre of the base the narrow end touches.
    radius : float, mm
    discs : (N, 3) float, mm
        ``[x, y, r]`` of every model that matters (targets and models to avoid).
    dmax_deg : float
        Largest contact offset (0: radial placements only).

    Returns
    -------
    Candidates
    """
    c, d, X, near, far = _prepare(shape, center_xy, radius, discs)
    R = float(radius)
    dmax = math.radians(dmax_deg)
    pc = _Pieces(shape, d[near, 2])
    Xn = X[near]
    if dmax <= 0.0:
        cuts = _circular_sorted(_fixed_delta_thetas(pc, Xn, R, 0.0).ravel())
        cuts = cuts[np.isfinite(cuts)]
        th, mid = _with_midpoints(cuts)
        hit = evaluate(shape, c, R, d, th, np.zeros_like(th))
        return Candidates(th, np.zeros_like(th), hit, mid, len(cuts))
    crit = [np.array([0.0, math.pi])]
    vt, vd = [], []  # single points: vertices, and curves meeting the offset limits
    for lim in (-dmax, dmax):
        t3 = _fixed_delta_thetas(pc, Xn, R, lim).ravel()
        t3 = t3[np.isfinite(t3)]
        crit.append(t3)
        vt.append(t3)
        vd.append(np.full(len(t3), lim))
    crit.append(_turning_thetas(pc, Xn, R))
    reach = far + 2.0 * float(d[:, 2].max(initial=0.0)) + 1.0
    cuts1, t1, d1 = _crossing_thetas(pc, Xn, R, dmax, reach)
    crit.append(cuts1)
    vt.append(t1)
    vd.append(d1)
    allc = np.concatenate(crit)
    cuts = _circular_sorted(allc[np.isfinite(allc)])
    # slab middles: every cell of the arrangement meets the middle heading of each slab
    # it reaches (inside a slab no two crossings change order); on it, the cells are cut
    # at the crossings and evaluated in their middles. A crossing point itself is
    # dominated by the cell on its inside (or touches a model to avoid), except where two
    # curves meet (a vertex) or a curve meets an offset limit: those single points are
    # evaluated themselves.
    th, slab_mid = _with_midpoints(cuts)
    th = th[slab_mid]
    dl = _delta_crossings(pc, Xn, R, th).reshape(len(th), -1)
    dl = np.where(np.abs(dl) <= dmax, dl, np.nan)
    fixed = np.tile([-dmax, 0.0, dmax], (len(th), 1))
    dl = np.sort(np.concatenate((dl, fixed), axis=1), axis=1)  # NaN last
    mids = 0.5 * (dl[:, 1:] + dl[:, :-1])
    okm = np.isfinite(mids)
    pt, pd = np.concatenate(vt), np.concatenate(vd)
    theta = np.concatenate((pt, np.repeat(th, okm.sum(1))))
    delta = np.concatenate((pd, mids[okm]))
    interior = np.concatenate((np.zeros(len(pt), bool), np.ones(int(okm.sum()), bool)))
    hit = evaluate(shape, c, R, d, theta, delta)
    return Candidates(theta % TWO_PI, delta, hit, interior, len(cuts))


def radial_sweep(shape, center_xy, radius, discs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact sweep of the radial placements (contact angle = heading).

    Returns
    -------
    theta : (P,) float, radians, increasing in [0, 2 pi)
    hit : (P, N) bool
    is_mid : (P,) bool
        Between two crossings (inside a cell of the radial line).
    """
    c, d, X, near, _ = _prepare(shape, center_xy, radius, discs)
    pc = _Pieces(shape, d[near, 2])
    raw = _fixed_delta_thetas(pc, X[near], float(radius), 0.0).ravel()
    cuts = _circular_sorted(raw[np.isfinite(raw)])
    th, mid = _with_midpoints(cuts)
    order = np.argsort(th, kind="stable")
    th, mid = th[order], mid[order]
    return th, evaluate(shape, c, float(radius), d, th, np.zeros_like(th)), mid


def rotation_sweep(shape, center_xy, radius, discs, phi: float, dmax: float, include=()):
    """Exact sweep of the headings about a fixed contact point ``phi`` (radians).

    Headings ``theta`` in ``[phi - dmax, phi + dmax]``, plus the headings ``include``.

    Returns
    -------
    theta : (P,) float, radians, increasing
    hit : (P, N) bool
    is_cut : (P,) bool
        The sample is a crossing (or a limit of the range), not inside a cell.
    """
    c, d, _, _, _ = _prepare(shape, center_xy, radius, discs)
    R = float(radius)
    f = c + R * np.array([math.cos(phi), math.sin(phi)])
    pc = _Pieces(shape, d[:, 2])
    P = d[:, :2] - f
    e = np.maximum(np.hypot(P[:, 0], P[:, 1]), 1e-300)
    bf = np.arctan2(P[:, 1], P[:, 0])
    out = []
    for j, ox in enumerate(pc.cx):
        if abs(ox) < 1e-12:
            continue
        rho = pc.cr[:, j]
        out.append(
            bf[:, None] - _pair(np.zeros_like(e), (e * e + ox * ox - rho * rho) / (2 * e * ox))
        )
    for j, n in enumerate(pc.ln):
        nu = math.atan2(n[1], n[0])
        out.append(bf[:, None] - _pair(np.full_like(e, nu), pc.lk[:, j] / e))
    raw = np.concatenate(out, axis=-1).ravel() if out else np.zeros(0)
    raw = raw[np.isfinite(raw)]
    rel = _wrap(raw - phi)
    cuts = np.unique(np.concatenate((rel[np.abs(rel) <= dmax], [-dmax, dmax])))
    mids = 0.5 * (cuts[1:] + cuts[:-1])
    extra = _wrap(np.asarray(include, dtype=np.float64) - phi)
    extra = extra[np.abs(extra) <= dmax]
    th = np.concatenate((cuts, mids, extra))
    is_cut = np.concatenate((np.ones(len(cuts), bool), np.zeros(len(mids) + len(extra), bool)))
    order = np.argsort(th, kind="stable")
    th, is_cut = th[order] + phi, is_cut[order]
    return th, evaluate(shape, c, R, d, th, phi - th), is_cut
