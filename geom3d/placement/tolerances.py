"""Tolerances of template placement: passing through a silhouette
(:mod:`geom3d.placement.direct`, ruling 13.3), the exact heading search
(:mod:`geom3d.placement.search`), 40k vehicles' facings and hull coverage
(:mod:`geom3d.placement.vehicles`). Lengths in mm, angles in degrees.
"""

from geom3d.core import tolerances as _core

#: A placed template "passes through" a silhouette when it overlaps the silhouette shrunk
#: by this much (radius and both ends): the same tolerance as touching (13.3). Computed
#: placements (a pitched template slid out) are still solved to ``CONTACT_EPS_MM``.
PENETRATION_TOL_MM: float = _core.PLACEMENT_TOL_MM

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

#: 40k vehicles (SPEC 12.6, :mod:`geom3d.placement.vehicles`): a firer within this distance
#: of a diagonal of the hull's plan rectangle is on the boundary of two facings (the side
#: facing is hit).
FACING_TIE_MM: float = _core.PLACEMENT_TOL_MM

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

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
