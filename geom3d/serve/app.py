"""The HTTP server of ``geom3d serve`` (SPEC 13.6): the page and the JSON API.

Standard library only (:class:`http.server.ThreadingHTTPServer`: one thread per
request, so a move in progress never holds up the next, which cancels it).

Routes::

    GET  /                 the page (page.html, self-contained)
    GET  /api/scene        troopers, table, scenery footprints, attacks
    POST /api/move         {id, position, facing_deg?, prone?} -> {trooper, pairs}
    POST /api/lof          {id} -> {trooper, pairs}: the same, without moving
    POST /api/attack       {id} -> that attack as `geom3d attack` JSON, plus `drawing`
    POST /api/save         {} -> {file}: the moved scenario, a new file beside the input
    POST /api/exposure     {side} -> starts the exposure overlay
    GET  /api/exposure     its progress, then its cells
    GET  /api/ahead        how far the overlays searched ahead got (:mod:`geom3d.serve.ahead`)

Safe by default: answers JSON (``application/json``), errors one line of plain text
with 400 (bad request), 404 (unknown route or id), 409 (a move superseded by a newer
one), 411/413 (no length, body over :data:`MAX_BODY_BYTES`), 415 (a POST that is not
JSON: a cross-site form cannot post here), 421 (a ``Host`` the server does not answer
to: DNS rebinding, checked when it listens on this machine only); nothing read from a
request is ever used as a file path.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from typing import Any

from geom3d.core.errors import Geom3dError
from geom3d.core.output import dumps_json, safe_text
from geom3d.serve.ahead import ExposureAhead
from geom3d.serve.overlay import ExposureJobs
from geom3d.serve.session import BadRequest, NotFound, Session, Superseded

__all__ = ["MAX_BODY_BYTES", "REQUEST_TIMEOUT_S", "GeomServer", "make_server", "serve_in_thread"]

#: Largest request body read (bytes); a longer one is refused (413) unread.
MAX_BODY_BYTES = 16 * 1024

#: Seconds a connection may stay silent before the server drops it.
REQUEST_TIMEOUT_S = 30.0

_LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")


def _page() -> bytes:
    return files("geom3d.serve").joinpath("page.html").read_bytes()


class GeomServer(ThreadingHTTPServer):
    """A :class:`ThreadingHTTPServer` holding the session, the overlay jobs and the
    host names it answers to."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], session: Session, *, quiet: bool = True):
        if ":" in address[0]:  # an IPv6 address
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        self.session = session
        self.jobs = ExposureJobs()
        self.ahead = ExposureAhead(self.jobs, session)  # started by geom3d serve, once warm
        self.quiet = quiet
        self.page = _page()
        port = self.server_address[1]
        # on this machine only, a page must name it (DNS rebinding); a server the user
        # opened to other machines (--host) answers whatever name they reach it by
        self.hosts: set[str] | None = None
        if address[0] in ("127.0.0.1", "localhost", "::1"):
            self.hosts = {f"{n}:{port}" for n in _LOCAL_NAMES} | set(_LOCAL_NAMES)

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), int(self.server_address[1])
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"


class Handler(BaseHTTPRequestHandler):
    """One request: routes, limits and one-line errors (module docstring)."""

    server: GeomServer
    timeout = REQUEST_TIMEOUT_S
    server_version = "geom3d-serve"
    sys_version = ""

    # ------------------------------------------------------------------ replies
    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            sys.stderr.write(safe_text(f"geom3d serve: {format % args}") + "\n")

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, doc: Any) -> None:
        self._send(HTTPStatus.OK, dumps_json(doc).encode("utf-8"), "application/json")

    def _error(self, status: int, message: str) -> None:
        line = safe_text(" ".join(str(message).split()))[:500]
        self._send(status, (line + "\n").encode("utf-8"), "text/plain; charset=utf-8")

    def _host_ok(self) -> bool:
        host = self.headers.get("Host")
        if host is None or self.server.hosts is None or host in self.server.hosts:
            return True
        self._error(HTTPStatus.MISDIRECTED_REQUEST, f"this server does not answer to {host!r}")
        return False

    # ------------------------------------------------------------------ GET
    def do_GET(self) -> None:
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
        elif path == "/api/scene":
            self._json(self.server.session.scene_doc())
        elif path == "/api/exposure":
            self._json(self.server.jobs.status())
        elif path == "/api/ahead":
            self._json(self.server.ahead.status())
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {path[:100]}")

    # ------------------------------------------------------------------ POST
    def _body(self) -> dict | None:
        """The request's JSON object, or None after answering an error."""
        length = self.headers.get("Content-Length")
        if length is None:
            self._error(HTTPStatus.LENGTH_REQUIRED, "a POST needs a Content-Length")
            return None
        try:
            n = int(length)
        except ValueError:
            self._error(HTTPStatus.BAD_REQUEST, "Content-Length is not a number")
            return None
        if n < 0 or n > MAX_BODY_BYTES:
            self.close_connection = True  # the body is not read
            self._error(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"request body of {n} bytes; at most {MAX_BODY_BYTES} are read",
            )
            return None
        ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            self.close_connection = True
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "a POST body must be application/json")
            return None
        raw = self.rfile.read(n) if n else b"{}"
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self._error(HTTPStatus.BAD_REQUEST, f"the body is not JSON: {exc}")
            return None
        if not isinstance(body, dict):
            self._error(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
            return None
        return body

    def do_POST(self) -> None:
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        route = _ROUTES.get(path)
        if route is None:
            self._error(HTTPStatus.NOT_FOUND, f"no such API: {path[:100]}")
            return
        body = self._body()
        if body is None:
            return
        try:
            self._json(route(self.server, body))
        except BadRequest as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
        except NotFound as exc:
            self._error(HTTPStatus.NOT_FOUND, str(exc))
        except Superseded as exc:
            self._error(HTTPStatus.CONFLICT, str(exc))
        except Geom3dError as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
        except OSError as exc:  # saving: the folder is not writable, the disk full
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"cannot save: {exc.strerror or exc}")


def _fields(body: dict, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> None:
    extra = sorted(set(body) - set(allowed))
    if extra:
        raise BadRequest(f"unknown field {extra[0][:40]!r} (known: {', '.join(allowed) or 'none'})")
    for name in required:
        if name not in body:
            raise BadRequest(f"{name}: required")


def _move(server: GeomServer, body: dict) -> dict:
    _fields(body, ("id", "position", "facing_deg", "prone"), ("id", "position"))
    return server.session.move(
        body["id"], body["position"], body.get("facing_deg"), body.get("prone")
    )


def _lof(server: GeomServer, body: dict) -> dict:
    _fields(body, ("id",), ("id",))
    if not isinstance(body["id"], str):
        raise BadRequest("id: expected a trooper id (a string)")
    return server.session.pairs_of(body["id"])


def _attack(server: GeomServer, body: dict) -> dict:
    _fields(body, ("id",), ("id",))
    return server.session.attack(body["id"])


def _save(server: GeomServer, body: dict) -> dict:
    _fields(body, ())
    return server.session.save()


def _exposure(server: GeomServer, body: dict) -> dict:
    _fields(body, ("side",), ("side",))
    side = body["side"]
    session = server.session
    sides = {t.side for t in session.scene.troopers.values()}
    if not isinstance(side, str) or side not in sides:
        raise BadRequest(f"side: expected one of {', '.join(sorted(sides))}")
    return server.jobs.start(session.scene, side, session.generation)


_ROUTES = {
    "/api/move": _move,
    "/api/lof": _lof,
    "/api/attack": _attack,
    "/api/save": _save,
    "/api/exposure": _exposure,
}


def make_server(
    session: Session, host: str = "127.0.0.1", port: int = 0, *, quiet: bool = True
) -> GeomServer:
    """A server bound to ``host:port`` (0: any free port) for ``session``; call
    ``serve_forever`` (in a thread: :func:`serve_in_thread`) to answer. Without
    ``quiet`` each request is logged on stderr."""
    return GeomServer((host, port), session, quiet=quiet)


def serve_in_thread(server: GeomServer) -> threading.Thread:
    """Answer requests in a daemon thread; ``server.shutdown()`` stops it."""
    thread = threading.Thread(target=server.serve_forever, name="geom3d-serve", daemon=True)
    thread.start()
    return thread
