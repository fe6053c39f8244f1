"""Visibility: the one 3 x 3 mm visible-patch core (SPEC section 3.1 and 3.6).

A viewer ``A`` sees a target ``T`` when some eye point ``e`` of A's volume sees a
``patch_mm`` x ``patch_mm`` patch of T (3 x 3 mm in Infinity), measured by *apparent size*:
a square in the plane through T's centre perpendicular to the line of sight from ``e``,
each point of the square standing for the first point of T's volume on its ray from
``e``. Every such ray must be clear of blocking scenery and of the other troopers' volumes.

The core, used by Line of Fire and the survey (:func:`pair_patch`, both ways at once;
:func:`find_patch`, one way) and by the Blast Focus (:mod:`geom3d.placement.blast_focus`):

* :mod:`.eyes` - eye points on the viewer's surface facing the target, coarse-to-fine and
  top-first, and their batches;
* :mod:`.apparent` - :class:`ApparentView` (frames, projection, extent) and the sample
  lattices (:class:`PatchLattice`, derived from ``patch_mm``);
* :mod:`.cast` - *sample predicates* (which samples count); Line of Fire's runs in one
  compiled pass from the view to Embree (:mod:`._cast_kernels`);
* :mod:`.search` - the coarse-to-fine search over a sample predicate (its bookkeeping in
  :mod:`._search_kernels`); with Line of Fire's predicate, one compiled call per
  direction (:mod:`._search_compiled`);
* :mod:`.witness` - Line of Fire's witness and visible area (measured when first read);
* :mod:`.interior` (with :mod:`.interior_cache`) - boxes certified inside closed solids;
* :mod:`.proof` - bundles of segments proved blocked through them, without rays, in the
  pair's own frame and in frames square to the walls between the two;
* :mod:`.pair` - the symmetric pair search, which skips what a proof settles.

Proofs change the cost, never the answer: they only mark blocked what is blocked, and the
search takes the first eye (in its fixed order) that sees a patch.

Guarantees (tolerances in :mod:`geom3d.core.tolerances`): a region whose apparent view
contains a ``patch_mm + SAMPLE_MM`` square (4 x 4 mm), seen from a sampled eye point, is
always found; a region whose apparent view contains no ``patch_mm`` square (3 x 3 mm) is
never reported. Occluders thinner than the 1 mm sample spacing can slip between samples;
views that exist only from eye points between eye samples (gaps narrower than
``EYE_SPACING_MM`` against the viewer) may be missed.
"""

from __future__ import annotations

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.tolerances import EYE_SPACING_MM, PATCH_MM
from geom3d.raycast.base import RayBackend
from geom3d.visibility.apparent import (
    ApparentView,
    PatchLattice,
    coarse_samples,
    full_windows,
    lattice,
)
from geom3d.visibility.cast import (
    ClearToTarget,
    SampleCast,
    VisibilityStats,
    cast_target,
    cull_occluders,
    cylinder_array,
    hidden_eyes,
)
from geom3d.visibility.eyes import eye_batches, eye_points, two_adic
from geom3d.visibility.interior import InteriorMap
from geom3d.visibility.pair import pair_patch, search_eyes, warm_kernels
from geom3d.visibility.proof import Prover
from geom3d.visibility.proof_trees import PairProof, ProofStats
from geom3d.visibility.search import BATCH_SIZES, PatchHit, search_patch
from geom3d.visibility.witness import PatchWitness, patch_witness, visible_area

__all__ = [
    "BATCH_SIZES",
    "ApparentView",
    "ClearToTarget",
    "InteriorMap",
    "PairProof",
    "PatchHit",
    "PatchLattice",
    "PatchWitness",
    "ProofStats",
    "Prover",
    "SampleCast",
    "VisibilityStats",
    "cast_target",
    "coarse_samples",
    "cull_occluders",
    "cylinder_array",
    "eye_batches",
    "eye_points",
    "find_patch",
    "full_windows",
    "hidden_eyes",
    "lattice",
    "pair_patch",
    "patch_witness",
    "search_eyes",
    "search_patch",
    "two_adic",
    "visible_area",
    "warm_kernels",
]


def find_patch(
    viewer_cyl: Cylinder,
    target_cyl: Cylinder,
    engine: RayBackend,
    occluders: list[Cylinder],
    *,
    patch_mm: float = PATCH_MM,
    stats: VisibilityStats | None = None,
    eye_spacing: float = EYE_SPACING_MM,
) -> PatchWitness | None:
    """Search for an eye point of ``viewer_cyl`` that sees a patch of ``target_cyl``.

    One direction, uncached: Line of Fire's symmetric visibility is the caller's
    (:mod:`geom3d.adjudication.lof`).

    Parameters
    ----------
    viewer_cyl, target_cyl : Cylinder
    engine : RayBackend
        BVH over the blocking scenery.
    occluders : list of Cylinder
        Other troopers' volumes that block (not markers, not troopers on a route).
    patch_mm : float, mm
        Side of the minimum visible patch (the ruleset's number; Infinity: 3 mm). The
        sample lattices follow from it (:class:`PatchLattice`).
    stats : VisibilityStats, optional
        Incremented with rays cast and eye points examined.
    eye_spacing : float, mm

    Returns
    -------
    PatchWitness or None
        None when no sampled eye point sees a patch.

    Raises
    ------
    ValueError
        ``patch_mm`` is not a positive whole multiple of ``SAMPLE_MM``.
    """
    stats = stats if stats is not None else VisibilityStats()
    lat = PatchLattice(patch_mm)
    occ = cylinder_array(cull_occluders(viewer_cyl, target_cyl, occluders))
    eyes = eye_points(viewer_cyl, target_cyl, eye_spacing)
    return search_eyes(target_cyl, eyes, engine, occ, lat, stats)
