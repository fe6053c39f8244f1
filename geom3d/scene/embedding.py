"""Embedded troopers (SPEC 11.2): scenery cutting into a trooper's volume, or a trooper
standing inside a solid.

A trooper is *embedded* when one of a few horizontal and vertical segments inside its
cylinder (inset by ``STAND_INSET_MM``) meets scenery (a wall or an overhang), or when an
odd number of a solid piece's counted faces lie above its centre (the ``solid: auto``
parity rule; :func:`crossing_faces` says which faces count). The scene turns each reason
into a warning (:mod:`geom3d.scene.placed`).
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.core.tolerances import STAND_INSET_MM
from geom3d.scene.tolerances import PARITY_MAX_CROSSINGS

__all__ = ["crossing_faces", "embedded_reasons"]

#: Step (mm) past a crossing before the parity probe continues.
_PARITY_STEP_MM = 1e-3


def _crossing_parity(engine, element, counted, mids: np.ndarray, n_el: int) -> np.ndarray:
    """(k, n_el) bool: odd number of ``counted`` faces of each element above each point."""
    odd = np.zeros((len(mids), n_el), dtype=bool)
    if not len(mids) or engine.n_triangles == 0:
        return odd
    top = engine.bounds[1, 2] + 1.0
    start = np.array(mids, dtype=np.float64)
    pending = np.arange(len(mids))
    for _ in range(PARITY_MAX_CROSSINGS):
        pending = pending[start[pending, 2] < top]
        if not len(pending):
            break
        ends = start[pending].copy()
        ends[:, 2] = top
        dist, tri = engine.first_hit(start[pending], ends)
        hit = tri >= 0
        pending, dist, tri = pending[hit], dist[hit], tri[hit]
        keep = counted[tri]
        odd[pending[keep], element[tri[keep]]] ^= True
        start[pending, 2] += dist + _PARITY_STEP_MM
    return odd


def crossing_faces(blocking, closing, solid_of_element) -> np.ndarray:
    """The faces :func:`embedded_reasons` counts when it tells inside from outside by
    crossings: the solids' own faces and the caps over their holes (not the vertical
    curtains, nor anything of a ``surface`` piece). Depends on the scenery only.

    Returns
    -------
    (blocking.n_triangles,) bool
    """
    counted = ~np.asarray(closing, bool)
    if counted.size and not counted.all():  # caps over holes count; curtains are vertical
        t = blocking.vertices[blocking.faces[~counted]]
        nz = (t[:, 1, 0] - t[:, 0, 0]) * (t[:, 2, 1] - t[:, 0, 1]) - (t[:, 1, 1] - t[:, 0, 1]) * (
            t[:, 2, 0] - t[:, 0, 0]
        )
        counted[np.flatnonzero(~counted)[nz != 0.0]] = True
    solid_el = np.array([s != "surface" for s in solid_of_element] or [False], bool)
    counted &= solid_el[blocking.element] if len(blocking.element) else counted
    return counted


def embedded_reasons(troopers, engine, blocking, closing, solid_of_element, counted=None) -> list:
    """Why each trooper is embedded in scenery, or None.

    Parameters
    ----------
    troopers : list of Trooper
    engine : RayBackend
        BVH over ``blocking`` (closing faces included).
    blocking : geom3d.scene.scenery.SceneryMesh
    closing : (blocking.n_triangles,) bool
        Closing faces. Caps over holes (SPEC 12.1) count as crossings like the scan's
        own faces; curtains (vertical) never do, and floors lie under the table.
    solid_of_element : tuple of str
        ``solid`` of each element; ``surface`` pieces enclose nothing.
    counted : (blocking.n_triangles,) bool, optional
        :func:`crossing_faces` of the same arguments, when the caller keeps it (made
        here otherwise).

    Returns
    -------
    list of (str or None)
    """
    out: list = [None] * len(troopers)
    if engine.n_triangles == 0 or not troopers:
        return out
    angles = np.radians(np.arange(0, 180, 22.5))
    o, e, owner, mids, mid_owner = [], [], [], [], []
    for k, t in enumerate(troopers):
        c = t.cylinder
        r = c.radius - STAND_INSET_MM
        z0, z1 = c.base[2] + STAND_INSET_MM, c.top_z - STAND_INSET_MM
        if r <= 0 or z1 <= z0:
            continue
        bx, by = c.base[0], c.base[1]
        for z in np.linspace(z0, z1, 4):
            for a in angles:
                dx, dy = r * math.cos(a), r * math.sin(a)
                o.append((bx - dx, by - dy, z))
                e.append((bx + dx, by + dy, z))
                owner.append(k)
        for a in angles:
            dx, dy = 0.7 * r * math.cos(a), 0.7 * r * math.sin(a)
            o.append((bx + dx, by + dy, z0))
            e.append((bx + dx, by + dy, z1))
            owner.append(k)
        mids.append((bx, by, 0.5 * (z0 + z1)))
        mid_owner.append(k)
    names = blocking.names
    if o:
        _, tri = engine.first_hit(np.array(o), np.array(e))
        for k, f in zip(owner, tri, strict=True):
            if f >= 0 and out[k] is None:
                name = names[int(blocking.element[f])]
                out[k] = f"scenery {name!r} cuts into its volume (a wall or an overhang)"
    if counted is None:
        counted = crossing_faces(blocking, closing, solid_of_element)
    odd = _crossing_parity(engine, blocking.element, counted, np.array(mids), len(names))
    for row, k in enumerate(mid_owner):
        inside = np.flatnonzero(odd[row])
        if out[k] is None and len(inside):
            out[k] = f"it stands inside the solid {names[int(inside[0])]!r}"
    return out
