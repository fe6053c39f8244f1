"""Tolerances of closing open meshes into solids (SPEC 11.1, 12.1): curtains and floors
(:mod:`geom3d.mesh.closing`), the winding-number base loops and caps
(:mod:`geom3d.mesh.winding`), ``close_table``'s floor. Every one is part of the closing
cache's key (:mod:`geom3d.mesh.closing_cache`). Lengths in mm.
"""

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

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
