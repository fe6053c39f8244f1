"""The ``rays`` layer: Line of Fire witness rays, blocked-ray fans, the LoF matrix summary."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyvista as pv

from geom3d.bodies.cylinder import ray_cylinder_entry
from geom3d.core.tolerances import COINCIDENT_EPS_MM
from viewer import palette as pal
from viewer import shapes as sh
from viewer import wording as wd
from viewer.layers.route_windows import route_window_actors
from viewer.model import ActorSpec, Drawing

__all__ = [
    "blocked_rays",
    "find_pair",
    "lof_from_trooper",
    "lof_pair_actors",
    "matrix_actors",
]


def _patch(scene) -> str:
    """The witness patch, ``"3x3 mm"``, in the file's units."""
    mm = scene.ruleset.lof_policy.patch_mm
    return f"{wd.number(scene, mm)}x{wd.length(scene, mm)}"


def _near_points(a, b, fractions=(0.95, 0.5, 0.08)) -> np.ndarray:
    """Points on ``a``'s mantle facing ``b``, at the given fractions of its height."""
    pa = np.array(a.position, dtype=float)
    pb = np.array(b.position, dtype=float)
    d = pb[:2] - pa[:2]
    n = float(np.hypot(*d))
    u = d / n if n > COINCIDENT_EPS_MM else np.array([1.0, 0.0])
    r = a.radius * 0.98
    return np.array([[pa[0] + r * u[0], pa[1] + r * u[1], pa[2] + f * a.height] for f in fractions])


def blocked_rays(scene, from_id: str, to_id: str):
    """A fan of rays from ``from_id``'s eye points to ``to_id``, each cut at its first hit.

    Three eye points (top, middle, low) on the side of the viewer facing the target, and
    three target points on the target's near side; the nine segments are cast against
    blocking scenery (``scene.engine.first_hit``) and against the cylinders of the other
    troopers that block Line of Fire (``Trooper.blocks_lof``).

    Returns
    -------
    origins : (k, 3) float, mm
    hits : (k, 3) float, mm
        First obstruction on each segment (the target point where it is clear).
    ends : (k, 3) float, mm
    blocked : (k,) bool
    """
    a, b = scene.trooper(from_id), scene.trooper(to_id)
    eyes = _near_points(a, b)
    targets = _near_points(b, a)
    o = np.repeat(eyes, len(targets), axis=0)
    e = np.tile(targets, (len(eyes), 1))
    length = np.linalg.norm(e - o, axis=1)
    dist, _ = scene.engine.first_hit(o, e)
    dist = np.where(np.isfinite(dist), dist, np.inf)
    t_hit = dist / np.where(length > 0, length, 1.0)
    for t in scene.troopers.values():
        if t.id in (a.id, b.id) or not t.blocks_lof:
            continue
        tt = ray_cylinder_entry(o, e - o, t.cylinder)
        t_hit = np.minimum(t_hit, np.where(tt <= 1.0, tt, np.inf))
    blocked = np.isfinite(t_hit) & (t_hit < 1.0)
    f = np.where(blocked, t_hit, 1.0)[:, None]
    hits = o + f * (e - o)
    return o, hits, e, blocked


def lof_pair_actors(scene, pair: dict, *, blocked_fan: bool = True) -> Drawing:
    """One Line of Fire (SPEC 6 pair dict): the witness ray, or a fan of blocked rays.

    A visible pair gets its deciding ray (eye point -> patch centre) as a thick line with
    balls at both ends. A pair that is not visible gets :func:`blocked_rays`: each ray in
    the contrasting colour up to its first obstruction (black ball), then faint to its
    end.
    """
    a, b = pair["from"], pair["to"]
    lof = bool(pair.get("lof"))
    reason = pair.get("reason")
    title = f"Line of Fire {a} -> {b}: " + ("yes" if lof else "no")
    if reason:
        title += f" ({str(reason).replace('_', ' ')})"
    d = Drawing(title=title)
    w = pair.get("witness") or {}
    vis = "yes" if pair.get("visible") else "no"
    arc = "yes" if pair.get("in_arc") else "no"
    d.subtitle = f"visible: {vis}, {b} in {a}'s front arc: {arc}"
    if "eye" in w and "patch_center" in w:
        eye = np.array(w["eye"], dtype=float)
        patch = np.array(w["patch_center"], dtype=float)
        d.actors.append(
            ActorSpec(
                f"witness:{a}:{b}",
                "rays",
                pv.merge([sh.segments(eye, patch), sh.spheres(np.vstack([eye, patch]), 1.6)]),
                pal.CLEAR_RAY,
                line_width=4.0,
                lighting=False,
                meta={"eye": eye.tolist(), "patch_center": patch.tolist()},
            )
        )
        d.add_legend(f"deciding ray ({_patch(scene)} seen)", pal.CLEAR_RAY, "line")
        area = w.get("visible_area_mm2")
        viewer = w.get("viewer") or a
        if area is not None:
            other = b if viewer == a else a
            d.notes.append(f"{viewer}'s eye sees {wd.area(scene, float(area))} of {other}")
    elif blocked_fan:
        o, hits, e, blocked = blocked_rays(scene, a, b)
        parts = [sh.segments(o[blocked], hits[blocked])] if blocked.any() else []
        if parts:
            d.actors.append(
                ActorSpec(
                    f"blocked:{a}:{b}",
                    "rays",
                    pv.merge([*parts, sh.spheres(hits[blocked], 1.4)]),
                    pal.BLOCKED_RAY,
                    line_width=2.5,
                    lighting=False,
                    meta={"hits": hits[blocked].tolist(), "origins": o[blocked].tolist()},
                )
            )
            d.add_legend("ray stopped by cover", pal.BLOCKED_RAY, "line")
        rest_o = np.where(blocked[:, None], hits, o)
        d.actors.append(
            ActorSpec(
                f"blocked:{a}:{b}:rest",
                "rays",
                sh.segments(rest_o, e),
                "#9A9A9A",
                0.8,
                line_width=1.0,
                lighting=False,
            )
        )
        d.notes.append(f"{int(blocked.sum())} of {len(blocked)} sample rays blocked")
        d.notes.append(f"(no eye point sees a {_patch(scene)} patch)")
    _add_route_windows(d, scene, [pair])
    return d


def _add_route_windows(d: Drawing, scene, pairs) -> None:
    """The exposed stretches of the routes in ``pairs``, with their legend and notes."""
    part = route_window_actors(scene, pairs)
    d.actors.extend(part.actors)
    for e in part.legend:
        d.add_legend(e.label, e.color, e.face)
    d.notes.extend(part.notes)
    for p in pairs:
        r = p.get("route")
        if r and r.get("windows"):
            spans = ", ".join(
                f"{wd.number(scene, w['from_mm'], 0)}-{wd.number(scene, w['to_mm'], 0)}"
                for w in r["windows"]
            )
            d.notes.append(
                f"{p['from']} -> {p['to']}: LoF along {r['mover']}'s route {spans} "
                f"{wd.length_unit(scene)}"
            )


def matrix_actors(scene, pairs: Sequence[dict], *, max_notes: int = 14) -> Drawing:
    """The LoF matrix summary: lines between troopers with LoF, and who sees whom.

    Both directions with LoF: a solid line; one direction only: a thinner line of
    another colour with an arrowhead at the target. Notes list, per trooper, the
    troopers it has LoF to.
    """
    lof = {(p["from"], p["to"]): bool(p.get("lof")) for p in pairs}
    d = Drawing(title="Line of Fire matrix")
    mutual_o, mutual_e, one_o, one_e, heads = [], [], [], [], []

    def mid(t):
        x, y, z = t.position
        return np.array([x, y, z + 0.6 * t.height])

    done = set()
    for a, b in lof:
        key = tuple(sorted((a, b)))
        if key in done or a not in scene.troopers or b not in scene.troopers:
            continue
        done.add(key)
        ab, ba = lof.get((a, b), False), lof.get((b, a), False)
        ta, tb = scene.troopers[a], scene.troopers[b]
        if ab and ba:
            mutual_o.append(mid(ta))
            mutual_e.append(mid(tb))
        elif ab or ba:
            src, dst = (ta, tb) if ab else (tb, ta)
            p0, p1 = mid(src), mid(dst)
            u = p1 - p0
            n = float(np.linalg.norm(u))
            if n <= COINCIDENT_EPS_MM:
                continue
            u /= n
            tip = p1 - u * dst.radius
            one_o.append(p0 + u * src.radius)
            one_e.append(tip)
            hl = min(12.0, 0.3 * n)
            heads.append(
                pv.Cone(
                    center=tuple(tip - u * hl / 2),
                    direction=tuple(u),
                    height=hl,
                    radius=hl / 3,
                    resolution=12,
                )
            )
    if mutual_o:
        d.actors.append(
            ActorSpec(
                "lof:mutual",
                "rays",
                sh.segments(mutual_o, mutual_e),
                pal.LOF_MUTUAL,
                line_width=3.0,
                lighting=False,
            )
        )
        d.add_legend("LoF both ways", pal.LOF_MUTUAL, "line")
    if one_o:
        mesh = pv.merge([sh.segments(one_o, one_e), *heads])
        d.actors.append(
            ActorSpec("lof:one-way", "rays", mesh, pal.LOF_ONE_WAY, line_width=2.0, lighting=False)
        )
        d.add_legend("LoF one way (arrow: target)", pal.LOF_ONE_WAY, "arrow")
    n_lof = sum(lof.values())
    d.subtitle = f"LoF in {n_lof} of {len(lof)} ordered pairs"
    d.notes.append("has LoF to:")
    ids = list(scene.troopers)
    for k, a in enumerate(ids):
        if k >= max_notes:
            d.notes.append(f"  ... {len(ids) - max_notes} more")
            break
        seen = [b for b in ids if lof.get((a, b))]
        d.notes.append(f"  {a}: " + (", ".join(seen) if seen else "-"))
    part = route_window_actors(scene, pairs)
    d.actors.extend(part.actors)
    for e in part.legend:
        d.add_legend(e.label, e.color, e.face)
    d.notes.extend(part.notes)
    return d


def find_pair(doc: dict, a: str, b: str) -> dict | None:
    """The pair ``a -> b`` of a ``geom3d lof`` document, or None."""
    for p in doc.get("pairs", []):
        if p.get("from") == a and p.get("to") == b:
            return p
    return None


def lof_from_trooper(scene, tid: str, lof_doc: dict | None = None) -> Drawing:
    """``tid``'s Line of Fire to every other trooper: witness rays and one note each.

    Used by ``from:ID`` views and by the interactive viewer when a trooper is picked.
    Pairs come from ``lof_doc`` when given, else from ``scene.line_of_fire``.
    """
    scene.trooper(tid)
    others = [o for o in scene.troopers if o != tid]
    pairs = []
    for o in others:
        p = find_pair(lof_doc, tid, o) if lof_doc else None
        pairs.append(p if p is not None else scene.line_of_fire(tid, o).to_dict())
    d = Drawing(title=f"view from {tid}")
    seen = [p["to"] for p in pairs if p.get("lof")]
    d.subtitle = f"{tid} has LoF to {len(seen)} of {len(others)}"
    for p in pairs:
        if p.get("lof"):
            ray = lof_pair_actors(scene, p, blocked_fan=False)
            d.actors.extend(ray.actors)
            for e in ray.legend:
                d.add_legend(e.label, e.color, e.face)
        why = "LoF" if p.get("lof") else f"no LoF ({str(p.get('reason')).replace('_', ' ')})"
        d.notes.append(f"  {p['to']}: {why}")
    d.notes.insert(0, f"from {tid}:")
    return d
