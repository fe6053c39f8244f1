"""Every numeric tolerance geom3d uses, in one place.

All lengths are millimetres, all angles degrees. Change a value here and the whole engine
follows; nothing else in the package hard-codes a tolerance.
"""

from __future__ import annotations

__all__ = [
    "APPARENT_CAP",
    "APPARENT_DEPTH_EPS_MM",
    "ARC_EPS_MM",
    "CHECK_NUMBER_TOL",
    "COINCIDENT_EPS_MM",
    "CONTACT_EPS_MM",
    "DROP_MAX_STEEP_FACES",
    "DROP_PROBE_HEIGHT_MM",
    "DROP_REFINE_MAX_MM",
    "DROP_STEEP_REL_EPS",
    "EYE_SPACING_MM",
    "FAR_OFF_TABLE_MM",
    "FOOTPRINT_MAX_ERROR_MM",
    "GEOM_EPS_MM",
    "GJK_BARYCENTRIC_EPS",
    "GJK_MAX_ITER",
    "GJK_TOL_MM",
    "GOLDEN_ITER",
    "MAX_BODY_MM",
    "MAX_COORD_MM",
    "PATCH_MM",
    "PENETRATION_TOL_MM",
    "PLACEMENT_TOL_MM",
    "RAY_EPS_MM",
    "RECTILINEAR_GRID_DECIMALS",
    "RIM_POINTS",
    "ROUTE_REFINE_MM",
    "ROUTE_SEARCH_TOL",
    "ROUTE_SLOPE_EPS",
    "ROUTE_STEP_MM",
    "ROUTE_TOUCH_STEP_MM",
    "SAMPLE_MM",
    "SCALE_BAR_REL_EPS",
    "SOLVER_CONTACT_FRACTIONS",
    "SOLVER_FINE_DEG",
    "SOLVER_GRID_DEG",
    "SOLVER_TIE_DECIMALS",
    "STAND_INSET_MM",
    "SURFACE_INSET_MM",
    "UPWARD_NORMAL_MIN_Z",
]

#: Side of the minimum visible patch (Infinity: "a minimum size of 3x3mm"), apparent size.
PATCH_MM: float = 3.0

#: Spacing of the fine sample grid in the target's apparent view. A patch counts when a
#: full window of ``PATCH_MM / SAMPLE_MM + 1`` samples a side (spanning the patch) is
#: unobstructed; the coarse pruning lattice has spacing ``PATCH_MM + SAMPLE_MM`` (see
#: :class:`geom3d.visibility.PatchLattice`, which derives both from the ruleset's patch
#: size). With 1 mm spacing a visible region containing a 4 x 4 mm square is always found
#: and one containing no 3 x 3 mm square never is (SPEC section 3.6).
SAMPLE_MM: float = 1.0

#: Spacing of eye points on the viewer's surface (arc length and height). Eye points are
#: samples of a continuous surface: a view that exists only from eye points that fall
#: between two samples may be missed. With 2 mm every gap at least 2 mm wide that lies
#: against the viewer has an eye point inside it.
EYE_SPACING_MM: float = 2.0

#: Route sampling: LoF along a route is checked every ``ROUTE_STEP_MM`` of travel, then the
#: first position with LoF is refined by bisection to ``ROUTE_REFINE_MM``.
ROUTE_STEP_MM: float = 10.0
ROUTE_REFINE_MM: float = 0.5

#: Pitched templates: a moving trooper's route is checked for contact every this many mm
#: of travel (level templates are checked exactly).
ROUTE_TOUCH_STEP_MM: float = 1.0

#: The apparent view of a target is sampled only within this many target sizes
#: (``max(diameter, height)``) of its centre, on each axis. An eye point touching the
#: target sees it under nearly 180 degrees and its apparent view is unbounded; sampling
#: a capped window can miss area but never reports any that is not there.
APPARENT_CAP: float = 4.0

#: Points sampled on each of a silhouette's two rims to bound its apparent outline. The
#: rim polygon under-covers the circle by at most ``radius * (1 - cos(pi / RIM_POINTS))``
#: (true size), which the apparent extent pads.
RIM_POINTS: int = 48

#: A point of a target at most this far in front of an eye point, along its line of
#: sight, counts as beside or behind the eye: its apparent position is unbounded, and
#: projections clamp its depth to this value.
APPARENT_DEPTH_EPS_MM: float = 1e-6

#: Sample points are inset this far from the base underside, so the surface a trooper
#: stands on does not block its own rays (SPEC section 3.7).
STAND_INSET_MM: float = 0.5

#: Eye points and target points are inset this far inside a silhouette's side and top,
#: so a segment starting on a trooper's own skin never clips a neighbour it touches.
SURFACE_INSET_MM: float = 0.01

#: A segment starts this far along its direction (and stops this far short of its end),
#: so one that starts or ends on a scenery surface does not hit that surface.
RAY_EPS_MM: float = 1e-3

#: Two bodies closer than this count as touching (silhouette contact, template contact).
CONTACT_EPS_MM: float = 1e-6

#: General geometric zero for lengths (degenerate triangles, zero-length directions).
GEOM_EPS_MM: float = 1e-9

#: Procedural scenery (``geom3d.terrain.rectilinear``): box coordinates are rounded to
#: this many decimals (1e-9 mm), so coordinates closer than that are one grid line.
RECTILINEAR_GRID_DECIMALS: int = 9

#: A placed template "passes through" a silhouette when it overlaps the silhouette shrunk
#: by this much (radius and both ends): overlap deeper than this is more than touching.
#: Computed tips lie on the base edge up to float rounding (~1e-13 mm).
PENETRATION_TOL_MM: float = CONTACT_EPS_MM

#: An explicitly given Blast Focus of a direct teardrop counts as touching the attacker's
#: silhouette when the template is within this distance of it (users type rounded
#: coordinates: 0.01 mm is far below anything a table can show).
PLACEMENT_TOL_MM: float = 0.01

#: A point exactly on the 180-degree arc line counts as inside when within this distance.
ARC_EPS_MM: float = 1e-6

#: Drop-to-surface casts a vertical ray down from this far above the scene's top.
DROP_PROBE_HEIGHT_MM: float = 1.0

#: A surface counts as "upward-facing" for drop-to-surface when its unit normal has at
#: least this z component (about 60 degrees from vertical at most).
UPWARD_NORMAL_MIN_Z: float = 0.5

#: A trooper farther than this outside the table's extent triggers a unit-mistake warning.
FAR_OFF_TABLE_MM: float = 5000.0


#: GJK (used only for the *distance* of a pitched volume, never for contact decisions)
#: stops once its upper and lower bounds on the distance are this close (mm).
GJK_TOL_MM: float = 1e-9

#: Iteration cap of GJK. Smooth bodies converge linearly; a few dozen iterations reach
#: ``GJK_TOL_MM`` on table-sized scenes.
GJK_MAX_ITER: int = 500

#: GJK's closest-point-on-simplex step accepts a face when every barycentric weight of
#: the origin's projection is at least ``-GJK_BARYCENTRIC_EPS`` (dimensionless).
GJK_BARYCENTRIC_EPS: float = 1e-12

#: Default step cap of the golden-section search (``geom3d.templates.minimize_convex``),
#: as used by the exact pitched-volume contact test: 0.618**160 ~ 1e-33 of the starting
#: bracket, far below the float resolution of any table.
GOLDEN_ITER: int = 160

#: Default bound on the gap between a footprint polygon and the exact shape (mm). The
#: polygon's vertices lie on the shape's circles, so it lies inside the shape, and no
#: boundary point of the shape is farther than this from it.
FOOTPRINT_MAX_ERROR_MM: float = 0.01

#: 40k solver (``heading_deg: auto``): coarse heading grid, then each grid interval across
#: which the set of models under the template (or touched friendlies) changes is
#: re-sampled at ``SOLVER_FINE_DEG``.
SOLVER_GRID_DEG: float = 1.0
SOLVER_FINE_DEG: float = 0.01

#: 40k solver: contact points tried per heading, as fractions of the largest admissible
#: offset between the contact angle and the heading (0 = the radial placement).
SOLVER_CONTACT_FRACTIONS: tuple[float, ...] = (0.0, -0.5, 0.5, -0.95, 0.95)

#: 40k solver: headings and contact offsets are compared for tie-breaking after rounding
#: to this many decimals of a degree (placements 1e-9 degrees apart are the same).
SOLVER_TIE_DECIMALS: int = 9

#: Two plan points closer than this have no direction between them: the heading from one
#: to the other is taken as 0 (mm).
COINCIDENT_EPS_MM: float = 1e-12

#: Route contact with a level template (``geom3d.rules.infinity.routes``), in units of the
#: route segment's parameter t in [0, 1]: a z rate of change below ``ROUTE_SLOPE_EPS``
#: counts as level; the golden-section search for the deepest touching point stops once
#: its bracket is ``ROUTE_SEARCH_TOL`` wide.
ROUTE_SLOPE_EPS: float = 1e-15
ROUTE_SEARCH_TOL: float = 1e-12

#: Drop-to-surface (``Scene.surface_z``): a face whose normal's z component is at most
#: ``DROP_STEEP_REL_EPS`` of the normal's length is vertical (no plane height to refine);
#: the float64 height on the hit face replaces Embree's float32 one when within
#: ``DROP_REFINE_MAX_MM`` of it; a probe steps through at most ``DROP_MAX_STEEP_FACES``
#: steep faces before giving up (0 = the table top).
DROP_STEEP_REL_EPS: float = 1e-12
DROP_REFINE_MAX_MM: float = 1e-2
DROP_MAX_STEEP_FACES: int = 64

#: ``geom3d check``: numbers in expectations match when within this (JSON output is
#: rounded to 1e-3 mm).
CHECK_NUMBER_TOL: float = 1e-3

#: Viewer (diagram scale bar): relative slack when a round length is compared with the
#: length it must not exceed, and the smallest length (file units) it looks for.
SCALE_BAR_REL_EPS: float = 1e-9

#: Largest coordinate a scenario may use (10 km from the origin). Anything beyond is a
#: unit slip or a typo, and sampling a route or a view that large would not finish.
MAX_COORD_MM: float = 1e7

#: Largest size of a single body: a silhouette's diameter or height, a box's side, a
#: template's length (5 m). Real pieces are far smaller; bigger is a unit slip.
MAX_BODY_MM: float = 5000.0
