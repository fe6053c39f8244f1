"""Diagram benchmark: how long each writer figure of ``docs/images/`` takes to render.

For every figure (the list :data:`FIGURES`, the same as ``docs/images/render.sh``) and
every format asked for, prints the seconds of three steps, in one process:

* ``engine``: building the drawing (``viewer.compose.build_drawing``: the Line of Fire,
  the attack, the eye samples, Blast Focus rays: the geom3d work);
* ``render``: the rest of :func:`viewer.render.render` (camera, projection or OpenGL,
  layout, text, file bytes), the figure's own cost;
* ``total``: what ``geom3d render`` spends after loading the scene;

best of ``--repeats`` runs each. Next to them, the raw-Embree baseline the other
benchmarks print (:mod:`benchmarks._raw`): the time embreex takes for 10,000 occlusion
segments across the figure's scene, to compare the figure's cost with the engine's unit
of work.

Usage::

    python benchmarks/bench_render.py                  # every figure, PNG and SVG
    python benchmarks/bench_render.py --formats png,svg,pdf,html --repeats 3
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _raw import raw_seconds, scene_baseline  # noqa: E402

from geom3d import load_scene  # noqa: E402
from viewer import render as vr  # noqa: E402
from viewer.compose import build_drawing  # noqa: E402

D = REPO / "docs" / "images"
#: (name, scenario, options) of the writer figures.
FIGURES = [
    ("sliver plan (LoF)", "sliver.yaml", {"lof": "a:t", "annotate": "heights,distances"}),
    ("sliver side view", "sliver.yaml", {"view": "side:a:t", "annotate": "heights,distances"}),
    ("sliver eye view", "sliver.yaml", {"view": "eye:a:t", "lof": "a:t"}),
    ("teardrop plan", "teardrop.yaml", {"attack": "shot", "annotate": "templates"}),
    ("impact plan + Blast Focus", "impact.yaml", {"attack": "grenade", "lof": "gunner:target"}),
    ("impact side view", "impact.yaml", {"attack": "grenade", "view": "side:gunner:target"}),
    ("40k flamer plan", "flamer40k.yaml", {"attack": "flamer", "annotate": "templates"}),
    ("40k Wall of Death plan", "wall-of-death.yaml", {"attack": "wall-of-death"}),
    ("sliver 3D view", "sliver.yaml", {"view": "iso", "lof": "a:t"}),
]


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _raw_baseline(scene, n: int = 10_000) -> float:
    """Seconds raw Embree takes for ``n`` segments across the scene's bounds."""
    if scene.engine.n_triangles == 0:
        return float("nan")
    rng = np.random.default_rng(0)
    v = scene.scenery.vertices
    lo, hi = v.min(axis=0), v.max(axis=0)
    o = rng.uniform(lo, hi, size=(n, 3))
    e = rng.uniform(lo, hi, size=(n, 3))
    return raw_seconds(scene_baseline(scene), scene.engine._offset, o, e)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--formats", default="png,svg", help="comma-separated: png,svg,pdf,html")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--size", default="1600x1200")
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    print(f"render benchmark: {size[0]}x{size[1]} px, best of {args.repeats}")
    print(f"{'figure':28s} {'fmt':5s} {'engine s':>9s} {'render s':>9s} {'total s':>8s} "
          f"{'raw 10k seg s':>13s}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for name, file, opts in FIGURES:
            scene = load_scene(D / file)
            vr.render(scene, None, size=(320, 240), **opts)  # warm: compile, caches
            raw = _raw_baseline(scene)
            engine = _best(lambda s=scene, o=opts: build_drawing(s, **o), args.repeats)
            for fmt in formats:
                out = Path(tmp) / f"f.{fmt}"
                total = _best(lambda s=scene, o=opts, p=out: vr.render(s, p, size=size, **o),
                              args.repeats)  # fmt: skip
                raw_s = "-" if np.isnan(raw) else f"{raw:.4f}"  # no scenery: no baseline
                print(f"{name:28s} {fmt:5s} {engine:9.3f} {max(0.0, total - engine):9.3f} "
                      f"{total:8.3f} {raw_s:>13s}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
