"""The lines a scenery piece adds to the scene's messages (SPEC 11.1, 12.1, 12.2).

What closing added (:func:`closing_message`, a note), size, unit and placement sanity
(:func:`plausibility_messages`, warnings from :mod:`geom3d.scene.plausibility`), and a
piece's messages grouped into one scene line per severity (:func:`piece_lines`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from geom3d.core.messages import Message, severity_of
from geom3d.mesh.closing import ClosingReport
from geom3d.scenario import Scenario
from geom3d.scene import plausibility


class PieceReport(Protocol):
    """What these functions read and extend of a piece's report
    (:class:`geom3d.scene.scenery.PieceReport`, which imports this module)."""

    id: str
    messages: list[str]


__all__ = ["closing_message", "piece_lines", "plausibility_messages"]


def closing_message(c: ClosingReport, table: bool) -> str | None:
    """One line about closing, only when something was closed (or is odd)."""
    if table:
        if not c.curtain_triangles:  # no open edge: the cap alone changes nothing above
            return None
        holes = f"{c.holes} hole{'s' if c.holes != 1 else ''}"
        if c.holes:
            holes += f", largest {c.largest_hole_mm:.1f} mm across"
        return f"table edge closed down to a floor at z = {c.floor_z_mm:.1f} mm; {holes}"
    if c.method == "none":  # watertight: nothing added, nothing to say
        return None
    if c.method == "curtains":  # close_downward (not used for scenery since SPEC 12.1)
        loops = f"{c.loops} open boundary loop{'s' if c.loops != 1 else ''}"
        return f"open scan closed by {c.curtain_triangles} curtain triangles ({loops})"
    parts = []
    if c.base_loops:
        parts.append(
            f"its base ({c.base_loops} open loop{'s' if c.base_loops != 1 else ''}) closed "
            f"down to the surface beneath"
            + (f" (open rim up to {c.gap_under_mm:.1f} mm above it)" if c.gap_under_mm > 0 else "")
        )
    if c.caps:
        parts.append(
            f"{c.caps} hole{'s' if c.caps != 1 else ''} capped (largest "
            f"{c.largest_cap_mm:.1f} mm across, {c.largest_cap_height_mm:.1f} mm above the "
            f"surface beneath)"
        )
    if c.caps_rejected:
        parts.append(
            f"{c.caps_rejected} opening{'s' if c.caps_rejected != 1 else ''} left open "
            f"(the winding number says air)"
        )
    msg = "open scan closed as its winding-number solid: " + "; ".join(parts)
    if c.floating_fragments:
        msg += (
            f"; {c.floating_fragments} floating fragment{'s' if c.floating_fragments != 1 else ''}"
        )
    return msg


def plausibility_messages(scn: Scenario, pieces: Sequence[PieceReport], parts) -> None:
    """Size, unit and placement sanity of every piece (SPEC 12.2, :mod:`.plausibility`),
    appended to each piece's messages."""
    items = ([scn.table_item] if scn.table_item is not None else []) + list(scn.scenery)
    for it, rep, (v, f, _, _) in zip(items, pieces, parts, strict=True):
        if not len(f):
            continue
        mask = np.zeros(len(v), bool)
        mask[f.ravel()] = True  # (np.unique of a million faces takes seconds)
        used = v[mask]
        lo, hi = used.min(axis=0), used.max(axis=0)
        found = []
        if rep.id == "table" and it is scn.table_item:
            size = float(np.max(hi[:2] - lo[:2]))
            found.append(plausibility.table_mesh_size(size, it.mesh_units, scn.table_size))
            found.append(plausibility.off_table(lo, hi, scn.table_size, "the table mesh"))
        else:
            if it.mesh_path is not None:
                found.append(plausibility.piece_size(hi - lo, it.mesh_units, it.scale))
            found.append(plausibility.off_table(lo, hi, scn.table_size))
        rep.messages += [m for m in found if m is not None]


def piece_lines(rep: PieceReport) -> list[Message]:
    """A piece's messages as scene lines, ``"id: a; b"``: one line per severity, in the
    order each severity first appears (SPEC 12.2: notes and warnings apart)."""
    out: list[Message] = []
    for sev in dict.fromkeys(severity_of(m) for m in rep.messages):
        same = [str(m) for m in rep.messages if severity_of(m) == sev]
        out.append(Message(f"{rep.id}: {'; '.join(same)}", sev))
    return out
