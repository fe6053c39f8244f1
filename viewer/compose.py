"""Composition: a scene (and an attack, a Line of Fire or a view) -> one :class:`Drawing`.

:func:`build_drawing` is what ``geom3d render`` draws: the scenery and trooper layers, the
part the diagram is about (an attack, one Line of Fire, a trooper's view or the LoF
matrix summary), the scale bar, the region the camera must show and the legend.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from geom3d.combat.text import odds_label
from geom3d.core.errors import InputError

from . import palette as pal
from .annotate import decorate, height_suffix
from .attack_part import attack_part
from .layers.annotations import arc_boundary_actors, scale_bar_actors
from .layers.lof import find_pair, lof_from_trooper, lof_pair_actors, matrix_actors
from .layers.scenery import scenery_actors, scenery_legend
from .layers.troopers import side_colors, trooper_actors
from .model import Drawing, LegendEntry
from .side import section_filter, side_part, side_scale_bar
from .views import eye_part

__all__ = [
    "FOCUS_MARGIN_MM",
    "build_drawing",
    "content_bounds",
    "parse_lof_arg",
    "parse_view",
    "resolve_attack_for_drawing",
    "view_from_trooper",
    "view_pair",
]

#: Margin around the region of interest of an attack or LoF diagram, mm.
FOCUS_MARGIN_MM = 60.0


def content_bounds(
    scene, ids: Iterable[str] | None = None, extra: Sequence | None = None, margin: float = 0.0
) -> np.ndarray:
    """(2, 3) bounds of the table, scenery and troopers, or of chosen troopers and extras.

    Parameters
    ----------
    ids : iterable of str or None
        None: the whole scene (table extent, scenery, every trooper). Otherwise only these
        troopers (plus ``extra``).
    extra : sequence of (2, 3) arrays or (k, 3) point arrays
    margin : float, mm (x and y only)
    """
    boxes = []
    if ids is None:
        size = scene.scenario.table_size
        if size:
            boxes.append(np.array([[0.0, 0.0, 0.0], [size[0], size[1], 0.0]]))
        if scene.scenery.n_triangles:
            v = scene.scenery.vertices[np.unique(scene.scenery.faces)]
            boxes.append(np.array([v.min(axis=0), v.max(axis=0)]))
        ids = list(scene.troopers)
    for tid in ids:
        boxes.append(scene.trooper(tid).cylinder.bounds())
    for e in extra or ():
        arr = np.asarray(e, dtype=float).reshape(-1, 3)
        boxes.append(np.array([arr.min(axis=0), arr.max(axis=0)]))
    if not boxes:
        return np.array([[-100.0, -100.0, 0.0], [100.0, 100.0, 50.0]])
    lo = np.min([b[0] for b in boxes], axis=0)
    hi = np.max([b[1] for b in boxes], axis=0)
    lo[:2] -= margin
    hi[:2] += margin
    if hi[2] - lo[2] < 1.0:
        hi[2] = lo[2] + 1.0
    return np.array([lo, hi])


def parse_lof_arg(scene, lof: str) -> tuple[str, str]:
    """``"A:B"`` -> (A, B), both known trooper ids (InputError / UnknownIdError)."""
    if not isinstance(lof, str) or lof.count(":") != 1:
        raise InputError(f"--lof: expected A:B (two trooper ids), got {lof!r}")
    a, b = (s.strip() for s in lof.split(":"))
    if not a or not b:
        raise InputError(f"--lof: expected A:B (two trooper ids), got {lof!r}")
    if a == b:
        raise InputError(f"--lof: Line of Fire from {a!r} to itself")
    scene.trooper(a)
    scene.trooper(b)
    return a, b


def parse_view(scene, view: str) -> tuple[str, str | None]:
    """``top`` / ``iso`` / ``from:ID`` / ``side[:A:B]`` / ``eye:A:B`` -> (kind, trooper id).

    The trooper id is the camera's own (``from:ID``, and A of ``eye:A:B``), else None;
    :func:`view_pair` gives both ids of ``side:A:B`` and ``eye:A:B``.
    """
    if view in ("top", "iso", "side"):
        return view, None
    if isinstance(view, str) and view.startswith(("side:", "eye:")):
        kind, a, _b = view_pair(scene, view)
        return kind, (a if kind == "eye" else None)
    if isinstance(view, str) and view.startswith("from:"):
        tid = view[5:].strip()
        if not tid:
            raise InputError("--view from:ID needs a trooper id, e.g. from:blue-1")
        scene.trooper(tid)
        return "from", tid
    raise InputError(
        f"--view: unknown view {view!r} (expected top, iso, from:ID, side, side:A:B or eye:A:B)"
    )


def view_pair(scene, view: str) -> tuple[str, str | None, str | None]:
    """``side:A:B`` / ``eye:A:B`` -> (kind, A, B), known ids; other views: (kind, None, None)."""
    kind, _, rest = str(view).partition(":")
    if kind not in ("side", "eye") or (kind == "side" and not rest):
        return kind, None, None
    ids = [x.strip() for x in rest.split(":")]
    if len(ids) != 2 or not all(ids):
        raise InputError(f"--view {kind}:A:B needs two trooper ids, e.g. {kind}:blue-1:red-1")
    if ids[0] == ids[1]:
        raise InputError(f"--view {kind}:A:B: {ids[0]!r} twice (two different troopers)")
    scene.trooper(ids[0])
    scene.trooper(ids[1])
    return kind, ids[0], ids[1]


def resolve_attack_for_drawing(scene, attack_id: str, odds: bool = False) -> tuple[dict, list]:
    """Resolve an attack with the engine: its JSON dict and its template volumes.

    ``odds``: with the exact odds of every affected trooper (SPEC 12.4).

    Returns
    -------
    doc : dict
        ``AttackResult.to_dict()`` (SPEC 6).
    volumes : list of geom3d.templates.TemplateVolume
        ``AttackResult.volumes``: the placed templates.
    """
    res = scene.resolve_attack(attack_id, **({"odds": True} if odds else {}))
    return res.to_dict(), list(res.volumes)


def view_from_trooper(scene, tid: str) -> dict:
    """Camera hint of a ``from:ID`` view: eye height, facing, and standing point."""
    t = scene.trooper(tid)
    f = math.radians(t.facing_deg)
    return {
        "trooper": tid,
        "position": [float(v) for v in t.position],
        "facing": [math.cos(f), math.sin(f)],
        "eye_z": float(t.position[2] + 0.95 * t.height),
        "radius": float(t.radius),
        "height": float(t.height),
    }


def _aim(scene, eye_id: str, attack: str | None, lof: str | None) -> list[float] | None:
    """The point a ``from:ID`` view looks at: the other end of ``--lof``, or for
    ``--attack`` the main target (the attacker when ID is the main target), else None."""
    other = None
    if lof is not None:
        a, b = parse_lof_arg(scene, lof)
        other = b if eye_id != b else a
    elif attack is not None:
        spec = scene.attack(attack)
        if spec.main_target and spec.main_target != eye_id:
            other = spec.main_target
        elif spec.attacker != eye_id:
            other = spec.attacker
    if other is None:
        return None
    t = scene.trooper(other)
    x, y, z = t.position
    return [float(x), float(y), float(z + 0.5 * t.height)]


def _subject(scene, attack_info, lof_info) -> list[float] | None:
    """The point a plan's ``--zoom`` centres the picture on: the centre of the attack's
    templates (else its attacker), else the middle of the Line of Fire, else None (the
    picture's own centre)."""
    if attack_info is not None:
        _spec, _doc, volumes = attack_info
        if volumes:
            b = np.array([v.bounds() for v in volumes])
            return (0.5 * (b[:, 0].min(axis=0) + b[:, 1].max(axis=0))).tolist()
        return [float(v) for v in scene.trooper(_spec.attacker).position]
    if lof_info is not None:
        pa = np.asarray(scene.trooper(lof_info[0]).position, dtype=float)
        pb = np.asarray(scene.trooper(lof_info[1]).position, dtype=float)
        return (0.5 * (pa + pb)).tolist()
    return None


def _merge_into(d: Drawing, part: Drawing) -> None:
    d.actors.extend(part.actors)
    d.labels.extend(part.labels)
    for e in part.legend:
        d.add_legend(e.label, e.color, e.face)
    d.notes.extend(n for n in part.notes if n not in d.notes)


def _odds_text(doc: dict, suffix: dict[str, str], notes: list[str]) -> None:
    """Odds next to each affected trooper (label) and who rolls what (one note each)."""
    if doc.get("weapon") is None:
        notes.append("odds: this attack gives no weapon (SPEC 12.4), so no odds")
        return
    for tid in doc.get("affected", []):
        o = doc["troopers"].get(tid, {}).get("odds")
        if o is None:
            continue
        roll, numbers = odds_label(o).split("\n")
        base = suffix.get(tid, "")
        suffix[tid] = (base[: -len(": hit")] if base.endswith(": hit") else base) + f": {numbers}"
        note = f"{tid}: {roll}, P(critical) {o['p_critical']:.1%}"
        if "p_attacker_wins" in o:  # face to face (SPEC 13.2)
            note += (
                f"; attacker wins {o['p_attacker_wins']:.1%}, {tid} wins "
                f"{o['p_defender_wins']:.1%}, nobody {o['p_nobody']:.1%}"
            )
        back = o.get("against_attacker")
        if back is not None:
            note += (
                f"; shoots back {o.get('back_dice', 1)}@{o.get('sv_back')}: P(hit) "
                f"{back['p_hit']:.1%}, attacker P(wounded) {back['p_wounded']:.1%}, "
                f"E(W) {back['expected_wounds']:.2f}"
            )
        notes.append(note)


def build_drawing(
    scene,
    *,
    view: str = "top",
    attack: str | None = None,
    lof: str | None = None,
    lof_doc: dict | None = None,
    attack_result: tuple[dict, list] | None = None,
    title: str | None = None,
    caption: str | None = None,
    legend: bool = True,
    annotate=(),
    odds: bool = False,
    subtitle: bool = True,
) -> Drawing:
    """Everything a diagram shows (SPEC 6 ``geom3d render``), as a :class:`Drawing`.

    Parameters
    ----------
    scene : geom3d.Scene
    view : str
        ``top``, ``iso`` or ``from:ID``.
    attack : str or None
        Draw this attack (resolved with ``scene.resolve_attack``).
    lof : str or None
        ``"A:B"``: draw this Line of Fire.
    lof_doc : dict or None
        A ``geom3d lof`` JSON document already computed; used for the LoF matrix summary
        and ``from:`` views instead of recomputing.
    attack_result : (dict, volumes) or None
        An attack already resolved (skips ``scene.resolve_attack``).
    title, caption, legend, annotate
        Text options (:func:`viewer.annotate.decorate`); ``attack`` and ``lof`` may be
        combined (the attack with the Line of Fire drawn over it).
    odds : bool
        With ``attack``: each affected trooper's label carries its exact odds (SPEC 12.4;
        ``render --odds``) and a note per trooper says who rolls what.
    subtitle : bool
        False: no automatic subtitle (``--no-subtitle``).

    Raises
    ------
    InputError, UnknownIdError
        Unknown view, trooper or attack ids; bad text options.
    """
    title_opt, show_legend = title, legend  # both names are reused below
    kind, eye_id = parse_view(scene, view)
    _, pa, pb = view_pair(scene, view)
    if kind == "side" and pa is not None and attack is None and lof is None:
        lof = f"{pa}:{pb}"  # a side view across A-B is about the Line of Fire A-B
    name = scene.scenario.name
    view_name = {
        "top": "plan view",
        "iso": "3D view",
        "from": f"view from {eye_id}",
        "side": "side view" if pa is None else f"side view across {pa} - {pb}",
        "eye": f"view from {pa}'s eye towards {pb}",
    }[kind]
    focus_ids: list[str] | None = None
    extra: list = []
    part: Drawing
    suffix: dict[str, str] = {}
    attack_info = lof_info = lof_part = None
    if lof is not None:
        a, b = parse_lof_arg(scene, lof)
        pair = find_pair(lof_doc, a, b) if lof_doc else None
        if pair is None:
            pair = scene.line_of_fire(a, b).to_dict()
        lof_part = lof_pair_actors(scene, pair)
        lof_info = (a, b, pair)
        focus_ids = [a, b]
        extra = [np.asarray(act.mesh.points) for act in lof_part.actors]
        if pair.get("reason") == "out_of_arc":
            lof_part.notes.append(f"{b} is outside {a}'s front 180° arc")
    eye = eye_part(scene, pa, pb) if kind == "eye" else None
    if attack is not None:
        spec = scene.attack(attack)
        doc, volumes = (
            attack_result
            if attack_result is not None
            else resolve_attack_for_drawing(scene, attack, odds)
        )
        part, att_suffix, att_ids, att_extra = attack_part(scene, spec, doc, volumes)
        attack_info = (spec, doc, volumes)
        if lof_part is not None:  # --attack with --lof: both, in one picture
            part.title = f"{part.title}; {lof_part.title}"
            part.subtitle = "; ".join(x for x in (part.subtitle, lof_part.subtitle) if x)
            _merge_into(part, lof_part)
        for tid, text in att_suffix.items():
            suffix[tid] = suffix.get(tid, "") + text
        if odds:
            _odds_text(doc, suffix, part.notes)
        focus_ids = list(dict.fromkeys((focus_ids or []) + att_ids))
        extra = extra + att_extra
    elif lof_part is not None:
        part = lof_part
    elif eye is not None:
        part = eye
    elif kind == "from":
        part = lof_from_trooper(scene, eye_id, lof_doc)
    else:
        pairs = lof_doc["pairs"] if lof_doc else [r.to_dict() for r in scene.lof_matrix()]
        part = matrix_actors(scene, pairs)
    title = (
        f"{name} - {view_name} - {part.title}"
        if kind not in ("from", "eye") or attack or lof
        else f"{name} - {view_name}"
    )
    for tid, text in height_suffix(scene, annotate).items():
        suffix[tid] = suffix.get(tid, "") + text
    d = Drawing(title=title, subtitle=part.subtitle)
    d.actors.extend(scenery_actors(scene))
    ta, tl = trooper_actors(
        scene, hidden=[eye_id] if kind in ("from", "eye") else (), label_suffix=suffix
    )
    d.actors.extend(ta)
    d.labels.extend(tl)
    _merge_into(d, part)
    if eye is not None:  # the eye view's shading and camera, with --lof / --attack too
        if part is not eye:
            _merge_into(d, eye)
        d.camera.update(eye.camera)
    elif kind == "side":
        side = side_part(scene, pa, pb)
        _merge_into(d, side)
        d.camera.update(side.camera)
    if focus_ids is not None and kind != "from":
        bounds = content_bounds(scene, focus_ids, extra, margin=FOCUS_MARGIN_MM)
    else:
        bounds = content_bounds(scene)
    if kind == "from":
        if not scene.trooper(eye_id).has_360:
            d.actors.extend(arc_boundary_actors(scene, eye_id, bounds))
            d.add_legend(f"{eye_id}'s arc edge (grey: behind)", pal.ARC_EDGE, "line")
        d.eye = view_from_trooper(scene, eye_id)
        aim = _aim(scene, eye_id, attack, lof)
        if aim is not None:
            d.eye["aim"] = aim
    # plan views put the bar above everything (its height does not show, its visibility
    # does); 3D views lay it on the table
    sb_z = float(bounds[1, 2]) + 1.0 if kind == "top" else None
    if kind == "side":  # the bar stands in the picture's plane, under the section
        sb_actors, sb_labels = side_scale_bar(d.camera, bounds, scene.scenario.units)
    elif kind == "eye":  # a perspective close-up has no single scale
        sb_actors, sb_labels = [], []
    else:
        sb_actors, sb_labels, bounds = scale_bar_actors(bounds, scene.scenario.units, sb_z)
    d.actors.extend(sb_actors)
    d.labels.extend(sb_labels)
    d.bounds = bounds
    subject = _subject(scene, attack_info, lof_info)
    if subject is not None:  # --zoom magnifies about it, centred
        d.camera["subject"] = subject
    d.view = kind
    if kind == "eye":  # the eye's own trooper is not drawn: the view is about the target
        d.about = [pb] if pb is not None else []
    elif focus_ids is not None:
        d.about = list(focus_ids)
    elif kind == "top":
        d.about = list(scene.troopers)
    if kind == "side":
        section_filter(d, scene)
    # sides and scenery first in the legend
    sides = side_colors(scene)
    legend = [LegendEntry(f"side {s}", c, "rectangle") for s, c in sides.items()]
    d.legend = legend + scenery_legend(scene) + d.legend
    d.subtitle = "; ".join(
        x
        for x in (d.subtitle, f"ruleset {scene.ruleset.name}, file units {scene.scenario.units}")
        if x
    )
    if not subtitle:  # --no-subtitle
        d.subtitle = ""
    return decorate(
        scene, d, annotate=annotate, title=title_opt, caption=caption, legend=show_legend,
        attack=attack_info, lof=lof_info,
    )  # fmt: skip
