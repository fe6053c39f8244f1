"""Input limits of a scenario file (issue 14, SPEC 13.4): beyond one, the file is refused
with one line naming the file and the field (exit code 2), instead of exhausting memory
or time. Owned by scenario reading and parsing (``reader``, ``schema``, ``parse``, ``rolls``,
``vehicles``); the table of them is in docs/paths-and-cache.md. Lengths in mm.
Light (no imports): the schema checks run before any engine module loads.
"""

#: Scenario limits on a route: at most ``MAX_ROUTE_POINTS`` positions and
#: ``MAX_ROUTE_TRAVEL_MM`` of travel (100,000 samples at ``ROUTE_STEP_MM``, each a Line of
#: Fire or a template test; a real move is a few hundred mm).
MAX_ROUTE_POINTS: int = 10_000
MAX_ROUTE_TRAVEL_MM: float = 1_000_000.0

#: Scenario limit on the Line of Fire work routes cost (SPEC 13.4): the sum over the
#: troopers with a route of its travel (mm) times the other troopers, each of which it is
#: scanned against every ``ROUTE_WINDOW_STEP_MM``. Measured (issue 44): one route scan
#: costs about ``ROUTE_SCAN_S_PER_MM_TROOPER`` per mm of route per other trooper (1.1 to
#: 1.3 ms on a loaded 2-core machine, routes of 0.5 and 2 m past a row of walls, 1 and 4
#: other troopers), so the cap is about two minutes of scanning: a real move of 300 mm
#: past 300 troopers, or a 10 m route past 10. A 1 km route within the two limits above
#: ran 600 s and 3 GB without an answer.
MAX_ROUTE_MM_TROOPERS: float = 100_000.0
ROUTE_SCAN_S_PER_MM_TROOPER: float = 1.2e-3

#: Smallest size of a body: a box's side, a silhouette's diameter or height, a table side
#: (0.01 mm). Smaller is a unit slip or a typo, and nothing can see or touch it.
MIN_BODY_MM: float = 0.01

#: Largest silhouette diameter or height (1 m). The apparent view of a target is sampled
#: every ``SAMPLE_MM`` over a window ``APPARENT_CAP`` target sizes wide, so the work grows
#: with the square of the size; real silhouettes are under 0.2 m.
MAX_SILHOUETTE_MM: float = 1000.0

#: A scenery piece's ``scale`` must lie within these factors (a larger factor is a unit
#: slip; 1e38 overflows the float32 coordinates of the ray engine). Small factors are
#: map scales: a DEM in metres at 1:6000 (issue 10) is scale 1/6000, so the floor is low.
MIN_SCALE: float = 1e-6
MAX_SCALE: float = 1e3

#: Most templates one attack may place (``burst``).
MAX_BURST: int = 20

#: Largest scenario file read (bytes).
MAX_SCENARIO_BYTES: int = 8 << 20

#: Longest id (characters) of a trooper, scenery piece, attack or zone (SPEC 13.4): ids
#: are labels in tables and figures, and a 50,000-character id stalled ``render`` for
#: 300 s while FreeType laid it out.
MAX_ID_CHARS: int = 200

#: Most nodes (mappings, lists, scalars) a scenario may hold once YAML aliases are
#: expanded: an "alias bomb" of a few hundred bytes expands to billions.
MAX_SCENARIO_NODES: int = 1_000_000

#: Deepest nesting of mappings and lists in a scenario (a real one needs about 6).
MAX_SCENARIO_DEPTH: int = 64

#: Largest integer a scenario may write (2**53: every integer up to it is exact as a float).
MAX_SCENARIO_INT: int = 2**53

#: Input ranges of the roll data (``stats``, ``weapon``, ``reaction``): attributes and
#: ARM/BTS 0..MAX_ATTRIBUTE, MODs -MAX_ROLL_MOD..MAX_ROLL_MOD, PS 0..MAX_PS, wounds
#: 1..MAX_WOUNDS. Real profiles stay far inside (BS 17, ARM 10, PS 15, W 3); the ranges
#: catch slips while letting a rule that pushes a Success Value past 20 be written.
MAX_ATTRIBUTE: int = 40
MAX_ROLL_MOD: int = 40
MAX_PS: int = 40
MAX_WOUNDS: int = 20

#: 40k vehicles (SPEC 12.6): Armour Values are whole numbers in MIN_ARMOUR..MAX_ARMOUR
#: (7e: 10-14).
MIN_ARMOUR: int = 10
MAX_ARMOUR: int = 14

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
