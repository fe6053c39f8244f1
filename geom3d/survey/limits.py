"""The table survey's tolerances and input limits (``geom3d survey``, docs/survey.md):
how probes stand, health checks on the table's size, and the most grid points and pairs a
survey may ask for. Lengths in mm.
"""

#: Survey (``geom3d survey``): a probe tolerates terrain this far above its resting height
#: under its base (between the sampled points) before the ground counts as blocking it.
SURVEY_FOOT_MM: float = 2.0

#: Survey: standing heights at one grid point closer than this are one level.
SURVEY_LEVEL_MERGE_MM: float = 1.0

#: Survey: at most this many surfaces are followed down under one grid point.
SURVEY_MAX_LAYERS: int = 64

#: Survey health: a table (mesh or size) whose longer side is outside this range, or a
#: scenery mesh longer than ``SURVEY_SCENERY_MAX_RATIO`` times the table, is a unit slip.
SURVEY_TABLE_RANGE_MM: tuple[float, float] = (200.0, 5000.0)
SURVEY_SCENERY_MAX_RATIO: float = 1.5

#: Survey input limit: at most this many grid points (a 5 m table at a 10 mm grid).
SURVEY_MAX_GRID_POINTS: int = 250_000

#: Survey input limit: at most this many pairs of positions (what costs time and memory:
#: 10 M pairs is about 4,470 positions, a 1.2 m table at an 18 mm grid; hours of CPU).
SURVEY_MAX_PAIRS: int = 10_000_000

#: Survey on a Dask cluster: no chunk of pairs finished for this long (s) means a stalled
#: worker (one without a nanny is never restarted): the survey stops, saying so.
SURVEY_STALL_S: float = 600.0

#: Survey memory estimate per pair (bytes) for messages: the pair's indices and answer
#: (17 B) and, when it is visible, its entry in the report (a list of two ints, ~100 B).
SURVEY_BYTES_PER_PAIR: int = 120

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
