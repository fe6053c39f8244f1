"""Text forms of the odds (SPEC 12.4): the ``--format table`` section and short labels.

Both are renderings of the ``geom3d attack --odds`` JSON document and add nothing to it
(the diagrams' labels come from :func:`odds_label` too, so a table and a picture read
the same).
"""

from __future__ import annotations

import textwrap
from io import StringIO

__all__ = ["odds_label", "odds_table"]


def _pct(p: float) -> str:
    """A probability as a percentage: one decimal, ``<0.1%`` and ``>99.9%`` at the ends
    so that a small chance never reads as impossible (or a large one as certain)."""
    if p <= 0.0:
        return "0%"
    if p >= 1.0:
        return "100%"
    if p < 0.001:
        return "<0.1%"
    if p > 0.999:
        return ">99.9%"
    return f"{100 * p:.1f}%"


def _side(n: int, sv) -> str:
    return f"{n}@{sv}"


def _dice(o: dict) -> str:
    """``3@13 vs 1@11``: dice and Success Values of the roll that decides the hits
    (attacker, then trooper); ``no roll`` when nothing is rolled against the trooper."""
    if o["roll"] == "none":
        return "no roll"
    att = _side(o["attacker_dice"], o["sv_attacker"]) if o["attacker_dice"] else "no attack roll"
    if not o["defender_dice"]:
        return att
    return f"{att} vs {_side(o['defender_dice'], o['sv_defender'])}"


def _back(o: dict) -> str:
    """The trooper's shots at the attacker: dice, then P(attacker wounded) and E(W)."""
    if "against_attacker" not in o:
        return ""
    b = o["against_attacker"]
    return (
        f"{_side(o['back_dice'], o['sv_back'])} {_pct(b['p_wounded'])} {b['expected_wounds']:.2f}"
    )


def _wins(o: dict) -> str:
    """``48.0/42.8/9.3``: P(attacker wins) / P(trooper wins) / P(nobody), face to face."""
    if "p_attacker_wins" not in o:
        return ""
    return "/".join(
        _pct(o[k]).rstrip("%") for k in ("p_attacker_wins", "p_defender_wins", "p_nobody")
    )


def _burst(a: dict) -> str:
    w = a.get("weapon") or {}
    return "" if w.get("burst") is None else f"B{w['burst']}"


def _mod_notes(a: dict, tid: str, o: dict) -> list[str]:
    """The MODs that change a number, each with its reason (from the ledger)."""
    out = []
    for e in o.get("ledger", []):
        v = e["value"]
        if "MOD" in e["what"] and isinstance(v, str) and v not in ("+0", "-0", "0"):
            out.append(f"{a['id']}/{tid}: {v} {e['what']}")
    return out


def odds_label(o: dict) -> str:
    """A two-line label of one trooper's ``odds`` object (diagrams, tables).

    Example: ``face to face: B3@13 vs B1@11`` /
    ``P(hit) 52.3%, P(wounded) 26.1%, E(W) 0.31``.
    """
    head = f"{o['roll'].replace('_', ' ')}: {_dice(o)}"
    tail = (
        f"P(hit) {_pct(o['p_hit'])}, P(wounded) {_pct(o['p_wounded'])}, "
        f"E(W) {o['expected_wounds']:.2f}"
    )
    return f"{head}\n{tail}"


#: Columns of the odds table: (header, compact); ``--wide`` shows them all.
_COLUMNS: tuple[tuple[str, bool], ...] = (
    ("attack", True),
    ("trooper", True),
    ("role", False),
    ("B", True),
    ("roll", False),
    ("dice", True),
    ("P(hit)", True),
    ("P(crit)", False),
    ("E(hits)", False),
    ("E(saves)", False),
    ("P(W)", True),
    ("E(W)", True),
    ("W dist %", False),
    ("win % a/t/-", True),
    ("back", True),
)

#: Widths of the odds table: the compact default reads in 100 columns.
COMPACT_WIDTH = 100
WIDE_WIDTH = 200


def odds_table(doc: dict, *, wide: bool = False) -> str:
    """``geom3d attack --odds --format table``: one row per affected trooper with odds.

    Compact (default): the columns a player reads, within ``COMPACT_WIDTH`` columns;
    ``wide``: every column. The MODs that change a number follow, each with its reason.
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(
        highlight=False,
        title=f"Odds - {doc['scenario']}",
        caption="Exact (not sampled). B: the weapon's Burst; dice: <dice>@<Success Value>, "
        "attacker vs trooper; P(W), E(W): P(wounded), expected wounds; win % a/t/-: face to "
        "face, the attacker / the trooper keeps a success / nobody; back: the trooper's shots "
        "at the attacker (dice, P(attacker wounded), its E(W)). The JSON ledger gives every "
        "number.",
        caption_justify="left",
    )
    cols = [c for c, compact in _COLUMNS if wide or compact]
    for c in cols:
        table.add_column(c, overflow="fold")
    notes: list[str] = []
    for a in doc["attacks"]:
        if a.get("weapon") is None:
            continue
        for tid, t in a["troopers"].items():
            o = t.get("odds")
            if o is None:
                continue
            dist = " ".join(_pct(p).rstrip("%") for p in o["wounds_distribution"])
            cells = {
                "attack": a["id"],
                "trooper": tid,
                "role": t.get("role", ""),
                "B": _burst(a),
                "roll": o["roll"].replace("_", " "),
                "dice": _dice(o),
                "P(hit)": _pct(o["p_hit"]),
                "P(crit)": _pct(o["p_critical"]),
                "E(hits)": f"{o['expected_hits']:.3f}",
                "E(saves)": f"{o['saving_rolls_expected']:.3f}",
                "P(W)": _pct(o["p_wounded"]),
                "E(W)": f"{o['expected_wounds']:.2f}",
                "W dist %": dist,
                "win % a/t/-": _wins(o),
                "back": _back(o),
            }
            table.add_row(*(Text(str(cells[c])) for c in cols))  # ids are text, never markup
            notes += _mod_notes(a, tid, o)
    width = WIDE_WIDTH if wide else COMPACT_WIDTH
    buf = StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(table)
    text = "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())
    if notes:
        text += "MODs:\n" + "".join(
            textwrap.fill(n, width, initial_indent="  ", subsequent_indent="      ") + "\n"
            for n in notes
        )
    return text
