"""The cross-cutting geometric tolerances and rule numbers: those that several layers
must agree on (the 3 x 3 mm patch, insets, route steps, the placement tolerance, the
largest coordinate and body). All lengths are millimetres, all angles degrees.

Every other number lives beside its owner, with its unit and rule number:

* read inside compiled kernels: :mod:`geom3d.bodies.kernel_constants` (the only constants
  the compiled-kernel cache is keyed on; this module is not);
* input limits: :mod:`geom3d.scenario.limits`, :mod:`geom3d.mesh.limits`,
  :mod:`geom3d.survey.limits`, ``RENDER_*`` in :mod:`geom3d.commands.render`;
* tolerances of one package: ``geom3d/<package>/tolerances.py`` (``mesh``, ``placement``,
  ``scene``, ``templates``, ``visibility``), or the one module that uses them;
* Infinity's roll numbers: :mod:`geom3d.combat.numbers`;
* report constants beside the report code (``CHECK_NUMBER_TOL`` in
  :mod:`geom3d.check.expectations`, ``MAX_REPORT_BYTES`` in :mod:`geom3d.survey.compare`);
* the viewer's own: in ``viewer/`` (``camera``, ``side``, ``layers/annotations``).

docs/architecture.md lists them ("Where numbers live").
"""

from __future__ import annotations

#: Side of the minimum visible patch (Infinity: "a minimum size of 3x3mm"), apparent size.
PATCH_MM: float = 3.0

#: Spacing of the fine sample grid in the target's apparent view. A patch counts when a
#: full window of ``PATCH_MM / SAMPLE_MM + 1`` samples a side (spanning the patch) is
#: unobstructed; the coarse pruning lattice has spacing ``PATCH_MM + SAMPLE_MM`` (see
#: :class:`geom3d.visibility.PatchLattice`, which derives both from the ruleset's patch
#: size). With 1 mm spacing a visible region containing a 4 x 4 mm square is always found
#: and one containing no 3 x 3 mm square never is (SPEC section 3.6).
SAMPLE_MM: float = 1.0

#: Spacing of eye points on the viewer's surface (arc length and height). Eye points are
#: samples of a continuous surface: a view that exists only from eye points that fall
#: between two samples may be missed. With 2 mm every gap at least 2 mm wide that lies
#: against the viewer has an eye point inside it.
EYE_SPACING_MM: float = 2.0

#: Route sampling: LoF along a route is checked every ``ROUTE_STEP_MM`` of travel, then the
#: first position with LoF is refined by bisection to ``ROUTE_REFINE_MM``.
ROUTE_STEP_MM: float = 10.0
ROUTE_REFINE_MM: float = 0.5
#: Line of Fire windows along a route (SPEC 12.5: "1 mm resolution") are found from a
#: sample every ``ROUTE_WINDOW_STEP_MM`` of travel, each edge then bisected to
#: ``ROUTE_REFINE_MM``. At 10 mm (the templates' route step) a 40-trooper table's
#: 388 mm route missed windows 0.5 to 8 mm wide (a sniper's lane through a gap) and
#: reported one 8.7 mm window over positions without Line of Fire; so every millimetre is
#: asked (about 3 times the time of the 10 mm scan on that table).
ROUTE_WINDOW_STEP_MM: float = 1.0

#: Pitched templates: a moving trooper's route is checked for contact every this many mm
#: of travel (level templates are checked exactly).
ROUTE_TOUCH_STEP_MM: float = 1.0


#: Sample points are inset this far from the base underside, so the surface a trooper
#: stands on does not block its own rays (SPEC section 3.7).
STAND_INSET_MM: float = 0.5

#: Eye points and target points are inset this far inside a silhouette's side and top,
#: so a segment starting on a trooper's own skin never clips a neighbour it touches.
SURFACE_INSET_MM: float = 0.01

#: A segment starts this far along its direction (and stops this far short of its end),
#: so one that starts or ends on a scenery surface does not hit that surface.
RAY_EPS_MM: float = 1e-3


#: 40k: largest angle between a teardrop's heading and its contact direction. Ruling A1
#: (SPEC 12.6): the template may lie over the firer's own base (004 forbids touching
#: *other* friendly models), so every heading is admissible at every contact point.
WH40K_MAX_CONTACT_OFFSET_DEG: float = 180.0


#: The one contact tolerance of placements (ruling 13.3): a Blast Focus given in the file
#: touches the attacker's silhouette when the template is within this distance of it, and
#: a template "passes through" a silhouette only when it cuts in deeper than this. Users
#: (and geom3d's own printed answers) type rounded coordinates: 0.01 mm is far below
#: anything a table can show, and one value for both keeps a printed placement valid.
PLACEMENT_TOL_MM: float = 0.01


#: A point exactly on the 180-degree arc line counts as inside when within this distance.
ARC_EPS_MM: float = 1e-6


#: Two plan points closer than this have no direction between them: the heading from one
#: to the other is taken as 0 (mm).
COINCIDENT_EPS_MM: float = 1e-12


#: Largest coordinate a scenario may use (10 km from the origin). Anything beyond is a
#: unit slip or a typo, and sampling a route or a view that large would not finish.
MAX_COORD_MM: float = 1e7

#: Largest size of a single body: a silhouette's diameter or height, a box's side, a
#: template's length (5 m). Real pieces are far smaller; bigger is a unit slip.
MAX_BODY_MM: float = 5000.0


#: A Line of Fire matrix with at least this many pairs to decide builds the blocking-proof
#: map (seconds on a million-triangle table); fewer pairs are cast ray by ray, unless
#: the map was already built (or cached on disk).
PROOF_MIN_PAIRS: int = 32


#: ``geom3d survey --lanes`` default: the longest firing lanes listed in survey.json. A
#: report number, kept here because the scene's and the rulesets' ``survey`` signatures
#: (layers 4 and 6) and the light ``survey`` command parser share it with the survey.
SURVEY_DEFAULT_LANES: int = 50


#: Every constant above is public: an upper-case name is a tolerance or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
