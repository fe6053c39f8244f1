"""Which scenario files a ``geom3d check`` run takes: PATH arguments -> sorted files."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from geom3d.check.globbing import safe_glob
from geom3d.core.errors import UsageError
from geom3d.core.inputfile import InputFileProblem, read_regular
from geom3d.core.output import safe_text
from geom3d.scenario.limits import MAX_SCENARIO_BYTES

__all__ = [
    "SCENARIO_KEYS",
    "SCENARIO_SUFFIXES",
    "ScenarioFile",
    "declares_scenario",
    "expand_paths",
    "looks_like_scenario",
]

#: Bytes read from a file found in a folder to see whether it declares a scenario format.
_SNIFF_BYTES = 65536
#: ``format: geom3d/...`` as a top-level YAML key or a JSON member.
_FORMAT_RE = re.compile(rb"""(?m)(^format[ \t]*:[ \t]*["']?geom3d/|"format"\s*:\s*"geom3d/)""")

#: ``troopers:`` or ``scenery:`` as a top-level YAML key (at the start of a line).
_SCENARIO_KEY_RE = re.compile(rb"""(?m)^["']?(troopers|scenery)["']?[ \t]*:""")
#: ``"troopers":`` or ``"scenery":`` anywhere: a JSON file that does not parse.
_JSON_KEY_RE = re.compile(rb""""(troopers|scenery)"\s*:""")
#: The top-level keys that make a file look like a scenario, with or without a format.
SCENARIO_KEYS = frozenset({"troopers", "scenery"})

#: File name endings a folder is searched for.
SCENARIO_SUFFIXES = (".yaml", ".yml", ".json")

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, order=True)
class ScenarioFile:
    """One scenario to check.

    Attributes
    ----------
    display : str
        The path as the user named it (posix separators): used in every report.
    path : str
        Absolute path: what workers open.
    """

    display: str
    path: str


def _display(p: str) -> str:
    return Path(os.path.normpath(p)).as_posix()


def _is_regular(p: Path) -> bool:
    """A regular file (after following links): never a FIFO, device, socket or folder,
    which could block the batch or be read without end."""
    try:
        return stat.S_ISREG(os.stat(p).st_mode)
    except (OSError, ValueError):  # dangling link, link loop, unreadable, NUL in the name
        return False


def _folder_files(folder: Path) -> list[Path]:
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not name.startswith(".") and name.lower().endswith(SCENARIO_SUFFIXES):
                if _is_regular(Path(root) / name):  # a FIFO named x.yaml is skipped
                    out.append(Path(root) / name)
    return out


def declares_scenario(p: Path) -> bool:
    """Does the file declare a scenario format (``format: geom3d/...``, the current one or
    another version) in its first 64 KiB? A CI config, a ``report.json`` of an earlier run
    (``format: geom3d-check/1``) or a mesh's sidecar does not."""
    try:
        with open(p, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return True  # unreadable: taken, its error record says why
    return bool(_FORMAT_RE.search(head))


def looks_like_scenario(p: Path) -> bool:
    """Does a file that declares no scenario format still look like one: a top-level
    ``troopers`` or ``scenery`` key (SPEC 13.4)? Such a file is taken and fails to load
    (a misspelt or missing ``format:`` line), rather than being skipped in silence.
    A JSON object is read whole (up to MAX_SCENARIO_BYTES) so that only its own members
    count: an earlier report that lists attack results with ``troopers`` inside does not.
    """
    try:
        with open(p, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return True
    body = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not body.startswith(b"{"):
        return bool(_SCENARIO_KEY_RE.search(head))
    if not _JSON_KEY_RE.search(head) and len(head) < _SNIFF_BYTES:
        return False
    try:
        data = json.loads(read_regular(p, MAX_SCENARIO_BYTES))
    except (InputFileProblem, OSError, ValueError, RecursionError):
        return bool(_JSON_KEY_RE.search(head))  # broken JSON with those keys: a scenario
    return isinstance(data, dict) and bool(SCENARIO_KEYS & set(data))


def _excluded(disp: str, patterns: list[str]) -> bool:
    name = disp.rsplit("/", 1)[-1]
    return any(fnmatchcase(disp, p) or fnmatchcase(name, p) for p in patterns)


def expand_paths(
    paths: Iterable[str],
    *,
    exclude: Iterable[str] = (),
    patterns: Iterable[str] = (),
    notes: list[str] | None = None,
) -> list[ScenarioFile]:
    """Expand command-line PATHs into scenario files: sorted, deduplicated.

    Parameters
    ----------
    paths : iterable of str
        Files (taken whatever their extension), folders (searched recursively for
        ``*.yaml``, ``*.yml``, ``*.json``; hidden files and folders skipped) and globs
        (``*``, ``?``, ``[...]``; ``**`` recurses through real folders, never through a
        link: :mod:`.globbing`; a folder a glob matches is searched).
        Only regular files are taken: FIFOs, devices and sockets found in folders or by
        globs are skipped (they could hang the batch), and naming one is a usage error.
    exclude : iterable of str
        Files never to take (the report files being written).
    patterns : iterable of str
        ``--exclude`` globs: a file whose path as shown (or whose name) matches one is not
        taken, whichever way it was named (shell-style; ``*`` also crosses ``/``).
    notes : list, optional
        Receives one line per file found in a folder or by a glob that was skipped
        because it declares no scenario format (``format: geom3d/1``): a CI config or an
        earlier run's report is not a scenario. A file with a top-level ``troopers`` or
        ``scenery`` key is taken even without a valid format (:func:`looks_like_scenario`):
        its load error counts in the totals and fails the run. Files named one by one
        are always taken.

    Returns
    -------
    list of ScenarioFile
        Sorted by display path; a file named twice (by any route) appears once.

    Raises
    ------
    UsageError
        A PATH that does not exist, a named file that is not a regular file, a glob that
        matches nothing, a folder with no scenario files.
    """
    skip = {os.path.realpath(e) for e in exclude}
    globs = list(patterns)
    found: dict[str, str] = {}
    skipped: dict[str, str] = {}

    def take(p: Path, named: bool = False) -> None:
        real = os.path.realpath(p)
        if real in skip:
            return
        disp = _display(str(p))
        if _excluded(disp, globs):
            return
        if not named and not declares_scenario(p) and not looks_like_scenario(p):
            skipped.setdefault(real, disp)
            return
        if real not in found or disp < found[real]:
            found[real] = disp

    for arg in paths:
        if not arg:
            raise UsageError("PATH: empty path")
        shown = safe_text(arg)
        if "\x00" in arg:
            raise UsageError(f"{shown}: no such file or folder")
        p = Path(arg)
        if p.is_dir():
            in_folder = _folder_files(p)
            if not in_folder:
                raise UsageError(
                    f"{shown}: no scenario files ({', '.join('*' + s for s in SCENARIO_SUFFIXES)}) "
                    "in this folder"
                )
            for f in in_folder:
                take(f)
        elif p.exists():
            if not _is_regular(p):
                raise UsageError(f"{shown}: not a regular file (a FIFO, device or socket)")
            take(p, named=True)
        elif _GLOB_CHARS & set(arg):
            n = 0
            for m in safe_glob(arg):
                mp = Path(m)
                if mp.is_dir():
                    for f in _folder_files(mp):
                        take(f)
                        n += 1
                elif _is_regular(mp):
                    take(mp)
                    n += 1
            if n == 0:
                raise UsageError(f"{shown}: the pattern matches no scenario files")
        else:
            raise UsageError(f"{shown}: no such file or folder")
    files = [ScenarioFile(disp, real) for real, disp in found.items()]
    if notes is not None:
        notes.extend(
            f"{safe_text(d)}: skipped, not a scenario (no 'format: geom3d/1')"
            for r, d in sorted(skipped.items(), key=lambda kv: kv[1])
            if r not in found
        )
    if not files:
        why = f" ({len(skipped)} files without 'format: geom3d/1' skipped)" if skipped else ""
        raise UsageError(f"no scenario files to check{why}")
    return sorted(files)
