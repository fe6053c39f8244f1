"""Text forms of the odds (SPEC 12.4): the ``--format table`` section and short labels.

Both are renderings of the ``geom3d attack --odds`` JSON document and add nothing to it
(the diagrams' labels come from :func:`odds_label` too, so a table and a picture read
the same).
"""

from __future__ import annotations

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


def _dice(o: dict) -> str:
    """``B3@13 vs B1@11``: dice and Success Values of the roll that decides the hits."""
    if o["roll"] == "none":
        return "no roll"
    att = f"B{o['attacker_dice']}@{o['sv_attacker']}" if o["attacker_dice"] else "no attack roll"
    if not o["defender_dice"]:
        return att
    return f"{att} vs B{o['defender_dice']}@{o['sv_defender']}"


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


def odds_table(doc: dict) -> str:
    """``geom3d attack --odds --format table``: one row per affected trooper with odds."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(
        highlight=False,
        title=f"Odds - {doc['scenario']}",
        caption="Exact (not sampled). dice: B<dice>@<Success Value>, attacker vs trooper. "
        "E(W): expected wounds; W dist: P(0, 1, 2, ... wounds) in %; back: the trooper's "
        "attack on the attacker. The JSON ledger says where every number comes from.",
        caption_justify="left",
    )
    cols = ["attack", "trooper", "role", "roll", "dice", "P(hit)", "P(crit)", "E(hits)"]
    cols += ["E(saves)", "P(wounded)", "E(W)", "W dist %", "back: P(hit)"]
    for c in cols:
        table.add_column(c, overflow="fold")
    for a in doc["attacks"]:
        if a.get("weapon") is None:
            continue
        for tid, t in a["troopers"].items():
            o = t.get("odds")
            if o is None:
                continue
            dist = " ".join(_pct(p).rstrip("%") for p in o["wounds_distribution"])
            cells = (
                a["id"],
                tid,
                t.get("role", ""),
                o["roll"].replace("_", " "),
                _dice(o),
                _pct(o["p_hit"]),
                _pct(o["p_critical"]),
                f"{o['expected_hits']:.3f}",
                f"{o['saving_rolls_expected']:.3f}",
                _pct(o["p_wounded"]),
                f"{o['expected_wounds']:.3f}",
                dist,
                "" if "against_attacker" not in o else _pct(o["against_attacker"]["p_hit"]),
            )
            table.add_row(*(Text(str(c)) for c in cells))  # ids are text, never markup
    buf = StringIO()
    Console(file=buf, width=160, color_system=None, force_terminal=False).print(table)
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())
