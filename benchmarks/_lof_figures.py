"""Issue 11 figures for ``bench_lof.py``: per-pair costs, blocking-proof hit rates, the
whole-CLI pair time and the scaling with troopers.

Kept apart from ``bench_lof.py`` so that file stays readable; everything here takes a
built scene (or a table file) and prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from geom3d import terrain
from geom3d.adjudication.lof import occluder_rows, pair_visibility
from geom3d.visibility import VisibilityStats, pair_patch
from geom3d.visibility import proof as _proof
from geom3d.visibility import search as _search
from geom3d.visibility.proof_trees import ProofStats

SILHOUETTES = [1, 2, 2, 2, 3, 4, 5, 2, 1, 6]

#: The closing target: a pair costs at most what raw Embree needs for this many segments.
TARGET_SEGMENTS = 5_000


def scenario_data(table: Path, n_troopers: int, seed: int = 0, solid: str = "auto") -> dict:
    """The benchmark scenario (geom3d/1) with ``n_troopers`` on open ground of ``table``."""
    rng = np.random.default_rng(seed)
    spots = terrain.synthetic_trooper_spots(n_troopers, seed=seed)
    troopers = [
        {
            "id": f"t{i:02d}",
            "side": "blue" if i % 2 else "red",
            "position": [float(x), float(y)],
            "facing_deg": float(rng.integers(0, 360)),
            "silhouette": SILHOUETTES[i % len(SILHOUETTES)],
        }
        for i, (x, y) in enumerate(spots)
    ]
    return {
        "format": "geom3d/1",
        "units": "mm",
        "table": {"size": [1200, 1200], "mesh": str(table), "mesh_units": "mm", "solid": solid},
        "troopers": troopers,
    }


# ---------------------------------------------------------------- pair by pair


@dataclass
class PairRow:
    """One unordered pair, computed alone on one thread."""

    key: tuple[str, str]
    answer: tuple | None  # (eye, patch_center, viewer) or None when blocked
    seconds: float
    stats: VisibilityStats
    proof: ProofStats  # this pair's share of the prover's counters
    search_s: float = 0.0  # of ``seconds``: inside the compiled search (search_clear)
    prove_s: float = 0.0  # of ``seconds``: inside the bundle proofs (prove_bundles)

    @property
    def visible(self) -> bool:
        return self.answer is not None


def _delta(after: ProofStats, before: ProofStats) -> ProofStats:
    return ProofStats(
        *(getattr(after, f) - getattr(before, f) for f in ProofStats.__dataclass_fields__)
    )


class _Timed:
    """A compiled kernel, called through its module's name, with the seconds spent in it
    summed (:func:`_split_timers`; a fraction of a microsecond per call)."""

    def __init__(self, fn) -> None:
        self.fn = fn
        self.seconds = 0.0

    def __call__(self, *args):
        t0 = time.perf_counter()
        try:
            return self.fn(*args)
        finally:
            self.seconds += time.perf_counter() - t0


@contextlib.contextmanager
def _split_timers():
    """Time spent in the compiled search and in the bundle proofs while inside: yields
    ``{"search": _Timed, "prove": _Timed}`` (the rest of a pair's time is Python and the
    small kernels between them: issue 49's "Python between the compiled calls")."""
    timers = {"search": _Timed(_search.search_clear), "prove": _Timed(_proof.prove_bundles)}
    _search.search_clear, _proof.prove_bundles = timers["search"], timers["prove"]
    try:
        yield timers
    finally:
        _search.search_clear, _proof.prove_bundles = timers["search"].fn, timers["prove"].fn


def _one_pair(scene, a, b, proofs: bool, timers) -> PairRow:
    prover = scene.prover
    st = VisibilityStats()
    before = replace(prover.stats)
    s0, p0 = timers["search"].seconds, timers["prove"].seconds
    t0 = time.perf_counter()
    if proofs:
        w, viewer = pair_visibility(scene, a, b, stats=st)
    else:
        occ = occluder_rows(scene, (a.id, b.id))
        patch_mm = scene.ruleset.lof_policy.patch_mm
        w, k = pair_patch(
            a.cylinder, b.cylinder, scene.engine, occ, prover=None, patch_mm=patch_mm, stats=st
        )
        viewer = None if w is None else (a.id, b.id)[k]
    dt = time.perf_counter() - t0
    answer = None if w is None else (tuple(w.eye), tuple(w.patch_center), viewer)
    row = PairRow((a.id, b.id), answer, dt, st, _delta(prover.stats, before))
    row.search_s = timers["search"].seconds - s0
    row.prove_s = timers["prove"].seconds - p0
    return row


def pair_rows(scene, modes: tuple[str, ...]) -> dict[str, list[PairRow]]:
    """Every unordered pair's visibility, one at a time (no cache, one thread), in each of
    ``modes`` (``"on"``, ``"off"``), interleaved pair by pair so load on a shared machine
    falls on both alike.

    Proofs on is :func:`geom3d.adjudication.lof.pair_visibility` (the engine as shipped); off, the
    same
    call of :func:`pair_patch` with ``prover=None``.
    """
    ids = list(scene.troopers)
    rows: dict[str, list[PairRow]] = {m: [] for m in modes}
    with _split_timers() as timers:
        for i, x in enumerate(ids):
            for y in ids[i + 1 :]:
                a, b = scene.troopers[x], scene.troopers[y]
                for m in modes:
                    rows[m].append(_one_pair(scene, a, b, m == "on", timers))
    return rows


def _line(label: str, values, fmt: str, unit: str = "") -> str:
    v = np.asarray(values, dtype=float)
    if not len(v):
        return f"    {label}: -"
    return (
        f"    {label}: median {np.median(v):{fmt}}{unit}, "
        f"mean {v.mean():{fmt}}{unit}, max {v.max():{fmt}}{unit}"
    )


def _split_line(label: str, rows: list[PairRow], total: float) -> str:
    """Where ``rows``' time went: the compiled search, the bundle proofs, the rest."""
    search = sum(r.search_s for r in rows)
    prove = sum(r.prove_s for r in rows)
    rest = total - search - prove
    share = 1.0 / max(total, 1e-12)
    return (
        f"  {label}, time split: compiled search {search:.3f} s ({search * share:.0%}), "
        f"bundle proofs {prove:.3f} s ({prove * share:.0%}), Python and small kernels "
        f"between them {rest:.3f} s ({rest * share:.0%})"
    )


def print_pair_rows(rows: list[PairRow], title: str, target_s: float) -> None:
    """Per-pair figures for blocked and visible pairs, then the proof hit rates."""
    total = sum(r.seconds for r in rows)
    n = len(rows)
    print(
        f"{title}: {n} unordered pairs in {total:.3f} s on one thread, "
        f"{1e3 * total / max(1, n):.3f} ms per pair "
        f"({total / max(1, n) / target_s:.2f} x the {TARGET_SEGMENTS:,}-segment target)"
    )
    print(_split_line("all pairs", rows, total))
    for name, part in (("blocked", [r for r in rows if not r.visible]),
                       ("visible", [r for r in rows if r.visible])):  # fmt: skip
        cast = sum(r.stats.cast for r in part)
        proved = sum(r.stats.proved for r in part)
        print(f"  {name} pairs: {len(part)} (segments cast {cast:,}, proved {proved:,})")
        if not part:
            continue
        print(_line("segments cast per pair", [r.stats.cast for r in part], ",.0f"))
        print(_line("segments proved per pair", [r.stats.proved for r in part], ",.0f"))
        print(_line("eyes skipped by proof per pair", [r.stats.eyes_proved for r in part], ".1f"))
        print(_line("time per pair", [1e3 * r.seconds for r in part], ".3f", " ms"))
    # where the time goes (issue 37): blocked pairs a proof settles cost little; those
    # searched cost an eye's coarse lattice (about one segment per 16 mm2 of the target's
    # apparent view) for every eye of both troopers that no proof skips
    blocked = [r for r in rows if not r.visible]
    settled = [r for r in blocked if r.proof.pairs_settled]
    convex = [r for r in blocked if r.stats.pairs_convex]
    searched = [r for r in blocked if not r.proof.pairs_settled and not r.stats.pairs_convex]
    for name, part in (
        ("settled by proof alone", settled),
        ("settled by one convex piece", convex),
        ("searched", searched),
    ):
        t = sum(r.seconds for r in part)
        eyes = sum(r.stats.eyes for r in part)
        segs = sum(r.stats.cast + r.stats.proved for r in part)
        print(
            f"  blocked pairs {name}: {len(part)}, {t:.3f} s ({t / max(total, 1e-12):.0%} of "
            f"the time), {eyes / max(1, len(part)):,.0f} eyes examined and "
            f"{segs / max(1, eyes):,.0f} segments (cast or proved) per eye"
        )
        if part:
            print("  " + _split_line(f"blocked pairs {name}", part, t))
    visible = [r for r in rows if r.visible]
    if visible:
        print(_split_line("visible pairs", visible, sum(r.seconds for r in visible)))
    outlined = sum(r.stats.outlined for r in rows)
    print(
        f"  convex pieces: {len(convex)} blocked pairs settled whole; {outlined:,} lattice "
        f"samples settled inside a piece's outline without a ray"
    )
    p = ProofStats()
    for r in rows:
        p = ProofStats(
            *(getattr(p, f) + getattr(r.proof, f) for f in ProofStats.__dataclass_fields__)
        )
    if p.pairs == 0:
        print("  proofs: none attempted")
        return
    # prove_bundles halves a bundle in two where its proof fails: `bundles` counts every
    # node of those binary trees, so a tree of t nodes has (t + 1) / 2 leaves
    leaves = (p.bundles + p.pairs) // 2
    cast = sum(r.stats.cast for r in rows)
    proved = sum(r.stats.proved for r in rows)
    n_blocked = sum(not r.visible for r in rows)
    print(
        f"  proofs: {p.pairs} pairs proved (of {n}), {p.pairs_settled} settled by proof alone "
        f"({p.pairs_settled / max(1, n_blocked):.1%} of blocked pairs)"
    )
    print(
        f"  bundle hit rate: {p.bundles_proved:,} of {leaves:,} leaf bundles proved "
        f"({p.bundles_proved / max(1, leaves):.1%}; {p.bundles:,} bundles examined)"
    )
    print(
        f"  segment hit rate: {proved:,} of {proved + cast:,} segments settled without a ray "
        f"({proved / max(1, proved + cast):.1%})"
    )


def same_answers(a: list[PairRow], b: list[PairRow]) -> list[tuple[str, str]]:
    """Keys of the pairs whose answers (witness eye, patch centre, viewer) differ."""
    return [ra.key for ra, rb in zip(a, b, strict=True) if ra.answer != rb.answer]


# ---------------------------------------------------------------- whole CLI


def _cli() -> list[str]:
    exe = Path(sys.executable).parent / "geom3d"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("geom3d")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from geom3d.cli import main; sys.exit(main())"]


def _run_cli(path: Path, extra: tuple[str, ...] = ()) -> tuple[float, float]:
    """Wall time and the child's CPU time (user + system, all its threads) of one run."""
    cmd = [*_cli(), "lof", str(path), "--format", "json", "--quiet", *extra]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def cli_diff(
    table: Path, folder: Path, n_big: int, n_small: int, solid: str, raw_seconds,
    repeats: int = 4, extra: tuple[str, ...] = (), data_fn=None,
) -> float:  # fmt: skip
    """Whole ``geom3d lof --format json`` runs on ``n_big`` and on ``n_small`` troopers of
    the same table, interleaved, best of ``repeats``; returns the pair time
    ``(t_big - t_small) / C(n_big, 2)``. ``raw_seconds(n)`` times ``n`` raw Embree
    segment queries in this process; it is measured between the runs (best taken too), so
    the target sees the same machine load. Each round's ratio (its own two runs against
    its own raw time) is printed too, with their median."""
    data = (data_fn or scenario_data)(table, n_big, solid=solid)
    small = dict(data, troopers=data["troopers"][:n_small])
    paths = {}
    for n, d in ((n_big, data), (n_small, small)):
        paths[n] = folder / f"lof_{n}.json"
        paths[n].write_text(json.dumps(d))
    for p in paths.values():  # untimed: fills the mesh cache (and numba's) for both
        _run_cli(p, extra)
    wall = {n: float("inf") for n in paths}
    cpu = {n: float("inf") for n in paths}
    n_raw = 1_000_000
    raw = float("inf")
    pairs = n_big * (n_big - 1) // 2
    rounds = []  # each round's own ratio: its two runs against its own raw Embree time
    for _ in range(repeats):
        got = {}
        for n, p in paths.items():
            got[n] = w, c = _run_cli(p, extra)
            wall[n], cpu[n] = min(wall[n], w), min(cpu[n], c)
        r = raw_seconds(n_raw)
        raw = min(raw, r)
        rounds.append((got[n_big][0] - got[n_small][0]) / pairs / (TARGET_SEGMENTS * r / n_raw))
    pair_s = (wall[n_big] - wall[n_small]) / pairs
    pair_cpu = (cpu[n_big] - cpu[n_small]) / pairs
    target = TARGET_SEGMENTS * raw / n_raw
    print(
        f"whole CLI (geom3d lof --format json{''.join(' ' + x for x in extra)}, "
        f"warm mesh cache, best of {repeats}, "
        f"{os.cpu_count()} CPUs, default threads): {n_big} troopers {wall[n_big]:.3f} s "
        f"(CPU {cpu[n_big]:.3f} s), {n_small} troopers {wall[n_small]:.3f} s "
        f"(CPU {cpu[n_small]:.3f} s)"
    )
    print(
        f"  pair time = ({wall[n_big]:.3f} - {wall[n_small]:.3f}) s / {pairs} unordered pairs "
        f"= {1e3 * pair_s:.3f} ms (CPU time per pair {1e3 * pair_cpu:.3f} ms)"
    )
    print(
        f"  target: raw Embree for {TARGET_SEGMENTS:,} segments = {1e3 * target:.3f} ms "
        f"({n_raw / raw / 1e6:.2f} M segments/s, this process, one thread, between the runs)"
    )
    print(
        f"  pair time / target: {pair_s / target:.2f} (CPU: {pair_cpu / target:.2f}; "
        f"{'meets' if pair_s <= target else 'misses'} the target)"
    )
    print(
        "  round by round (each round's two runs against the raw Embree time taken right "
        f"after them; less sensitive to a machine whose speed drifts): "
        f"{', '.join(f'{x:.2f}' for x in rounds)}; median {float(np.median(rounds)):.2f}"
    )
    return pair_s


# ---------------------------------------------------------------- scaling


def scaling_troopers(make_scene, matrix, table: Path, counts, solid: str, raw_rate: float):
    """Matrix time (one thread), pair time and proof-settled share per trooper count."""
    target = TARGET_SEGMENTS / raw_rate
    print(f"\nscaling with troopers (same table, one thread; target {1e3 * target:.3f} ms/pair)")
    for k in counts:
        sc = make_scene(table, k, solid=solid)
        before = replace(sc.prover.stats)
        t, st, res = matrix(sc, threads=1)
        p = _delta(sc.prover.stats, before)
        pairs = k * (k - 1) // 2
        n_vis = sum(r.visible for r in res) // 2
        print(
            f"  {k:3d} troopers: matrix {t:7.3f} s, {pairs:5d} pairs, "
            f"{1e3 * t / pairs:6.3f} ms/pair ({t / pairs / target:.2f} x target), "
            f"{st.cast / pairs:8,.0f} segments cast/pair, {n_vis} visible, "
            f"settled by proof {p.pairs_settled}/{pairs - n_vis} blocked "
            f"({p.pairs_settled / max(1, pairs - n_vis):.1%}), "
            f"segment hit rate {st.proved / max(1, st.proved + st.cast):.1%}"
        )
