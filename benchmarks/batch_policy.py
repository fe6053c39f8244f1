"""The execution layer's batch figures (issue 44), used by ``bench_batch.py --policy``.

Runs ``geom3d check`` as a user does (a new process each time), on 200 small files and
on 20 heavy ones (a shared 1M-triangle table, 8 troopers each), with ``--workers 1``,
``2`` and ``auto``: wall time and peak memory of the whole process tree (the command and
its workers, sampled every 20 ms). Then SIGTERM at 50 seeded random moments from 0.1 to
5 s into a 2-worker heavy batch: the time from the signal to the exit (SPEC 13.4: 2 s),
the exit code and whether any process of the command's session was left.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import yaml

REPO = Path(__file__).resolve().parents[1]

SMALL = {
    "format": "geom3d/1", "units": "mm", "ruleset": "infinity",
    "scenery": [{"id": "wall", "box": {"size": [10, 200, 60]}, "position": [150, -250, 0]}],
    "expect": {"lof": [{"from": "a", "to": "b", "lof": True}]},
}  # fmt: skip


def make_small(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        y = 150 + (i % 40)  # each a little different: no two identical scenes
        doc = {**SMALL, "troopers": [
            {"id": "a", "side": "blue", "position": [0, 0], "silhouette": 2},
            {"id": "b", "side": "red", "position": [300, y], "facing_deg": 180, "silhouette": 2},
        ]}  # fmt: skip
        (folder / f"s{i:03d}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))


def _tree_rss(proc: psutil.Process) -> int:
    total = 0
    try:
        for p in [proc, *proc.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return total


def run_check(folder: Path, workers: str, env: dict) -> dict:
    """One ``geom3d check FOLDER --workers W`` run: wall s, peak tree MiB, exit code."""
    cmd = [sys.executable, "-m", "geom3d", "check", str(folder), "--workers", workers, "--quiet"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ps = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(ps))
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    out = proc.stdout.read().decode().strip().splitlines()
    proc.stdout.close()
    return {"workers": workers, "wall": wall, "peak_mib": peak / 2**20, "rc": proc.returncode,
            "totals": out[-1] if out else ""}  # fmt: skip


def _session(sid: int) -> int:
    n = 0
    for p in psutil.process_iter(["pid"]):
        try:
            if os.getsid(p.info["pid"]) == sid and p.status() != psutil.STATUS_ZOMBIE:
                n += 1
        except (OSError, psutil.Error):
            pass
    return n


def sigterm_times(folder: Path, env: dict, moments: int, seed: int) -> list[dict]:
    """SIGTERM at ``moments`` random moments into ``check FOLDER --workers 2``."""
    rng = random.Random(seed)
    rows = []
    for _ in range(moments):
        at = rng.uniform(0.1, 5.0)
        cmd = [sys.executable, "-m", "geom3d", "check", str(folder), "--workers", "2", "--quiet"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
        time.sleep(at)
        finished = proc.poll() is not None
        t0 = time.perf_counter()
        if not finished:
            os.kill(proc.pid, signal.SIGTERM)
        rc = proc.wait()
        took = time.perf_counter() - t0
        time.sleep(0.1)
        rows.append({"at": at, "exit_s": None if finished else took, "rc": rc,
                     "left": _session(proc.pid)})  # fmt: skip
    return rows


def report(small: Path, heavy: Path, moments: int, seed: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for label, folder in (("200 small files", small), ("20 heavy files", heavy)):
        print(f"\n{label}: geom3d check --workers W (a new process each run)")
        print(f"  {'workers':>8} {'wall s':>8} {'peak MiB':>9}  totals line")
        rows = [run_check(folder, w, env) for w in ("1", "2", "auto")]
        base = rows[0]["wall"]
        for r in rows:
            print(f"  {r['workers']:>8} {r['wall']:8.2f} {r['peak_mib']:9.0f}  "
                  f"(x{r['wall'] / base:.2f} of 1 worker) rc={r['rc']} {r['totals']}")  # fmt: skip
    rows = sigterm_times(heavy, env, moments, seed)
    hit = [r for r in rows if r["exit_s"] is not None]
    print(f"\nSIGTERM at {moments} random moments (0.1-5 s) into check --workers 2 (heavy):")
    if hit:
        worst = max(r["exit_s"] for r in hit)
        codes = sorted({r["rc"] for r in hit})
        print(f"  {len(hit)} interrupted: exit within max {worst:.2f} s, median "
              f"{sorted(r['exit_s'] for r in hit)[len(hit) // 2]:.2f} s; exit codes {codes}; "
              f"processes left: {sum(r['left'] for r in rows)}")  # fmt: skip
    print(f"  {len(rows) - len(hit)} finished before their moment")
