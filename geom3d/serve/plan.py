"""What the page draws: the table's bounds, the scenery's footprints, attacks' templates.

Plain data for the browser, lengths in mm, rounded like every JSON answer (0.001 mm).
A scenery piece is drawn as the convex hull of its vertices in plan with its lowest and
highest z (the page's plan fills it, shaded by height; its 3D view extrudes it): a
drawing, never used to decide anything. The table mesh (``table``, a scan) is left out:
its extent is the table's bounds.
"""

from __future__ import annotations

import numpy as np

from geom3d.core.output import round_point, round_value

__all__ = [
    "OPEN_TABLE_MARGIN_MM",
    "TABLE_ELEMENT",
    "attack_drawing",
    "attacks_list",
    "scenery_plan",
    "table_bounds",
]

#: The element name of a scenario's table mesh (:class:`geom3d.scene.scenery.SceneryMesh`).
TABLE_ELEMENT = "table"

#: A scenario with neither ``table.size`` nor scenery has no edge: its table is the
#: troopers' plan extent widened by this much on every side (mm).
OPEN_TABLE_MARGIN_MM = 600.0


def table_bounds(scene) -> list[float]:
    """``[x0, y0, x1, y1]`` (mm): ``table.size`` from the origin, else the scenery's plan
    extent, else the troopers' widened by :data:`OPEN_TABLE_MARGIN_MM`. A trooper may be
    moved only within these bounds."""
    size = scene.scenario.table_size
    if size:
        return [0.0, 0.0, float(size[0]), float(size[1])]
    if scene.scenery.n_triangles:
        used = scene.scenery.vertices[np.unique(scene.scenery.faces)]
        lo, hi = used[:, :2].min(axis=0), used[:, :2].max(axis=0)
        return [float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])]
    xy = np.array([t.position[:2] for t in scene.troopers.values()]).reshape(-1, 2)
    m = OPEN_TABLE_MARGIN_MM
    lo = xy.min(axis=0) - m if len(xy) else np.array([-m, -m])
    hi = xy.max(axis=0) + m if len(xy) else np.array([m, m])
    return [float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])]


def _hull_2d(points: np.ndarray) -> np.ndarray:
    """Convex hull of (n, 2) points, counter-clockwise (Andrew's monotone chain)."""
    pts = np.unique(points, axis=0)
    if len(pts) < 3:
        return pts

    def chain(seq):
        out: list = []
        for p in seq:
            while len(out) >= 2:
                (ox, oy), (ax, ay) = out[-2], out[-1]
                if (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox) > 0:
                    break
                out.pop()
            out.append((float(p[0]), float(p[1])))
        return out

    lower, upper = chain(pts), chain(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def scenery_plan(scene) -> list[dict]:
    """One entry per scenery piece but the table mesh, in element order: ``id``,
    ``blocks_lof``, ``outline`` ((k, 2) mm, the plan hull, counter-clockwise),
    ``z_min``, ``z_max`` (mm)."""
    mesh = scene.scenery
    if not mesh.n_triangles:
        return []
    order = np.argsort(mesh.element, kind="stable")
    elements, starts = np.unique(mesh.element[order], return_index=True)
    bounds = [*starts[1:], len(order)]
    out = []
    for el, lo, hi in zip(elements, starts, bounds, strict=True):
        name = mesh.names[int(el)]
        if name == TABLE_ELEMENT:
            continue
        tris = order[lo:hi]
        pts = mesh.vertices[np.unique(mesh.faces[tris])]
        out.append(
            {
                "id": name,
                "blocks_lof": bool(scene.blocking_mask[tris].any()),
                "outline": [round_point(p) for p in _hull_2d(pts[:, :2])],
                "z_min": round_value(float(pts[:, 2].min())),
                "z_max": round_value(float(pts[:, 2].max())),
            }
        )
    return out


def attacks_list(scene) -> list[dict]:
    """The scenario's attacks for the page's menu: ``id``, ``attacker``,
    ``main_target``, ``template`` (the ruleset name, or ``inline``), ``mode``."""
    return [
        {
            "id": a.id,
            "attacker": a.attacker,
            "main_target": a.main_target,
            "template": a.template_name or "inline",
            "mode": a.mode,
        }
        for a in scene.scenario.attacks
    ]


def attack_drawing(scene, entry: dict) -> list[dict]:
    """The templates of one ``geom3d attack`` JSON entry, in plan: one ``{outline}``
    ((k, 2) mm) per placement that has a focus (the shape at its focus and heading;
    the pitch is not drawn)."""
    from geom3d.templates.shapes import shape_from_spec

    if "placements" not in entry:
        return []
    shape = shape_from_spec(scene.attack(entry["id"]).template)
    out = []
    for p in entry["placements"]:
        if p.get("focus") is None:
            continue
        heading = p.get("heading_deg") or 0.0
        poly = shape.footprint(p["focus"][:2], heading, max_error_mm=0.5)
        out.append({"outline": [round_point(c) for c in list(poly.exterior.coords)[:-1]]})
    return out
