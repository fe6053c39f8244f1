"""What a survey's visibility says: sees counts, lanes, zones, distance bands, health.

* ``sees`` of a position: how many other positions it sees (visibility is symmetric, so it
  is also how many see it).
* A *lane* is a visible pair; lanes are ranked by the 3D distance between the two base
  centres, longest first (ties: lower indices first).
* A zone (``zones: [{id, rect}]`` in the scenario) holds the positions whose base centre
  lies in its rectangle (edges included). ``sees_share``: the share of the positions
  outside the zone that at least one zone position sees (how much of the table the zone
  sees); ``seen_share``: the share of the zone's positions that at least one position
  outside the zone sees (how exposed the zone is). Both are 0 when either side is empty.
* Distance bands: visible pairs / all pairs by horizontal distance, in bands of 8 inches
  for files in inches and 200 mm otherwise.
* Health, most serious first: unit slips (a table or piece whose size disagrees with its
  declared units); holes under grid points, enclosed spots (SPEC 13.1), grid points where
  no probe stands; then one finding per piece (open or multi-part meshes, how it was
  closed and placed), the same fact said once, pieces with a warning first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geom3d.core.messages import severity_of
from geom3d.core.units import LENGTH_UNITS, MESH_UNITS
from geom3d.mesh import used_vertices
from geom3d.scene.scene import Scene
from geom3d.survey.grid import ProbeGrid
from geom3d.survey.limits import SURVEY_SCENERY_MAX_RATIO, SURVEY_TABLE_RANGE_MM

__all__ = [
    "Lane",
    "ZoneShare",
    "band_width_mm",
    "distance_bands",
    "health_warnings",
    "lanes",
    "sees_counts",
    "zone_shares",
]

#: Examples listed in one health warning (grid points, in file units).
_EXAMPLES = 5


@dataclass(frozen=True)
class Lane:
    """A visible pair: position indices ``a < b`` and their distance (mm)."""

    a: int
    b: int
    distance: float


@dataclass(frozen=True)
class ZoneShare:
    """A zone's coverage (see module docstring); ``n`` positions in the zone."""

    id: str
    n: int
    sees_share: float
    seen_share: float


def sees_counts(n: int, ii: np.ndarray, jj: np.ndarray, vis: np.ndarray) -> np.ndarray:
    """(n,) int64: how many positions each position sees."""
    return np.bincount(ii[vis], minlength=n) + np.bincount(jj[vis], minlength=n)


def lanes(positions: np.ndarray, ii, jj, vis, count: int) -> list[Lane]:
    """The ``count`` longest lanes, longest first."""
    a, b = ii[vis], jj[vis]
    if not len(a):
        return []
    d = np.linalg.norm(positions[a] - positions[b], axis=1)
    order = np.lexsort((b, a, -d))[:count]
    return [Lane(int(a[k]), int(b[k]), float(d[k])) for k in order]


def zone_shares(scene: Scene, positions: np.ndarray, ii, jj, vis) -> list[ZoneShare]:
    """Shares of every scenario zone, in file order."""
    n = len(positions)
    out = []
    for zid, (x0, y0, x1, y1) in getattr(scene.scenario, "zones", ()):
        x, y = positions[:, 0], positions[:, 1]
        inz = (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
        # pairs that cross the zone's border: one end in, one out
        cross = vis & (inz[ii] != inz[jj])
        outside_seen = np.zeros(n, dtype=bool)  # outside positions some zone position sees
        zone_seen = np.zeros(n, dtype=bool)  # zone positions some outside position sees
        for p, q in ((ii[cross], jj[cross]), (jj[cross], ii[cross])):
            zone_seen[p[inz[p]]] = True
            outside_seen[q[inz[p]]] = True
        n_in, n_out = int(inz.sum()), int((~inz).sum())
        sees = outside_seen.sum() / n_out if n_in and n_out else 0.0
        seen = zone_seen.sum() / n_in if n_in and n_out else 0.0
        out.append(ZoneShare(zid, n_in, float(sees), float(seen)))
    return out


def band_width_mm(units: str) -> float:
    """Width of one distance band: 8 in for files in inches, else 200 mm."""
    return 8 * LENGTH_UNITS["in"] if units == "in" else 200.0


def distance_bands(positions: np.ndarray, ii, jj, vis, width: float) -> list[tuple]:
    """``(lo_mm, hi_mm, pairs, visible)`` per band of horizontal distance (empty bands out)."""
    if not len(ii):
        return []
    d = np.linalg.norm(positions[ii, :2] - positions[jj, :2], axis=1)
    band = np.floor(d / width).astype(np.int64)
    total = np.bincount(band)
    seen = np.bincount(band[vis], minlength=len(total))
    return [
        (k * width, (k + 1) * width, int(total[k]), int(seen[k]))
        for k in range(len(total))
        if total[k]
    ]


def _fmt(mm: float, units: str) -> str:
    return f"{mm / LENGTH_UNITS[units]:.4g} {units}"


def _better_unit(size_mm: float, declared: str, target_mm: float) -> str | None:
    """The mesh unit that brings ``size_mm`` (read as ``declared``) nearest ``target_mm``."""
    raw = size_mm / LENGTH_UNITS[declared]
    best = min(MESH_UNITS, key=lambda u: abs(math.log(raw * LENGTH_UNITS[u] / target_mm)))
    return None if best == declared else best


def _extent(v: np.ndarray) -> float:
    return float(np.max(v[:, :2].max(axis=0) - v[:, :2].min(axis=0))) if len(v) else 0.0


def _element_extent(scene: Scene, name: str) -> float:
    """Longer horizontal side (mm) of a scenery element's own faces (not closing faces)."""
    mesh = scene.scenery
    own = mesh.element == mesh.names.index(name)
    closing = getattr(scene, "closing_mask", None)
    if closing is not None and len(closing) == len(own):
        own &= ~closing
    return _extent(mesh.vertices[used_vertices(len(mesh.vertices), mesh.faces[own])])


def _unit_warnings(scene: Scene) -> list[str]:
    scn = scene.scenario
    units = scn.units
    lo, hi = SURVEY_TABLE_RANGE_MM
    mesh = scene.scenery
    out = []
    ref = max(scn.table_size) if scn.table_size else None
    if ref is not None and not lo <= ref <= hi:
        out.append(
            f"table.size is {_fmt(ref, 'mm')} on its longer side, outside a plausible "
            f"{_fmt(lo, 'mm')}..{_fmt(hi, 'mm')}: are the file's units ({units}) right?"
        )
    if scn.table_mesh is not None and "table" in mesh.names:
        size = _element_extent(scene, "table")
        declared = scn.table_mesh_units
        target = ref if ref is not None else 0.5 * (lo + hi)
        wrong = (size > 3 * ref or size < ref / 3) if ref is not None else not lo <= size <= hi
        if wrong and size > 0:
            better = _better_unit(size, declared, target)
            as_better = size / LENGTH_UNITS[declared] * LENGTH_UNITS[better] if better else 0
            hint = f"; as {better} it would span {_fmt(as_better, 'mm')}" if better else ""
            against = (
                f"table.size is {_fmt(ref, 'mm')}" if ref is not None else "no table is that size"
            )
            out.append(
                f"table mesh declared in {declared} spans {_fmt(size, 'mm')} but {against}{hint}"
            )
        ref = size if ref is None and not wrong else ref
    if ref is None:
        return out
    for it in scn.scenery:
        if it.mesh_path is None or it.id not in mesh.names:
            continue
        size = _element_extent(scene, it.id)
        if size <= 0:
            continue
        big = size > SURVEY_SCENERY_MAX_RATIO * ref
        tiny = size < ref / 500.0
        if big or tiny:
            raw = size / max(float(np.max(np.atleast_1d(it.scale))), 1e-300)
            better = _better_unit(raw, it.mesh_units, ref / 8.0)
            as_better = raw / LENGTH_UNITS[it.mesh_units] * LENGTH_UNITS[better] if better else 0
            hint = f"; as {better} it would be {_fmt(as_better, 'mm')}" if better else ""
            what = "larger than" if big else "tiny next to"
            out.append(
                f"scenery {it.id!r} (mesh_units: {it.mesh_units}) is {_fmt(size, 'mm')} across, "
                f"{what} the {_fmt(ref, 'mm')} table{hint}"
            )
    return out


def _mesh_warnings(scene: Scene) -> list[str]:
    """One finding per piece, its facts joined, most serious first.

    A piece's facts come from how it was loaded, placed and closed (its report's
    messages) and from its mesh report (open boundary edges, separate parts); the same fact
    said twice ("3 separate parts" and "3 separate bodies") is said once. Pieces with a
    warning (a likely mistake) come first, then those with the most facts, then by name.
    """
    facts: dict[str, list[str]] = {}
    serious: dict[str, bool] = {}

    def add(name: str, text: str, severity: str) -> None:
        got = facts.setdefault(name, [])
        if text not in got:
            got.append(text)
        serious[name] = serious.get(name, False) or severity == "warning"

    for piece in getattr(scene, "pieces", ()):  # how scans were closed and placed
        for m in piece.messages:
            add(piece.id, str(m), severity_of(m))
    for name, rep in getattr(scene, "mesh_reports", ()):
        said = " ".join(facts.get(name, ()))
        known = "boundary edges" in said or "closed" in said  # (its load or closing says it)
        if getattr(rep, "n_open_edges", 0) and not known:
            add(name, f"open surface ({rep.n_open_edges} boundary edges)", "note")
        bodies = getattr(rep, "n_bodies", 1)
        if bodies > 1 and f"{bodies} separate" not in said:
            add(name, f"{bodies} separate parts (floating or loose pieces?)", "note")
    order = sorted(facts, key=lambda n: (not serious[n], -len(facts[n]), n))
    return [f"{name}: {'; '.join(facts[name])}" for name in order]


def _points(xy: np.ndarray, units: str) -> str:
    k = LENGTH_UNITS[units]
    shown = ", ".join(f"({x / k:.4g}, {y / k:.4g})" for x, y in xy[:_EXAMPLES])
    more = f" and {len(xy) - _EXAMPLES} more" if len(xy) > _EXAMPLES else ""
    return f"{shown}{more} {units}"


def enclosed_line(grid: ProbeGrid, units: str) -> str:
    """How many spots were dropped as enclosed (SPEC 13.1), by which pieces, and where."""
    by = ", ".join(f"{name!r} {n}" for name, n in grid.enclosed_by)
    return (
        f"{len(grid.enclosed)} spots enclosed (inside a solid or a sealed cavity, no way in "
        f"from the open air; not standable): in {by}; at "
        f"{_points(grid.enclosed[:, :2], units)}"
    )


def health_warnings(scene: Scene, grid: ProbeGrid) -> list[str]:
    """Health findings (see module docstring), in a fixed order."""
    units = scene.scenario.units
    out = _unit_warnings(scene)
    if grid.hole.any():
        out.append(
            f"{int(grid.hole.sum())} grid points over holes in the table mesh: "
            f"{_points(grid.grid_xy[grid.hole], units)}"
        )
    if len(grid.enclosed):
        out.append(enclosed_line(grid, units))
    bad = grid.no_stand & ~grid.hole
    if bad.any():
        out.append(
            f"{int(bad.sum())} of {len(grid.grid_xy)} grid points where no probe can stand: "
            f"{_points(grid.grid_xy[bad], units)}"
        )
    return out + _mesh_warnings(scene)
