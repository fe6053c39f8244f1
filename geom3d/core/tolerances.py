"""Every numeric tolerance geom3d uses, in one place.

All lengths are millimetres, all angles degrees. Change a value here and the whole engine
follows; nothing else in the package hard-codes a tolerance.
"""

from __future__ import annotations

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
#: Scenario limits on a route: at most ``MAX_ROUTE_POINTS`` positions and
#: ``MAX_ROUTE_TRAVEL_MM`` of travel (100,000 samples at ``ROUTE_STEP_MM``, each a Line of
#: Fire or a template test; a real move is a few hundred mm).
MAX_ROUTE_POINTS: int = 10_000
MAX_ROUTE_TRAVEL_MM: float = 1_000_000.0
#: Scenario limit on the Line of Fire work routes cost (SPEC 13.4): the sum over the
#: troopers with a route of its travel (mm) times the other troopers, each of which it is
#: scanned against every ``ROUTE_WINDOW_STEP_MM``. Measured (issue 44): one route scan
#: costs about ``ROUTE_SCAN_S_PER_MM_TROOPER`` per mm of route per other trooper (1.1 to
#: 1.3 ms on a loaded 2-core machine, routes of 0.5 and 2 m past a row of walls, 1 and 4
#: other troopers), so the cap is about two minutes of scanning: a real move of 300 mm
#: past 300 troopers, or a 10 m route past 10. A 1 km route within the two limits above
#: ran 600 s and 3 GB without an answer.
MAX_ROUTE_MM_TROOPERS: float = 100_000.0
ROUTE_SCAN_S_PER_MM_TROOPER: float = 1.2e-3
ROUTE_REFINE_MM: float = 0.5
#: Line of Fire windows along a route (SPEC 12.5: "1 mm resolution") are found from a
#: sample every ``ROUTE_WINDOW_STEP_MM`` of travel, each edge then bisected to
#: ``ROUTE_REFINE_MM``. At 10 mm (the templates' route step) a 40-trooper table's
#: 388 mm route missed windows 0.5 to 8 mm wide (a sniper's lane through a gap) and
#: reported one 8.7 mm window over positions without Line of Fire; so every millimetre is
#: asked (about 3 times the time of the 10 mm scan on that table).
ROUTE_WINDOW_STEP_MM: float = 1.0

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
#: (true size), which the apparent extent pads. The answer does not depend on it: lattice
#: points in the pad miss the target. Every eye of a batch projects all the points, so
#: fewer cost less (16: a pad of 2 % of the radius, a third of 48's projections).
RIM_POINTS: int = 16

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

#: 40k: largest angle between a teardrop's heading and its contact direction. Ruling A1
#: (SPEC 12.6): the template may lie over the firer's own base (004 forbids touching
#: *other* friendly models), so every heading is admissible at every contact point.
WH40K_MAX_CONTACT_OFFSET_DEG: float = 180.0

#: Troopers declared ``engaged_with`` each other are in silhouette contact when their bases
#: are within this distance (SPEC 12.6: users write diagonal contacts to 0.01 mm); further
#: apart, loading warns with the pair and the gap.
ENGAGED_CONTACT_MM: float = 0.01

#: General geometric zero for lengths (degenerate triangles, zero-length directions).
GEOM_EPS_MM: float = 1e-9

#: Procedural scenery (``geom3d.terrain.rectilinear``): box coordinates are rounded to
#: this many decimals (1e-9 mm), so coordinates closer than that are one grid line.
RECTILINEAR_GRID_DECIMALS: int = 9

#: The one contact tolerance of placements (ruling 13.3): a Blast Focus given in the file
#: touches the attacker's silhouette when the template is within this distance of it, and
#: a template "passes through" a silhouette only when it cuts in deeper than this. Users
#: (and geom3d's own printed answers) type rounded coordinates: 0.01 mm is far below
#: anything a table can show, and one value for both keeps a printed placement valid.
PLACEMENT_TOL_MM: float = 0.01

#: A placed template "passes through" a silhouette when it overlaps the silhouette shrunk
#: by this much (radius and both ends): the same tolerance as touching (13.3). Computed
#: placements (a pitched template slid out) are still solved to ``CONTACT_EPS_MM``.
PENETRATION_TOL_MM: float = PLACEMENT_TOL_MM

#: A point exactly on the 180-degree arc line counts as inside when within this distance.
ARC_EPS_MM: float = 1e-6

#: Drop-to-surface casts a vertical ray down from this far above the scene's top.
DROP_PROBE_HEIGHT_MM: float = 1.0

#: A surface counts as "upward-facing" for drop-to-surface when its unit normal has at
#: least this z component (about 60 degrees from vertical at most).
UPWARD_NORMAL_MIN_Z: float = 0.5

#: A trooper farther than this outside the table's extent triggers a unit-mistake warning.
FAR_OFF_TABLE_MM: float = 5000.0

#: Survey (``geom3d survey``): a probe tolerates terrain this far above its resting height
#: under its base (between the sampled points) before the ground counts as blocking it.
SURVEY_FOOT_MM: float = 2.0
#: Survey: standing heights at one grid point closer than this are one level.
SURVEY_LEVEL_MERGE_MM: float = 1.0
#: Survey: at most this many surfaces are followed down under one grid point.
SURVEY_MAX_LAYERS: int = 64
#: Survey health: a table (mesh or size) whose longer side is outside this range, or a
#: scenery mesh longer than ``SURVEY_SCENERY_MAX_RATIO`` times the table, is a unit slip.
SURVEY_TABLE_RANGE_MM: tuple[float, float] = (200.0, 5000.0)
SURVEY_SCENERY_MAX_RATIO: float = 1.5
#: Survey input limit: at most this many grid points (a 5 m table at a 10 mm grid).
SURVEY_MAX_GRID_POINTS: int = 250_000
#: Survey input limit: at most this many pairs of positions (what costs time and memory:
#: 10 M pairs is about 4,470 positions, a 1.2 m table at an 18 mm grid; hours of CPU).
SURVEY_MAX_PAIRS: int = 10_000_000
#: Survey on a Dask cluster: no chunk of pairs finished for this long (s) means a stalled
#: worker (one without a nanny is never restarted): the survey stops, saying so.
SURVEY_STALL_S: float = 600.0
#: Survey memory estimate per pair (bytes) for messages: the pair's indices and answer
#: (17 B) and, when it is visible, its entry in the report (a list of two ints, ~100 B).
SURVEY_BYTES_PER_PAIR: int = 120


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

#: Placement search (``heading_deg: auto``, :mod:`geom3d.placement.search`): critical
#: headings closer than this (radians) are merged; a polynomial root whose imaginary part
#: is below this fraction of (1 + |root|) is real.
SEARCH_ANGLE_EPS: float = 1e-12
#: A pitched direct teardrop slid clear of its attacker's silhouette stops within this of
#: the first position that does not pass through it (mm).
CLEAR_BISECT_MM: float = 1e-6
SEARCH_ROOT_IMAG_TOL: float = 1e-7

#: Placement search: headings and contact offsets are compared for tie-breaking after
#: rounding to this many decimals of a degree (placements 1e-9 degrees apart are the same).
SOLVER_TIE_DECIMALS: int = 9

#: Infinity ``heading_deg: auto``: most placements judged by the full engine (Blast Focus
#: Line of Fire included) per search; the search reports when it stopped there.
AUTO_MAX_REAL_EVALS: int = 200

#: Infinity ``auto``: most placements of one touched set judged by the full engine; a set
#: is judged until one placement affects every enemy it can (issue 35 defect 3).
AUTO_SET_EVALS: int = 24

#: Infinity ``auto``: grid of extra placements (heading and contact offset, degrees) beside
#: the exact cells, so a touched set is judged over the placements it allows.
AUTO_GRID_STEP_DEG: float = 1.0

#: Infinity ``auto``: a trooper on a route is covered in plan by discs this far apart along
#: the route (radius grown to cover the capsule between them).
AUTO_ROUTE_STEP_MM: float = 10.0

#: Infinity ``auto`` (ruling 13.3): the chosen placement is moved to the middle of its
#: region on a plan grid (AUTO_MARGIN_GRID_DEG, refined AUTO_MARGIN_REFINE times by 10),
#: the AUTO_MARGIN_TRIES widest spots judged; a move must gain AUTO_MARGIN_GAIN_MM.
AUTO_MARGIN_GRID_DEG: float = 1.0
AUTO_MARGIN_REFINE: int = 2
AUTO_MARGIN_TRIES: int = 6
AUTO_MARGIN_GAIN_MM: float = 1e-3

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

#: Viewer camera options (``geom3d render --azimuth --elevation --zoom``): the largest
#: elevation in degrees either way (straight up or down leaves no "up" for the camera) and
#: the range of the zoom factor.
VIEW_MAX_ELEVATION_DEG: float = 89.0
VIEW_ZOOM_RANGE: tuple[float, float] = (0.05, 50.0)
#: Side view across A-B: half-thickness of the section shown beyond the larger base
#: radius, mm (nearer and farther scenery is clipped away).
SIDE_SLAB_MARGIN_MM: float = 25.0

# --------------------------------------------------------------------------- input limits
# Limits on what an input may ask for (issue 14): beyond them a file is refused with one
# clear line instead of exhausting memory or time. See docs/paths-and-cache.md.

#: Diagram size limits (``geom3d render --size``): each side in pixels, and the total
#: pixel count. Off-screen rendering with 8x MSAA needs about 100 bytes a pixel (8000 x
#: 8000 took 6.1 GB); 16.8 M pixels (4096 x 4096) stays under 2 GB.
RENDER_SIDE_RANGE_PX: tuple[int, int] = (16, 8192)
RENDER_MAX_PIXELS: int = 4096 * 4096

#: Smallest size of a body: a box's side, a silhouette's diameter or height, a table side
#: (0.01 mm). Smaller is a unit slip or a typo, and nothing can see or touch it.
MIN_BODY_MM: float = 0.01

#: Largest silhouette diameter or height (1 m). The apparent view of a target is sampled
#: every ``SAMPLE_MM`` over a window ``APPARENT_CAP`` target sizes wide, so the work grows
#: with the square of the size; real silhouettes are under 0.2 m.
MAX_SILHOUETTE_MM: float = 1000.0

#: A scenery piece's ``scale`` must lie within these factors (a larger factor is a unit
#: slip; 1e38 overflows the float32 coordinates of the ray engine). Small factors are
#: map scales: a DEM in metres at 1:6000 (issue 10) is scale 1/6000, so the floor is low.
MIN_SCALE: float = 1e-6
MAX_SCALE: float = 1e3

#: Most templates one attack may place (``burst``).
MAX_BURST: int = 20

#: Largest scenario file read (bytes).
MAX_SCENARIO_BYTES: int = 8 << 20

#: Longest id (characters) of a trooper, scenery piece, attack or zone (SPEC 13.4): ids
#: are labels in tables and figures, and a 50,000-character id stalled ``render`` for
#: 300 s while FreeType laid it out.
MAX_ID_CHARS: int = 200

#: Most nodes (mappings, lists, scalars) a scenario may hold once YAML aliases are
#: expanded: an "alias bomb" of a few hundred bytes expands to billions.
MAX_SCENARIO_NODES: int = 1_000_000

#: Deepest nesting of mappings and lists in a scenario (a real one needs about 6).
MAX_SCENARIO_DEPTH: int = 64

#: Largest integer a scenario may write (2**53: every integer up to it is exact as a float).
MAX_SCENARIO_INT: int = 2**53

#: Largest mesh file read, and largest total of a glTF's external buffers (bytes).
MAX_MESH_BYTES: int = 1 << 30
#: Largest report file read back as input (``survey --compare``): a survey of the most
#: pairs allowed lists at most 10 M visible pairs, about 200 MB of JSON.
MAX_REPORT_BYTES: int = 512 << 20
#: Mesh input limits on what a file expands to (a glTF instancing one mesh many times, a
#: sparse accessor with no data): triangles after instancing (a 1 GiB binary STL holds
#: 21 M) and elements of one accessor (e.g. vertices), checked before parsing.
MAX_MESH_TRIANGLES: int = 25_000_000
MAX_MESH_ELEMENTS: int = 75_000_000

#: A loaded mesh (in mm, before the scenario's ``scale``) whose largest extent is below
#: ``MESH_TINY_MM`` or above ``MESH_HUGE_MM`` gets a "wrong units?" warning: metres read
#: as millimetres (a 0.05 m wall becomes 0.05 mm) or millimetres read as metres (a 1.2 m
#: table becomes 1.2 km). A mesh beyond ``MAX_COORD_MM`` is an error.
MESH_TINY_MM: float = 1.0
MESH_HUGE_MM: float = 1e5

# --- solids and standing on terrain (SPEC 11.1, 11.2; geom3d.mesh.closing, geom3d.scene.scenery,
# geom3d.scene.standing)

#: Curtain bottoms end this far below the floor, so no sliver of a gap remains between a
#: curtain and the table it stands on once both are cast in Embree's float32 (about
#: 1e-4 mm resolution on a 1.2 m table). Going deeper is harmless: below the table surface
#: is inside the table.
CURTAIN_FLOOR_EPS_MM: float = 0.05

#: The floor under a boundary edge is sampled at both ends and every this many mm along
#: the edge's xy projection; the curtain bottom is the lowest sample minus
#: :data:`CURTAIN_FLOOR_EPS_MM`. A dip in the floor narrower than this between two
#: samples can leave a gap below a long edge (scan boundary edges are usually < 1 mm).
CURTAIN_FLOOR_STEP_MM: float = 1.0

#: ``solid: auto`` for scenery (SPEC 12.1, :mod:`geom3d.mesh.winding`): a boundary loop of
#: a scan whose lowest point is within this height of the surface beneath is part of the
#: scan's *base*, closed down to that surface (curtains and a floor under them); every
#: other loop is a hole, closed by a cap over it.
BASE_LOOP_GAP_MM: float = 2.0

#: A loop whose plan bounding box spans this fraction of the piece's in both x and y is
#: part of its base too, at any height: the rim of a heightfield sheet (a DEM as a piece).
BASE_LOOP_COVER: float = 0.8

#: A hole's cap is checked against the generalized winding number of the scan closed at
#: its base: at sample points of the cap, offset along its normal by this fraction of the
#: hole's extent (clamped to ``[CAP_CHECK_MIN_MM, CAP_CHECK_MAX_MM]``, then halved up to
#: three times to stay inside thin parts), a sample is in air when the winding number is
#: below 1/2 on both sides at every offset; a cap mostly in air is not added.
CAP_CHECK_OFFSET: float = 0.25
CAP_CHECK_MIN_MM: float = 0.05
CAP_CHECK_MAX_MM: float = 5.0
#: At most this many cap triangles per hole are sampled (evenly spread); a cap is kept
#: unless more than half of its samples are in air.
CAP_CHECK_SAMPLES: int = 48

#: ``close_table`` puts the table's floor (curtain bottoms and the bottom cap) this far
#: below the table mesh's lowest point.
TABLE_FLOOR_DEPTH_MM: float = 1.0

#: ``close_table``'s bottom cap overhangs the table's xy bounding box by this much on each
#: side, so the curtains (which end below the cap) meet it without a crack.
TABLE_CAP_MARGIN_MM: float = 1.0

#: A connected component of a piece whose lowest point is more than this above the floor
#: is reported as a floating fragment (SPEC 11.2 warns about pieces floating > 1 mm).
FRAGMENT_FLOOR_TOL_MM: float = 1.0

#: Size and unit sanity (SPEC 12.2, :mod:`geom3d.scene.plausibility`): a placed mesh piece more
#: than ``PIECE_MAX_MM`` or less than ``PIECE_MIN_MM`` across is warned about, naming the
#: mesh unit that would bring it nearest ``PIECE_TYPICAL_MM``; a table mesh more than
#: ``TABLE_MESH_RATIO`` times larger or smaller than ``table.size``; terrain reaching more
#: than ``OFF_TABLE_WARN_MM`` beyond the table.
PIECE_MAX_MM: float = 2000.0
PIECE_MIN_MM: float = 5.0
PIECE_TYPICAL_MM: float = 100.0
TABLE_MESH_RATIO: float = 3.0
OFF_TABLE_WARN_MM: float = 5.0

#: A piece with an explicit z floating or sinking more than this (mm) relative to the
#: ground under its footprint is warned about (SPEC 11.2).
PIECE_REST_TOL_MM: float = 1.0

#: The footprint of a piece is sampled on a grid of at most this many points per side (plus
#: every vertex of the piece) to find how it rests on the ground.
PIECE_FOOTPRINT_SAMPLES: int = 128

#: Grid step (mm) of the vertical probes inside a base disc (SPEC 11.2: at most 1 mm).
STAND_GRID_MM: float = 1.0

#: Spacing (mm) of the probes on the rim of a base disc. The highest point of a surface
#: made of flat triangles over a disc lies at a vertex inside it (every vertex is a probe)
#: or on the rim, so the rim is sampled finer than the inside.
STAND_RIM_MM: float = 0.25

#: A base rests on the ground connected to the support under its centre (SPEC 12.2,
#: :mod:`geom3d.scene.footing`): two neighbouring probes of its base are on connected ground
#: when their heights differ by at most ``FOOTING_STEP_MM`` plus their distance times
#: ``tan(FOOTING_SLOPE_DEG)`` (a slope up to 60 degrees, a small step); a steeper jump is
#: the side of a wall or a sculpture, which does not lift the base.
FOOTING_STEP_MM: float = 1.0
FOOTING_SLOPE_DEG: float = 60.0

#: A base whose disc reaches more than this (mm) above its resting height over scenery
#: not connected to its footing overlaps that scenery: a warning names it.
FOOTING_OVERLAP_WARN_MM: float = 1.0

#: Warn when the surface under a dropped base varies by more than this fraction of the
#: base radius (SPEC 11.2: half).
SLOPE_WARN_FRACTION: float = 0.5

#: An upward parity probe counts at most this many crossings.
PARITY_MAX_CROSSINGS: int = 64

# ------------------------------------------------------------------ blocking proofs
#: Side (mm) of the columns of the interior column map (:mod:`geom3d.visibility.interior`),
#: unless the table is so large that the map would exceed ``PROOF_MAX_COLUMNS``.
PROOF_COLUMN_MM: float = 1.0

#: Most columns in one interior column map (the column side grows to stay below it).
PROOF_MAX_COLUMNS: int = 4_000_000

#: Side (mm) of the coarse tiles in which the proof map looks up the triangles near a
#: trooper (to certify its eye region outside every solid); larger on a table so big that
#: there would be more than ``PROOF_MAX_COLUMNS`` tiles.
PROOF_TILE_MM: float = 16.0

#: Columns per side of the squares whose highest interior point the proofs read first: a
#: column in a square whose top is below what a proof asks for (open ground under the
#: troopers' boxes, most of a table) is passed over without reading its runs.
PROOF_TOP_COLUMNS: int = 16

#: Conservative growth (mm) of columns, triangle z-ranges and proof boxes: every error of
#: the column map errs towards "not proved".
PROOF_EPS_MM: float = 1e-6

#: Triangles at most this tall (mm) are recorded with their whole z-range in every column
#: of their bounding box instead of being clipped to each (conservative; builds faster).
PROOF_FLAT_MM: float = 0.5

#: A parity test point closer than this (mm) to a projected triangle edge is undecided,
#: and its column gets no interior runs.
PROOF_GUARD_MM: float = 1e-5

#: Clearance (mm) between a trooper's eye region and any blocking triangle for its
#: segments to be proved: ten times ``RAY_EPS_MM``, so the ray engine, which trims that
#: much off each end of a segment, still sees the crossing a proof relies on.
PROOF_CLEARANCE_MM: float = 1e-2

#: Growth (mm) of a cylinder's box in blocking proofs and in the hidden-eye test: points
#: computed on its surface, with rounding, still lie inside the box.
SURFACE_BOX_PAD_MM: float = 1e-4

#: An eye point is skipped as hidden behind one occluding trooper only when its view of
#: the whole target crosses that trooper's axial plane at least this far (mm) inside the
#: cylinder: every segment then runs at least twice this far through the trooper, far
#: more than the ``CONTACT_EPS_MM`` that blocks a ray (:func:`geom3d.visibility.cast.hidden_eyes`).
HIDDEN_MARGIN_MM: float = 1e-2

#: Closed convex blocking pieces (:mod:`geom3d.visibility.convex`): a scenery element of
#: at most ``CONVEX_MAX_FACES`` faces and ``CONVEX_MAX_PLANES`` distinct face planes, every
#: vertex within ``CONVEX_FLAT_MM`` inside every face's plane, settles the segments through
#: it (shrunk by ``PROOF_CLEARANCE_MM``) without a ray; the troopers' own volumes are
#: bounded by prisms of ``CONVEX_PRISM_SIDES`` sides in its whole-eye and whole-pair tests.
CONVEX_MAX_FACES: int = 256
CONVEX_MAX_PLANES: int = 40  # at most 63: a kernel keeps one bit per plane
CONVEX_FLAT_MM: float = 1e-6
CONVEX_PRISM_SIDES: int = 16

#: Ground profiles (:mod:`geom3d.visibility.ground`): the band between two troopers is cut
#: into slabs ``GROUND_SLAB_MM`` long along their line; each slab's height is the lowest
#: bottom-run top of the blocks of ``GROUND_BLOCK_COLUMNS`` x ``GROUND_BLOCK_COLUMNS``
#: interior-map columns that meet it. Smaller blocks follow the ground more closely (a
#: block loses its slope times its side) and cost more reads per pair: on the waving
#: table of ``bench_lof.py`` 8 columns and 4 mm cast 7 % more segments than 4 and 2 mm
#: and the matrix took 3 % less time, but on steeper hills they settled a third less.
GROUND_SLAB_MM: float = 2.0
GROUND_BLOCK_COLUMNS: int = 4

#: A Line of Fire matrix with at least this many pairs to decide builds the blocking-proof
#: map (seconds on a million-triangle table); fewer pairs are cast ray by ray, unless
#: the map was already built (or cached on disk).
PROOF_MIN_PAIRS: int = 32

#: Eye batches of the first trooper searched before a pair's proof is made: most visible
#: pairs are settled by then (1 + 8 eyes), and a proof would be wasted on them.
PROOF_AFTER_BATCHES: int = 2

#: Halvings of a bundle (eye box or target box) before its remaining parts go to rays
#: (at least; more for a pair with more bundles, see ``PROOF_SEGMENTS_PER_BUNDLE``).
PROOF_MAX_DEPTH: int = 7

#: Bundles examined per pair and frame at least (the rest go to rays).
PROOF_MAX_BUNDLES: int = 32

#: A pair whose search would cast many segments earns more bundles per frame: one per
#: this many segments its search is expected to cast (a bundle costs about as much as
#: that many segments), up to ``PROOF_MAX_BUNDLES_PAIR``, halved up to
#: ``log2(bundles) + 2`` times.
PROOF_SEGMENTS_PER_BUNDLE: int = 1000
PROOF_MAX_BUNDLES_PAIR: int = 128

#: Besides the pair's own frame, proofs are tried in at most this many frames aligned with
#: the walls that a few probe segments between the two troopers hit first (a thin wall
#: at an angle to the line between them is crossed by planes square to it, not by planes
#: square to that line); faces steeper than ``PROOF_WALL_MIN_TILT_DEG`` from the
#: horizontal count as walls, and walls within ``PROOF_WALL_MERGE_DEG`` share a frame.
PROOF_WALL_FRAMES: int = 3
PROOF_WALL_MIN_TILT_DEG: float = 60.0
PROOF_WALL_MERGE_DEG: float = 2.0

#: Planes scored per bundle (one column apart, at most this many), and the best of them
#: fully tested.
PROOF_PLANES: int = 1024
PROOF_PLANE_TRIES: int = 2

#: Of consecutive plane positions (one column apart) with something solid across the
#: pair, one per this many is kept: the middle of a thin wall, every few columns through
#: a thick block.
PROOF_PLANE_GROUP: int = 4

#: ``geom3d survey --lanes`` default: the longest firing lanes listed in survey.json.
SURVEY_DEFAULT_LANES: int = 50

# --------------------------------------------------------------------------- rolls (SPEC 12.4)
#: Faces of the one die Infinity rolls (a d20, 002 "Rolls").
D20_FACES: int = 20

#: Dodge MOD when the affected trooper has no Line of Fire to the attacker or the weapon
#: is deployable (000: "the Dodge requires a PH -3 Roll").
DODGE_NO_LOF_MOD: int = -3

#: Burst in the Reactive Turn (002: "In ARO, the B value is always reduced to 1").
ARO_BURST: int = 1

#: The Saving Roll MOD of Partial Cover, which troopers affected by a template never get
#: (000: "do not benefit from the +3 MOD to the Saving Roll (SR) for Partial Cover").
PARTIAL_COVER_SAVE_MOD: int = 3

#: Input ranges of the roll data (``stats``, ``weapon``, ``reaction``): attributes and
#: ARM/BTS 0..MAX_ATTRIBUTE, MODs -MAX_ROLL_MOD..MAX_ROLL_MOD, PS 0..MAX_PS, wounds
#: 1..MAX_WOUNDS. Real profiles stay far inside (BS 17, ARM 10, PS 15, W 3); the ranges
#: catch slips while letting a rule that pushes a Success Value past 20 be written.
MAX_ATTRIBUTE: int = 40
MAX_ROLL_MOD: int = 40
MAX_PS: int = 40
MAX_WOUNDS: int = 20

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
#: Partial Cover MOD to the attacker's roll (the +3 to the Saving Roll is
#: PARTIAL_COVER_SAVE_MOD).
PARTIAL_COVER_ROLL_MOD: int = -3

#: 40k vehicles (SPEC 12.6, :mod:`geom3d.placement.vehicles`): a firer within this distance
#: of a diagonal of the hull's plan rectangle is on the boundary of two facings (the side
#: facing is hit); Armour Values are whole numbers in MIN_ARMOUR..MAX_ARMOUR (7e: 10-14).
FACING_TIE_MM: float = PLACEMENT_TOL_MM
MIN_ARMOUR: int = 10
MAX_ARMOUR: int = 14

#: The hull-coverage search: a grid of contact angles and headings (degrees), templates
#: inscribed with HULL_SEARCH_SECTIONS points per circle; the best HULL_REFINE_STARTS
#: admissible cells are refined by a compass search down to HULL_REFINE_MIN_DEG; the chosen
#: placement's area is measured with the template inscribed to HULL_AREA_ERROR_MM.
HULL_GRID_CONTACT_DEG: float = 5.0
HULL_GRID_HEADING_DEG: float = 2.0
HULL_SEARCH_SECTIONS: int = 32
HULL_REFINE_STARTS: int = 6
HULL_REFINE_MIN_DEG: float = 1e-4
HULL_AREA_ERROR_MM: float = 1e-4

#: Ruling A2 for vehicles: an explicit placement whose covered share of the hull is within
#: this of the hull-coverage search's best is maximal (the search is numerical).
VEHICLE_SHARE_TOL: float = 1e-3


#: Every constant above is public: an upper-case name is a tolerance or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
