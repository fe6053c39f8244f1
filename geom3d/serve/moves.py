"""A scene with one trooper moved: re-stood, checked, the unchanged pairs carried over.

:class:`geom3d.serve.session.Session` moves troopers through the scenario file's data (so
a saved file gives the same answers); :func:`moved_scene` does it on a scene alone (the
viewer's window, ``geom3d view``, which has no file data to edit). Both make the new
scene with :meth:`geom3d.scene.scene.Scene.restand` (the scenery, BVH, proofs and the
other troopers kept; only the moved one stood and checked again), refuse a spot off the
table or inside scenery (:func:`refusal`) and keep the cached visibility of the pairs
the move cannot change (:func:`carry_visibility`).
"""

from __future__ import annotations

from geom3d.core.errors import InputError

__all__ = ["MoveRefused", "carry_visibility", "moved_scene", "off_table", "refusal"]


class MoveRefused(InputError):
    """A spot where the trooper may not stand (off the table, inside scenery)."""


def off_table(bounds, xy) -> str | None:
    """Why plan point ``xy`` (mm) is off the table ``bounds`` (``[x0, y0, x1, y1]``,
    :func:`geom3d.serve.plan.table_bounds`), or None."""
    x0, y0, x1, y1 = bounds
    if x0 <= xy[0] <= x1 and y0 <= xy[1] <= y1:
        return None
    return (
        f"position: [{xy[0]:g}, {xy[1]:g}] mm is off the table "
        f"(x {x0:g} to {x1:g}, y {y0:g} to {y1:g} mm)"
    )


def refusal(scene, tid: str) -> str | None:
    """The scene's warning that trooper ``tid`` stands inside scenery (embedded in a
    solid, or enclosed: SPEC 13.1), as a refusal, or None. Such a spot is refused: a
    spot of ``[x, y]`` stands on top of what is there (a roof, a crate's lid), so only a
    spot given with its z can be inside."""
    head = f"trooper {tid!r} "
    for w in scene.warnings:
        if w.startswith(head) and ("embedded" in w or "enclosed" in w):
            return f"position: refused, {w}"
    return None


def carry_visibility(old, new, tid: str) -> None:
    """Copy into ``new.visibility_cache`` the pairs of ``old`` that moving ``tid`` cannot
    change (:func:`geom3d.serve.reach.stale_pairs`); none with a 40k vehicle (its hull
    is part of every pair's BVH)."""
    from geom3d.serve.reach import stale_pairs

    cached = dict(old.visibility_cache)  # one C-level copy: other threads may add
    if any(t.vehicle is not None for t in new.troopers.values()):
        return
    stale = stale_pairs(cached, new.troopers, tid, old.troopers[tid])
    new.visibility_cache.update((k, v) for k, v in cached.items() if k not in stale)


def moved_scene(scene, tid: str, position, facing_deg=None, prone=None):
    """``scene`` with trooper ``tid`` at ``position`` (mm: ``[x, y]`` stands it by 13.1,
    ``[x, y, z]`` as given), turned to ``facing_deg`` and laid down or stood up
    (``prone``) when given.

    Raises
    ------
    MoveRefused
        The spot is off the table or inside scenery.
    UnknownIdError
        No trooper ``tid``.
    """
    from geom3d.serve.plan import table_bounds

    scene.trooper(tid)
    why = off_table(table_bounds(scene), position)
    if why:
        raise MoveRefused(why)
    new = scene.restand(tid, position, facing_deg=facing_deg, prone=prone)
    why = refusal(new, tid)
    if why:
        raise MoveRefused(why)
    carry_visibility(scene, new, tid)
    return new
