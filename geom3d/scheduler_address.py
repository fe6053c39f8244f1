"""Dask scheduler addresses given on the command line (``--scheduler``), checked before
anything connects, so a typo is one clear line rather than a long connection time-out.

Used by ``geom3d check`` and ``geom3d survey``.
"""

from __future__ import annotations

from .errors import UsageError

__all__ = ["SCHEMES", "check_address"]

#: Address schemes Dask's communication layer understands.
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def check_address(address: str) -> None:
    """Raise :class:`UsageError` unless ``address`` looks like a Dask scheduler address.

    Accepted: ``SCHEME://HOST:PORT`` for the network schemes (a bare ``HOST:PORT`` means
    ``tcp://``), with a port from 1 to 65535, and any non-empty ``ucx://`` or
    ``inproc://`` address. No white space anywhere.
    """
    bad = UsageError(f"--scheduler: bad address {address!r} (expected tcp://HOST:PORT)")
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in SCHEMES or not rest or any(c.isspace() for c in address):
        raise bad
    if scheme in ("tcp", "tls", "ws", "wss"):
        host, colon, port = rest.rpartition(":")
        if not colon or not host or host in ("[", "[]"):
            raise bad
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise bad
