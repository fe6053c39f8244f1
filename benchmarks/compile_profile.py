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

``--phases``: also split the CPU seconds by compile phase (each phase's own time, without
the phases nested in it): numba's passes (type inference, lowering to LLVM IR, ...),
the wrappers that let Python (and C) call each function, parsing that IR into LLVM, LLVM's
function passes, its whole-module optimisation and its machine code, and the cache's reads
and writes. The wrappers and LLVM's last two phases are split again by whether
the function compiled was called from Python or only compiled to be linked into a caller
(a *callee*): numba optimises and generates code for each function's module with every
callee linked in, so a callee's code is optimised and compiled once for itself and again
in each caller. The phases are timed by wrapping numba's internal methods (written
against numba 0.68); one it lacks is left out and named.
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


class _Phases:
    """Own CPU seconds per compile phase (see the module docstring's ``--phases``)."""

    def __init__(self, listener: _Listener) -> None:
        self.listener = listener
        self.own: collections.Counter[str] = collections.Counter()
        self.nested: list[float] = []  # seconds of phases nested in each open one
        self.missing: list[str] = []

    def wrap(self, owner: type, method: str, label, split: bool = False) -> None:
        """Time ``owner.method`` as phase ``label`` (a string, or a function of the
        call's arguments); ``split``: apart for callees."""
        orig = getattr(owner, method, None)
        if orig is None:
            self.missing.append(f"{owner.__name__}.{method}")
            return

        def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
            name = label(args) if callable(label) else label
            if split and len(self.listener.stack) > 1:
                name += " (callees)"
            start = time.thread_time()
            self.nested.append(0.0)
            try:
                return orig(*args, **kwargs)
            finally:
                inner = self.nested.pop()
                took = time.thread_time() - start
                if self.nested:
                    self.nested[-1] += took
                self.own[name] += took - inner

        setattr(owner, method, timed)

    def install(self) -> None:
        from numba.core import caching, codegen, compiler_machinery, lowering

        self.wrap(compiler_machinery.PassManager, "_runPass", lambda a: f"numba pass {a[2].name()}")
        for method in ("create_cpython_wrapper", "create_cfunc_wrapper"):
            self.wrap(lowering.Lower, method, "numba: Python and C wrappers", True)
        lib = codegen.CPUCodeLibrary
        self.wrap(lib, "add_ir_module", "LLVM: parse numba's IR text")
        self.wrap(lib, "_optimize_functions", "LLVM: function passes")
        self.wrap(lib, "_optimize_final_module", "LLVM: whole-module optimisation", True)
        self.wrap(codegen.JITCodeLibrary, "_finalize_specific", "LLVM: machine code", True)
        self.wrap(caching.Cache, "save_overload", "cache write")
        self.wrap(caching.Cache, "load_overload", "cache read")

    def report(self) -> None:
        print("\n  phase (own CPU s)", file=sys.stderr)
        for name, t in self.own.most_common():
            if t >= 0.005:
                print(f"{t:7.2f} s  {name}", file=sys.stderr)
        for name in self.missing:
            print(f"  (not timed: numba has no {name})", file=sys.stderr)


def main(argv: list[str]) -> int:
    serial = "--serial" in argv
    sigs = "--signatures" in argv
    split = "--phases" in argv
    argv = [a for a in argv if a not in ("--serial", "--signatures", "--phases")]
    listener = _Listener()
    ev.register("numba:compile", listener)
    phases = _Phases(listener)
    if split:
        phases.install()
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
    if split:
        phases.report()
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
