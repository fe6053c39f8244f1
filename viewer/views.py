"""The eye view (``eye:A:B``) and the labels a 3D camera cannot see.

``eye:A:B`` is a perspective view from A's deciding eye point (the witness eye of
``scene.line_of_fire(A, B)``) towards B. B's visible region is shaded: the apparent-view
samples of :mod:`geom3d.visibility` cast with Line of Fire's own sample predicate
(:class:`geom3d.visibility.ClearToTarget`), each clear sample drawn as its cell; the
witness patch (``patch_mm`` x ``patch_mm``, 3 x 3 mm in Infinity, in apparent size) is
outlined in :data:`PATCH_OUTLINE`.

:func:`hidden_labels` finds the labels a camera cannot see because blocking scenery
(terrain, a hill) stands between the camera and the label's anchor;
:func:`hide_occluded_labels` drops them from a drawing and names them in a note.
"""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pyvista as pv

from geom3d.visibility import (
    ApparentView,
    ClearToTarget,
    PatchLattice,
    VisibilityStats,
    cull_occluders,
    cylinder_array,
    eye_points,
    lattice,
)

from . import palette as pal
from . import shapes as sh
from . import wording as wd
from .model import ActorSpec, Drawing

__all__ = [
    "BEHIND_SCENERY",
    "GHOST_OUTLINE",
    "PATCH_OUTLINE",
    "VISIBLE_REGION",
    "behind_scenery_note",
    "eye_part",
    "hidden_labels",
    "hidden_trooper_labels",
    "hide_occluded_labels",
]

#: Outline of the witness patch in an eye view (used nowhere else in that view).
PATCH_OUTLINE = pal.OKABE_ITO["vermillion"]
#: The target's outline in an eye view, dashed and drawn over scenery (a hidden target).
GHOST_OUTLINE = pal.TEXT
#: Shading of the target's visible region in an eye view.
VISIBLE_REGION = pal.OKABE_ITO["yellow"]
#: Clear samples are drawn this fraction of the way from the eye to the target surface,
#: so they lie just in front of the silhouette they shade.
_SURFACE_PULL = 0.995


def _deciding_eye(scene, a: str, b: str):
    """A's deciding eye point towards B, and the witness (None when A's eye sees no patch)."""
    res = scene.line_of_fire(a, b)
    w = getattr(res, "witness", None)
    if w is not None and getattr(res, "witness_viewer", a) == a:
        return np.asarray(w.eye, dtype=float), w, res
    eyes = eye_points(scene.trooper(a).cylinder, scene.trooper(b).cylinder)
    return np.asarray(eyes[0], dtype=float), None, res


def _patch(scene, mm: float) -> str:
    """``"3 x 3 mm"`` in the file's units."""
    return f"{wd.number(scene, mm)} x {wd.length(scene, mm)}"


def seen_samples(scene, a: str, b: str):
    """B's apparent-view samples from A's deciding eye, cast like Line of Fire casts them.

    Returns
    -------
    eye : (3,) float, mm
    witness, res
        The Line of Fire witness (None when A's eye sees no patch) and result.
    view : geom3d.visibility.ApparentView
    s, t : (n,) float, mm
        The samples' apparent coordinates.
    clear : (n,) bool
        Samples the eye sees.
    pts : (n, 3) float, mm
        Where each sample's sight line meets B.
    lat : geom3d.visibility.PatchLattice
    """
    ta, tb = scene.trooper(a), scene.trooper(b)
    eye, witness, res = _deciding_eye(scene, a, b)
    lat = PatchLattice(scene.ruleset.lof_policy.patch_mm)
    # the occluders Line of Fire uses: every other trooper that blocks LoF
    occ = [t.cylinder for t in scene.troopers.values() if t.id not in (a, b) and t.blocks_lof]
    cast = ClearToTarget(
        scene.engine,
        cylinder_array(cull_occluders(ta.cylinder, tb.cylinder, occ)),
        VisibilityStats(),
    )
    view = ApparentView(eye[None, :], tb.cylinder)
    s0, s1, t0, t1 = view.extent()
    step = lat.sample_mm
    S, T = np.meshgrid(lattice(s0, s1, step) * step, lattice(t0, t1, step) * step, indexing="ij")
    s, t = S.ravel(), T.ravel()
    clear, pts = cast(view, np.zeros(len(s), dtype=np.int64), s, t)
    return eye, witness, res, view, s, t, clear, pts, lat


def eye_part(scene, a: str, b: str) -> Drawing:
    """B seen from A's deciding eye point: visible region shaded, patch outlined.

    Returns
    -------
    Drawing
        ``rays`` layer actors ``eye-visible:A:B`` (clear sample cells) and
        ``eye-patch:A:B`` (the witness patch outline), notes, legend, and ``camera``:
        ``eye`` (3,), ``target`` (3,) B's centre, ``half_angle_deg`` B's apparent half size.
    """
    tb = scene.trooper(b)
    eye, witness, res, view, s, t, clear, pts, lat = seen_samples(scene, a, b)
    s0, s1, t0, t1 = view.extent()
    step = lat.sample_mm
    lof = bool(getattr(res, "lof", False))
    d = Drawing(title=f"eye view {a} -> {b}: LoF " + ("yes" if lof else "no"))
    u, v, w = view.u[0], view.v[0], view.w[0]
    dist = float(view.dist[0])
    c = view.c
    if clear.any():
        depth = (pts[clear] - eye) @ w
        lam = (depth / dist * _SURFACE_PULL)[:, None]
        h = 0.5 * step
        corners = []
        for ds, dt in ((-h, -h), (h, -h), (h, h), (-h, h)):
            app = c + (s[clear] + ds)[:, None] * u + (t[clear] + dt)[:, None] * v
            corners.append(eye + lam * (app - eye))
        n = int(clear.sum())
        verts = np.stack(corners, axis=1).reshape(-1, 3)
        faces = np.arange(4 * n).reshape(n, 4)
        tris = np.vstack([faces[:, [0, 1, 2]], faces[:, [0, 2, 3]]])
        d.actors.append(
            ActorSpec(
                f"eye-visible:{a}:{b}",
                "rays",
                sh.faces_mesh(verts, tris),
                VISIBLE_REGION,
                0.6,
                lighting=False,
            )
        )
        d.add_legend(f"{b} seen from the eye", VISIBLE_REGION)
    area = float(clear.sum()) * step * step
    d.notes.append(f"{a}'s eye sees {wd.area(scene, area)} of {b}")
    if witness is not None:
        pc = np.asarray(witness.patch_center, dtype=float)
        ps, pt, pdepth = view.project(pc[None, :])
        sc, tc, dep = float(ps[0, 0]), float(pt[0, 0]), float(pdepth[0, 0])
        hp = 0.5 * lat.patch_mm
        lam = dep / dist * (_SURFACE_PULL - 0.002)
        ring = [
            eye + lam * (c + (sc + ds) * u + (tc + dt) * v - eye)
            for ds, dt in ((-hp, -hp), (hp, -hp), (hp, hp), (-hp, hp))
        ]
        d.actors.append(
            ActorSpec(
                f"eye-patch:{a}:{b}",
                "rays",
                sh.polyline(np.array(ring), closed=True),
                PATCH_OUTLINE,
                line_width=5.0,
                lighting=False,
                meta={"corners": np.array(ring).tolist()},
            )
        )
        d.add_legend(f"{_patch(scene, lat.patch_mm)} patch (deciding)", PATCH_OUTLINE, "line")
    else:
        viewer = getattr(res, "witness_viewer", None)
        why = (
            f"LoF decided from {viewer}'s eye (reciprocity)"
            if viewer
            else f"no eye point of {a} sees a {_patch(scene, lat.patch_mm)} patch"
        )
        d.notes.append(why + f"; view from {a}'s top eye point")
    d.actors.append(_ghost(tb, eye, a, b))
    d.add_legend(f"{b}'s outline (dashed: through scenery)", GHOST_OUTLINE, "dashed")
    ext = max(abs(s0), abs(s1), abs(t0), abs(t1))
    d.camera = {
        "target_id": b,
        "eye": eye.tolist(),
        "target": c.tolist(),
        "half_angle_deg": math.degrees(math.atan2(ext, dist)),
    }
    return d


def _ghost(t, eye: np.ndarray, a: str, b: str) -> ActorSpec:
    """Trooper ``t``'s outline seen from ``eye``: its base and top circles and the two
    vertical edges of its silhouette, dashed, drawn over everything in an eye view."""
    c = np.asarray(t.position, dtype=float)
    flat = c[:2] - eye[:2]
    n = float(np.hypot(*flat))
    side = np.array([-flat[1], flat[0], 0.0]) / n if n > 1e-9 else np.array([1.0, 0.0, 0.0])
    z0, z1 = c[2], c[2] + t.height
    ang = np.radians(np.arange(0, 360, 10))
    ring = np.column_stack([c[0] + t.radius * np.cos(ang), c[1] + t.radius * np.sin(ang)])
    lines = [np.column_stack([ring, np.full(len(ring), z)]) for z in (z0, z1)]
    lines = [np.vstack([r, r[:1]]) for r in lines]
    for sgn in (-1.0, 1.0):
        p = c + sgn * t.radius * side
        lines.append(np.array([[p[0], p[1], z0], [p[0], p[1], z1]]))
    return ActorSpec(
        f"eye-ghost:{a}:{b}",
        "silhouettes",
        pv.merge([sh.polyline(ln) for ln in lines]),
        GHOST_OUTLINE,
        line_width=1.5,
        lighting=False,
        meta={"dashed": True, "on_top": True},
    )


def hidden_trooper_labels(scene, drawing: Drawing, basis) -> Drawing:
    """The drawing without the trooper labels of troopers scenery hides wholly.

    A trooper is hidden when blocking scenery stands between the camera and every one of
    its sample points (its axis at five heights, and the two edges of its silhouette at
    mid-height); one seen point keeps its label. A side view across A-B hides nothing
    (its section removed what stands in front). The eye view's target keeps its label,
    marked ``(out of sight)`` when hidden (its dashed outline shows where it stands).

    Parameters
    ----------
    basis : viewer.projection.ViewBasis
    """
    if drawing.camera.get("slab") is not None or scene.engine.n_triangles == 0:
        return drawing
    target = drawing.camera.get("target_id") if drawing.view == "eye" else None
    keep, gone = [], []
    for lab in drawing.labels:
        if lab.trooper is None or lab.trooper not in scene.troopers:
            keep.append(lab)
            continue
        t = scene.trooper(lab.trooper)
        c = np.asarray(t.position, dtype=float)
        side = np.cross(basis.forward, [0.0, 0.0, 1.0])
        side = side / max(float(np.linalg.norm(side)), 1e-12)
        pts = [c + [0, 0, f * t.height] for f in (0.1, 0.3, 0.5, 0.7, 0.95)]
        pts += [c + [0, 0, 0.5 * t.height] + sg * 0.9 * t.radius * side for sg in (-1, 1)]
        p = np.array(pts)
        if basis.perspective:
            origins = np.repeat(basis.eye[None, :], len(p), axis=0)
        else:
            origins = p - basis.forward * (basis.span + 2000.0)
        if not all(scene.engine.occluded(origins, p)):
            keep.append(lab)
        elif lab.trooper == target:
            keep.append(replace(lab, text=lab.text + " (out of sight)"))
        else:
            gone.append(lab.trooper)
    if (
        not gone
        and len(keep) == len(drawing.labels)
        and all(a is b for a, b in zip(keep, drawing.labels, strict=True))
    ):
        return drawing
    notes = list(drawing.notes)
    if gone:
        notes.append(behind_scenery_note(gone, []))
    return replace(drawing, labels=keep, notes=notes)


#: How every note on labels hidden behind scenery starts.
BEHIND_SCENERY = "behind scenery (labels not drawn): "


def behind_scenery_note(troopers, others) -> str:
    """The note naming the labels scenery hides: troopers by id, other labels quoted.

    A trooper's label reads ``target (main target): hit``; the note names the trooper
    (``target``). Any other label (a reason, a length, a scenery height) is quoted and
    called a label, so it does not read as one more trooper (issue 47).

    Parameters
    ----------
    troopers : sequence of str
        Ids of the troopers whose labels are hidden.
    others : sequence of str
        Texts of the other hidden labels.
    """
    parts = []
    if troopers:
        parts.append(", ".join(troopers))
    if others:
        word = "the label" if len(others) == 1 else "the labels"
        parts.append(word + " " + ", ".join(f'"{t}"' for t in others))
    return BEHIND_SCENERY + "; ".join(parts)


def hidden_labels(scene, labels, position, direction, parallel: bool, near: float) -> list[bool]:
    """Which labels blocking scenery hides from the camera.

    Parameters
    ----------
    scene : geom3d.Scene
    labels : sequence of Label
    position : (3,) float, mm
        The camera's position.
    direction : (3,) float
        Unit viewing direction (camera -> focal point).
    parallel : bool
        Parallel projection: sight lines are parallel to ``direction`` and start at the near
        clipping plane; else they start at ``position``.
    near : float, mm
        Distance of the near clipping plane from the camera.

    Returns
    -------
    list of bool
        True where the segment from the camera to the label's anchor meets blocking
        scenery (``scene.engine``).
    """
    if not labels or scene.engine.n_triangles == 0:
        return [False] * len(labels)
    p = np.array([lab.point for lab in labels], dtype=np.float64)
    pos = np.asarray(position, dtype=float)
    dirn = np.asarray(direction, dtype=float)
    if parallel:
        depth = (p - pos) @ dirn
        origins = p - np.maximum(depth - near, 0.0)[:, None] * dirn
    else:
        origins = np.repeat(pos[None, :], len(p), axis=0)
    return [bool(x) for x in scene.engine.occluded(origins, p)]


def hide_occluded_labels(scene, drawing: Drawing, camera) -> Drawing:
    """The drawing without the labels blocking scenery hides from ``camera``.

    A hidden label is not drawn (it would float over the hill in front of its trooper); a
    note names it instead. Top views are left alone (nothing stands above a plan).

    Parameters
    ----------
    scene : geom3d.Scene
    drawing : Drawing
    camera : pyvista.Camera
        Set up for the picture (position, focal point, clipping range, projection).

    Returns
    -------
    Drawing
        ``drawing`` itself when nothing is hidden, else a copy with fewer labels and one
        note :func:`behind_scenery_note` (``"behind scenery (labels not drawn): ..."``).
    """
    if drawing.view == "top" or not drawing.labels:
        return drawing
    pos = np.asarray(camera.position, dtype=float)
    focal = np.asarray(camera.focal_point, dtype=float)
    direction = (focal - pos) / np.linalg.norm(focal - pos)
    near = float(camera.clipping_range[0])
    parallel = bool(camera.parallel_projection)
    # trooper labels: hidden only when every sample point of the trooper is
    basis = SimpleNamespace(
        forward=direction,
        eye=pos,
        perspective=not parallel,
        span=float(np.linalg.norm(np.ptp(np.asarray(drawing.bounds, dtype=float), axis=0))),
    )
    original = drawing
    drawing = hidden_trooper_labels(scene, drawing, basis)
    hidden = hidden_labels(scene, drawing.labels, pos, direction, parallel, near)
    hidden = [h and lab.trooper is None for lab, h in zip(drawing.labels, hidden, strict=True)]
    if not any(hidden):
        return drawing
    keep = [lab for lab, h in zip(drawing.labels, hidden, strict=True) if not h]
    gone = [lab.text for lab, h in zip(drawing.labels, hidden, strict=True) if h]
    # one note for both: the troopers' note (if any) is made again with the other labels
    notes = list(original.notes)
    left = {lab.trooper for lab in drawing.labels if lab.trooper is not None}
    troopers = [t for t in (lab.trooper for lab in original.labels) if t and t not in left]
    return replace(drawing, labels=keep, notes=[*notes, behind_scenery_note(troopers, gone)])


#: Arm of an eye view's stop mark, as a fraction of its distance from the eye (the same
#: apparent size near and far: about 1.4 degrees).
STOP_MARK_FRACTION = 0.012


def eye_stop_marks(d: Drawing) -> None:
    """An eye view's stopped rays as a few clean marks where they stop (in place).

    Seen from the eye, a ray is a point; its ball and its faint rest drawn in 3D become a
    column of broken discs and stray lines. Here each blocked ray (``blocked:A:B``)
    becomes a small cross at the point where it stops, in the picture's plane, and the
    rest (``blocked:A:B:rest``) is left out; hits closer than a mark's arm to one
    already drawn are drawn once. The deciding ray, seen end-on from its own eye point,
    is drawn without its balls (they would fill the picture; the line itself is a point
    from there) and left out of the legend: the patch outline shows where it ends.
    """
    cam = d.camera
    if "eye" not in cam or "target" not in cam:
        return
    eye = np.asarray(cam["eye"], dtype=float)
    fwd = np.asarray(cam["target"], dtype=float) - eye
    fwd[2] = 0.0 if np.linalg.norm(fwd[:2]) > 1e-9 else fwd[2]
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right = right / np.linalg.norm(right) if np.linalg.norm(right) > 1e-9 else np.array([1.0, 0, 0])
    up = np.cross(right, fwd)
    keep = []
    for a in d.actors:
        if a.name.startswith("blocked:") and a.name.endswith(":rest"):
            continue
        if a.name.startswith("witness:") and "eye" in a.meta:  # the line, without balls
            a = replace(a, mesh=sh.segments(a.meta["eye"], a.meta["patch_center"]))
        if a.name.startswith("blocked:") and "hits" in a.meta:
            marks: list = []
            for h in np.asarray(a.meta["hits"], dtype=float).reshape(-1, 3):
                arm = STOP_MARK_FRACTION * float(np.linalg.norm(h - eye))
                if any(np.linalg.norm(h - m) < arm for m in marks):
                    continue
                marks.append(h)
            if not marks:
                continue
            m = np.asarray(marks)
            arm = STOP_MARK_FRACTION * np.linalg.norm(m - eye, axis=1)[:, None]
            d1, d2 = (right + up) / math.sqrt(2), (right - up) / math.sqrt(2)
            starts = np.vstack([m - arm * d1, m - arm * d2])
            ends = np.vstack([m + arm * d1, m + arm * d2])
            a = replace(a, mesh=sh.segments(starts, ends), meta={**a.meta, "marks": m.tolist()})
        keep.append(a)
    d.actors[:] = keep
    d.legend[:] = [
        replace(e, label="where a ray stops (cover)") if e.label == "ray stopped by cover" else e
        for e in d.legend
        if not e.label.startswith("deciding ray")
    ]


def side_stop_lines(d: Drawing) -> None:
    """A side view's stopped rays as clean lines from the eye to where they stop.

    The balls at the stops (a blob where nine rays end together) and the faint rest of
    each ray beyond its stop are left out (in place).
    """
    keep = []
    for a in d.actors:
        if a.name.startswith("blocked:") and a.name.endswith(":rest"):
            continue
        if a.name.startswith("blocked:") and "hits" in a.meta:
            o = np.asarray(a.meta["origins"], dtype=float).reshape(-1, 3)
            h = np.asarray(a.meta["hits"], dtype=float).reshape(-1, 3)
            a = replace(a, mesh=sh.segments(o, h))
        keep.append(a)
    d.actors[:] = keep
