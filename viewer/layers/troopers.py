"""The ``silhouettes`` layer: trooper cylinders, facing marks, routes, labels, highlights."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pyvista as pv

from geom3d.scene.vehicles import hull_solid
from viewer import palette as pal
from viewer import shapes as sh
from viewer.model import ActorSpec, Label

__all__ = [
    "SILHOUETTE_OPACITY",
    "halo_geometry",
    "highlight_actors",
    "side_colors",
    "trooper_actors",
]

#: Opacity of silhouette cylinders (the rear half of the top cap uses it too).
SILHOUETTE_OPACITY = 0.45


def side_colors(scene) -> dict[str, str]:
    """Colour of each side, in the order the sides first appear among the troopers."""
    return pal.side_colors(t.side for t in scene.troopers.values())


def _label_anchor(t) -> tuple[float, float, float]:
    x, y, z = t.position
    d = 0.75 * t.radius
    return (x + d, y + d, z + t.height + 2.0)


def trooper_actors(
    scene,
    *,
    faint: Iterable[str] = (),
    hidden: Iterable[str] = (),
    label_suffix: dict | None = None,
) -> tuple[list[ActorSpec], list[Label]]:
    """Silhouette cylinders coloured by side, facing marks, routes, id labels.

    Per trooper: a translucent mantle; the top cap split along the arc boundary, front
    half nearly opaque and rear half translucent (the facing arc, as printed on bases);
    a black line across the base along the 180° arc boundary, a tick pointing along the
    facing; a black outline of the base. Markers are fainter; 360° troopers get a full
    opaque cap. ``faint`` troopers are drawn at low opacity; ``hidden`` ones (the camera's
    own in a ``from:`` view) keep only their base outline and facing marks. A 40k
    vehicle's hull is drawn around its cylinder, translucent, in its side's colour.
    """
    colors = side_colors(scene)
    faint = set(faint)
    hidden = set(hidden)
    suffix = label_suffix or {}
    actors: list[ActorSpec] = []
    labels: list[Label] = []
    for t in scene.troopers.values():
        c = np.array(t.position, dtype=float)
        r, h = t.radius, t.height
        color = colors[t.side]
        op = 0.2 if (t.id in faint or t.is_marker) else SILHOUETTE_OPACITY
        meta = {"trooper": t.id}
        z1 = c[2] + h
        body = t.id not in hidden
        f = math.radians(t.facing_deg)
        front_op = op if t.id in faint else min(1.0, op + 0.45)
        if body and t.vehicle is not None:  # 40k: the hull, the vehicle's body
            hv, hf = hull_solid(t.vehicle)
            cells = np.column_stack((np.full(len(hf), 3), hf)).ravel()
            actors.append(
                ActorSpec(f"trooper:{t.id}:hull", "silhouettes", pv.PolyData(hv, cells), color,
                          op, meta=meta)
            )  # fmt: skip
        if body:
            mantle = sh.mantle(c, r, c[2], z1)
            actors.append(
                ActorSpec(
                    f"trooper:{t.id}", "silhouettes", mantle, color, op, smooth=True, meta=meta
                )
            )
            if t.has_360:
                cap = sh.fan(c, r, z1, 0.0, 2 * math.pi, 72)
                actors.append(
                    ActorSpec(f"trooper:{t.id}:cap", "silhouettes", cap, color, front_op, meta=meta)
                )
            else:
                front = sh.fan(c, r, z1, f - math.pi / 2, f + math.pi / 2)
                rear = sh.fan(c, r, z1, f + math.pi / 2, f + 3 * math.pi / 2)
                actors.append(
                    ActorSpec(
                        f"trooper:{t.id}:front", "silhouettes", front, color, front_op, meta=meta
                    )
                )
                actors.append(
                    ActorSpec(f"trooper:{t.id}:rear", "silhouettes", rear, color, op, meta=meta)
                )
        if not t.has_360:
            ux, uy = math.cos(f), math.sin(f)
            px, py = -uy, ux
            zl = (z1 if body else c[2]) + 0.3
            arc = sh.segments(
                [[c[0] - 1.25 * r * px, c[1] - 1.25 * r * py, zl], [c[0], c[1], zl]],
                [
                    [c[0] + 1.25 * r * px, c[1] + 1.25 * r * py, zl],
                    [c[0] + r * ux, c[1] + r * uy, zl],
                ],
            )
            actors.append(
                ActorSpec(
                    f"trooper:{t.id}:arc",
                    "silhouettes",
                    arc,
                    pal.TEXT,
                    line_width=2.0,
                    lighting=False,
                    meta=meta,
                )
            )
        rims = pv.merge([sh.circle(c, r, c[2] + 0.3), sh.circle(c, r, z1 + 0.2)])
        actors.append(
            ActorSpec(
                f"trooper:{t.id}:outline",
                "silhouettes",
                rims,
                pal.TEXT,
                line_width=1.2,
                lighting=False,
                meta=meta,
            )
        )
        if t.route is not None and len(t.route) > 1:
            pts = np.array(t.route, dtype=float) + np.array([0, 0, 0.5])
            actors.append(
                ActorSpec(
                    f"trooper:{t.id}:route",
                    "silhouettes",
                    pv.merge([sh.polyline(pts), sh.spheres(pts, 1.5)]),
                    color,
                    line_width=2.0,
                    lighting=False,
                )
            )
        if not body:
            continue
        text = t.id
        if t.is_marker:
            text += " (marker)"
        elif t.is_prone:
            text += " (prone)"
        text += suffix.get(t.id, "")
        labels.append(Label("silhouettes", _label_anchor(t), text, trooper=t.id))
    return actors, labels


def halo_geometry(t) -> tuple[float, float, float]:
    """Inner radius, outer radius and z of an affected trooper's ring (mm)."""
    r = t.radius
    return r + max(1.0, 0.1 * r), r + max(5.0, 0.4 * r), t.position[2] + t.height + 0.6


def highlight_actors(
    scene, affected: Iterable[str] = (), excluded: dict | None = None
) -> tuple[list[ActorSpec], list[Label]]:
    """Rings around affected troopers; crosses and reason labels on excluded ones.

    The ring is flat, unlit (exact :data:`viewer.palette.AFFECTED` colour) and lies just
    above the silhouette's top; its radii are :func:`halo_geometry`. An excluded trooper
    gets a black cross over its top and a label with the reason.
    """
    actors: list[ActorSpec] = []
    labels: list[Label] = []
    for tid in affected:
        t = scene.trooper(tid)
        r0, r1, z = halo_geometry(t)
        actors.append(
            ActorSpec(
                f"affected:{tid}",
                "silhouettes",
                sh.ring(t.position, r0, r1, z),
                pal.AFFECTED,
                lighting=False,
                meta={"trooper": tid},
            )
        )
    for tid, reason in (excluded or {}).items():
        if reason == "attacker":  # labelled "(attacker)" already; a cross would mislead
            continue
        t = scene.trooper(tid)
        x, y, z = t.position
        zt = z + t.height + 0.8
        d = 0.9 * t.radius
        cross = sh.segments(
            [[x - d, y - d, zt], [x - d, y + d, zt]], [[x + d, y + d, zt], [x + d, y - d, zt]]
        )
        actors.append(
            ActorSpec(
                f"excluded:{tid}",
                "silhouettes",
                cross,
                pal.EXCLUDED,
                line_width=4.0,
                lighting=False,
                meta={"trooper": tid, "reason": reason},
            )
        )
        labels.append(
            Label(
                "silhouettes",
                (x + 0.75 * t.radius, y - 0.9 * t.radius, zt + 1.0),
                f"not affected: {str(reason).replace('_', ' ')}",
            )
        )
    return actors, labels
