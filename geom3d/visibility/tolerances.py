"""Tolerances and budgets of the visibility search and its blocking proofs: the apparent
window (:mod:`geom3d.visibility.apparent`), the interior column map
(:mod:`geom3d.visibility.interior`, part of its cache key), bundles and frames of proofs
(:mod:`geom3d.visibility.proof`), convex pieces and ground profiles. Each errs towards
proving less. Lengths in mm, angles in degrees.

The few the compiled kernels read live in :mod:`geom3d.bodies.kernel_constants`.
"""

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

#: Side (mm) of the columns of the interior column map (:mod:`geom3d.visibility.interior`),
#: unless the table is so large that the map would exceed ``PROOF_MAX_COLUMNS``.
PROOF_COLUMN_MM: float = 1.0

#: Most columns in one interior column map (the column side grows to stay below it).
PROOF_MAX_COLUMNS: int = 4_000_000

#: Side (mm) of the coarse tiles in which the proof map looks up the triangles near a
#: trooper (to certify its eye region outside every solid); larger on a table so big that
#: there would be more than ``PROOF_MAX_COLUMNS`` tiles.
PROOF_TILE_MM: float = 16.0

#: Conservative growth (mm) of columns, triangle z-ranges and proof boxes: every error of
#: the column map errs towards "not proved".
PROOF_EPS_MM: float = 1e-6

#: Triangles at most this tall (mm) are recorded with their whole z-range in every column
#: of their bounding box instead of being clipped to each (conservative; builds faster).
PROOF_FLAT_MM: float = 0.5

#: A parity test point closer than this (mm) to a projected triangle edge is undecided,
#: and its column gets no interior runs.
PROOF_GUARD_MM: float = 1e-5

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

#: A scenery element of at most this many faces that is not convex but is a closed
#: rectilinear solid (a building with doors and windows, a container, a wall with
#: windows) becomes the boxes it is the union of
#: (:meth:`geom3d.visibility.convex.ConvexSolids.from_scenery`), each a convex piece;
#: larger ones (a scanned table) are not tested.
RECTILINEAR_MAX_FACES: int = 20_000

#: Interior boxes (:mod:`geom3d.visibility.interior_boxes`): the interior map's runs as
#: voxels ``INTERIOR_BOX_LEVEL_MM`` high (taller on a table more than 63 of them high),
#: merged and grown into boxes. Kept: boxes at least ``INTERIOR_BOX_MIN_HEIGHT_MM`` tall
#: (made of runs that tall), ``INTERIOR_BOX_MIN_SIDE_MM`` thick and
#: ``INTERIOR_BOX_MIN_SPAN_MM`` long, whose top rises ``INTERIOR_BOX_MIN_RISE_MM`` above
#: the ground beside them; largest first, each adding ``INTERIOR_BOX_NEW_SHARE`` of its
#: volume to those before it; at most ``INTERIOR_BOX_MAX``. Each box a pair's search
#: tests costs a little per eye, and a box in the ground or one that repeats another
#: settles nothing the ground profiles and the others do not. On ``bench_lof.py``'s
#: scanned table these keep about 200 boxes and take 29 % off the per-pair time;
#: the disjoint boxes before growing took nothing off, and on its fused table, every
#: grown box at least 10 mm tall (about 5,000, without the rise and the volume share)
#: made the pairs a quarter slower.
INTERIOR_BOX_LEVEL_MM: float = 1.0
INTERIOR_BOX_MIN_HEIGHT_MM: float = 10.0
INTERIOR_BOX_MIN_SIDE_MM: float = 2.0
INTERIOR_BOX_MIN_SPAN_MM: float = 10.0
INTERIOR_BOX_MIN_RISE_MM: float = 10.0
INTERIOR_BOX_NEW_SHARE: float = 0.3
INTERIOR_BOX_MAX: int = 512

#: Ground profiles (:mod:`geom3d.visibility.ground`): the band between two troopers is cut
#: into slabs ``GROUND_SLAB_MM`` long along their line; each slab's height is the lowest
#: bottom-run top of the blocks of ``GROUND_BLOCK_COLUMNS`` x ``GROUND_BLOCK_COLUMNS``
#: interior-map columns that meet it. Smaller blocks follow the ground more closely (a
#: block loses its slope times its side) and cost more reads per pair: on the waving
#: table of ``bench_lof.py`` 8 columns and 4 mm cast 7 % more segments than 4 and 2 mm
#: and the matrix took 3 % less time, but on steeper hills they settled a third less.
GROUND_SLAB_MM: float = 2.0
GROUND_BLOCK_COLUMNS: int = 4

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
#: ``log2(bundles) + 2`` times. With this and ``PROOF_WALL_FRAMES`` at 1000 and 3 (their
#: values since they were first tuned, before convex pieces, ground profiles and interior
#: boxes settled most of what proofs settle), the one-thread matrix of ``bench_lof.py``'s
#: tables took 3 % (scan) and 5 % (scan-fused) longer, waving's the same, and the exposure
#: map of scan-fused at 10 mm 5 % longer (on scan, 22 % of the leaf bundles were proved).
PROOF_SEGMENTS_PER_BUNDLE: int = 2000
PROOF_MAX_BUNDLES_PAIR: int = 128

#: Besides the pair's own frame, proofs are tried in at most this many frames aligned with
#: the walls that a few probe segments between the two troopers hit first, the wall hit
#: most often first (a thin wall at an angle to the line between them is crossed by
#: planes square to it, not by planes square to that line); faces steeper than
#: ``PROOF_WALL_MIN_TILT_DEG`` from the horizontal count as walls, and walls within
#: ``PROOF_WALL_MERGE_DEG`` share a frame. (1: see ``PROOF_SEGMENTS_PER_BUNDLE``.)
PROOF_WALL_FRAMES: int = 1
PROOF_WALL_MIN_TILT_DEG: float = 60.0
PROOF_WALL_MERGE_DEG: float = 2.0

#: A wall's frame examines at most this many bundles and is kept only when it proves
#: them all (the pair blocked whole). It is there for a wall the pair's line crosses
#: whole, which it proves in a few bundles (1 for a thin wall at an angle; 3 and 7 on the
#: scan table, the most seen). A wall frame that proves only part cost more than it
#: saved: its 56 to 85 bundles (median) took 25 ms of the scan table's one-thread matrix
#: and 14 ms of scan-fused's, for 2 pairs proved whole on scan and none on scan-fused,
#: and searching with its partial tree took longer than without (measured per pair, stop
#: 63). With it the scan table's pairs took 395 and 391 ms against 405 and 400, and
#: scan-fused's 344 and 340 against 353 and 351 (2 to 3 % less; each pair timed both ways
#: in turn, twice, best of each), casting 4 % and 3 % more segments; waving's the same.
PROOF_WALL_BUNDLES: int = 8

#: A wall whose horizontal normal turns more than this from the line between the two
#: troopers gets no frame (the next wall hit most often within it does). The segments
#: between them cross such a wall at a grazing angle, so a bundle's crossings spread along
#: it past its solid parts: on the scan table (troopers beside the hollow buildings) such
#: frames proved none of their 128 bundles. With it the scan table's one-thread matrix
#: casts 10 % fewer segments and takes 2 to 5 % less time; the two other tables cast the
#: same segments (measured on the three 1M-triangle tables, stop 60).
PROOF_WALL_MAX_TURN_DEG: float = 60.0

#: A pair whose blocking proofs settle fewer than this share of their leaf bundles (or
#: that has none) searches its remaining eyes with the interior boxes near it
#: (:meth:`.proof.Prover.boxes_near`) as convex pieces too: a segment through one is
#: settled without a ray, and a lattice sample inside one's outline without its segment
#: (:mod:`.convex`). Before, the boxes only hid whole eyes. On the scan table (hollow
#: buildings with 4 mm walls and windows, whose walls the proofs' bundles seldom span)
#: the one-thread matrix then casts 73 % fewer segments and takes 10 to 12 % less time;
#: where the proofs settle most bundles (the fused table) the boxes' outlines per eye
#: cost about what they save, so they are left out there (stop 61). Such a weak proof
#: still skips the eyes it settles whole, but no longer settles single segments: each ray
#: looked up among its few proven leaves cost more than the rays it saved. Measured pair
#: by pair, each pair timed both ways in turn, twice, best of each (stop 63): the scan
#: table's pairs took 402 and 397 ms against 407 and 403 (1 to 2 % less), scan-fused's
#: 345 and 340 against 342 and 339 (the same within the 1 to 2 % a second timing of the
#: same code gains from running later).
PROOF_WEAK_SHARE: float = 0.5

#: Planes scored per bundle (one column apart, at most this many), and the best of them
#: fully tested.
PROOF_PLANES: int = 1024
PROOF_PLANE_TRIES: int = 2

#: Of consecutive plane positions (one column apart) with something solid across the
#: pair, one per this many is kept: the middle of a thin wall, every few columns through
#: a thick block.
PROOF_PLANE_GROUP: int = 4

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
