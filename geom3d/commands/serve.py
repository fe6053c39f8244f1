"""``geom3d serve``: the live what-if web app on one scenario (SPEC 13.6)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from geom3d.commands._common import (
    EXIT_OK,
    add_quiet,
    add_scenario_arg,
    subparser,
    warn_scene,
)
from geom3d.core.errors import UsageError
from geom3d.execution.signals import retry_later

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "EXIT_SIGINT", "EXIT_SIGTERM", "add_parser", "run"]

#: The address served unless ``--host`` says otherwise: this machine only.
DEFAULT_HOST = "127.0.0.1"
#: The port unless ``--port`` says otherwise (0 picks any free port).
DEFAULT_PORT = 8765
#: Exit codes after SIGINT and SIGTERM (SPEC 13.4).
EXIT_SIGINT, EXIT_SIGTERM = 130, 143


class _Stop(BaseException):
    """Raised in the main thread by SIGINT or SIGTERM: the exit code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``serve`` on the CLI's subparsers."""
    p = subparser(
        sub,
        "serve",
        "a local web app: drag troopers, watch Line of Fire, templates and exposure",
        "Serves a page (and a JSON API) where troopers are dragged or placed, turned and\n"
        "laid down; Line of Fire from and to the moved trooper redraws as it moves, the\n"
        "scenario's attacks can be fired and a side's exposure map shown. The scenario\n"
        "file is never written: Save writes NAME.moved-N.yaml beside it. Only this\n"
        "machine can connect unless --host says otherwise. Ctrl-C or SIGTERM stop it.",
        [
            "geom3d serve meshes/demo/table.yaml",
            "geom3d serve meshes/scenarios/wall_blocks.yaml --port 8800",
        ],
    )
    add_scenario_arg(p)
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        metavar="N",
        help=f"TCP port, 0 for any free one (default: {DEFAULT_PORT})",
    )
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        metavar="H",
        help=f"address to listen on; 0.0.0.0 lets other machines connect (default: {DEFAULT_HOST})",
    )
    p.add_argument(
        "--no-ahead",
        action="store_true",
        help="do not search the exposure overlays ahead while the server is idle (an "
        "overlay is then searched when asked for) (default: searched ahead, at low priority)",
    )
    add_quiet(p, "no warnings, no request log")
    p.set_defaults(func=run)
    return p


def _on_signal(signum: int, frame: Any) -> None:
    if not retry_later(signum, frame):  # (inside numba or an import: raised just after)
        raise _Stop(EXIT_SIGTERM if signum == signal.SIGTERM else EXIT_SIGINT)


def run(args: argparse.Namespace) -> int:
    """Load the scenario, warm the scene, serve until SIGINT or SIGTERM."""
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: {args.port} is not a TCP port (0 to 65535)")
    previous = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    stopped = threading.Event()
    server = session = None
    try:
        from geom3d.commands._prepare import prepare_kernels
        from geom3d.serve.app import make_server, serve_in_thread
        from geom3d.serve.session import Session

        print(f"geom3d serve: loading {args.scenario}", file=sys.stderr, flush=True)
        prepare_kernels(quiet=args.quiet)
        session = Session(args.scenario)
        warn_scene(session.scene, args)
        try:
            server = make_server(session, args.host, args.port, quiet=args.quiet)
        except OSError as exc:
            raise UsageError(
                f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
            ) from None
        session.warm()
        serve_in_thread(server)
        server.jobs.prepare_in_background(session.scene)  # the overlay's cells, ahead
        if not args.no_ahead:
            server.ahead.start()  # the overlays' answers, while idle, at low priority
        print(f"geom3d serve: {session.path.name} at {server.url} (Ctrl-C stops)", file=sys.stderr)
        if not args.no_ahead and not args.quiet:
            print(
                "geom3d serve: while idle, the exposure maps are searched ahead at low "
                "priority (--no-ahead: not)",
                file=sys.stderr,
            )
        sys.stderr.flush()
        while not stopped.wait(3600):
            pass
        return EXIT_OK  # pragma: no cover (only a signal ends the wait)
    except _Stop as stop:
        print("geom3d serve: stopped", file=sys.stderr)
        return stop.code
    finally:
        if server is not None:
            server.ahead.stop(timeout=0)  # (its daemon threads end after their steps)
            threading.Thread(target=server.shutdown, daemon=True).start()
            server.server_close()
        if session is not None:
            session.close()
        for s, h in previous.items():
            signal.signal(s, h)
