"""Where the probe stands: the survey's standing rule, through this one call.

Issue 32 changes how the survey stands probes; :func:`standing_cells` is the only place
the exposure map asks, so the rule can be swapped here without touching the rest.
"""

from __future__ import annotations

from geom3d.scene.scene import Scene
from geom3d.survey.grid import Probe, ProbeGrid, place_probes, probe_for

__all__ = ["Probe", "ProbeGrid", "probe_for", "standing_cells"]


def standing_cells(scene: Scene, probe: Probe, spacing_mm: float, threads: int = 1) -> ProbeGrid:
    """Standable probe positions on every level of ``scene``, a grid every
    ``spacing_mm`` mm (the survey's :func:`~geom3d.survey.place_probes`). The
    survey's cap on pairs of positions does not apply: a cell is paired with the
    observers only (10 mm on a 1200 mm table is 14,400 cells). ``threads``: the
    probes are stood on this many threads."""
    return place_probes(scene, probe, spacing_mm, all_pairs=False, threads=threads)
