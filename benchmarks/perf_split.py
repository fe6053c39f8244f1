"""Where the one-thread Line of Fire matrix spends its time, by library (Linux ``perf``),
and its samples per Embree sample: a machine-independent figure to compare two versions.

Builds a ``bench_lof.py`` table (``--table``), runs one matrix to load every kernel, then
samples this process with ``perf record`` while it runs ``--rounds`` more matrices, and
prints the share of the samples in numba's compiled code, in Embree, in Python, in numpy
and in the C library, and **total / Embree**. A change that leaves the answers alone
casts the same rays, so that ratio compares two versions of the code without the
machine's speed in it: a busy or throttled machine slows both alike, where wall times of
a 0.5 s matrix on a shared 2-core machine vary by 5 to 10 % from run to run.

Usage::

    GEOM3D_CACHE_DIR=/tmp/a PYTHONPATH=/path/to/checkout python benchmarks/perf_split.py \\
        --table scan-fused --rounds 12

``--kernels N`` also names the compiled functions: it writes ``/tmp/perf-PID.map`` (the
start address and name of every function numba compiled in this process, from each
library's LLVM module and the JIT's symbol table) and prints the ``N`` symbols with the
most samples, kernels and libraries alike. numba keeps those modules only for what it
compiled here, not for what it loaded from its disk cache, so give it an empty cache
(the first matrix then compiles every kernel, about a minute)::

    GEOM3D_CACHE_DIR=$(mktemp -d) python benchmarks/perf_split.py --table scan --kernels 30

Needs ``perf`` (``linux-perf``). Give each checkout its own ``GEOM3D_CACHE_DIR`` and do not
set ``NUMBA_CACHE_DIR`` by hand: numba checks a cached kernel only against its own file,
so a kernel that embeds one of another file would keep the old copy (geom3d's own kernel
folder is named by a digest of every kernel source, ``geom3d.core.cache_paths``). To name
the kernels inside the compiled code, see docs/architecture.md (``perf`` and numba).
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_lof as bl

#: The lines of the split: (part of the sampled object's name, label); the rest is "other".
_LIBRARIES = (
    ("[JIT]", "compiled kernels (numba)"),
    ("embree", "Embree"),
    ("libpython", "Python"),
    ("multiarray", "numpy"),
    ("libc.", "C library (malloc, memset)"),
)


def split(report: str) -> dict[str, float]:
    """Shares (%) by library from ``perf report --sort dso --stdio``."""
    got: dict[str, float] = collections.defaultdict(float)
    for line in report.splitlines():
        m = re.match(r"\s+([\d.]+)%\s+(.+?)\s*$", line)
        if not m:
            continue
        pct, dso = float(m.group(1)), m.group(2)
        label = next((lab for key, lab in _LIBRARIES if key in dso), "other")
        got[label] += pct
    return got


#: A symbol's extent in the perf map: up to the next one, at most this many bytes (the
#: last function of a library would otherwise take the gap to the next library).
_MAX_SYMBOL_BYTES = 1 << 16


def kernel_symbols() -> dict[int, str]:
    """Start address -> short name of every function numba compiled in this process
    (``--kernels``; run before the heap is frozen: frozen objects are not listed)."""
    from numba.core.dispatcher import Dispatcher

    syms: dict[int, str] = {}
    for obj in gc.get_objects():
        if not isinstance(obj, Dispatcher):
            continue
        for cres in obj.overloads.values():
            lib = cres.library
            module = getattr(lib, "_final_module", None)
            if module is None:  # loaded from the disk cache: no module to read
                continue
            for fn in module.functions:
                if not fn.is_declaration:
                    address = lib._codegen._engine.get_function_address(fn.name)
                    if address:
                        syms[address] = short_name(fn.name)
    return syms


def short_name(mangled: str) -> str:
    """``geom3d.visibility._cast_kernels._clear_loop`` of numba's mangled
    ``_ZN6geom3d10visibility13_cast_kernels11_clear_loopB3v54B...E...`` (a prefix such as
    ``cfunc.`` kept); other names as they are."""
    at = mangled.find("_ZN")
    prefix, rest = (mangled[:at], mangled[at + 3 :]) if at >= 0 else ("", "")
    parts = []
    while m := re.match(r"(\d+)", rest):
        k, size = len(m.group(1)), int(m.group(1))
        parts.append(rest[k : k + size])
        rest = rest[k + size :]
    return prefix + ".".join(parts) if parts else mangled


def write_perf_map(syms: dict[int, str], pid: int) -> Path:
    """``/tmp/perf-PID.map``, which ``perf report`` reads for the JIT's code."""
    starts = sorted(syms)
    ends = [*starts[1:], starts[-1] + _MAX_SYMBOL_BYTES] if starts else []
    path = Path(f"/tmp/perf-{pid}.map")
    pairs = zip(starts, ends, strict=True)
    lines = [f"{a:x} {min(b - a, _MAX_SYMBOL_BYTES):x} {syms[a]}" for a, b in pairs]
    path.write_text("".join(line + "\n" for line in lines))
    return path


def top_symbols(report: str, n: int) -> list[tuple[float, str]]:
    """The ``n`` first ``(share %, symbol)`` of ``perf report --sort sym --stdio``."""
    got = []
    for line in report.splitlines():
        m = re.match(r"\s+([\d.]+)%\s+\[.\]\s+(.+?)\s*$", line)
        if m:
            got.append((float(m.group(1)), m.group(2)))
    return got[:n]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=bl.TABLES, default="scan-fused")
    ap.add_argument("--rounds", type=int, default=12, help="matrices sampled")
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument("--troopers", type=int, default=40)
    ap.add_argument(
        "--kernels", type=int, default=0, metavar="N",
        help="also the N symbols with the most samples, numba's functions named "
        "(use an empty GEOM3D_CACHE_DIR)",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if not shutil.which("perf"):
        print("perf_split: needs perf (linux-perf) on PATH", file=sys.stderr)
        return 2
    bl.TABLE["kind"] = args.table
    with tempfile.TemporaryDirectory() as tmp:
        scene = bl.make_scene(bl.write_table(args.triangles, Path(tmp)), args.troopers)
        bl.matrix(scene, threads=1)  # every kernel loaded (or compiled) first
        perf_map = None
        if args.kernels:
            syms = kernel_symbols()
            if not any(".search_clear" in name for name in syms.values()):
                print("perf_split: the search was loaded from numba's cache, not compiled "
                      "here; its kernels stay unnamed (use an empty GEOM3D_CACHE_DIR)",
                      file=sys.stderr)  # fmt: skip
            perf_map = write_perf_map(syms, os.getpid())
        gc.freeze()  # as the commands do (geom3d.core.runtime.settle_heap)
        data = Path(tmp) / "perf.data"
        perf = subprocess.Popen(
            ["perf", "record", "-F", "1999", "-p", str(os.getpid()), "-o", str(data)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1.0)  # perf attached (an idle process gives no samples)
        t0 = time.perf_counter()
        for _ in range(args.rounds):
            bl.matrix(scene, threads=1)
        took = (time.perf_counter() - t0) / args.rounds
        perf.send_signal(2)
        perf.wait()
        report = subprocess.run(
            ["perf", "report", "-i", str(data), "--no-children", "--sort", "dso",
             "-g", "none", "--stdio"],
            capture_output=True, text=True, check=False,
        ).stdout  # fmt: skip
        by_symbol = ""
        if perf_map is not None:
            by_symbol = subprocess.run(
                ["perf", "report", "-i", str(data), "--no-children", "--sort", "sym",
                 "-g", "none", "--stdio"],
                capture_output=True, text=True, check=False,
            ).stdout  # fmt: skip
            perf_map.unlink(missing_ok=True)
    shares = split(report)
    print(f"table {args.table}: {args.rounds} one-thread matrices, {took * 1e3:.1f} ms each")
    for label, pct in sorted(shares.items(), key=lambda kv: -kv[1]):
        print(f"  {pct:6.2f}%  {label}")
    embree = shares.get("Embree", 0.0)
    if not embree:
        print("no Embree sample: no ratio", file=sys.stderr)
        return 1
    print(f"total / Embree: {100.0 / embree:.3f} samples per Embree sample")
    if args.kernels:
        print(f"the {args.kernels} symbols with the most samples:")
        for pct, name in top_symbols(by_symbol, args.kernels):
            print(f"  {pct:6.2f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
