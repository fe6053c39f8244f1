"""Per-kernel numba compile times of one ``geom3d`` command (issue 31: the first run).

Runs the command in this process with a numba event listener and prints, on stderr, the
CPU seconds each compiled function took to compile: its own, without the callees numba
compiled apart while typing it (a callee numba inlines counts in the caller), and with
them; and how many specialisations were compiled. Use an empty cache folder for a cold compile::

    GEOM3D_CACHE_DIR=$(mktemp -d) python benchmarks/compile_profile.py --serial demo --out D

``search`` instead of a command: only the Line of Fire search's kernels. ``--serial``: the
kernel preparation compiles the search in this process too (no child process), so every
kernel is in the listing. ``--signatures``: also print each geom3d
kernel's compiled signatures (duplicate specialisations show there).
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from numba.core import event as ev

_times: collections.Counter[str] = collections.Counter()
_own: collections.Counter[str] = collections.Counter()
_counts: collections.Counter[str] = collections.Counter()
_dispatchers: dict[str, object] = {}


class _Listener(ev.Listener):
    def __init__(self) -> None:
        self.stack: list[list[float]] = []  # [start, seconds of nested compiles]

    def on_start(self, event):  # type: ignore[no-untyped-def]
        self.stack.append([time.thread_time(), 0.0])

    def on_end(self, event):  # type: ignore[no-untyped-def]
        d = event.data["dispatcher"]
        start, nested = self.stack.pop()
        took = time.thread_time() - start
        if self.stack:
            self.stack[-1][1] += took
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        _times[name] += took
        _own[name] += took - nested
        _counts[name] += 1
        _dispatchers[name] = d


def main(argv: list[str]) -> int:
    serial = "--serial" in argv
    sigs = "--signatures" in argv
    argv = [a for a in argv if a not in ("--serial", "--signatures")]
    ev.register("numba:compile", _Listener())
    if serial:
        from geom3d.commands import _prepare

        def _no_child(*_a, **_k):  # type: ignore[no-untyped-def]
            raise OSError("serial profile")

        _prepare.subprocess.Popen = _no_child  # type: ignore[assignment]
    from geom3d.cli import main as cli_main

    t0 = time.process_time()
    if argv == ["search"]:  # only the Line of Fire search (what the preparation's child does)
        from geom3d.commands._prepare import _compile_search

        _compile_search()
        rc = 0
    else:
        try:
            rc = cli_main(argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
    print(f"\nCPU total {time.process_time() - t0:.1f} s", file=sys.stderr)
    print("   own  with callees  specialisations  function", file=sys.stderr)
    for name, t in _own.most_common():
        print(f"{t:6.2f} s  {_times[name]:7.2f} s  x{_counts[name]}  {name}", file=sys.stderr)
    if sigs:
        for name in sorted(_dispatchers):
            if name.startswith("geom3d."):
                d = _dispatchers[name]
                for s in d.signatures:  # type: ignore[attr-defined]
                    print(f"SIG {name} {s}", file=sys.stderr)
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
