"""Dask schedulers given on the command line (``--scheduler``): the address is checked
before anything connects, so a typo is one clear line rather than a long connection
time-out, and the connection itself fails with one clear line.

Used by ``geom3d check`` and ``geom3d survey``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from geom3d.core.errors import UsageError

if TYPE_CHECKING:  # Dask is optional (the dask extra) and loads only to connect
    from distributed import Client

__all__ = ["CONNECT_TIMEOUT", "SCHEMES", "check_address", "connect"]

#: How long connecting to a scheduler may take (Dask's time-out syntax).
CONNECT_TIMEOUT = "15s"

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


def connect(address: str) -> Client:
    """A ``distributed.Client`` on the scheduler at ``address`` (checked first).

    Raises
    ------
    UsageError
        A bad address, Dask not installed (the ``dask`` extra), or no scheduler answering
        within :data:`CONNECT_TIMEOUT`: one line naming the address and the reason.
    """
    check_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(
            "--scheduler needs Dask: install geom3d[dask] (pip install 'geom3d[dask]')"
        ) from None
    try:
        # distributed's Client.__init__ is unannotated
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)  # type: ignore[no-untyped-call]
    except Exception as exc:  # OSError, TimeoutError, CommClosedError, ...
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"--scheduler: cannot connect to {address}: {detail}") from None
