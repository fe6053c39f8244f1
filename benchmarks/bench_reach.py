"""Reachability benchmark (SPEC 13.1, ``geom3d.scene.reach``): the pass that decides
which spots a trooper can walk into from the open air, next to a 10 mm exposure map.

For each table, in one process, prints the reachability pass's wall time, its CPU time,
its peak of memory allocated (``tracemalloc``, which sees numpy's arrays) and its grid
(voxel side, voxels), and, unless ``--no-exposure``, the whole 10 mm exposure map's time
on the same scene (in-process: ``run_exposure(..., workers=1)``, its observers as in
``bench_exposure.py``) with the pass's share of it (issue 46: under 10 %). The map is
measured after the pass, which is cached with the scenery, so the map's own time does
not include it; the share is pass / (map + pass).

Tables (``--tables``, comma-separated):

* ``demo``: ``meshes/demo/table.yaml`` (1200 x 1200 mm, modelled buildings and
  containers);
* ``dem``: the St Helens DEM at 1:6000 as the table, with the Angel and the bird bath
  scans on it (``../shared/real-meshes``; skipped when absent);
* ``scan``, ``waving``: ``bench_lof.py``'s 1M-triangle tables (``--triangles``).

Usage::

    python benchmarks/bench_reach.py                              # every table
    python benchmarks/bench_reach.py --tables demo,dem --no-exposure
    python benchmarks/bench_reach.py --tables scan --triangles 200000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_lof

from geom3d.api import build_scene, load_scene
from geom3d.exposure import run_exposure
from geom3d.exposure.cells import probe_for
from geom3d.scenario import parse_scenario
from geom3d.scene.reach import reach_map

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "real-meshes"
N_OBSERVERS = 5
SPACING_MM = 10.0


def _dem_scene():
    names = ("SainteHelens_dem_crop.ply", "Angel_decimated.ply", "birdBath_decimated.off")
    if not all((REAL / n).is_file() for n in names):
        return None
    data = {
        "format": "geom3d/1",
        "units": "mm",
        "ruleset": "infinity",
        "table": {
            "mesh": str(REAL / names[0]),
            "mesh_units": "m",
            "scale": 1 / 6000,
            "position": [0, 0, -160],
            "size": [1195, 1495],
        },
        "scenery": [
            {"id": "angel", "mesh": str(REAL / names[1]), "scale": 0.5, "position": [300, 400]},
            {"id": "birdbath", "mesh": str(REAL / names[2]), "scale": 0.6, "position": [800, 900]},
        ],
        "troopers": [
            {"id": f"o{k}", "side": "red", "position": [150 + 200 * k, 1300], "facing_deg": 270}
            for k in range(N_OBSERVERS)
        ],
    }
    return build_scene(parse_scenario(data, file="bench_reach_dem.yaml"))


def _bench_scene(kind: str, triangles: int, folder: Path):
    bench_lof.TABLE["kind"] = kind
    table = bench_lof.write_table(triangles, folder)
    data = bench_lof.scenario_fn()(table, N_OBSERVERS, seed=0)
    return build_scene(parse_scenario(data, file="bench_reach.yaml", base_dir=table.parent))


def measure(name: str, scene, exposure: bool) -> None:
    probe = probe_for(scene, 2)
    built = getattr(scene, "_built", None)
    if built is not None:
        built.reach.clear()  # measure the pass itself, not the cache
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    m = reach_map(scene, probe.radius, probe.height)
    pass_s, pass_cpu = time.perf_counter() - t0, time.process_time() - c0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    voxels = m.reach.size
    share = float(m.reach.mean()) if voxels else 0.0
    print(
        f"{name}: {scene.scenery.n_triangles:,} triangles; reachability pass {pass_s:.2f} s "
        f"(CPU {pass_cpu:.2f} s), peak {peak / 2**20:.0f} MiB allocated, grid "
        f"{m.pitch:.3g} mm, {voxels:,} probe positions ({share:.1%} reachable)"
    )
    if not exposure:
        return
    ids = ",".join(list(scene.troopers)[:N_OBSERVERS])
    t0 = time.perf_counter()
    res = run_exposure(scene, observers=ids, spacing_mm=SPACING_MM, workers=1)
    map_s = time.perf_counter() - t0
    doc = res.document
    print(
        f"  {SPACING_MM:g} mm exposure map (in-process): {map_s:.1f} s, "
        f"{doc['counts']['cells']:,} spots, {doc['enclosed']['spots']} enclosed; the pass "
        f"adds {pass_s / (map_s + pass_s):.1%} of map + pass"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", default="demo,dem,scan,waving")
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument("--no-exposure", action="store_true", help="the pass only")
    args = ap.parse_args(argv)
    for kind in args.tables.split(","):
        if kind == "demo":
            measure(
                "demo", load_scene(REPO / "meshes" / "demo" / "table.yaml"), not args.no_exposure
            )
        elif kind == "dem":
            scene = _dem_scene()
            if scene is None:
                print("dem: ../shared/real-meshes is absent: skipped")
                continue
            measure("dem + Angel + bird bath", scene, not args.no_exposure)
        elif kind in ("scan", "waving"):
            with tempfile.TemporaryDirectory() as tmp:
                scene = _bench_scene(kind, args.triangles, Path(tmp))
                measure(f"{kind} ({args.triangles:,})", scene, not args.no_exposure)
        else:
            ap.error(f"--tables: unknown table {kind!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
