"""Which observers have Line of Fire to a probe: the rules part, decided without rays.

For observer O and a probe P standing on a cell, ``geom3d lof``'s rule
(:func:`geom3d.adjudication.lof.static_lof`) is: O engaged and not touching P -> no (``engaged``);
P outside O's front arc -> no (``out_of_arc``); else LoF exactly when O and P see each
other (the 3 x 3 mm rule, either direction, the other troopers blocking). :func:`screen`
asks the first two questions of that same function (with no visibility given, its
``reason`` says which question is left), so only the pairs where visibility decides go
to the ray search. ``ignore_arcs`` skips both: visibility only.
"""

from __future__ import annotations

import numpy as np

from geom3d.adjudication.lof import static_lof
from geom3d.core.errors import UsageError
from geom3d.core.tolerances import ARC_EPS_MM
from geom3d.core.validation import xyz
from geom3d.exposure.cells import Probe
from geom3d.scene.scene import Scene, Trooper

__all__ = ["PROBE_ID", "observers_for", "probe_trooper", "screen"]

#: Id and side of the probe trooper (never a scenario id: those are checked names).
PROBE_ID = "<probe>"
#: Cells whose arc test lies this close to the arc's edge (mm) are decided by
#: ``geom3d.adjudication.lof``'s own scalar function rather than the vectorised one.
ARC_TIE_MM = 1e-6


def observers_for(scene: Scene, spec: str) -> list[Trooper]:
    """The observers named by ``--observers``: a side (every trooper of it, in file
    order) or comma-separated trooper ids (in the order given, repeats dropped).

    Raises UsageError naming the unknown side or ids."""
    troopers = scene.troopers
    sides = list(dict.fromkeys(t.side for t in troopers.values()))
    names = [s.strip() for s in str(spec).split(",")]
    if any(not s for s in names):
        raise UsageError(f"--observers: empty name in {spec!r}")
    if all(n in troopers for n in names):
        return [troopers[n] for n in dict.fromkeys(names)]
    if len(names) == 1 and names[0] in sides:
        return [t for t in troopers.values() if t.side == names[0]]
    unknown = [n for n in names if n not in troopers]
    raise UsageError(
        f"--observers: no trooper or side {', '.join(map(repr, unknown))} "
        f"(sides: {', '.join(sides) or 'none'}; troopers: {', '.join(troopers) or 'none'})"
    )


def probe_trooper(probe: Probe, position) -> Trooper:
    """The probe standing at ``position`` ((3,) float, mm): silhouette ``probe``, a side
    of its own (everyone's enemy), no states."""
    return Trooper(
        id=PROBE_ID,
        side=PROBE_ID,
        position=xyz(float(v) for v in position),
        facing_deg=0.0,
        silhouette=probe.silhouette,
        diameter=probe.diameter,
        height=probe.height,
        states=frozenset(),
    )


def screen(
    scene: Scene, observers: list[Trooper], probe: Probe, cells: np.ndarray, ignore_arcs: bool
) -> np.ndarray:
    """Per cell and observer: may Line of Fire exist, so that visibility decides?

    Parameters
    ----------
    cells : (n, 3) float64, mm
        Probe base centres.

    Returns
    -------
    (n, k) bool
        False: no Line of Fire whatever the visibility (out of arc, or engaged); True:
        LoF exactly when the pair is visible. All True with ``ignore_arcs``.
    """
    n, k = len(cells), len(observers)
    if ignore_arcs:
        return np.ones((n, k), dtype=bool)
    policy = scene.ruleset.lof_policy
    out = np.zeros((n, k), dtype=bool)
    for j, o in enumerate(observers):
        exact: np.ndarray
        if policy.engaged_sees_only_contact and o.engaged_with:
            exact = np.arange(n)  # engaged: only what it touches (rare; asked cell by cell)
        elif o.has_360 or o.is_moving or policy.arc_deg >= 360.0:
            out[:, j] = True
            continue
        else:
            # in_front_arc's test, rel . facing + probe radius > ARC_EPS_MM, for all cells
            # at once; cells within ARC_TIE_MM of the edge are asked of lof's own function
            # (the sum's rounding may differ from a scalar dot product by an ulp)
            f = o.facing_vector
            rel = cells[:, :2] - np.array(o.position[:2])
            v = rel[:, 0] * f[0] + rel[:, 1] * f[1] + probe.radius - ARC_EPS_MM
            out[:, j] = v > 0.0
            exact = np.flatnonzero(np.abs(v) <= ARC_TIE_MM)
        for i in exact:
            res = static_lof(scene, o, probe_trooper(probe, cells[i]), (None, None))
            out[i, j] = res.reason == "blocked"
    return out
