"""Numerical tolerances of template geometry: GJK distances (:mod:`geom3d.templates._gjk`),
the golden-section search (:mod:`geom3d.templates.minimize`), footprint polygons
(:mod:`geom3d.templates._hull`). Lengths in mm.
"""

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

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
