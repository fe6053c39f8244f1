"""The ``scenery`` layer: table top, blocking scenery shaded by height, the rest faint."""

from __future__ import annotations

import numpy as np

from viewer import palette as pal
from viewer import shapes as sh
from viewer.model import ActorSpec, LegendEntry
from viewer.wording import length

__all__ = ["CLOSING_FACES", "EDGE_TRIANGLE_LIMIT", "scenery_actors", "scenery_legend"]

#: Scenery meshes above this many triangles are drawn without feature edges (too costly
#: to extract and unreadable at that density anyway).
EDGE_TRIANGLE_LIMIT = 200_000
#: Faces added by closing open scans into solids (``scene.closing_mask``): sky blue,
#: translucent, so they never pass for the scan's own surface.
CLOSING_FACES = pal.OKABE_ITO["sky_blue"]


def scenery_actors(scene) -> list[ActorSpec]:
    """Table top, blocking scenery (coloured by height, with edges), non-blocking scenery,
    and the faces added to close scans into solids (``scene.closing_mask``) in
    :data:`CLOSING_FACES`.

    Blocking scenery is shaded by the lights *and* coloured by height (per vertex, along
    :data:`viewer.palette.SCENERY_RAMP`), so the plan view shows heights the way a relief
    map does and walls darken towards their tops; feature edges (> 30°) outline every
    piece.
    """
    out: list[ActorSpec] = []
    size = scene.scenario.table_size
    if size:
        w, h = size
        v = np.array([[0, 0, -0.2], [w, 0, -0.2], [w, h, -0.2], [0, h, -0.2]], dtype=float)
        table = sh.faces_mesh(v, [(0, 1, 2), (0, 2, 3)])
        out.append(ActorSpec("table", "scenery", table, pal.TABLE))
        out.append(
            ActorSpec(
                "table-edge",
                "scenery",
                sh.polyline(v + np.array([0, 0, 0.1]), closed=True),
                pal.SCENERY_EDGE,
                line_width=1.5,
                lighting=False,
            )
        )
    mesh = scene.scenery
    if mesh.n_triangles == 0:
        return out
    blocking = scene.blocking_mask
    # faces added to close open scans (and the table) into solids: their own colour
    closing = np.asarray(scene.closing_mask, dtype=bool)
    lo, hi = float(mesh.vertices[:, 2].min()), float(mesh.vertices[:, 2].max())
    lo = min(lo, 0.0)
    # a table mesh (a scanned table, a DEM) is terrain: smooth-shaded, no feature edges
    # (a DEM's height steps would draw as stripes of edges across the whole plan)
    terrain = np.zeros(len(mesh.faces), dtype=bool)
    if scene.scenario.table_mesh is not None and "table" in mesh.names:
        terrain = mesh.element == mesh.names.index("table")
    for name, mask, color, opacity in (
        ("terrain", blocking & terrain & ~closing, None, 1.0),
        ("scenery", blocking & ~terrain & ~closing, None, 1.0),
        ("scenery-nonblocking", ~blocking & ~closing, pal.SCENERY_NONBLOCKING, 0.45),
        ("scenery-closing", closing, CLOSING_FACES, 0.6),
    ):
        if not mask.any():
            continue
        n = int(mask.sum())
        edges_wanted = n <= EDGE_TRIANGLE_LIMIT and name != "terrain"
        poly = sh.faces_mesh(mesh.vertices, mesh.faces[mask])
        if edges_wanted:  # shared vertices, so feature edges follow the real outline
            merged = poly.clean()
            if merged.n_cells == n:  # clean() may drop degenerate triangles: keep all
                poly = merged
        if color is None:
            poly.point_data["rgb"] = sh.ramp_rgb(
                np.asarray(poly.points)[:, 2], lo, hi, pal.SCENERY_RAMP
            )
            out.append(
                ActorSpec(name, "scenery", poly, None, opacity, rgb="rgb", smooth=name == "terrain")
            )
        else:
            out.append(ActorSpec(name, "scenery", poly, color, opacity))
        if edges_wanted:
            edges = poly.extract_feature_edges(
                feature_angle=30.0,
                boundary_edges=True,
                non_manifold_edges=True,
                manifold_edges=False,
            )
            if edges.n_cells:
                out.append(
                    ActorSpec(
                        f"{name}-edges",
                        "scenery",
                        edges,
                        pal.SCENERY_EDGE,
                        line_width=1.2,
                        lighting=False,
                    )
                )
    return out


def scenery_legend(scene) -> list[LegendEntry]:
    """Legend rows of the scenery: blocking (shaded by height) and non-blocking pieces."""
    if not scene.scenery.n_triangles:
        return []
    blocking = scene.blocking_mask
    out = []
    top = float(scene.scenery.vertices[:, 2].max())
    if scene.scenario.table_mesh is not None:  # terrain: the ramp reads as heights
        out.append(LegendEntry(f"terrain and scenery (darker: higher, to {length(scene, top, 0)})",
                               pal.SCENERY_RAMP[1]))  # fmt: skip
    elif blocking.any():
        out.append(
            LegendEntry(
                f"scenery (darker: taller, to {length(scene, top, 0)})", pal.SCENERY_RAMP[1]
            )
        )
    if not blocking.all():
        out.append(LegendEntry("scenery, no LoF block", pal.SCENERY_NONBLOCKING))
    if np.any(scene.closing_mask):
        out.append(LegendEntry("closed underside (added)", CLOSING_FACES))
    return out
