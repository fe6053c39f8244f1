"""Size and unit sanity for every command (SPEC 12.2): warnings that name the unit that fits.

Scene building (:func:`geom3d.scene.scenery.build_scenery`) asks these about every mesh piece
and the table mesh, so ``lof``, ``attack``, ``render``, ``check`` and ``survey`` all say
the same thing:

* a piece more than :data:`~geom3d.scene.tolerances.PIECE_MAX_MM` or less than
  :data:`~geom3d.scene.tolerances.PIECE_MIN_MM` across (a bird bath declared in cm is 3 m; an
  unscaled glTF building in metres is 1 mm);
* a table mesh more than :data:`~geom3d.scene.tolerances.TABLE_MESH_RATIO` times larger or
  smaller than ``table.size`` (a DEM declared in mm is a 9 m table);
* terrain hanging off the table (more than :data:`~geom3d.scene.tolerances.OFF_TABLE_WARN_MM`
  beyond ``table.size``) and pieces wholly below the table top.

The unit that would fit is the mesh unit whose reading brings the size nearest the
plausible middle (:data:`~geom3d.scene.tolerances.PIECE_TYPICAL_MM` for a piece,
``table.size`` for a table mesh); none is named when the declared one is already best.

>>> better_unit(3000.0, "cm", 100.0)
'mm'
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.core.messages import Message, warning
from geom3d.core.units import LENGTH_UNITS, MESH_UNITS
from geom3d.mesh.limits import MESH_HUGE_MM, MESH_TINY_MM
from geom3d.scene.tolerances import (
    OFF_TABLE_WARN_MM,
    PIECE_MAX_MM,
    PIECE_MIN_MM,
    PIECE_REST_TOL_MM,
    PIECE_TYPICAL_MM,
    TABLE_MESH_RATIO,
)

__all__ = ["better_unit", "off_table", "piece_size", "table_mesh_size"]


def better_unit(size_mm: float, declared: str, target_mm: float) -> str | None:
    """The mesh unit that brings ``size_mm`` (read as ``declared``) nearest ``target_mm``
    (on a log scale), or None when that is ``declared`` itself."""
    if not (size_mm > 0 and target_mm > 0):
        return None
    raw = size_mm / LENGTH_UNITS[declared]
    best = min(MESH_UNITS, key=lambda u: abs(math.log(raw * LENGTH_UNITS[u] / target_mm)))
    return None if best == declared else best


def _as(size_mm: float, declared: str, unit: str) -> float:
    return size_mm / LENGTH_UNITS[declared] * LENGTH_UNITS[unit]


def _mm(x: float) -> str:
    return f"{x / 1000:.3g} m" if x >= 1000 else f"{x:.3g} mm"


def piece_size(extent_mm, units: str, scale) -> Message | None:
    """A warning when a placed mesh piece is implausibly large or small.

    Parameters
    ----------
    extent_mm : (3,) float, mm
        The placed piece's bounding box (scale applied).
    units : str
        Its declared ``mesh_units``.
    scale : float or (3,) float
        Its ``scale`` (the unit hint judges the file's own size, before scaling).
    """
    size = float(np.max(extent_mm)) if len(extent_mm) else 0.0
    if size <= 0 or PIECE_MIN_MM <= size <= PIECE_MAX_MM:
        return None
    if not MESH_TINY_MM <= size <= MESH_HUGE_MM:  # the load report says so already
        return None
    k = float(np.max(np.atleast_1d(np.asarray(scale, np.float64))))
    better = better_unit(size / k, units, PIECE_TYPICAL_MM / k) if k > 0 else None
    hint = f"; as {better} it would be {_mm(_as(size, units, better))}" if better else ""
    what = (
        f"larger than {_mm(PIECE_MAX_MM)}"
        if size > PIECE_MAX_MM
        else (f"smaller than {_mm(PIECE_MIN_MM)}")
    )
    return warning(
        f"{_mm(size)} across as placed (mesh_units: {units}), {what}: are its units right?{hint}"
    )


def table_mesh_size(size_mm: float, units: str, table_size) -> Message | None:
    """A warning when a table mesh's plan size is far from ``table.size``.

    Parameters
    ----------
    size_mm : float, mm
        The placed table mesh's longer horizontal side.
    units : str
        Its ``mesh_units``.
    table_size : (2,) float, mm, or None
    """
    if table_size is None or size_mm <= 0:
        return None
    ref = float(max(table_size))
    if ref / TABLE_MESH_RATIO <= size_mm <= ref * TABLE_MESH_RATIO:
        return None
    better = better_unit(size_mm, units, ref)
    hint = f"; as {better} it would span {_mm(_as(size_mm, units, better))}" if better else ""
    return warning(
        f"the table mesh (mesh_units: {units}) spans {_mm(size_mm)} but table.size is "
        f"{_mm(ref)} on its longer side{hint}"
    )


def off_table(lo, hi, table_size, what: str = "it") -> Message | None:
    """A warning when a plan box ``lo..hi`` (mm) reaches beyond the table, or lies wholly
    below the table top.

    Parameters
    ----------
    lo, hi : (3,) float, mm
        The placed piece's bounding box.
    table_size : (2,) float, mm, or None
    what : str
        How to name the piece in the text.
    """
    lo = np.asarray(lo, np.float64)
    hi = np.asarray(hi, np.float64)
    if hi[2] < -PIECE_REST_TOL_MM:
        return warning(
            f"{what} lies wholly below the table top (its highest point is at z = {hi[2]:.1f} mm)"
        )
    if table_size is None:
        return None
    size = np.asarray(table_size, np.float64)
    over = max(float(np.max(-lo[:2])), float(np.max(hi[:2] - size)), 0.0)
    if over <= OFF_TABLE_WARN_MM:
        return None
    return warning(
        f"{what} hangs {over:.0f} mm off the table (x 0..{size[0]:g}, y 0..{size[1]:g} mm; "
        f"it spans x {lo[0]:.0f}..{hi[0]:.0f}, y {lo[1]:.0f}..{hi[1]:.0f} mm)"
    )
