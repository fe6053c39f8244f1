"""Tolerances of a scene: where troopers and pieces rest (SPEC 11.2, :mod:`geom3d.scene.standing`,
:mod:`geom3d.scene.footing`, drop-to-surface), size and unit sanity
(:mod:`geom3d.scene.plausibility`, SPEC 12.2), engagement contact (SPEC 12.6).
Lengths in mm, angles in degrees.
"""

#: Troopers declared ``engaged_with`` each other are in silhouette contact when their bases
#: are within this distance (SPEC 12.6: users write diagonal contacts to 0.01 mm); further
#: apart, loading warns with the pair and the gap.
ENGAGED_CONTACT_MM: float = 0.01

#: Drop-to-surface casts a vertical ray down from this far above the scene's top.
DROP_PROBE_HEIGHT_MM: float = 1.0

#: A surface counts as "upward-facing" for drop-to-surface when its unit normal has at
#: least this z component (about 60 degrees from vertical at most).
UPWARD_NORMAL_MIN_Z: float = 0.5

#: A trooper farther than this outside the table's extent triggers a unit-mistake warning.
FAR_OFF_TABLE_MM: float = 5000.0

#: Drop-to-surface (``Scene.surface_z``): a face whose normal's z component is at most
#: ``DROP_STEEP_REL_EPS`` of the normal's length is vertical (no plane height to refine);
#: the float64 height on the hit face replaces Embree's float32 one when within
#: ``DROP_REFINE_MAX_MM`` of it; a probe steps through at most ``DROP_MAX_STEEP_FACES``
#: steep faces before giving up (0 = the table top).
DROP_STEEP_REL_EPS: float = 1e-12
DROP_REFINE_MAX_MM: float = 1e-2
DROP_MAX_STEEP_FACES: int = 64

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

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
