"""Where each expectation is written: check name -> line number in the scenario file.

``geom3d check --format github`` puts ``line=`` on its annotations so that a pull
request shows the problem next to the expectation that failed (issue 35). The file is
composed again (the YAML composer keeps every node's position; JSON is YAML here) only
for the records that have problems, and only after the scenario was checked: a file
the reader refused never gets here, and its error message carries the line itself
(:func:`error_line`).
"""

from __future__ import annotations

import re

import yaml

from geom3d.core.inputfile import InputFileProblem, read_regular
from geom3d.core.tolerances import MAX_SCENARIO_BYTES

__all__ = ["error_line", "expectation_lines", "line_of"]

_AT_LINE = re.compile(r"\bline (\d+)\b")


def error_line(message: str) -> int | None:
    """The line a load error names (``... at line 12 column 3: ...``), or None."""
    m = _AT_LINE.search(message or "")
    return int(m.group(1)) if m else None


def _mapping(node) -> dict:
    """Scalar key -> (key node, value node) of a YAML mapping node."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: (k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def _line(node) -> int:
    return node.start_mark.line + 1


def expectation_lines(path: str) -> dict[str, int]:
    """Check name (``lof[a->b]``, ``lof[a->b].reason``, ``attacks.x``,
    ``attacks.x.affected``, ``attacks.x.troopers.t.dodge``) -> 1-based line; empty when
    the file cannot be read or composed."""
    try:
        text = read_regular(path, MAX_SCENARIO_BYTES).decode("utf-8")
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (InputFileProblem, OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return {}
    out: dict[str, int] = {}
    expect = _mapping(root).get("expect")
    if expect is None:
        return out
    top = _mapping(expect[1])
    if "lof" in top and isinstance(top["lof"][1], yaml.SequenceNode):
        for entry in top["lof"][1].value:
            fields = _mapping(entry)
            a, b = fields.get("from"), fields.get("to")
            if a is None or b is None:
                continue
            base = f"lof[{a[1].value}->{b[1].value}]"
            out.setdefault(base, _line(entry))
            for k, (kn, _) in fields.items():
                out.setdefault(f"{base}.{k}", _line(kn))
    if "attacks" in top:
        for aid, (kn, vn) in _mapping(top["attacks"][1]).items():
            base = f"attacks.{aid}"
            out.setdefault(base, _line(kn))
            for k, (fk, fv) in _mapping(vn).items():
                out.setdefault(f"{base}.{k}", _line(fk))
                if k == "troopers":
                    for tid, (tk, tv) in _mapping(fv).items():
                        out.setdefault(f"{base}.troopers.{tid}", _line(tk))
                        for f, (ffk, _) in _mapping(tv).items():
                            out.setdefault(f"{base}.troopers.{tid}.{f}", _line(ffk))
    return out


def line_of(lines: dict[str, int], check: str) -> int | None:
    """The line of ``check``, or of the nearest enclosing name that has one."""
    name = check
    while name:
        if name in lines:
            return lines[name]
        cut = max(name.rfind("."), name.rfind("["))
        if cut <= 0:
            return None
        name = name[:cut]
    return None
