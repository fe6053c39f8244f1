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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=bl.TABLES, default="scan-fused")
    ap.add_argument("--rounds", type=int, default=12, help="matrices sampled")
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument("--troopers", type=int, default=40)
    args = ap.parse_args(argv)
    if not shutil.which("perf"):
        print("perf_split: needs perf (linux-perf) on PATH", file=sys.stderr)
        return 2
    bl.TABLE["kind"] = args.table
    with tempfile.TemporaryDirectory() as tmp:
        scene = bl.make_scene(bl.write_table(args.triangles, Path(tmp)), args.troopers)
        bl.matrix(scene, threads=1)  # every kernel loaded (or compiled) first
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
    shares = split(report)
    print(f"table {args.table}: {args.rounds} one-thread matrices, {took * 1e3:.1f} ms each")
    for label, pct in sorted(shares.items(), key=lambda kv: -kv[1]):
        print(f"  {pct:6.2f}%  {label}")
    embree = shares.get("Embree", 0.0)
    if not embree:
        print("no Embree sample: no ratio", file=sys.stderr)
        return 1
    print(f"total / Embree: {100.0 / embree:.3f} samples per Embree sample")
    return 0


if __name__ == "__main__":
    sys.exit(main())
