"""40k vehicles benchmark (SPEC 12.6): the hull-coverage search and Line of Fire with hulls.

Seeded random layouts (one process, one run):

* Hull coverage: a flamer (32 mm base) and a 100 x 60 mm hull 120..220 mm away at a random
  heading, 3 friendly models nearby; time of :func:`geom3d.placement.vehicles.
  solve_hull_cover` (median over the layouts) and placements evaluated, next to the time
  of the same number of raw shapely intersections of a 64-point polygon with the hull
  (the search's unit of work).
* Line of Fire: 12 infantry models and 4 hulls on a 600 x 400 table; time of the whole
  matrix (one ray engine per set of hulls left out), and the segments cast next to raw
  Embree's time for as many random segments (up to 200 mm) through the four hulls.

Usage::

    python benchmarks/bench_vehicles.py [--layouts 10]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import shapely
from shapely.affinity import rotate, translate
from shapely.geometry import box

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _raw import embreex_scene, raw_seconds  # the raw-Embree baseline

from geom3d.api import build_scene
from geom3d.placement.vehicles import solve_hull_cover
from geom3d.scenario import parse_scenario
from geom3d.scene.vehicles import engine_for, hull_solid
from geom3d.templates import TeardropShape
from geom3d.visibility import VisibilityStats

FLAME = TeardropShape(209.55, 57.15)


def cover_layouts(n: int, seed: int = 12):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        d, a = rng.uniform(120, 220), rng.uniform(0, 2 * math.pi)
        hull = translate(rotate(box(-50, -30, 50, 30), rng.uniform(0, 180), origin=(0, 0)),
                         d * math.cos(a), d * math.sin(a))  # fmt: skip
        friends = []
        for _ in range(3):
            r, b = rng.uniform(40, 150), rng.uniform(0, 2 * math.pi)
            friends.append((r * math.cos(b), r * math.sin(b), 12.5))
        out.append((hull, friends))
    return out


def bench_cover(layouts: int) -> None:
    times, evals = [], []
    for hull, friends in cover_layouts(layouts):
        t0 = time.perf_counter()
        sol = solve_hull_cover(FLAME, hull, center_xy=(0, 0), radius=16, friend_discs=friends)
        times.append(time.perf_counter() - t0)
        evals.append(sol.examined)
    hull = cover_layouts(1)[0][0]
    poly = FLAME.footprint((0, 0), 0.0, max_error_mm=0.5)
    k = int(statistics.median(evals))
    polys = np.array([poly] * k, dtype=object)
    t0 = time.perf_counter()
    shapely.area(shapely.intersection(polys, hull))
    raw = time.perf_counter() - t0
    print(f"hull coverage: median {1000 * statistics.median(times):.0f} ms per solve "
          f"({min(times) * 1000:.0f}..{max(times) * 1000:.0f} ms), median {k} placements "
          f"evaluated; raw shapely: {1000 * raw:.0f} ms for {k} intersections")  # fmt: skip


def lof_scene(seed: int = 5):
    rng = np.random.default_rng(seed)
    troopers = []
    for i in range(12):
        troopers.append({"id": f"m{i}", "side": "a" if i % 2 else "b",
                         "position": [float(rng.uniform(20, 580)), float(rng.uniform(20, 380)), 0],
                         "facing_deg": float(rng.uniform(0, 360)), "silhouette": 2})  # fmt: skip
    for i in range(4):
        troopers.append({"id": f"v{i}", "side": "b", "facing_deg": float(rng.uniform(0, 360)),
                         "position": [150.0 + 100 * i, float(rng.uniform(100, 300)), 0],
                         "vehicle": {"hull": {"box": {"size": [100, 60, 50]}},
                                     "armour": {"front": 12, "side": 11, "rear": 10}}})  # fmt: skip
    data = {"format": "geom3d/1", "ruleset": "wh40k-7e", "table": {"size": [600, 400]},
            "troopers": troopers}  # fmt: skip
    return build_scene(parse_scenario(data, file="bench.yaml"))


def bench_lof() -> None:
    scene = lof_scene()
    stats = VisibilityStats()
    t0 = time.perf_counter()
    res = scene.lof_matrix(stats=stats, threads=1)
    dt = time.perf_counter() - t0
    rays = int(stats.rays)
    # the baseline: the same number of segments on the scenery plus every hull
    parts = [hull_solid(t.vehicle) for t in scene.troopers.values() if t.vehicle is not None]
    verts = np.concatenate([v for v, _ in parts])
    offs = np.cumsum([0] + [len(v) for v, _ in parts[:-1]])
    faces = np.concatenate([f + o for (_, f), o in zip(parts, offs, strict=True)])
    engine = engine_for(scene, ())
    emb = embreex_scene(verts, faces, engine._offset)
    rng = np.random.default_rng(1)
    o = np.column_stack([rng.uniform(0, 600, rays), rng.uniform(0, 400, rays),
                         rng.uniform(1, 40, rays)])  # fmt: skip
    e = o + np.column_stack([rng.uniform(-200, 200, (rays, 2)), rng.uniform(-10, 10, rays)])
    raw = raw_seconds(emb, engine._offset, o, e)
    lof = sum(r.lof for r in res)
    print(f"lof with hulls: {len(res)} ordered pairs ({lof} with LoF) in {dt:.2f} s, "
          f"{rays} segments cast; raw Embree: {raw:.3f} s for the same count")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layouts", type=int, default=10)
    args = ap.parse_args()
    bench_cover(args.layouts)
    bench_lof()


if __name__ == "__main__":
    main()
