"""What every section parser shares: the file name, the units, and error reporting.

:class:`ParseContext` converts lengths to mm (rejecting absurd magnitudes with the field
path), remembers ids that must be unique, and the module's helpers turn a pydantic
:class:`~pydantic.ValidationError` into one :class:`~geom3d.core.errors.ScenarioError`.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from pydantic import ValidationError

from geom3d.core.errors import ScenarioError, printable
from geom3d.core.tolerances import MAX_COORD_MM
from geom3d.core.units import LENGTH_UNITS
from geom3d.scenario.limits import MAX_SCENARIO_DEPTH, MAX_SCENARIO_INT, MIN_BODY_MM

__all__ = ["ParseContext", "check_finite", "first_error"]


class ParseContext:
    """File name, units and base folder of the scenario being parsed.

    Parameters
    ----------
    file : str
        Named in every error.
    units : str
        The file's length unit (``mm``, ``cm`` or ``in``).
    base : pathlib.Path
        Folder relative mesh paths resolve against.
    """

    def __init__(self, file: str, units: str, base: Path) -> None:
        self.file = file
        self.units = units
        self.base = base
        #: Millimetres per file unit.
        self.k = LENGTH_UNITS[units]
        self._seen: dict[str, str] = {}

    def error(self, message: str, path: str | None = None) -> ScenarioError:
        """A :class:`ScenarioError` in this file at ``path``."""
        return ScenarioError(message, file=self.file, path=path)

    def length(
        self, v, where: str, limit: float = MAX_COORD_MM, minimum: float | None = None
    ) -> float:
        """A length in mm; absurd magnitudes (a unit slip, a typo) are errors.

        Parameters
        ----------
        v : float
            In the file's units.
        where : str
            Field path for the error.
        limit : float, mm
            Largest magnitude allowed.
        minimum : float, mm, optional
            Smallest magnitude allowed (sizes of bodies: ``MIN_BODY_MM``).
        """
        mm = float(v) * self.k
        if abs(mm) > limit:
            most = f"{limit / 1e6:g} km" if limit >= 1e6 else f"{limit:g} mm"
            raise self.error(
                f"{float(v):g} {self.units} is too large: at most {most} here (wrong units?)",
                where,
            )
        if minimum is not None and abs(mm) < minimum:
            raise self.error(
                f"{float(v):g} {self.units} is too small: at least {minimum:g} mm here "
                "(wrong units?)",
                where,
            )
        return mm

    def size(self, v, where: str, limit: float) -> float:
        """:meth:`length` of a body's size: between ``MIN_BODY_MM`` and ``limit`` mm."""
        return self.length(v, where, limit, MIN_BODY_MM)

    def lengths(
        self, values, where: str, limit: float = MAX_COORD_MM, minimum: float | None = None
    ) -> tuple[float, ...]:
        """:meth:`length` of each entry; paths ``where[i]``."""
        return tuple(self.length(v, f"{where}[{i}]", limit, minimum) for i, v in enumerate(values))

    def unique(self, id_: str, where: str) -> None:
        """Reject an id already used by a scenery piece or a trooper."""
        if id_ in self._seen:
            raise self.error(f"duplicate id {id_!r} (first used at {self._seen[id_]})", where)
        self._seen[id_] = where


def _loc_to_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            part = "from" if part == "from_" else str(part)
            out += ("." if out else "") + part
    return out


def _clean_loc(loc: tuple) -> tuple:
    # pydantic adds union-member tags ("int", "_Cyl", "literal[...]", "function-after[...]")
    keep = []
    for p in loc:
        if isinstance(p, str) and (
            p in ("int", "float", "str", "bool", "_Cyl", "_Box", "dict[str,any]")
            or p.startswith(("literal[", "function-", "list[", "constrained"))
        ):
            continue
        keep.append(p)
    return tuple(keep)


def first_error(err: ValidationError, file: str) -> ScenarioError:
    """The most actionable problem pydantic found, as a :class:`ScenarioError`."""
    errors = err.errors(include_url=False)
    # prefer unknown-key and missing errors: they are the most actionable
    errors.sort(key=lambda e: 0 if e["type"] in ("extra_forbidden", "missing") else 1)
    e = errors[0]
    loc = _clean_loc(tuple(e["loc"]))
    kind = e["type"]
    if kind == "extra_forbidden":
        key = loc[-1] if loc else "?"
        return ScenarioError(f"unknown key {key!r}", file=file, path=_loc_to_path(loc))
    if kind == "missing":
        return ScenarioError("required field is missing", file=file, path=_loc_to_path(loc))
    if kind == "finite_number":
        return ScenarioError("NaN or infinite number", file=file, path=_loc_to_path(loc))
    msg = e["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    inp = e.get("input")
    if kind.endswith("_type") or kind.endswith("_parsing"):
        msg = f"{msg[0].lower()}{msg[1:]} (got {inp!r})"
    else:
        msg = msg[0].lower() + msg[1:]
    return ScenarioError(msg, file=file, path=_loc_to_path(loc))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_text(text: str, what: str, file: str, path: str) -> None:
    """Scenario text (ids, sides, names, paths, keys) is plain printable text.

    A lone surrogate cannot be written to any report; a control character (an ANSI or OSC
    escape, a newline, a bidirectional override) in an id would reach terminals, tables,
    JUnit XML and SVG diagrams, so both are input errors.
    """
    if text.isprintable():
        return
    if _SURROGATE.search(text):
        raise ScenarioError(
            f"{what} holds a lone surrogate (not valid Unicode)", file=file, path=path
        )
    bad = next(c for c in text if not c.isprintable())
    raise ScenarioError(
        f"{what} holds a control or other non-printable character ({printable(bad)}): "
        "ids, names and paths must be plain text",
        file=file,
        path=path,
    )


def check_finite(obj, path: str, file: str, depth: int = 1) -> None:
    """Reject values no field can use, anywhere (also in free-form mappings).

    NaN/inf, integers beyond ``MAX_SCENARIO_INT`` (a float cannot hold them exactly;
    a 4,000-digit one would overflow), strings and keys holding lone surrogates or other
    non-printable characters (see :func:`_check_text`), and nesting deeper than
    ``MAX_SCENARIO_DEPTH`` (for data handed to :func:`~geom3d.scenario.parse_scenario`
    directly).
    """
    if depth > MAX_SCENARIO_DEPTH:
        raise ScenarioError(
            f"nested more than {MAX_SCENARIO_DEPTH} levels deep", file=file, path=path or None
        )
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ScenarioError("NaN or infinite number", file=file, path=path)
    elif isinstance(obj, int) and not isinstance(obj, bool):
        if abs(obj) > MAX_SCENARIO_INT:
            raise ScenarioError(
                f"integer too large (at most {MAX_SCENARIO_INT:.3g} in magnitude)",
                file=file,
                path=path,
            )
    elif isinstance(obj, str):
        _check_text(obj, "text", file, path)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            where = f"{path}.{k}" if path else str(k)
            if isinstance(k, str):
                _check_text(k, "key", file, where)
            check_finite(v, where, file, depth + 1)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            check_finite(v, f"{path}[{i}]", file, depth + 1)
