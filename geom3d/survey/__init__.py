"""Table survey (SPEC 11.6, ``geom3d survey``): visibility over a whole table.

Probes (a silhouette, default 2) stand on a grid at every walkable level
(:mod:`.grid`); every pair of probe positions is decided by the one visibility core, the
3 x 3 mm rule with arcs ignored and probes not blocking each other, spread over local
processes or a Dask cluster (:mod:`.pairs`); :mod:`.analysis` turns the answers into sees
counts, lanes, zone shares, distance bands and health findings; :mod:`.document` writes
the SPEC 11.6 document; :mod:`.compare` compares two surveys; :mod:`geom3d.commands.survey` is the
``geom3d survey`` subcommand (imported by the CLI only: it loads scenario files).

>>> from geom3d import load_scene
>>> from geom3d.survey import survey
>>> doc = survey(load_scene("meshes/demo/table.yaml"), spacing_mm=100)  # doctest: +SKIP
>>> doc["lanes"][0]  # doctest: +SKIP

``scene.survey(...)`` is the same call, through the scene's ruleset.
"""

from __future__ import annotations

from geom3d.survey.compare import compare_surveys
from geom3d.survey.document import DEFAULT_LANES, SurveyResult, run_survey, survey
from geom3d.survey.grid import Probe, ProbeGrid, place_probes, probe_for
from geom3d.survey.pairs import PairJob, pair_indices, visible_pairs

__all__ = [
    "DEFAULT_LANES",
    "PairJob",
    "Probe",
    "ProbeGrid",
    "SurveyResult",
    "compare_surveys",
    "pair_indices",
    "place_probes",
    "probe_for",
    "run_survey",
    "survey",
    "visible_pairs",
]
