"""``geom3d survey --compare OLD.json``: what changed between two surveys of a table.

Positions of the two surveys are matched by grid point and level (``x``, ``y`` to 0.1 mm
and ``level``), so a table whose terrain moved up or down still matches. Reported:

* visible pairs gained and lost (between positions present in both surveys);
* lanes gained (a listed lane of the new survey whose pair was not visible before) and lost
  (a listed lane of the old survey whose pair is no longer visible), longest first;
* zone shares, old -> new, for zones in either survey;
* the positions whose ``sees`` changed most.
"""

from __future__ import annotations

from pathlib import Path

from geom3d.core.errors import UsageError
from geom3d.core.output import safe_text
from geom3d.core.reportfile import read_json_report
from geom3d.core.units import LENGTH_UNITS

#: Largest report file read back as input (``survey --compare``): a survey of the most
#: pairs allowed lists at most 10 M visible pairs, about 200 MB of JSON.
MAX_REPORT_BYTES: int = 512 << 20

__all__ = ["MAX_REPORT_BYTES", "compare_surveys", "load_survey"]

#: Lanes and positions listed per category.
_SHOWN = 10


def load_survey(path) -> dict:
    """Read a ``survey.json`` (UsageError naming the file and what is wrong when it is not one)."""
    doc = read_json_report(Path(path), MAX_REPORT_BYTES, "--compare")  # regular, bounded
    p = safe_text(str(path))
    if not isinstance(doc, dict):
        raise UsageError(f"--compare: {p}: not a survey.json (expected a mapping)")
    for key, kind in (
        ("positions", list),
        ("visible_pairs", list),
        ("lanes", list),
        ("zones", list),
    ):
        if not isinstance(doc.get(key), kind):
            raise UsageError(f"--compare: {p}: not a survey.json (missing or bad {key!r})")
    where = "positions"
    try:
        for k, pos in enumerate(doc["positions"]):
            where = f"positions[{k}]"
            _x, _y, _z = (float(v) for v in pos["position"])
            int(pos["level"]), int(pos["sees"]), str(pos["id"])
        n = len(doc["positions"])
        for k, pair in enumerate(doc["visible_pairs"]):
            where = f"visible_pairs[{k}]"
            a, b = (int(v) for v in pair)
            if not 0 <= a < b < n:
                raise ValueError
        for k, lane in enumerate(doc["lanes"]):
            where = f"lanes[{k}]"
            str(lane["a"]), str(lane["b"]), float(lane["distance_mm"])
        for k, z in enumerate(doc["zones"]):
            where = f"zones[{k}]"
            str(z["id"]), float(z["sees_share"]), float(z["seen_share"])
    except (KeyError, TypeError, ValueError, OverflowError):
        raise UsageError(f"--compare: {p}: not a survey.json (malformed {where})") from None
    return doc


def _keys(doc: dict) -> list[tuple]:
    return [
        (round(float(p["position"][0]), 1), round(float(p["position"][1]), 1), int(p["level"]))
        for p in doc["positions"]
    ]


def _pairs(doc: dict, keys: list[tuple]) -> set[frozenset]:
    return {frozenset((keys[a], keys[b])) for a, b in doc["visible_pairs"]}


def _lanes(doc: dict, keys: list[tuple]) -> list[tuple[frozenset, float, str, str]]:
    index = {p["id"]: k for k, p in enumerate(doc["positions"])}
    out = []
    for ln in doc["lanes"]:
        if ln["a"] in index and ln["b"] in index:
            pair = frozenset((keys[index[ln["a"]]], keys[index[ln["b"]]]))
            out.append((pair, float(ln["distance_mm"]), ln["a"], ln["b"]))
    return out


def compare_surveys(old: dict, new: dict, units: str = "mm") -> list[str]:
    """Lines describing what changed from ``old`` to ``new`` (lengths in ``units``)."""
    k = LENGTH_UNITS[units]
    ko, kn = _keys(old), _keys(new)
    common = set(ko) & set(kn)
    po = {p for p in _pairs(old, ko) if p <= common}
    pn = {p for p in _pairs(new, kn) if p <= common}
    lines = [
        f"positions: {len(ko)} before, {len(kn)} now, {len(common)} in both",
        f"visible pairs between common positions: +{len(pn - po)} gained, -{len(po - pn)} lost",
    ]
    gained = [ln for ln in _lanes(new, kn) if ln[0] <= common and ln[0] not in po]
    lost = [ln for ln in _lanes(old, ko) if ln[0] <= common and ln[0] not in pn]
    for title, rows, which in (("lanes gained", gained, "now"), ("lanes lost", lost, "before")):
        lines.append(f"{title}: {len(rows)}")
        for _pair, d, a, b in rows[:_SHOWN]:
            lines.append(f"  {a} - {b} ({which}): {d / k:.1f} {units}")
    zo = {z["id"]: z for z in old["zones"]}
    zn = {z["id"]: z for z in new["zones"]}
    for zid in [*zo, *(z for z in zn if z not in zo)]:
        za, zb = zo.get(zid), zn.get(zid)
        fmt = lambda z, key: "-" if z is None else f"{float(z[key]):.2f}"  # noqa: E731
        lines.append(
            f"zone {zid}: sees {fmt(za, 'sees_share')} -> {fmt(zb, 'sees_share')}, "
            f"seen {fmt(za, 'seen_share')} -> {fmt(zb, 'seen_share')}"
        )
    so = {key: int(p["sees"]) for key, p in zip(ko, old["positions"], strict=True)}
    sn = {key: (p["id"], int(p["sees"])) for key, p in zip(kn, new["positions"], strict=True)}
    delta = sorted(
        ((sn[key][1] - so[key], key) for key in common if sn[key][1] != so[key]),
        key=lambda t: (-abs(t[0]), t[1]),
    )
    lines.append(f"positions whose sees changed: {len(delta)}")
    for d, key in delta[:_SHOWN]:
        pid, now = sn[key]
        lines.append(
            f"  {pid} at ({key[0] / k:.4g}, {key[1] / k:.4g}) {units}, level {key[2]}: "
            f"{so[key]} -> {now} ({d:+d})"
        )
    return lines
