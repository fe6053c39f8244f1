"""Partial Cover from the geometry (SPEC 13.2; seed 000 names its +3 Saving Roll MOD).

A target is in **Partial Cover** against a shooter when

1. its **base** is within ``COVER_CONTACT_MM`` (1 mm) of a scenery element: horizontal
   segments from the base's axis outward to ``r + COVER_CONTACT_MM``, every
   ``COVER_RAY_DEG`` of bearing, at ``COVER_BASE_HEIGHTS`` between its underside and the
   top of its base (the ruleset's base height), hit that element (so a post thinner than
   the spacing at 1 mm can be missed); and
2. that element **hides part of the target's silhouette** from the shooter: from the
   shooter's best eye point (of its eye points facing the target, ``COVER_EYE_SPACING_MM``
   apart, the one that sees the most of the target past all scenery), some 3 x 3 mm
   patch of the target (a full 4 x 4 window of samples of a 1 mm lattice) is seen past
   every other element and hidden by this one. The share of the silhouette it hides is
   the hidden samples over those seen past every other element, from that eye.

The target's samples: a 1 mm lattice over the silhouette's vertical section through its
axis, square to the line of sight in plan (its apparent view from a level eye), inset
0.5 mm from its edges. Only scenery counts (troopers never give cover); a blocking
terrain zone (smoke) is an element like any piece, a zone that does not block Line of
Fire is not. Each element is tested on its own (its own ray engine, built once per
scene), and the first element in the scenery's order that gives cover is named.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

from geom3d.raycast import make_engine
from geom3d.visibility.eyes import eye_points

#: Partial Cover (SPEC 13.2, :mod:`geom3d.rules.infinity.cover`): an element within
#: COVER_CONTACT_MM of the base (rays every COVER_RAY_DEG at these shares of the base
#: height) that hides a patch of COVER_PATCH_SAMPLES x COVER_PATCH_SAMPLES samples
#: COVER_SAMPLE_MM apart (3 x 3 mm) from the shooter's best eye (eyes this far apart).
COVER_CONTACT_MM: float = 1.0
COVER_RAY_DEG: float = 2.0
COVER_BASE_HEIGHTS: tuple[float, ...] = (0.2, 0.5, 0.9)
COVER_SAMPLE_MM: float = 1.0
COVER_PATCH_SAMPLES: int = 4
COVER_EYE_SPACING_MM: float = 5.0

__all__ = ["Cover", "partial_cover", "touching_elements"]

#: Per scene: each element's ray engines (its own, the rest's) and each answer given.
_ENGINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Cover:
    """Partial Cover of one target against one shooter.

    Attributes
    ----------
    partial : bool
    element : str or None
        The element that gives it (or, without cover, the touching element examined
        first; None when nothing touches the base).
    touching : tuple of str
        Elements within ``COVER_CONTACT_MM`` of the base, scenery order.
    gap_mm : float or None
        ``element``'s distance from the base edge (0: touching or overlapping).
    hidden_share : float or None
        Share of the silhouette ``element`` hides from the shooter's best eye.
    """

    partial: bool
    element: str | None = None
    touching: tuple[str, ...] = ()
    gap_mm: float | None = None
    hidden_share: float | None = None

    def to_dict(self) -> dict:
        return {
            "partial": self.partial,
            "element": self.element,
            "touching": list(self.touching),
            "gap_mm": None if self.gap_mm is None else round(self.gap_mm, 3),
            "hidden_share": None if self.hidden_share is None else round(self.hidden_share, 4),
        }


def _engines(scene) -> dict:
    if scene not in _ENGINES:
        _ENGINES[scene] = {}
    return _ENGINES[scene]


def _split(scene, element: int):
    """(this element's engine, the other elements' engine or None) of the blocking mesh."""
    cache = _engines(scene)
    if element not in cache:
        b = scene.blocking
        mine = b.element == element
        one = make_engine(b.vertices, b.faces[mine])
        rest = make_engine(b.vertices, b.faces[~mine]) if (~mine).any() else None
        cache[element] = (one, rest)
    return cache[element]


def touching_elements(scene, target) -> list[tuple[int, float]]:
    """Elements within ``COVER_CONTACT_MM`` of ``target``'s base: ``[(element index, gap
    from the base edge in mm)]`` in scenery order."""
    b = scene.blocking
    if len(b.faces) == 0:
        return []
    x, y, z0 = (float(v) for v in target.position)
    r = float(target.radius)
    ang = np.radians(np.arange(0.0, 360.0, COVER_RAY_DEG))
    top = min(scene.ruleset.base_height, target.height)
    zs = [z0 + f * top for f in COVER_BASE_HEIGHTS]
    zz = np.repeat(np.asarray(zs, dtype=np.float64), len(ang))
    aa = np.tile(ang, len(zs))
    reach = r + COVER_CONTACT_MM
    origins = np.column_stack([np.full(len(zz), x), np.full(len(zz), y), zz])
    ends = np.column_stack([x + reach * np.cos(aa), y + reach * np.sin(aa), zz])
    dist, tri = scene.engine.first_hit(origins, ends)
    hit = tri >= 0
    found: dict[int, float] = {}
    for e, d in zip(b.element[tri[hit]].tolist(), dist[hit].tolist(), strict=True):
        found[e] = min(found.get(e, math.inf), max(0.0, d - r))
    return sorted(found.items())


def _samples(target, eye) -> tuple[np.ndarray, tuple[int, int]]:
    """The 1 mm lattice of the target's section square to the sight line from ``eye``:
    ((nu * nv, 3) points, (nu, nv))."""
    c = np.asarray(target.position, dtype=np.float64)
    d = c[:2] - np.asarray(eye[:2], dtype=np.float64)
    n = float(np.hypot(*d))
    side = np.array([1.0, 0.0]) if n < 1e-9 else np.array([-d[1], d[0]]) / n
    r, h, s = float(target.radius), float(target.height), COVER_SAMPLE_MM
    us = np.arange(-r + 0.5, r - 0.5 + 1e-9, s)
    vs = np.arange(0.5, h - 0.5 + 1e-9, s)
    U, V = np.meshgrid(us, vs, indexing="ij")
    pts = np.empty((U.size, 3))
    pts[:, 0] = c[0] + U.ravel() * side[0]
    pts[:, 1] = c[1] + U.ravel() * side[1]
    pts[:, 2] = c[2] + V.ravel()
    return pts, (len(us), len(vs))


def _has_patch(mask: np.ndarray) -> bool:
    """Whether a (nu, nv) boolean grid holds a full k x k window (k samples: 3 x 3 mm)."""
    k = COVER_PATCH_SAMPLES
    if mask.shape[0] < k or mask.shape[1] < k:
        return False
    c = np.zeros((mask.shape[0] + 1, mask.shape[1] + 1), dtype=np.int64)
    c[1:, 1:] = mask.astype(np.int64).cumsum(0).cumsum(1)
    win = c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]
    return bool((win == k * k).any())


def _hides(scene, shooter, target, element: int) -> tuple[bool, float]:
    """(hides a 3 x 3 mm patch, hidden share) of ``element`` from the shooter's best eye."""
    one, rest = _split(scene, element)
    eyes = eye_points(shooter.cylinder, target.cylinder, spacing=COVER_EYE_SPACING_MM)
    best = None
    for eye in eyes:
        pts, shape = _samples(target, eye)
        o = np.repeat(eye[None, :], len(pts), axis=0)
        by_rest = np.zeros(len(pts), dtype=bool) if rest is None else rest.occluded(o, pts)
        by_me = one.occluded(o, pts)
        past_rest = ~by_rest
        seen = int((past_rest & ~by_me).sum())
        key = (seen, int(past_rest.sum()))
        if best is None or key > best[0]:
            best = (key, past_rest, by_me, shape)
    assert best is not None  # eye_points always returns points
    _, past_rest, by_me, shape = best
    hidden = (past_rest & by_me).reshape(shape)
    n = int(past_rest.sum())
    share = float(hidden.sum()) / n if n else 0.0
    return _has_patch(hidden), share


def partial_cover(scene, shooter, target) -> Cover:
    """Whether ``target`` is in Partial Cover against ``shooter`` (module docstring).

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
    shooter, target : geom3d.scene.trooper.Trooper
        As they stand (a moving shooter at its firing point).

    Returns
    -------
    Cover
    """
    key = ("cover", shooter.id, tuple(shooter.position), shooter.height, target.id,
           tuple(target.position), target.height)  # fmt: skip
    cache = _engines(scene)
    if key not in cache:  # a plain attack's resolve and its odds ask the same question
        cache[key] = _partial_cover(scene, shooter, target)
    return cache[key]


def _partial_cover(scene, shooter, target) -> Cover:
    cache = _engines(scene)
    key = ("touching", tuple(target.position), target.radius, target.height)
    if key not in cache:  # the same for every shooter (a danger map's observers)
        cache[key] = touching_elements(scene, target)
    near = cache[key]
    names = scene.blocking.names
    touching = tuple(names[e] for e, _ in near)
    first = None
    for e, gap in near:
        hides, share = _hides(scene, shooter, target, e)
        if hides:
            return Cover(True, names[e], touching, gap, share)
        if first is None:
            first = Cover(False, names[e], touching, gap, share)
    return first or Cover(False)
