"""The answers of ``geom3d lof`` and ``geom3d attack``: JSON documents and terminal text.

The JSON documents (:func:`lof_report`, :func:`attack_report`) are the contract of SPEC
sections 6 and 11.3; the text forms (:func:`lof_table`, :func:`lof_matrix_text`,
:func:`attack_table`) are renderings of those documents and add nothing to them, so the
same answer reads the same whichever format is asked for. Tables say ``yes``/``no``,
never ``True``/``False``. Lengths are millimetres.
"""

from __future__ import annotations

from io import StringIO

from geom3d.core.output import round_point, round_value

__all__ = [
    "MATRIX_CODES",
    "attack_errors",
    "attack_report",
    "attack_table",
    "attack_warnings",
    "lof_matrix_text",
    "lof_report",
    "lof_table",
    "troopers_list",
]

#: Short ``no`` reasons: the LoF JSON ``reason`` -> the words tables use.
REASON_WORDS = {"out_of_arc": "out of arc", "blocked": "blocked", "engaged": "engaged"}

#: Matrix cell codes, in legend order: (code, meaning).
MATRIX_CODES = (
    ("yes", "the row trooper has Line of Fire to the column trooper"),
    ("no:arc", "no: the column trooper is outside the row trooper's front arc"),
    ("no:blk", "no: blocked - neither trooper sees a 3 x 3 mm patch of the other"),
    ("no:eng", "no: the row trooper is engaged in close combat and does not touch the column"),
    ("*", "suffix: a route is involved; see the JSON `route` for where"),
    (".", "the same trooper"),
)
_CODE = {None: "yes", "out_of_arc": "no:arc", "blocked": "no:blk", "engaged": "no:eng"}


def _yes(flag) -> str:
    return "yes" if flag else "no"


# --------------------------------------------------------------------------- lof
def troopers_list(scene) -> list[dict]:
    """The placed troopers, in file order (SPEC 11.3).

    Each entry: ``id``, ``side``, ``position`` ((3,) list of float, mm: the centre of the
    underside of the base after drop-to-surface), ``dropped`` (z came from the surface),
    ``facing_deg``, ``silhouette`` (int, or None for an explicit cylinder),
    ``diameter_mm``, ``height_mm`` (the effective height: the base height when prone) and
    ``states`` (sorted); a 40k vehicle adds ``vehicle``: ``armour`` ({front, side,
    rear}), ``barrel`` (world point, mm, or None: it has a base), ``hull_area_mm2``
    (plan) and ``hull_rect`` (the plan rectangle's corners, front-left first,
    counter-clockwise) (SPEC 12.6).
    """
    out = []
    for t in scene.troopers.values():
        entry = {
            "id": t.id,
            "side": t.side,
            "position": round_point(t.position),
            "dropped": bool(t.dropped),
            "facing_deg": round_value(t.facing_deg),
            "silhouette": t.silhouette,
            "diameter_mm": round_value(t.diameter),
            "height_mm": round_value(t.height),
            "states": sorted(t.states),
        }
        if t.vehicle is not None:
            v = t.vehicle
            entry["vehicle"] = {
                "armour": dict(zip(("front", "side", "rear"), v.spec.armour, strict=True)),
                "barrel": round_point(v.barrel),
                "hull_area_mm2": round_value(v.hull.area),
                "hull_rect": [round_point(tuple(c)) for c in v.hull.corners()],
            }
        out.append(entry)
    return out


def lof_report(
    scene, pairs=None, progress=None, areas: bool = True, processes: bool = False
) -> dict:
    """The ``geom3d lof --format json`` document.

    Parameters
    ----------
    scene : geom3d.scene.scene.Scene
    pairs : list of (str, str), optional
        Ordered ``(from, to)`` pairs; default every ordered pair in file order.
    progress : callable(done, total), optional
    areas : bool
        Measure each witness's visible area (``visible_area_mm2``, in parallel with the
        matrix); without it the witnesses leave it out, and the matrix is that much
        cheaper (about a tenth of a large one).
    processes : bool
        Share the matrix with forked copies of the process (a command's choice:
        :func:`geom3d.adjudication.lof.lof_matrix`).

    Returns
    -------
    dict
        ``units``, ``scenario``, ``troopers`` (:func:`troopers_list`), ``scan_report``
        (:meth:`geom3d.scene.scene.Scene.scan_report`: how each piece was placed and closed) and
        ``pairs`` (one
        :meth:`geom3d.adjudication.lof.LofResult.to_dict` per pair, from ``scene.lof_matrix``, so
        the scene's ruleset answers).
    """
    # asks the scene's ruleset; areas, when asked for, are measured in the matrix's threads
    results = scene.lof_matrix(pairs, progress=progress, areas=areas, processes=processes)
    doc = {
        "units": "mm",
        "scenario": scene.scenario.name,
        "troopers": troopers_list(scene),
        "scan_report": scene.scan_report(),
        "pairs": [r.to_dict(area=areas) for r in results],
    }
    return _with_zones(scene, doc)


def _with_zones(scene, doc: dict) -> dict:
    """``terrain_zones`` (each zone's affected troopers, SPEC 12.6) when the scenario has
    any."""
    if scene.scenario.terrain_zones:
        from geom3d.scene.terrain_zones import zone_report

        doc["terrain_zones"] = zone_report(scene)
    return doc


def _rich_table(
    title: str, columns: list[str], rows: list[list], caption: str = "", width: int = 120
) -> str:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, caption=caption or None, caption_justify="left")
    for c in columns:
        table.add_column(c, overflow="fold")
    for r in rows:
        table.add_row(*[("" if v is None else str(v)) for v in r])
    buf = StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(table)
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())


def _direction(p: dict | None) -> str:
    if p is None:
        return "-"
    return "yes" if p["lof"] else f"no ({REASON_WORDS.get(p['reason'], p['reason'])})"


def _seen(p: dict) -> str:
    w = p["witness"]
    if "eye" not in w:
        return "nothing"
    if "visible_area_mm2" not in w:  # a matrix without --areas
        return f"seen from {w['viewer']}'s eye"
    return f"{w['visible_area_mm2']:.0f} mm² seen from {w['viewer']}'s eye"


def _route_note(p: dict | None) -> str:
    if p is None or "route" not in p:
        return ""
    r = p["route"]
    if r["any"]:
        at = ", ".join(f"{v:g}" for v in r["first_position"])
        where = f"first on route segment {r['first_index']}, {r['mover']} at [{at}]"
        spans = ", ".join(f"{w['from_mm']:g}-{w['to_mm']:g}" for w in r.get("windows", ()))
        if spans:
            where += f"; along {r['mover']}'s route (mm from its start): {spans}"
    else:
        where = "at no point of the route"
    return f"{p['from']} -> {p['to']}: Line of Fire {where}"


def _unordered(doc: dict) -> list[tuple[str, str, dict, dict | None]]:
    """``(a, b, a->b, b->a)`` per unordered pair, in the order the pairs first appear."""
    rows: dict[frozenset, list] = {}
    for p in doc["pairs"]:
        key = frozenset((p["from"], p["to"]))
        if key not in rows:
            rows[key] = [p["from"], p["to"], p, None]
        elif rows[key][2]["from"] == p["from"]:  # the same ordered pair twice: keep the first
            continue
        else:
            rows[key][3] = p
    return [tuple(r) for r in rows.values()]


def _troopers_table(doc: dict) -> str:
    rows = [
        [
            t["id"],
            t["side"],
            "" if t["silhouette"] is None else t["silhouette"],
            f"{t['diameter_mm']:g} x {t['height_mm']:g}",
            "[" + ", ".join(f"{v:g}" for v in t["position"]) + "]",
            f"{t['facing_deg']:g}",
            ", ".join(t["states"]),
        ]
        for t in doc["troopers"]
    ]
    cols = ["id", "side", "S", "Ø x h mm", "position mm", "facing°", "states"]
    return _rich_table(f"Troopers - {doc['scenario']}", cols, rows)


def lof_table(doc: dict, *, troopers: bool = True) -> str:
    """``geom3d lof --format table``: one row per unordered pair of troopers.

    Line of Fire is not symmetric (front arcs, engagement, routes), so each row has one
    column per direction (``A sees B``, ``B sees A``: ``yes`` or ``no (reason)``, ``-``
    when that direction was not asked for). Visibility is symmetric; ``deciding view``
    says how much of the other trooper the deciding eye sees and whose eye it is. With
    ``troopers`` the placed troopers are listed first.
    """
    rows = []
    notes = []
    for a, b, ab, ba in _unordered(doc):
        vis = _yes(ab["visible"])
        if ba is not None and ba["visible"] != ab["visible"]:  # only possible with routes
            vis = f"{a}->{b} {_yes(ab['visible'])}, {b}->{a} {_yes(ba['visible'])}"
        rows.append([a, b, _direction(ab), _direction(ba), vis, _seen(ab)])
        notes += [n for n in (_route_note(ab), _route_note(ba)) if n]
    cols = ["A", "B", "A sees B", "B sees A", "visible", "deciding view"]
    caption = (
        "One row per pair. Line of Fire is not symmetric (front arcs, engagement), "
        "so each direction has its own column; visibility (the 3 x 3 mm rule) is."
    )
    text = _rich_table(f"Line of Fire - {doc['scenario']}", cols, rows, caption)
    if notes:
        text += "Routes:\n" + "".join(f"  {n}\n" for n in notes)
    return (_troopers_table(doc) if troopers else "") + text


def lof_matrix_text(doc: dict) -> str:
    """``geom3d lof --format matrix``: who sees whom, N x N, with a legend.

    Rows are viewers and columns targets, both in file order; a cell is one of
    :data:`MATRIX_CODES`, blank when that pair was not asked for (``--from``/``--to``).
    """
    froms: list[str] = []
    tos: list[str] = []
    cells: dict[tuple[str, str], str] = {}
    for p in doc["pairs"]:
        if p["from"] not in froms:
            froms.append(p["from"])
        if p["to"] not in tos:
            tos.append(p["to"])
        code = _CODE.get(p["reason"], f"no:{p['reason']}")
        cells.setdefault((p["from"], p["to"]), code + ("*" if "route" in p else ""))
    order = [t["id"] for t in doc["troopers"]]
    froms.sort(key=order.index)
    tos.sort(key=order.index)
    head = "from \\ to"
    w0 = max([len(head), *map(len, froms)])
    widths = [max(len(t), 7) for t in tos]

    def line(first: str, values: list[str]) -> str:
        parts = [first.ljust(w0), *(v.ljust(w) for v, w in zip(values, widths, strict=True))]
        return "  ".join(parts).rstrip() + "\n"

    out = [f"Line of Fire matrix - {doc['scenario']} (row sees column)\n\n", line(head, tos)]
    for a in froms:
        out.append(line(a, ["." if a == b else cells.get((a, b), "") for b in tos]))
    out.append("\nLegend:\n")
    legend = [*MATRIX_CODES, ("(blank)", "not asked (--from / --to)")]
    cw = max(len(c) for c, _ in legend)
    out += [f"  {c.ljust(cw)}  {m}\n" for c, m in legend]
    return "".join(out)


# --------------------------------------------------------------------------- attack
def attack_report(scene, ids=None, *, odds: bool = False) -> dict:
    """The ``geom3d attack --format json`` document (``ids``: default every attack).

    ``odds``: add the exact odds of every affected trooper (``--odds``, SPEC 12.4);
    without it the document is exactly what it was before odds existed.
    """
    attacks = [a.id for a in scene.scenario.attacks] if ids is None else ids
    extra = {"odds": True} if odds else {}
    doc = {
        "units": "mm",
        "scenario": scene.scenario.name,
        "attacks": [_attack_entry(scene, a, extra) for a in attacks],
    }
    return _with_zones(scene, doc)


def _attack_entry(scene, attack_id: str, extra: dict) -> dict:
    """One attack's result, or, for an attack with an input error of its own (SPEC 12.6),
    an ``invalid``/``input_error`` entry holding the error line: the file's other attacks
    are still reported, and ``geom3d attack`` exits with the error (code 2) after them."""
    problem = scene.attack(attack_id).problem
    if problem is None:
        return scene.resolve_attack(attack_id, **extra).to_dict()
    return {"id": attack_id, "outcome": "invalid", "reason": "input_error", "error": str(problem)}


def attack_errors(doc: dict) -> list[str]:
    """The input errors of an :func:`attack_report` document, one line each."""
    return [a["error"] for a in doc["attacks"] if "error" in a]


def _hits_cell(a: dict):
    """The table's hits column: the total (a Wall of Death's roll, ``D3``), per template
    in brackets when there are several; empty where the ruleset counts no hits. A 40k
    placement that covers fewer models than possible says so (``maximal: false``)."""
    if "hits" not in a:
        return None
    hits = a.get("hits") or []
    total = a.get("hits_total", 0)
    text = f"{total} ({', '.join(str(h) for h in hits)})" if len(hits) > 1 else str(total)
    short = [p for p in a.get("placements", []) if p.get("maximal") is False]
    if short:
        most = ", ".join(str(p.get("most_possible")) for p in short)
        text += f" - not maximal: {most} possible"
    return text


def attack_warnings(doc: dict) -> list[str]:
    """The warnings of an :func:`attack_report` document (40k ``maximal: false``, ruling
    A2), one line each, for stderr."""
    return [w for a in doc["attacks"] for w in a.get("warnings", [])]


def _vehicle_lines(doc: dict) -> str:
    """One line per placement against a 40k vehicle (SPEC 12.6), under the table."""
    out = []
    for a in doc["attacks"]:
        for i, p in enumerate(a.get("placements", [])):
            v = p.get("vehicle")
            if v is None:
                continue
            hit = "hit" if v["target"] in p.get("in_area", []) else "not under the template"
            line = (
                f"{a['id']} placement {i}: vehicle {v['target']}: {hit}, {v['facing']} facing "
                f"(armour {v['armour']}), {100 * v['covered_share']:.1f}% of its hull covered "
                f"({v['covered_area_mm2']:g} of {v['hull_area_mm2']:g} mm²)"
            )
            if v.get("maximal") is False and v.get("most_covered_share") is not None:
                line += f" - not maximal: {100 * v['most_covered_share']:.1f}% possible"
            out.append(line)
    return "".join(line + "\n" for line in out)


def attack_table(doc: dict, *, wide: bool = False) -> str:
    """``geom3d attack --format table``: one row per attack, in 100 columns (``wide``:
    the odds table with every column)."""
    rows = []
    for a in doc["attacks"]:
        excl = ", ".join(f"{e['id']} ({e['reason']})" for e in a.get("excluded", []))
        rows.append(
            [
                a["id"],
                a["outcome"],
                a["reason"],
                ", ".join(a.get("affected", [])),
                excl,
                _hits_cell(a),
            ]
        )
    text = _rich_table(
        f"Attacks - {doc['scenario']}",
        ["attack", "outcome", "reason", "affected", "excluded", "hits"],
        rows,
        width=200 if wide else 100,
    )
    text += _vehicle_lines(doc)
    text += _range_lines(doc)
    if any("weapon" in a for a in doc["attacks"]):
        from geom3d.combat.text import odds_table

        text += odds_table(doc, wide=wide)
    return text


def _range_lines(doc: dict) -> str:
    """One line per plain BS attack: its target, distance, band and cover (SPEC 13.2)."""
    out = []
    for a in doc["attacks"]:
        r = a.get("range")
        if r is None:
            continue
        band = "no ranges" if r["band"] is None else f"band {r['from']:g}-{r['to']:g}"
        if r["band"] is None and a.get("reason") == "out_of_range":
            band = "out of range"
        line = (
            f"{a['id']}: {a['target']} at {r['distance']:g} {r['units']} "
            f"({band}, MOD {r['mod']:+d})"
        )
        cover = a.get("troopers", {}).get(a["target"], {}).get("cover")
        if cover is not None:
            line += ", Partial Cover" if cover["partial"] else ", no Partial Cover"
            if cover["partial"] and cover["element"]:
                line += f" ({cover['element']})"
        out.append(line)
    return "".join(line + "\n" for line in out)
