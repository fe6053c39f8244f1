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
    "COARSE_MM",
    "COARSE_STEP_SAMPLES",
    "CONTACT_EPS_MM",
    "DROP_PROBE_HEIGHT_MM",
    "EYE_SPACING_MM",
    "FAR_OFF_TABLE_MM",
    "FOOTPRINT_MAX_ERROR_MM",
    "GEOM_EPS_MM",
    "GJK_MAX_ITER",
    "GJK_TOL_MM",
    "GOLDEN_ITER",
    "MAX_BODY_MM",
    "MAX_COORD_MM",
    "PATCH_MM",
    "PATCH_SAMPLES",
    "PENETRATION_TOL_MM",
    "PLACEMENT_TOL_MM",
    "RAY_EPS_MM",
    "RIM_POINTS",
    "ROUTE_REFINE_MM",
    "ROUTE_STEP_MM",
    "ROUTE_TOUCH_STEP_MM",
    "SAMPLE_MM",
    "SOLVER_CONTACT_FRACTIONS",
    "SOLVER_FINE_DEG",
    "SOLVER_GRID_DEG",
    "STAND_INSET_MM",
    "SURFACE_INSET_MM",
    "UPWARD_NORMAL_MIN_Z",
]

#: Side of the minimum visible patch (Infinity: "a minimum size of 3x3mm"), apparent size.
PATCH_MM: float = 3.0

#: Spacing of the fine sample grid in the target's apparent view. A patch counts when a
#: full window of ``PATCH_SAMPLES`` x ``PATCH_SAMPLES`` samples (spanning ``PATCH_MM``) is
#: unobstructed. With 1 mm spacing a visible region containing a 4 x 4 mm square is always
#: found and one containing no 3 x 3 mm square never is (SPEC section 3.6).
SAMPLE_MM: float = 1.0

#: Samples along one side of a patch window: PATCH_MM / SAMPLE_MM + 1.
PATCH_SAMPLES: int = round(PATCH_MM / SAMPLE_MM) + 1

#: Spacing of the coarse pruning grid in the target's apparent view. Every closed square
#: of side ``PATCH_MM + SAMPLE_MM`` (the size that must always be found) contains a point of
#: this lattice, so an eye point that sees none of its points sees no such region and is
#: skipped without a fine search. Exact pruning, not a heuristic.
COARSE_MM: float = PATCH_MM + SAMPLE_MM

#: Fine samples per coarse step: COARSE_MM / SAMPLE_MM.
COARSE_STEP_SAMPLES: int = round(COARSE_MM / SAMPLE_MM)

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

#: The golden-section search of the exact pitched-volume contact test runs this many
#: iterations: 0.618**160 ~ 1e-33 of the starting bracket, far below the float
#: resolution of any table.
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

#: ``geom3d check``: numbers in expectations match when within this (JSON output is
#: rounded to 1e-3 mm).
CHECK_NUMBER_TOL: float = 1e-3

#: Largest coordinate a scenario may use (10 km from the origin). Anything beyond is a
#: unit slip or a typo, and sampling a route or a view that large would not finish.
MAX_COORD_MM: float = 1e7

#: Largest size of a single body: a silhouette's diameter or height, a box's side, a
#: template's length (5 m). Real pieces are far smaller; bigger is a unit slip.
MAX_BODY_MM: float = 5000.0
