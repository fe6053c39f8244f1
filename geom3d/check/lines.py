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
from geom3d.scenario.limits import MAX_SCENARIO_BYTES

__all__ = [
    "duplicate_suffix",
    "error_line",
    "expectation_lines",
    "field_line",
    "line_of",
    "message_lines",
]

_AT_LINE = re.compile(r"\bline (\d+)\b")
#: A field path at the start of a load error: ``troopers[1].position``, ``format``.
_FIELD_PATH = re.compile(r"^([A-Za-z_][\w-]*(?:\[\d+\]|\.[^\s.:\[\]]+)*):\s")
_PATH_PART = re.compile(r"\[(\d+)\]|\.?([^\s.\[\]]+)")
#: ``trooper 'a' ...``, ``troopers 'a' and 'b' ...``: the trooper a scene warning is about.
_TROOPER_IN = re.compile(r"^troopers? '([^']*)'")
#: ``crate: scaled cm -> mm``: a piece's messages start with its id.
_PIECE_IN = re.compile(r"^([^\s:]+): ")


def duplicate_suffix(seen: dict[str, int], name: str) -> str:
    """``name`` the first time, ``name#2`` the second, ...: every expectation gets its
    own check name (and so its own line and JUnit name) even when two ask about the
    same pair. ``seen`` counts the names given so far."""
    seen[name] = seen.get(name, 0) + 1
    return name if seen[name] == 1 else f"{name}#{seen[name]}"


def _compose(path: str):
    """The file's YAML node tree, or None when it cannot be read or composed."""
    try:
        text = read_regular(path, MAX_SCENARIO_BYTES).decode("utf-8")
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except (InputFileProblem, OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return None


def field_line(path: str, message: str, shown: str | None = None) -> int | None:
    """The line of the field a load error names (``troopers[1].position: expected ...``,
    after the file name the message may start with), or None.

    Parameters
    ----------
    path : str
        The scenario file, read again (only for records of files that failed).
    message : str
        The load error.
    shown : str, optional
        The file name as the message writes it (stripped when the message starts with it).

    Returns
    -------
    int or None
        1-based line of the deepest part of the field path found in the file (the key's
        line in a mapping, the item's in a list).
    """
    text = message or ""
    for prefix in (shown, path):
        if prefix and text.startswith(prefix + ": "):
            text = text[len(prefix) + 2 :]
            break
    m = _FIELD_PATH.match(text)
    if m is None:
        return None
    node = _compose(path)
    line = None
    for index, key in _PATH_PART.findall(m.group(1)):
        if index and isinstance(node, yaml.SequenceNode) and int(index) < len(node.value):
            node = node.value[int(index)]
            line = _line(node)
        elif key and key in _mapping(node):
            kn, node = _mapping(node)[key]
            line = _line(kn)
        else:
            break
    return line


def _entries(root, section: str) -> dict[str, int]:
    """Id -> line of each entry of a list section (``troopers``, ``scenery``)."""
    seq = _mapping(root).get(section)
    if seq is None or not isinstance(seq[1], yaml.SequenceNode):
        return {}
    out: dict[str, int] = {}
    for item in seq[1].value:
        id_node = _mapping(item).get("id")
        if id_node is not None and isinstance(id_node[1], yaml.ScalarNode):
            out.setdefault(id_node[1].value, _line(item))
    return out


def message_lines(path: str, messages) -> list[int | None]:
    """The line of what each scene warning or note is about, or None: the trooper it
    names (``trooper 'a' floats ...``: its entry under ``troopers``), the piece it
    starts with (``crate: scaled cm -> mm``: its entry under ``scenery``, or the
    ``table`` key)."""
    texts = [str(m) for m in messages]
    if not texts:
        return []
    root = _compose(path)
    troopers, pieces = _entries(root, "troopers"), _entries(root, "scenery")
    table = _mapping(root).get("table")
    if table is not None:
        pieces.setdefault("table", _line(table[0]))
    out: list[int | None] = []
    for text in texts:
        t, p = _TROOPER_IN.match(text), _PIECE_IN.match(text)
        out.append(troopers.get(t.group(1)) if t else pieces.get(p.group(1)) if p else None)
    return out


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
    root = _compose(path)
    out: dict[str, int] = {}
    expect = _mapping(root).get("expect")
    if expect is None:
        return out
    top = _mapping(expect[1])
    if "lof" in top and isinstance(top["lof"][1], yaml.SequenceNode):
        seen: dict[str, int] = {}
        for entry in top["lof"][1].value:
            fields = _mapping(entry)
            a, b = fields.get("from"), fields.get("to")
            if a is None or b is None:
                continue
            base = duplicate_suffix(seen, f"lof[{a[1].value}->{b[1].value}]")
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
