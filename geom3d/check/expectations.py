"""The checks of one scenario's ``expect`` block: one check per asked field.

- ``lof[A->B].lof`` / ``.visible`` / ``.in_arc`` / ``.reason`` for an ``expect.lof`` entry
  (a second entry about the same pair is ``lof[A->B]#2``, so each has its own name);
- ``attacks.ID.FIELD`` for an ``expect.attacks`` entry: ``affected`` compares as a set of
  ids, ``excluded`` as a set of ids or of ``{id, reason}`` pairs (a pair without
  ``reason`` matches the id alone), ``troopers`` per trooper and field
  (``attacks.ID.troopers.T.dodge``); every other field (``outcome``, ``reason``, ``hits``,
  ``wall_of_death``, ``placements``, ...) by equality: numbers to within
  :data:`~geom3d.check.expectations.CHECK_NUMBER_TOL`, lists in order, mappings on the keys the
  expectation writes (extra keys in the result are fine).

- ``lof[A->B].visible_area_mm2``: the witness's visible area (None when there is no LoF).
- ``attacks.ID.weapon`` and ``attacks.ID.troopers.T.odds`` (SPEC 12.4): asking for either
  resolves the attack with its odds (``--odds``), e.g. ``odds: {p_hit: 0.48}``.

Tolerance expectations: wherever a number is expected, a mapping ``{min: X}``,
``{max: Y}``, ``{min: X, max: Y}`` (bounds included) or ``{approx: V, tol: T}``
(``|actual - V| <= T``; ``tol`` defaults to CHECK_NUMBER_TOL) may stand instead, e.g.
``visible_area_mm2: {min: 20}``. A malformed one (unknown combination, a bound that is
not a finite number, ``min > max``, ``tol < 0``) makes that check an ``error``.

A mismatch inside a mapping carries ``difference``: only the fields that differ
(:func:`field_differences`), which the reports print instead of the whole actual object.

A check is a dict ``{check, status, expected, actual}`` (``status`` pass | fail) or
``{check, status: "error", message[, expected]}`` when it could not be evaluated.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from geom3d.adjudication.attacks import resolve_attack
from geom3d.adjudication.lof import line_of_fire
from geom3d.check.lines import duplicate_suffix
from geom3d.core.errors import Geom3dError

#: ``geom3d check``: numbers in expectations match when within this (JSON output is
#: rounded to 1e-3 mm).
CHECK_NUMBER_TOL: float = 1e-3

__all__ = [
    "Checks",
    "check_affected",
    "check_attacks",
    "check_excluded",
    "check_lof",
    "field_differences",
    "plain",
    "same",
    "set_difference",
    "show",
]

_MISSING = object()
_TOL_KEYS = frozenset({"min", "max", "approx", "tol"})


def is_tolerance(v) -> bool:
    """Is ``v`` a tolerance expectation (a non-empty mapping of min/max/approx/tol only)?"""
    return isinstance(v, dict) and bool(v) and set(v) <= _TOL_KEYS


def _number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def tolerance_problem(spec: dict) -> str | None:
    """Why ``spec`` is not a valid tolerance expectation, or None."""
    keys = set(spec)
    if keys not in ({"min"}, {"max"}, {"min", "max"}, {"approx"}, {"approx", "tol"}):
        return (
            f"a tolerance is {{min}}, {{max}}, {{min, max}} or {{approx[, tol]}} "
            f"(got keys {', '.join(sorted(keys))})"
        )
    for k, v in sorted(spec.items()):
        if not _number(v):
            return f"tolerance {k}: expected a finite number (got {show(v)})"
    if "min" in spec and "max" in spec and spec["min"] > spec["max"]:
        return f"tolerance: min {spec['min']:g} is greater than max {spec['max']:g}"
    if spec.get("tol", 0) < 0:
        return f"tolerance tol: must not be negative (got {spec['tol']:g})"
    return None


def _tolerance_problems(v) -> str | None:
    if is_tolerance(v):
        return tolerance_problem(v)
    children = v.values() if isinstance(v, dict) else v if isinstance(v, list | tuple) else ()
    for c in children:
        problem = _tolerance_problems(c)
        if problem:
            return problem
    return None


def within(spec: dict, actual) -> bool:
    """Does the number ``actual`` meet the (valid) tolerance ``spec``? Bounds included."""
    if not _number(actual):
        return False
    if "approx" in spec:
        tol = spec.get("tol", CHECK_NUMBER_TOL)
        return abs(actual - spec["approx"]) <= tol * (1 + 1e-12) + 1e-12
    return ("min" not in spec or actual >= spec["min"]) and (
        "max" not in spec or actual <= spec["max"]
    )


def same(expected, actual) -> bool:
    """Deep equality of what is expected: numbers within CHECK_NUMBER_TOL (or a tolerance
    mapping, see the module docstring), bools only equal bools, lists in order, mappings
    on the keys the expectation writes."""
    if is_tolerance(expected):
        return within(expected, actual)
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


def field_differences(expected, actual, where: str = "") -> list[str]:
    """What differs between an expected value and the actual one, field by field:
    ``["p_hit: expected 0.48, got 0.512", "role: missing (expected \"target\")"]``. Only
    the fields the expectation writes and that do not hold are named (a mapping's other
    fields, a 1,500-character ledger beside them, are never shown); lists of the same
    length are compared item by item (``placements[1].x``).
    """
    if is_tolerance(expected) or same(expected, actual):
        return []
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for k, v in expected.items():
            name = f"{where}.{k}" if where else str(k)
            if k not in actual:
                out.append(f"{name}: missing (expected {show(v)})")
            else:
                out += field_differences(v, actual[k], name)
        return out
    if (
        isinstance(expected, list | tuple)
        and isinstance(actual, list | tuple)
        and len(expected) == len(actual)
    ):
        return [
            d
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for d in field_differences(e, a, f"{where}[{i}]")
        ]
    return [f"{where or 'value'}: expected {show(expected)}, got {show(actual)}"]


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
    """Accumulates check results for one scenario.

    ``seconds[k]`` is the time spent answering ``items[k]``: each evaluation (one Line of
    Fire, one attack) is timed once and given to the first check it answers.
    """

    items: list[dict] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    #: told ``(expectation name, expectations done)`` before each evaluation
    progress: Callable[[str, int], None] | None = None
    done: int = 0

    def starting(self, name: str) -> None:
        """An evaluation (one expectation) begins."""
        if self.progress is not None:
            self.progress(name, self.done)
        self.done += 1

    def timed(self, since: int, t0: float) -> None:
        """Time the checks added since ``len(items) == since``: the first carries the time
        since ``t0`` (the evaluation that answered them all), the others 0 (they read the
        same answer), so per-check times add up and none repeats the evaluation's."""
        k = len(self.items) - since
        if k > 0:
            self.seconds.extend([time.perf_counter() - t0] + [0.0] * (k - 1))

    def compare(
        self,
        name: str,
        expected,
        actual,
        equal: Callable | None = None,
        detail: Callable[[], str] | None = None,
    ) -> None:
        """One check: ``expected`` against ``actual`` (by :func:`same` unless ``equal``);
        ``detail`` says what differs when it fails (``difference`` in the item)."""
        problem = _tolerance_problems(expected)
        if problem:
            self.error(name, problem, expected)
            return
        ok = (equal or same)(expected, actual)
        item = {
            "check": name,
            "status": "pass" if ok else "fail",
            "expected": plain(expected),
            "actual": plain(actual),
        }
        if not ok and detail is not None:
            item["difference"] = detail()
        elif not ok and isinstance(expected, dict) and not is_tolerance(expected):
            # inside a mapping: only the fields that differ, never the whole actual object
            item["difference"] = "; ".join(field_differences(expected, actual))
        self.items.append(item)

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


def _ids_text(ids, why: dict | None = None) -> str:
    why = why or {}
    return ", ".join(f"{i} (excluded: {why[i]})" if i in why else str(i) for i in sorted(ids))


def set_difference(expected, actual, why: dict | None = None) -> str:
    """``missing: a (excluded: total_cover); unexpected: b``: what a set check lacks and
    what it has too many of; ``why`` gives the result's reason for a missing id."""
    missing, extra = set(expected) - set(actual), set(actual) - set(expected)
    parts = []
    if missing:
        parts.append(f"missing: {_ids_text(missing, why)}")
    if extra:
        parts.append(f"unexpected: {_ids_text(extra)}")
    return "; ".join(parts)


def check_affected(checks: Checks, name: str, expected, actual, excluded=None) -> None:
    """``affected``: the same set of trooper ids. ``excluded`` (the result's ``[{id,
    reason}]``) names why a missing trooper is not affected."""
    ids = _ids(expected)
    if ids is None:
        checks.error(name, "expected a list of trooper ids", expected)
        return
    act = sorted(actual or [])
    why = {e.get("id"): e.get("reason") for e in excluded or [] if isinstance(e, dict)}
    checks.compare(
        name,
        sorted(set(ids)),
        act,
        lambda e, a: set(e) == set(a),
        detail=lambda: set_difference(ids, act, why),
    )


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
    got: dict[str | None, str | None] = {}
    for a in actual or []:
        if isinstance(a, dict):
            got[a.get("id")] = a.get("reason")
        else:
            got[str(a)] = None
    ok = want.keys() == got.keys() and all(r is None or got[i] == r for i, r in want.items())
    exp_show: list[Any]
    act_show: list[Any]
    if any(r is not None for r in want.values()):
        exp_show = [{"id": i, "reason": r} if r else {"id": i} for i, r in sorted(want.items())]
        act_show = [{"id": i, "reason": r} for i, r in sorted(got.items())]
    else:
        exp_show, act_show = sorted(want), sorted(got)

    def detail() -> str:
        parts = [set_difference(want, got)] if want.keys() != got.keys() else []
        parts += [
            f"{i}: reason {got[i]}, expected {r}"
            for i, r in sorted(want.items())
            if r is not None and i in got and got[i] != r
        ]
        return "; ".join(p for p in parts if p)

    checks.compare(name, exp_show, act_show, lambda e, a: ok, detail=detail)


def check_lof(scene, checks: Checks) -> None:
    """Every ``expect.lof`` entry of ``scene``'s scenario."""
    seen: dict[str, int] = {}
    for e in scene.scenario.expect_lof:
        # a second entry about the same pair is ``lof[a->b]#2``: its own name and line
        base = duplicate_suffix(seen, f"lof[{e.from_id}->{e.to_id}]")
        values = {
            "lof": e.lof,
            "visible": e.visible,
            "in_arc": e.in_arc,
            "reason": e.reason,
            "visible_area_mm2": getattr(e, "visible_area_mm2", None),
        }
        written = getattr(e, "asked", None)
        if written is None:  # built without the written keys: the non-null ones
            written = tuple(k for k, v in values.items() if v is not None)
        # a written null asks for null: ``reason: null`` (no reason: LoF holds), and
        # ``visible_area_mm2: null`` (no witness)
        asked = {k: values[k] for k in written}
        since, t0 = len(checks.items), time.perf_counter()
        checks.starting(base)
        if not asked:
            checks.error(
                base,
                "this expectation asks nothing (give lof, visible, in_arc, reason (null "
                "included) or visible_area_mm2)",
            )
            checks.timed(since, t0)
            continue
        try:
            result = line_of_fire(scene, e.from_id, e.to_id).to_dict()
        except Geom3dError as exc:
            for k, v in asked.items():
                checks.error(f"{base}.{k}", f"Line of Fire failed: {exc}", v)
            checks.timed(since, t0)
            continue
        for k, v in asked.items():
            if k == "visible_area_mm2":
                actual = (result.get("witness") or {}).get("visible_area_mm2")
            else:
                actual = result.get(k)
            checks.compare(f"{base}.{k}", v, actual)
        checks.timed(since, t0)


def check_attacks(scene, checks: Checks) -> None:
    """Every ``expect.attacks`` entry of ``scene``'s scenario."""
    for aid, spec in scene.scenario.expect_attacks.items():
        base = f"attacks.{aid}"
        since, t0 = len(checks.items), time.perf_counter()
        checks.starting(base)
        try:
            _check_attack(scene, checks, aid, base, spec)
        finally:
            checks.timed(since, t0)


def _check_attack(scene, checks: Checks, aid: str, base: str, spec) -> None:
    if not isinstance(spec, dict) or not spec:
        checks.error(base, "expected a mapping of expected fields (outcome, affected, ...)")
        return
    try:
        resolved = resolve_attack(scene, aid, **({"odds": True} if _wants_odds(spec) else {}))
        result = resolved.to_dict()
    except Geom3dError as exc:
        for k, v in spec.items():
            checks.error(f"{base}.{k}", f"resolving the attack failed: {exc}", v)
        return
    for k, v in spec.items():
        name = f"{base}.{k}"
        if k not in result:
            checks.error(
                name,
                f"the attack result has no field {k!r} (fields: {', '.join(sorted(result))})",
                v,
            )
        elif k == "affected":
            check_affected(checks, name, v, result[k], result.get("excluded"))
        elif k == "excluded":
            check_excluded(checks, name, v, result[k])
        elif k == "troopers":
            _check_attack_troopers(checks, name, v, result[k] or {})
        else:
            checks.compare(name, v, result[k])


def _wants_odds(spec: dict) -> bool:
    """Whether an ``expect.attacks`` entry asks for the odds (SPEC 12.4)."""
    troopers = spec.get("troopers")
    asked = troopers.values() if isinstance(troopers, dict) else ()
    return "weapon" in spec or any(isinstance(f, dict) and "odds" in f for f in asked)


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
