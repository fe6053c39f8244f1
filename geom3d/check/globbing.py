"""Shell-style globs that never follow a symbolic link while recursing.

``glob.glob(pattern, recursive=True)`` follows links to folders under ``**``: a link to
``.`` or ``..`` makes the match list grow without end (the red team's ``**/*.yaml`` over
a folder holding ``up -> ..``). :func:`safe_glob` matches like it (``*``, ``?``,
``[...]``; ``**`` is any number of folders; hidden names only when the pattern spells
the dot) but ``**`` walks real folders only, as ``os.walk`` does; a link is still
*matched* (``**/*.yaml`` finds ``x.yaml -> elsewhere``, a single ``*`` may name a linked
folder), so every pattern expands to a finite list. An unreadable folder is skipped.
"""

from __future__ import annotations

import fnmatch
import os

__all__ = ["has_magic", "safe_glob"]

_MAGIC = frozenset("*?[")


def has_magic(part: str) -> bool:
    """Whether ``part`` holds a glob character."""
    return bool(_MAGIC & set(part))


def _entries(folder: str) -> list[os.DirEntry]:
    try:
        with os.scandir(folder or ".") as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _real_folders(top: str) -> list[str]:
    """``top`` and every folder below it (not hidden, links not followed), iteratively."""
    out, stack = [], [top]
    while stack:
        d = stack.pop()
        out.append(d)
        for e in reversed(_entries(d)):
            if not e.name.startswith(".") and e.is_dir(follow_symlinks=False):
                stack.append(os.path.join(d, e.name) if d else e.name)
    return out


def _join(d: str, name: str) -> str:
    return os.path.join(d, name) if d else name


def safe_glob(pattern: str) -> list[str]:
    """Paths matching ``pattern``, sorted; see the module docstring."""
    parts = pattern.split(os.sep)
    start = next((i for i, p in enumerate(parts) if has_magic(p)), len(parts))
    base = os.sep.join(parts[:start])
    if parts[:1] == [""] and start == 1:
        base = os.sep  # an absolute pattern with magic right after the root
    if start == len(parts):
        return [base] if os.path.lexists(base) else []
    if base and not os.path.isdir(base):
        return []
    found: list[str] = []
    level = [(base, parts[start:])]
    while level:
        nxt = []
        for d, comps in level:
            c, more = comps[0], comps[1:]
            if c == "**":
                dirs = _real_folders(d)
                if more:
                    nxt += [(x, more) for x in dirs]
                else:  # a final ** is every name below (folders and files)
                    found += [x for x in dirs if x]
                    for x in dirs:
                        found += [_join(x, e.name) for e in _entries(x) if e.name[0] != "."]
                continue
            if has_magic(c):
                names = [
                    e.name
                    for e in _entries(d)
                    if fnmatch.fnmatch(e.name, c) and (c.startswith(".") or e.name[0] != ".")
                ]
            else:
                names = [c] if os.path.lexists(_join(d, c)) or (not c and d) else []
            for name in names:
                p = _join(d, name) if name else d
                if not more:
                    found.append(p)
                elif os.path.isdir(p):
                    nxt.append((p, more))
        level = nxt
    return sorted(set(found))
