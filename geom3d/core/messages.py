"""Scene messages with a severity (SPEC 12.2): ``note`` (a fact) or ``warning`` (a likely
mistake).

A :class:`Message` *is* its text (a ``str``), so every place that lists, joins, prints or
compares scene messages keeps working; it also carries ``severity``. Facts such as
"scaled m -> mm (x1000)", "3 separate bodies" or "closed 2 holes" are notes: quiet on a
terminal unless asked for (``-v``), never a failure under ``--strict``. Warnings (a piece
floating, a trooper embedded, a mesh 3 m across) are printed and fail ``--strict``.

>>> m = note("scaled m -> mm (x1000)")
>>> m == "scaled m -> mm (x1000)", m.severity, severity_of("plain text")
(True, 'note', 'warning')
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "SEVERITIES",
    "Message",
    "as_records",
    "note",
    "notes_of",
    "record_messages",
    "severity_of",
    "terminal_lines",
    "warning",
    "warnings_of",
]

#: The two severities, mildest first.
SEVERITIES = ("note", "warning")


class Message(str):
    """A message's text with its ``severity`` (``"note"`` or ``"warning"``)."""

    severity: str

    def __new__(cls, text: str, severity: str = "warning") -> Message:
        if severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, got {severity!r}")
        self = super().__new__(cls, text)
        self.severity = severity
        return self

    def __reduce__(self) -> tuple[type[Message], tuple[str, str]]:  # pickles keep severity
        return (Message, (str(self), self.severity))

    def retext(self, text: str) -> Message:
        """The same severity with another text (a prefix, a cleaned text)."""
        return Message(text, self.severity)


def note(text: str) -> Message:
    """A fact (quiet by default)."""
    return Message(text, "note")


def warning(text: str) -> Message:
    """A likely mistake."""
    return Message(text, "warning")


def severity_of(text: str) -> str:
    """The severity of ``text``: its own, or ``warning`` for a plain string."""
    return getattr(text, "severity", "warning")


def notes_of(messages: Iterable[str]) -> list[str]:
    """The texts of the notes among ``messages`` (plain ``str``)."""
    return [str(m) for m in messages if severity_of(m) == "note"]


def warnings_of(messages: Iterable[str]) -> list[str]:
    """The texts of the warnings among ``messages`` (plain ``str``)."""
    return [str(m) for m in messages if severity_of(m) == "warning"]


def record_messages(messages: Iterable[str]) -> list[str | dict[str, str]]:
    """Messages for a ``geom3d check`` record's ``warnings``: a warning as its text, a note
    as ``{"severity": "note", "message": TEXT}`` (what :func:`geom3d.check.record.is_note`
    reads: never a ``--strict`` failure)."""
    return [
        str(m) if severity_of(m) == "warning" else {"severity": "note", "message": str(m)}
        for m in messages
    ]


def as_records(messages: Iterable[str]) -> list[dict[str, str]]:
    """``[{"severity": ..., "text": ...}]`` for JSON."""
    return [{"severity": severity_of(m), "text": str(m)} for m in messages]


def terminal_lines(messages: Iterable[str], name: str, verbose: bool = False) -> list[str]:
    """Lines for stderr: ``warning: NAME: TEXT`` for each warning; the notes (``note:
    NAME: TEXT``) only when ``verbose`` (``-v``)."""
    return [
        f"{severity_of(m)}: {name}: {m}" for m in messages if verbose or severity_of(m) == "warning"
    ]
