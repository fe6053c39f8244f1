"""Answers unchanged? The md5 of ``geom3d lof --format json`` on ``bench_lof.py``'s tables.

A speed change must leave every answer, witness included, byte for byte the same. This
writes each table (``scan``, ``waving``, ``scan-fused``; 1M triangles and 40 troopers by
default, as ``bench_lof.py --cli-diff`` runs them), runs the whole command on it in a
fresh process and prints the md5 of its JSON, so a run before and a run after the change
can be compared line by line (``--save FILE`` writes the lines, ``--against FILE`` compares
and exits 1 on a difference).

Usage::

    python benchmarks/lof_md5.py --save /tmp/before.txt        # on the old code
    python benchmarks/lof_md5.py --against /tmp/before.txt     # on the new code
    python benchmarks/lof_md5.py --tables scan-fused --triangles 200000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_lof
from _lof_figures import _cli


def answer_md5(kind: str, n_triangles: int, n_troopers: int, folder: Path) -> str:
    """The md5 of ``geom3d lof --format json --quiet`` on table ``kind``."""
    bench_lof.TABLE["kind"] = kind
    table = bench_lof.write_table(n_triangles, folder)
    path = folder / f"md5_{kind}.json"
    path.write_text(json.dumps(bench_lof.scenario_fn()(table, n_troopers)))
    cmd = [*_cli(), "lof", str(path), "--format", "json", "--quiet"]
    out = subprocess.run(cmd, check=True, capture_output=True).stdout
    return hashlib.md5(out).hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default=",".join(bench_lof.TABLES))
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument("--troopers", type=int, default=40)
    ap.add_argument("--save", type=Path, help="write the lines to this file")
    ap.add_argument("--against", type=Path, help="compare with a file --save wrote")
    args = ap.parse_args(argv)
    lines = []
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as cache:
        os.environ["GEOM3D_CACHE_DIR"] = cache
        for kind in (k.strip() for k in args.tables.split(",") if k.strip()):
            md5 = answer_md5(kind, args.triangles, args.troopers, Path(tmp))
            lines.append(f"{kind} {args.triangles} {args.troopers} {md5}")
            print(lines[-1], flush=True)
    if args.save:
        args.save.write_text("\n".join(lines) + "\n")
    if args.against:
        want = set(args.against.read_text().split("\n")) - {""}
        diff = [x for x in lines if x not in want]
        print("answers identical" if not diff else f"answers differ: {diff}")
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
