"""The checks of one scenario's ``expect`` block: one check per asked field.

- ``lof[A->B].lof`` / ``.visible`` / ``.in_arc`` / ``.reason`` for an ``expect.lof`` entry;
- ``attacks.ID.FIELD`` for an ``expect.attacks`` entry: ``affected`` compares as a set of
  ids, ``excluded`` as a set of ids or of ``{id, reason}`` pairs (a pair without
  ``reason`` matches the id alone), ``troopers`` per trooper and field
  (``attacks.ID.troopers.T.dodge``); every other field (``outcome``, ``reason``, ``hits``,
  ``wall_of_death``, ``placements``, ...) by equality: numbers to within
  :data:`~geom3d.tolerances.CHECK_NUMBER_TOL`, lists in order, mappings on the keys the
  expectation writes (extra keys in the result are fine).

A check is a dict ``{check, status, expected, actual}`` (``status`` pass | fail) or
``{check, status: "error", message[, expected]}`` when it could not be evaluated.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from geom3d.attacks import resolve_attack
from geom3d.errors import Geom3dError
from geom3d.lof import line_of_fire
from geom3d.tolerances import CHECK_NUMBER_TOL

__all__ = [
    "Checks",
    "check_affected",
    "check_attacks",
    "check_excluded",
    "check_lof",
    "plain",
    "same",
    "show",
]

_MISSING = object()


def same(expected, actual) -> bool:
    """Deep equality of what is expected: numbers within CHECK_NUMBER_TOL, bools only equal
    bools, lists in order, mappings on the keys the expectation writes."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return math.isclose(expected, actual, rel_tol=0.0, abs_tol=CHECK_NUMBER_TOL)
    if isinstance(expected, dict) and isinstance(actual, dict):
        # only what is written is compared: extra fields in the result are fine
        return all(k in actual and same(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(
            same(a, b) for a, b in zip(expected, actual, strict=True)
        )
    return expected == actual


def plain(v):
    """A JSON-safe copy (tuples -> lists, sets -> sorted lists, odd scalars -> str)."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    if isinstance(v, set | frozenset):
        return sorted((plain(x) for x in v), key=lambda x: json.dumps(x, sort_keys=True))
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    return str(v)


def show(v) -> str:
    """``v`` as compact JSON, for messages."""
    return json.dumps(plain(v), ensure_ascii=False, sort_keys=True)


@dataclass
class Checks:
    """Accumulates check results for one scenario."""

    items: list[dict] = field(default_factory=list)

    def compare(self, name: str, expected, actual, equal: Callable | None = None) -> None:
        """One check: ``expected`` against ``actual`` (by :func:`same` unless ``equal``)."""
        ok = (equal or same)(expected, actual)
        self.items.append(
            {
                "check": name,
                "status": "pass" if ok else "fail",
                "expected": plain(expected),
                "actual": plain(actual),
            }
        )

    def error(self, name: str, message: str, expected=_MISSING) -> None:
        """One check that could not be evaluated."""
        item = {"check": name, "status": "error", "message": message}
        if expected is not _MISSING:
            item["expected"] = plain(expected)
        self.items.append(item)


def _ids(values) -> list[str] | None:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return None
    return values


def check_affected(checks: Checks, name: str, expected, actual) -> None:
    """``affected``: the same set of trooper ids."""
    ids = _ids(expected)
    if ids is None:
        checks.error(name, "expected a list of trooper ids", expected)
        return
    act = sorted(actual or [])
    checks.compare(name, sorted(set(ids)), act, lambda e, a: set(e) == set(a))


def check_excluded(checks: Checks, name: str, expected, actual) -> None:
    """``excluded``: the same ids; a ``{id, reason}`` pair must also match the reason."""
    if not isinstance(expected, list):
        checks.error(name, "expected a list of ids or of {id, reason}", expected)
        return
    want: dict[str, str | None] = {}
    for e in expected:
        if isinstance(e, str):
            want[e] = None
        elif isinstance(e, dict) and isinstance(e.get("id"), str) and set(e) <= {"id", "reason"}:
            want[e["id"]] = e.get("reason")
        else:
            checks.error(name, f"expected an id or {{id, reason}}, got {show(e)}", expected)
            return
    got: dict[str, str | None] = {}
    for a in actual or []:
        if isinstance(a, dict):
            got[a.get("id")] = a.get("reason")
        else:
            got[str(a)] = None
    ok = want.keys() == got.keys() and all(r is None or got[i] == r for i, r in want.items())
    if any(r is not None for r in want.values()):
        exp_show = [{"id": i, "reason": r} if r else {"id": i} for i, r in sorted(want.items())]
        act_show = [{"id": i, "reason": r} for i, r in sorted(got.items())]
    else:
        exp_show, act_show = sorted(want), sorted(got)
    checks.compare(name, exp_show, act_show, lambda e, a: ok)


def check_lof(scene, checks: Checks) -> None:
    """Every ``expect.lof`` entry of ``scene``'s scenario."""
    for e in scene.scenario.expect_lof:
        base = f"lof[{e.from_id}->{e.to_id}]"
        asked = {
            k: v
            for k, v in (
                ("lof", e.lof),
                ("visible", e.visible),
                ("in_arc", e.in_arc),
                ("reason", e.reason),
            )
            if v is not None
        }
        if not asked:
            checks.error(
                base, "this expectation asks nothing (give lof, visible, in_arc or reason)"
            )
            continue
        try:
            result = line_of_fire(scene, e.from_id, e.to_id).to_dict()
        except Geom3dError as exc:
            for k, v in asked.items():
                checks.error(f"{base}.{k}", f"Line of Fire failed: {exc}", v)
            continue
        for k, v in asked.items():
            checks.compare(f"{base}.{k}", v, result.get(k))


def check_attacks(scene, checks: Checks) -> None:
    """Every ``expect.attacks`` entry of ``scene``'s scenario."""
    for aid, spec in scene.scenario.expect_attacks.items():
        base = f"attacks.{aid}"
        if not isinstance(spec, dict) or not spec:
            checks.error(base, "expected a mapping of expected fields (outcome, affected, ...)")
            continue
        try:
            result = resolve_attack(scene, aid).to_dict()
        except Geom3dError as exc:
            for k, v in spec.items():
                checks.error(f"{base}.{k}", f"resolving the attack failed: {exc}", v)
            continue
        for k, v in spec.items():
            name = f"{base}.{k}"
            if k not in result:
                checks.error(
                    name,
                    f"the attack result has no field {k!r} (fields: {', '.join(sorted(result))})",
                    v,
                )
            elif k == "affected":
                check_affected(checks, name, v, result[k])
            elif k == "excluded":
                check_excluded(checks, name, v, result[k])
            elif k == "troopers":
                _check_attack_troopers(checks, name, v, result[k] or {})
            else:
                checks.compare(name, v, result[k])


def _check_attack_troopers(checks: Checks, base: str, expected, actual: dict) -> None:
    if not isinstance(expected, dict):
        checks.error(base, "expected a mapping of trooper id -> expected fields", expected)
        return
    for tid, fields in expected.items():
        if not isinstance(fields, dict) or not fields:
            checks.error(f"{base}.{tid}", "expected a mapping of fields (role, dodge, ...)", fields)
            continue
        got = actual.get(tid)
        for k, v in fields.items():
            name = f"{base}.{tid}.{k}"
            if got is None:
                checks.compare(name, v, None)  # the trooper is not in the result
            elif k not in got:
                checks.error(
                    name,
                    f"the result for {tid!r} has no field {k!r} (fields: {', '.join(sorted(got))})",
                    v,
                )
            else:
                checks.compare(name, v, got[k])
