"""Where templates go and what they reach (layer 2), with no notion of a ruleset:
:mod:`~geom3d.placement.direct` (direct teardrops touching a base, pass-through checks),
:mod:`~geom3d.placement.search` (the exact search over placements touching a base) and
:mod:`~geom3d.placement.blast_focus` (Blast Focus Line of Fire, on the visibility core).
"""

from __future__ import annotations

__all__: list[str] = []
