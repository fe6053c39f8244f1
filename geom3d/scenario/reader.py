"""Read a scenario file's text into plain Python data, refusing hostile or ambiguous input.

:func:`read_scenario_data` is the only place a scenario file is opened. On top of the YAML
and JSON parsers it enforces (limits in :mod:`geom3d.scenario.limits`):

- the file is a regular file of at most ``MAX_SCENARIO_BYTES`` (a FIFO, ``/dev/zero`` or a
  5 GB sparse file is refused from its ``stat``, without reading it);
- nesting at most ``MAX_SCENARIO_DEPTH`` deep (no ``RecursionError`` on 2,000 brackets);
- at most ``MAX_SCENARIO_NODES`` nodes once YAML aliases are expanded (an alias bomb is
  refused after composing its few hundred bytes, before anything is built from it), and no
  alias that contains itself;
- no duplicate key in a mapping, YAML or JSON: "last one wins" would silently drop data;
- integers of at most 40 characters (a 5,000-digit one is refused, not converted).

Every problem is a :class:`~geom3d.core.errors.ScenarioError` naming the file and the field
path (or, for syntax errors, the line and column).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from geom3d.core.errors import ScenarioError
from geom3d.core.inputfile import InputFileProblem, read_regular
from geom3d.scenario.limits import MAX_SCENARIO_BYTES, MAX_SCENARIO_DEPTH, MAX_SCENARIO_NODES

__all__ = ["read_scenario_data"]

#: Longest integer literal converted (characters); range limits apply after conversion.
_MAX_INT_CHARS = 40

_INT_TAG = "tag:yaml.org,2002:int"
_MERGE_TAG = "tag:yaml.org,2002:merge"


class _Refused(Exception):
    """A limit was hit while reading; ``path`` is the field path, ``mark`` the position."""

    def __init__(self, message: str, path: str | None = None, mark=None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.mark = mark


def _key_path(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


try:  # libyaml's parser (C) feeds Python's composer: 5x as fast as the pure-Python reader
    from yaml._yaml import CParser as _FastParser

    LIBYAML = True
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _FastParser = None
    LIBYAML = False


class _PyParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's own reader, scanner and parser (where libyaml is missing)."""

    def __init__(self, stream) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


_Parser = _FastParser if LIBYAML else _PyParser


class _DepthComposer(yaml.composer.Composer):
    """A composer that refuses nesting deeper than ``MAX_SCENARIO_DEPTH`` and more than
    ``MAX_SCENARIO_NODES`` nodes as it goes (a huge file is refused once it has shown
    that many, not after it has all been built)."""

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_SCENARIO_DEPTH:
                raise _Refused(
                    f"nested more than {MAX_SCENARIO_DEPTH} levels deep",
                    mark=self.peek_event().start_mark,
                )
            if not self.check_event(yaml.AliasEvent):
                self._nodes += 1
                if self._nodes > MAX_SCENARIO_NODES:
                    raise _Refused(
                        f"more than {MAX_SCENARIO_NODES:,} values",
                        mark=self.peek_event().start_mark,
                    )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Loader(
    _DepthComposer,
    _Parser,  # type: ignore[valid-type,misc]
    yaml.constructor.SafeConstructor,
    yaml.resolver.Resolver,
):
    """The parser (libyaml's where present), the checks above, PyYAML's safe constructor."""

    def __init__(self, stream) -> None:
        _Parser.__init__(self, stream)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self._depth = self._nodes = 0


def _walk_nodes(root) -> None:
    """Check a composed YAML node graph: size after alias expansion, cycles, duplicates.

    Each distinct node is examined once (aliases share nodes), so this is linear in the
    file size even for an alias bomb whose expansion is astronomically large.
    """
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    active: set[int] = set()

    def visit(node, path: str, depth: int) -> int:
        nid = id(node)
        if nid in active:
            raise _Refused("an alias refers to a node that contains it", path, node.start_mark)
        if nid in size:
            if depth + height[nid] - 1 > MAX_SCENARIO_DEPTH:
                raise _Refused(
                    f"nested more than {MAX_SCENARIO_DEPTH} levels deep (through aliases)",
                    path,
                    node.start_mark,
                )
            return size[nid]
        if depth > MAX_SCENARIO_DEPTH:
            raise _Refused(
                f"nested more than {MAX_SCENARIO_DEPTH} levels deep", path, node.start_mark
            )
        active.add(nid)
        total, tallest = 1, 0
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _INT_TAG and len(node.value) > _MAX_INT_CHARS:
                raise _Refused(
                    f"integer with {len(node.value)} characters is too large", path, node.start_mark
                )
        elif isinstance(node, yaml.SequenceNode):
            for i, child in enumerate(node.value):
                total += visit(child, f"{path}[{i}]", depth + 1)
                tallest = max(tallest, height[id(child)])
        elif isinstance(node, yaml.MappingNode):
            seen: dict[tuple[str, str], int] = {}
            for knode, vnode in node.value:
                if isinstance(knode, yaml.ScalarNode) and knode.tag != _MERGE_TAG:
                    sig = (knode.tag, knode.value)
                    if sig in seen:
                        raise _Refused(
                            f"duplicate key {knode.value!r} at line {knode.start_mark.line + 1} "
                            f"(first given at line {seen[sig]})",
                            _key_path(path, knode.value),
                        )
                    seen[sig] = knode.start_mark.line + 1
                kname = knode.value if isinstance(knode, yaml.ScalarNode) else "?"
                total += visit(knode, path, depth + 1)
                total += visit(vnode, _key_path(path, kname), depth + 1)
                tallest = max(tallest, height[id(knode)], height[id(vnode)])
        active.discard(nid)
        if total > MAX_SCENARIO_NODES:  # the composer counted the distinct ones: aliases
            raise _Refused(
                f"more than {MAX_SCENARIO_NODES:,} values once aliases are expanded "
                "(an alias bomb?)",
                path or None,
                node.start_mark,
            )
        size[nid] = total
        height[nid] = tallest + 1
        return total

    visit(root, "", 1)


_NODE_EVENTS = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)
_END_EVENTS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _prescan(text: str) -> None:
    """Count nodes and nesting on libyaml's events alone (no node, no tag resolution):
    a file over the limits is refused after a fifth of the time composing would take."""
    parser = _Parser(text)
    nodes = depth = 0
    try:
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, _NODE_EVENTS):
                nodes += 1
                if nodes > MAX_SCENARIO_NODES:
                    raise _Refused(
                        f"more than {MAX_SCENARIO_NODES:,} values", mark=event.start_mark
                    )
                if not isinstance(event, yaml.ScalarEvent):
                    depth += 1
                    if depth > MAX_SCENARIO_DEPTH:
                        raise _Refused(
                            f"nested more than {MAX_SCENARIO_DEPTH} levels deep",
                            mark=event.start_mark,
                        )
            elif isinstance(event, _END_EVENTS):
                depth -= 1
    except yaml.YAMLError as exc:  # libyaml stops at 1,000 levels, reading ahead of us
        if "nesting depth" not in str(getattr(exc, "problem", "")):
            raise
        raise _Refused(
            f"nested more than {MAX_SCENARIO_DEPTH} levels deep",
            mark=getattr(exc, "problem_mark", None),
        ) from None
    finally:
        if hasattr(parser, "dispose"):
            parser.dispose()


def _load_yaml(text: str):
    if LIBYAML:
        _prescan(text)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _walk_nodes(node)
        return loader.construct_document(node)
    finally:
        if hasattr(loader, "dispose"):
            loader.dispose()


class _Mapping(dict):
    """A JSON object that remembers keys given more than once."""

    duplicates: tuple[str, ...] = ()


def _json_object(pairs):
    out = _Mapping()
    dups = []
    for k, v in pairs:
        if k in out:
            dups.append(k)
        out[k] = v
    out.duplicates = tuple(dups)
    return out


def _json_int(text: str) -> int:
    if len(text) > _MAX_INT_CHARS:
        raise _Refused(f"integer with {len(text)} characters is too large")
    return int(text)


def _check_json(obj, path: str, depth: int) -> None:
    if depth > MAX_SCENARIO_DEPTH:
        raise _Refused(f"nested more than {MAX_SCENARIO_DEPTH} levels deep", path or None)
    if isinstance(obj, dict):
        duplicates = getattr(obj, "duplicates", ())
        if duplicates:
            key = duplicates[0]
            raise _Refused(f"duplicate key {key!r}", _key_path(path, key))
        for k, v in obj.items():
            _check_json(v, _key_path(path, k), depth + 1)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check_json(v, f"{path}[{i}]", depth + 1)


def _load_json(text: str):
    data = json.loads(text, object_pairs_hook=_json_object, parse_int=_json_int)
    _check_json(data, "", 1)
    return data


def read_scenario_data(path) -> object:
    """The parsed content of a scenario file (YAML, or JSON for ``*.json``).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    object
        Plain data (dict, list, str, int, float, bool, None) as the file wrote it.

    Raises
    ------
    ScenarioError
        The file is missing or not a regular file, too large, not UTF-8, not valid YAML
        or JSON, or breaks a limit listed in the module docstring.
    """
    p = Path(path)
    name = str(path)
    try:
        raw = read_regular(p, MAX_SCENARIO_BYTES)
    except InputFileProblem as exc:
        raise ScenarioError(str(exc), file=name) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"not UTF-8 text (byte {exc.start})", file=name) from None
    try:
        if p.suffix.lower() == ".json":
            return _load_json(text)
        return _load_yaml(text)
    except _Refused as exc:
        where = exc.path
        if exc.mark is not None:
            at = f"line {exc.mark.line + 1} column {exc.mark.column + 1}"
            message = f"{exc.message} ({at})" if where else f"{exc.message} at {at}"
        else:
            message = exc.message
        raise ScenarioError(message, file=name, path=where) from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise ScenarioError(f"invalid YAML{where}: {problem}", file=name) from None
    except RecursionError:
        raise ScenarioError(
            f"nested more than {MAX_SCENARIO_DEPTH} levels deep", file=name
        ) from None
    except (ValueError, TypeError, OverflowError) as exc:
        # e.g. a YAML timestamp that is no date ("2024-13-45")
        raise ScenarioError(f"invalid value: {exc}", file=name) from None
