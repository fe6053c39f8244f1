"""40k ``heading_deg: auto`` with a given ``focus``: the best heading about a fixed narrow end.

With the narrow end fixed at the user's ``focus`` on the firer's base edge, which models
are under the template is a step function of the heading alone; it changes only where a
model's base is tangent to the template (:func:`geom3d.placement.search.rotation_sweep`
finds every such heading exactly, in closed form). Every cell between consecutive
crossings, and every crossing, is evaluated with the engine's plan test, so the maximum
is exact (issue 35 defect 6: the solver used to choose a heading for its own contact
point and the template was then placed at the user's focus).
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.placement.direct import SolverResult, _run_around
from geom3d.placement.search import rotation_sweep
from geom3d.placement.tolerances import SOLVER_TIE_DECIMALS

__all__ = ["solve_heading_at"]


def solve_heading_at(shape, center_xy, focus_xy, targets, friends, *, dmax_deg: float):
    """The heading about a fixed narrow end covering the most target models (40k, plan).

    Parameters
    ----------
    shape : TeardropShape
    center_xy : (2,) float, mm
        Centre of the firer's base.
    focus_xy : (2,) float, mm
        The narrow end (on the base edge, within the placement tolerance).
    targets, friends : (k, 3) float, mm
        Discs ``[x, y, radius]`` of the target models and of the friendly models.
    dmax_deg : float
        Largest admissible angle between the heading and the contact direction (180: any
        heading, ruling A1).

    Returns
    -------
    SolverResult
        ``contact_deg`` is the focus's direction from the base centre. Ties: inside a
        cell before a crossing, then nearest the radial heading, then the smallest
        heading.
    """
    c = np.asarray(center_xy, dtype=np.float64)[:2]
    f = np.asarray(focus_xy, dtype=np.float64)[:2]
    rad = float(np.hypot(*(f - c)))
    phi = math.atan2(f[1] - c[1], f[0] - c[0])
    t = np.asarray(targets, dtype=np.float64).reshape(-1, 3)
    g = np.asarray(friends, dtype=np.float64).reshape(-1, 3)
    discs = np.vstack((t, g))
    nt = len(t)
    th, hit, is_cut = rotation_sweep(shape, c, rad, discs, phi, math.radians(dmax_deg))
    cnt = hit[:, :nt].sum(axis=1)
    ok = ~hit[:, nt:].any(axis=1)
    if not ok.any():
        return SolverResult(False, None, None, 0, len(th), 0)
    best = int(cnt[ok].max())
    below = cnt[ok & (cnt < best)]
    runner = int(below.max()) if len(below) else None
    sel = np.flatnonzero(ok & (cnt == best))
    off = np.abs(np.angle(np.exp(1j * (th[sel] - phi))))
    key_h = np.round(np.degrees(th[sel]) % 360.0, SOLVER_TIE_DECIMALS)
    key_d = np.round(np.degrees(off), SOLVER_TIE_DECIMALS)
    k = sel[np.lexsort((key_h, key_d, is_cut[sel]))[0]]
    heading = float(th[k])
    good = ok & (cnt == best)
    interval = _run_around(th, good, is_cut, heading)
    return SolverResult(
        True,
        math.degrees(heading) % 360.0,
        math.degrees(phi) % 360.0,
        best,
        len(th),
        0,
        interval,
        runner,
    )
