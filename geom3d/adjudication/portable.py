"""Line of Fire answers as plain tuples, to travel from a forked worker to its parent
(:func:`geom3d.execution.shared.shared_map`, used by :func:`.lof.lof_matrix`).

A :class:`~geom3d.visibility.PatchWitness` measures its visible area when first read,
with the ray engine it closes over; pickled as it is, it would measure it in the worker
whether anyone reads it or not. Here the worker sends the witness's eye and patch centre
(and its area only when it was measured), and the parent's witness measures its area on
first read with a function of its own (the pair searched again there: the same search
gives the same witness and area).
"""

from __future__ import annotations

from collections.abc import Callable

from geom3d.scene.results import LofResult
from geom3d.visibility import PatchWitness

__all__ = ["plain_result", "plain_visibility", "result_from_plain", "visibility_from_plain"]

#: ``(eye, patch_center, area or None, viewer_id)``, or None for no witness.
PlainVisibility = tuple[tuple, tuple, float | None, str] | None


def plain_visibility(vis: tuple[PatchWitness | None, str | None]) -> PlainVisibility:
    """A pair's ``(witness, viewer_id)`` as plain values (the patch centre found now;
    the area only when it was measured)."""
    w, viewer = vis
    if w is None or viewer is None:
        return None
    return (w.eye, w.patch_center, w.measured_area_mm2, viewer)


def visibility_from_plain(
    plain: PlainVisibility, measure: Callable[[], float]
) -> tuple[PatchWitness | None, str | None]:
    """The ``(witness, viewer_id)`` of :func:`plain_visibility`; ``measure()`` gives the
    visible area when it is first read and was not sent."""
    if plain is None:
        return None, None
    eye, center, area, viewer = plain
    return PatchWitness(eye, center, area, measure=None if area is not None else measure), viewer


def plain_result(res: LofResult) -> tuple:
    """The fields of a static pair's :class:`LofResult` but its witness (the pair's
    visibility travels once, in :func:`plain_visibility`)."""
    return (res.from_id, res.to_id, res.lof, res.in_arc, res.visible, res.reason)


def result_from_plain(plain: tuple, vis: tuple[PatchWitness | None, str | None]) -> LofResult:
    """:func:`plain_result` with the pair's (rebuilt) witness put back."""
    from_id, to_id, lof, in_arc, visible, reason = plain
    return LofResult(from_id, to_id, lof, in_arc, visible, reason, *vis)
