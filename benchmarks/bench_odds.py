"""Odds benchmark (SPEC 12.4): ``geom3d attack --odds`` on the bundled scenarios and on a
10-target template with B3 against B2 reactions.

Prints, in one process (so a noisy machine still gives fair ratios):

* per bundled scenario with attacks (``meshes/``): the time of ``attack`` (every attack
  resolved, JSON written) and of ``attack --odds``, after the scene is built; the odds'
  own share, and the raw-Embree time for as many segment queries as the resolve cast
  (the ray floor of the geometry half);
* the 10-target case: an impact template (B3, in ARO with ``aro_burst: 3``) on ten active
  enemies that each shoot back with B2: the resolve time, the odds time (since SPEC 13.2
  it includes each shot's Range and Partial Cover from the geometry), and per target
  the exact odds against two exact references: the enumeration of all 20^5 rolls (timed
  on one target with numpy, as tests/combat/test_reference.py does it) and ``icepool``;
* plain BS attacks (SPEC 13.2): a rifle (B3) against a trooper that shoots back, in the
  open and touching a low wall: the time of ``resolve_attack(odds=True)``, of the Partial
  Cover test alone, and raw Embree for as many segments as the cover test casts;
* the danger map (``exposure --odds``) on the demo table (its red troopers given an ARO
  profile): the plain exposure map's time, and the odds' extra time on top of it
  (``--spacing``, default 10 mm; one worker, so the two are measured alike).

Usage::

    python benchmarks/bench_odds.py
    python benchmarks/bench_odds.py --repeats 5
    python benchmarks/bench_odds.py --spacing 40     # a coarser danger map
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "combat"))

from bench_attacks import raw_embree_seconds  # random template-like segments
from test_reference import enumerate_f2f, icepool_f2f  # the tests' exact references

from geom3d.api import build_scene, load_scene
from geom3d.combat import Dice, face_to_face
from geom3d.combat.rolls import _face_to_face
from geom3d.commands.answers import attack_report
from geom3d.core.output import dumps_json
from geom3d.placement.blast_focus import FocusStats
from geom3d.scenario import parse_scenario

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def odds_only(scene, repeats: int) -> float:
    """Best time of the odds alone (every attack already resolved; no cached rolls)."""
    results = [(a, scene.resolve_attack(a.id)) for a in scene.scenario.attacks]

    def run():
        _face_to_face.cache_clear()
        for a, res in results:
            for o in scene.ruleset.attack_odds(scene, a, res).values():
                o.to_dict()

    return best_of(run, repeats)


def bundled(repeats: int) -> None:
    files = [ROOT / "meshes" / "demo" / "table.yaml"]
    files += [p for p in sorted((ROOT / "meshes").rglob("*.yaml")) if p not in files]
    print("bundled scenarios: attack vs attack --odds (best of", repeats, "runs, scene built)")
    print(f"  {'scenario':34s} {'attacks':>7s} {'odds':>5s} {'attack ms':>10s} "
          f"{'--odds ms':>10s} {'odds ms':>8s} {'raw Embree ms':>14s}")  # fmt: skip
    for path in files:
        scene = load_scene(path)
        if not scene.scenario.attacks or scene.ruleset.name != "infinity":
            continue
        with_weapon = sum(a.weapon is not None for a in scene.scenario.attacks)
        plain = best_of(lambda s=scene: dumps_json(attack_report(s)), repeats)
        odds = best_of(lambda s=scene: dumps_json(attack_report(s, odds=True)), repeats)
        own = odds_only(scene, repeats)
        stats = FocusStats()
        for a in scene.scenario.attacks:
            scene.resolve_attack(a.id, stats=stats)
        raw = raw_embree_seconds(scene, max(stats.rays, 1))
        print(f"  {path.relative_to(ROOT).as_posix()[-34:]:34s} "
              f"{len(scene.scenario.attacks):7d} {with_weapon:5d} {1e3 * plain:10.2f} "
              f"{1e3 * odds:10.2f} {1e3 * own:8.3f} {1e3 * raw:14.3f}")  # fmt: skip


def ten_targets_scenario() -> dict:
    """An impact circular template (B3 in ARO) on t0; nine more enemies inside it."""
    troopers = [
        {
            "id": "gunner",
            "side": "blue",
            "position": [100, 300],
            "facing_deg": 0,
            "stats": {"bs": 13, "ph": 10, "arm": 2, "bts": 3, "wounds": 2},
        }
    ]
    # ten small troopers (12 mm bases) packed inside the 76.2 mm circle
    spots = [(400, 300)] + [
        (400 + 26 * math.cos(2 * math.pi * k / 9), 300 + 26 * math.sin(2 * math.pi * k / 9))
        for k in range(9)
    ]
    for i, (x, y) in enumerate(spots):
        troopers.append(
            {
                "id": f"t{i}",
                "side": "red",
                "position": [x, y],
                "facing_deg": 180,
                "silhouette": {"diameter": 12, "height": 30},
                "stats": {"bs": 12, "ph": 11, "arm": 1, "bts": 0, "wounds": 1},
                "reaction": {"attack": {"burst": 2, "ps": 13, "mod": -3}},
            }
        )
    return {
        "format": "geom3d/1",
        "ruleset": "infinity",
        "table": {"size": [600, 600]},
        "troopers": troopers,
        "active": [f"t{i}" for i in range(10)],
        "attacks": [
            {
                "id": "hgl",
                "attacker": "gunner",
                "template": "circular",
                "mode": "impact",
                "main_target": "t0",
                "aro": True,
                "aro_burst": 3,
                "burst": 3,
                "weapon": {"ps": 9, "mod": 3},
            }
        ],
    }


def ten_targets(repeats: int) -> None:
    scene = build_scene(parse_scenario(ten_targets_scenario(), file="ten_targets"))
    res = scene.resolve_attack("hgl", odds=True)
    n_aff = len(res.affected)
    resolve = best_of(lambda: scene.resolve_attack("hgl"), repeats)
    full = best_of(lambda: scene.resolve_attack("hgl", odds=True), repeats)
    own = odds_only(scene, repeats)
    doc = res.to_dict()
    print(f"\n10-target template, B3 against B2 reactions: {n_aff} troopers affected")
    print(f"  resolve {1e3 * resolve:.2f} ms, resolve + odds {1e3 * full:.2f} ms, "
          f"odds alone {1e3 * own:.3f} ms ({1e3 * own / n_aff:.3f} ms per trooper)")  # fmt: skip
    stats = FocusStats()
    scene.resolve_attack("hgl", stats=stats)
    print(
        f"  raw Embree for the {stats.rays} segments the resolve traced: "
        f"{1e3 * raw_embree_seconds(scene, max(stats.rays, 1)):.3f} ms"
    )
    # the dice alone, per target, against the references
    main, secondary, back = Dice(16, 3), Dice(16, 0, 3), Dice(9, 2)

    def engine():  # uncached: the engine keeps each distinct roll's distribution
        _face_to_face.cache_clear()
        face_to_face(main, back), face_to_face(secondary, back)

    t_engine = best_of(engine, repeats)
    t_enum = best_of(lambda: enumerate_f2f(secondary, back), 1)
    t_ice = best_of(lambda: icepool_f2f(secondary, back), 1)
    same = face_to_face(secondary, back) == {
        k: v for k, v in sorted(enumerate_f2f(secondary, back).items()) if v
    }
    print(f"  one target's hit distribution (B3 @16 vs B2 @9): engine {1e3 * t_engine / 2:.3f} ms, "
          f"enumeration of the 20^5 rolls (numpy) {1e3 * t_enum:.1f} ms, icepool "
          f"{1e3 * t_ice:.1f} ms; engine == enumeration: {same}")  # fmt: skip
    for tid in res.affected[:3]:
        o = doc["troopers"][tid]["odds"]
        print(f"  {tid}: {o['roll']} B{o['attacker_dice']}@{o['sv_attacker']} vs "
              f"B{o['defender_dice']}@{o['sv_defender']}: P(hit) {o['p_hit']:.4f}, "
              f"P(critical) {o['p_critical']:.4f}, E(W) {o['expected_wounds']:.4f}, "
              f"shoots back P(hit) {o['against_attacker']['p_hit']:.4f}")  # fmt: skip


def plain_scenario() -> dict:
    """A rifle (B3) at a trooper in the open and at one touching a low wall; both shoot
    back (B1 in ARO) with their own range bands."""
    bands = [{"to": 200, "mod": 3}, {"to": 400, "mod": 0}, {"to": 800, "mod": -3}]
    back = {"attack": {"ps": 4, "ranges": bands}}
    stats = {"bs": 12, "ph": 11, "arm": 2, "wounds": 1}
    return {
        "format": "geom3d/1",
        "ruleset": "infinity",
        "table": {"size": [600, 600]},
        "scenery": [{"id": "wall", "box": {"size": [2, 60, 15]}, "position": [286.5, 400, 0]}],
        "troopers": [
            {"id": "a", "side": "blue", "position": [0, 300], "stats": {"bs": 13, "arm": 1}},
            {"id": "open", "side": "red", "position": [300, 200], "facing_deg": 180,
             "stats": stats, "reaction": back},
            {"id": "covered", "side": "red", "position": [300, 400], "facing_deg": 180,
             "stats": stats, "reaction": back},
        ],
        "attacks": [
            {"id": f"rifle_{t}", "attacker": "a", "target": t,
             "weapon": {"burst": 3, "ps": 5, "ranges": bands}}
            for t in ("open", "covered")
        ],
    }  # fmt: skip


def plain(repeats: int) -> None:
    from geom3d.rules.infinity.cover import partial_cover, touching_elements
    from geom3d.visibility.eyes import eye_points

    scene = build_scene(parse_scenario(plain_scenario(), file="plain"))
    a = scene.trooper("a")
    print("\nplain BS attacks (B3 against a shot back), best of", repeats, "runs")
    for tid in ("open", "covered"):
        t = scene.trooper(tid)
        full = best_of(lambda i=f"rifle_{tid}": scene.resolve_attack(i, odds=True), repeats)
        cover = best_of(lambda t=t: partial_cover(scene, a, t), repeats)
        # the segments the cover test casts: contact rays, then per touching element
        # every eye's lattice against the element and against the rest
        eyes = eye_points(a.cylinder, t.cylinder, spacing=5.0)
        lattice = round(2 * t.radius) * round(t.height)
        n = 3 * 180 + len(touching_elements(scene, t)) * 2 * len(eyes) * lattice
        raw = raw_embree_seconds(scene, n)
        print(f"  {tid:8s} resolve + odds {1e3 * full:8.2f} ms; Partial Cover "
              f"{1e3 * cover:8.2f} ms (~{n} segments; raw Embree for as many "
              f"{1e3 * raw:.3f} ms)")  # fmt: skip


def danger_map(spacing: float) -> None:
    import yaml

    from geom3d.exposure import run_exposure
    from geom3d.exposure.odds import add_danger_odds

    path = ROOT / "meshes" / "demo" / "table.yaml"
    data = yaml.safe_load(path.read_text())
    bands = [{"to": 8, "mod": 0}, {"to": 16, "mod": 3}, {"to": 32, "mod": 0}, {"to": 48, "mod": -3}]
    for t in data["troopers"]:
        if t["side"] == "red":
            t["stats"] = {"bs": 12, "arm": 1, "wounds": 1}
            t["reaction"] = {"attack": {"ps": 5, "ranges": [
                {"to": b["to"] * 25.4 / (25.4 if data.get("units") == "in" else 1.0),
                 "mod": b["mod"]} for b in bands]}}  # fmt: skip
    scene = build_scene(parse_scenario(data, file="table.yaml", base_dir=path.parent))
    t0 = time.perf_counter()
    res = run_exposure(scene, observers="red", spacing_mm=spacing, workers=1)
    t_map = time.perf_counter() - t0
    t1 = time.perf_counter()
    add_danger_odds(scene, res.document)
    t_odds = time.perf_counter() - t1
    cells = res.document["cells"]
    pairs = sum(len(c["seen_by"]) for c in cells)
    print(f"\ndanger map on the demo table, {spacing:g} mm, {len(cells)} spots, {pairs} seen "
          f"spot x observer pairs: exposure {t_map:.2f} s, odds on top {t_odds:.2f} s "
          f"(+{100 * t_odds / max(t_map, 1e-9):.0f} %, {1e3 * t_odds / max(pairs, 1):.3f} ms "
          "per pair)")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--spacing", type=float, default=10.0, help="danger map spacing, mm")
    args = ap.parse_args()
    np.seterr(all="ignore")
    bundled(args.repeats)
    ten_targets(args.repeats)
    plain(args.repeats)
    danger_map(args.spacing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
