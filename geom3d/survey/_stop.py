"""Stopping a survey's process pool at once (issue 33).

``ProcessPoolExecutor.shutdown(wait=False)`` leaves the workers running a chunk and
multiprocessing's fork server alive: after Ctrl-C, SIGTERM or a dead worker the red team
found both still running. :func:`stop_pool` terminates (then kills) every worker and
stops the fork server.
"""

from __future__ import annotations

__all__ = ["stop_pool"]


def stop_pool(ex) -> None:
    """Stop a pool's workers and multiprocessing's fork server now (nothing left
    running after an interrupted or failed survey)."""
    procs = list((getattr(ex, "_processes", None) or {}).values())
    for proc in procs:
        try:
            proc.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    ex.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        try:
            proc.join(2.0)
            if proc.is_alive():
                proc.kill()
                proc.join(2.0)
        except (OSError, ValueError, AttributeError):
            pass
    try:
        from multiprocessing import forkserver

        forkserver._forkserver._stop()  # type: ignore[attr-defined]  # private API, best effort
    except Exception:
        pass
