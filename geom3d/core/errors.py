"""Exception hierarchy of geom3d.

Every error geom3d raises on purpose derives from :class:`Geom3dError`. The subclasses
also derive from the matching builtin (``ValueError`` or ``TypeError``) so callers that
catch builtins keep working, in the manner of shapely and numpy.

Errors about a scenario file carry the file and the field path, and ``str(err)`` is
the one line the command line prints::

    scenario.yaml: troopers[2].silhouette: unknown silhouette 9 (known: 1-8)

That line is always one line of plain text: :func:`printable` escapes control characters
(newlines, ANSI and OSC escape sequences start with one), bidirectional overrides and
lone surrogates wherever they come from (a key, an id, a file name), as ``\\x1b``,
``\\u202e``, ``\\ud800``.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "Geom3dError",
    "InputError",
    "MeshError",
    "ScenarioError",
    "ShapeError",
    "UnknownIdError",
    "UsageError",
    "WorkerLost",
]


def _escape(c: str) -> str:
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def printable(text: str) -> str:
    """``text`` with every character that could break a line or a terminal escaped.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        Every character Python does not call printable (:meth:`str.isprintable`: control
        characters, which start ANSI and OSC escape sequences, line and paragraph
        separators, bidirectional and other format controls, lone surrogates, unassigned
        code points) as ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``; every other
        character, a backslash included, unchanged. The result is printable, always encodes
        as UTF-8, and applying :func:`printable` again changes nothing.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


class Geom3dError(Exception):
    """Root of every error geom3d raises on purpose.

    ``str(err)`` is one printable line (see :func:`printable`) whatever the message holds.
    """

    def __str__(self) -> str:
        return printable(super().__str__())


class InputError(Geom3dError, ValueError):
    """A value handed to the API is not acceptable (wrong range, NaN, ...)."""


class ShapeError(Geom3dError, TypeError):
    """An array argument has the wrong shape or dtype."""


class ScenarioError(Geom3dError, ValueError):
    """A scenario file is invalid.

    Parameters
    ----------
    message : str
        What is wrong.
    file : str or None
        The scenario (or mesh) file the problem is in.
    path : str or None
        The field path inside the file, e.g. ``troopers[2].silhouette``.
    """

    def __init__(self, message: str, *, file: str | None = None, path: str | None = None):
        self.message = message
        self.file = file
        self.path = path
        super().__init__(self._format())

    def _format(self) -> str:
        parts = [p for p in (self.file, self.path) if p]
        return ": ".join([*parts, self.message])

    def __reduce__(  # keep file/path across process pools
        self,
    ) -> tuple[
        Callable[..., ScenarioError],
        tuple[type[ScenarioError], str, str | None, str | None],
    ]:
        return (_rebuild_scenario_error, (type(self), self.message, self.file, self.path))


def _rebuild_scenario_error(
    cls: type[ScenarioError], message: str, file: str | None, path: str | None
) -> ScenarioError:
    return cls(message, file=file, path=path)


class UnknownIdError(ScenarioError):
    """A trooper, attack or scenery id that the scenario does not define."""


class MeshError(ScenarioError):
    """A mesh file is missing, unreadable or has no usable triangles."""


class UsageError(Geom3dError, ValueError):
    """A command-line usage problem (bad option value, unwritable output): exit code 2."""


class WorkerLost(Geom3dError, ValueError):
    """A worker process (or a cluster) stopped before its work was done: a survey
    cannot finish; the message says what is missing (exit 2, one line)."""
