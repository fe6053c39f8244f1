"""Warhammer 40k 7e template attacks (SPEC 4.2, rule text 004): plan-view hits, friendly
models, the ``heading_deg: auto`` solver, multiple templates, Wall of Death.

Sizes (ruleset data): ``flame`` 209.55 long, 57.15 wide (far circle r1 28.575 centred
180.975 from the point tip; sides at sin a = 0.15789, cos a = 0.98746); ``blast`` 76.2
across, ``large_blast`` 127. The firer has a 32 mm base (r 16); the other models 25 mm
bases (r 12.5).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from support import REPO, box, make_scene

from geom3d import load_scene
from geom3d.placement.direct import max_contact_offset_deg, solve_heading
from geom3d.templates import TeardropShape, footprint_hits_disc

SCEN = REPO / "meshes" / "scenarios" / "attacks"
FLAME = TeardropShape(209.55, 57.15)


def model(id_, xy, side="chaos", unit="cultists", z=0.0, diameter=25.0):
    return {
        "id": id_,
        "side": side,
        "unit": unit,
        "position": [float(xy[0]), float(xy[1]), float(z)],
        "silhouette": {"diameter": diameter, "height": 30},
    }


def firer(xy=(100, 100), unit="tac", side="imperium"):
    return model("firer", xy, side=side, unit=unit, diameter=32.0)


def scene40k(models, attacks, scenery=()):
    return make_scene(models, scenery, ruleset="wh40k-7e", attacks=list(attacks))


def test_flame_over_a_unit_of_five_in_a_line():
    res = load_scene(SCEN / "wh40k_flame_line.yaml").resolve_attack("burn")
    assert res.outcome == "resolved"
    assert res.affected == [f"squad-{i}" for i in range(1, 6)]
    assert res.hits == [5]
    d = res.to_dict()
    assert (d["hits"], d["hits_total"], d["wall_of_death"]) == ([5], 5, None)
    assert d["excluded"] == [{"id": "flamer", "reason": "attacker"}]
    assert d["placements"][0]["focus"] == [116.0, 100.0, 0.0]
    json.dumps(d, allow_nan=False)


def test_levels_and_cover_do_not_matter():
    # a model on a 100 mm high roof under the template in plan is hit, and a wall between
    # the firer and another one changes nothing
    models = [
        firer(),
        model("roof", (200, 100), z=100.0),
        model("behind", (260, 100)),
    ]
    s = scene40k(
        models,
        [{"id": "f", "attacker": "firer", "template": "flame", "heading_deg": 0}],
        [box("block", [40, 40, 100], [200, 100]), box("wall", [4, 80, 80], [235, 100])],
    )
    r = s.resolve_attack("f")
    assert r.affected == ["roof", "behind"] and r.hits == [2]


def test_edge_contact_counts_and_a_hair_beyond_does_not():
    # the far end is at x = 116 + 209.55 = 325.55: a base centred at 338.05 touches it
    for x, hit in ((338.05, True), (338.06, False)):
        s = scene40k(
            [firer(), model("m", (x, 100))],
            [{"id": "f", "attacker": "firer", "template": "flame", "heading_deg": 0}],
        )
        assert (s.resolve_attack("f").hits == [1]) is hit


def test_touching_a_friendly_is_invalid():
    res = load_scene(SCEN / "wh40k_friendly.yaml").resolve_attack("straight")
    assert (res.outcome, res.reason) == ("invalid", "touches_friendly")
    assert res.placements[0].in_area == ["pal", "ork-1", "ork-2"]
    assert res.affected == [] and res.hits == [0]
    assert dict(res.excluded)["ork-1"] == "invalid"
    # the firer's own unit counts as friendly too
    s = scene40k(
        [firer(), model("mate", (200, 100), side="imperium", unit="tac"), model("o", (250, 100))],
        [{"id": "f", "attacker": "firer", "template": "flame", "heading_deg": 0}],
    )
    assert s.resolve_attack("f").reason == "touches_friendly"


def test_auto_avoids_the_friendly_and_is_checked_by_brute_force():
    scene = load_scene(SCEN / "wh40k_friendly.yaml")
    res = scene.resolve_attack("auto")
    assert res.outcome == "resolved"
    p = res.placements[0]
    f = scene.troopers
    # no friendly model is under the chosen template
    for fid in ("buddy", "pal"):
        t = f[fid]
        assert not footprint_hits_disc(FLAME, p.focus[:2], p.heading_deg, t.position[:2], t.radius)
    # brute force over radial placements every 0.05 deg: never better than the solver
    best = 0
    for h in np.arange(0, 360, 0.05):
        foc = (100 + 16 * math.cos(math.radians(h)), 100 + 16 * math.sin(math.radians(h)))
        if any(
            footprint_hits_disc(FLAME, foc, h, f[i].position[:2], f[i].radius)
            for i in ("buddy", "pal")
        ):
            continue
        n = sum(
            footprint_hits_disc(FLAME, foc, h, f[i].position[:2], f[i].radius)
            for i in ("ork-1", "ork-2")
        )
        best = max(best, n)
    assert res.hits[0] >= best == 2
    assert res.solver[0]["count"] == res.hits[0]


def test_auto_heading_finds_the_line():
    # five models on a line at 30 degrees through the firer's centre, 50..170 mm out
    a = math.radians(30.0)
    models = [firer()] + [
        model(f"m{k}", (100 + d * math.cos(a), 100 + d * math.sin(a)))
        for k, d in enumerate((50, 80, 110, 140, 170))
    ]
    # decoys of another unit at 200 degrees
    models += [model("d0", (40, 78), unit="other"), model("d1", (10, 67), unit="other")]
    s = scene40k(
        models,
        [{"id": "f", "attacker": "firer", "template": "flame", "target_unit": "cultists",
          "heading_deg": "auto"}],
    )  # fmt: skip
    r1 = s.resolve_attack("f")
    r2 = s.resolve_attack("f")
    assert r1.hits == [5] and r1.to_dict() == r2.to_dict()  # deterministic
    h = r1.placements[0].heading_deg
    # the flame is wide: a range of radial headings about 30 covers all five, symmetric
    # about the line; ties go to the radial placement in the middle of that range
    assert r1.placements[0].contact_deg == h
    assert h == pytest.approx(30.0, abs=1e-6)
    assert r1.affected == [f"m{k}" for k in range(5)]
    sol = r1.solver[0]
    assert sol["count"] == 5 and sol["runner_up"] == 4
    lo, hi = sol["heading_interval_deg"]  # turning about the chosen contact point

    def covered(heading, contact):
        foc = (
            100 + 16 * math.cos(math.radians(contact)),
            100 + 16 * math.sin(math.radians(contact)),
        )
        return sum(
            footprint_hits_disc(FLAME, foc, heading, s.troopers[f"m{k}"].position[:2], 12.5)
            for k in range(5)
        )

    assert covered(lo + 0.001, 30.0) == 5 and covered(hi - 0.001, 30.0) == 5
    assert covered(lo - 0.01, 30.0) < 5 and covered(hi + 0.01, 30.0) < 5


def test_flame_without_heading_uses_the_solver():
    # "as many models as possible" is compulsory: no heading_deg -> the solver. Aiming at
    # the main target m (due east) would cover 1; the three in a line due north are all
    # under the template at heading 90 (runner-up: 2 of them).
    models = [firer(), model("m", (250, 100))]
    models += [model(f"n{k}", (100, 100 + d)) for k, d in enumerate((60, 100, 140))]
    s = scene40k(
        models, [{"id": "f", "attacker": "firer", "template": "flame", "main_target": "m"}]
    )
    r = s.resolve_attack("f")
    assert r.hits == [3] and r.affected == ["n0", "n1", "n2"]
    assert r.solver[0]["count"] == 3 and r.solver[0]["runner_up"] == 2


def test_no_valid_placement():
    # the firer is ringed by its own unit in base contact: every placement touches one
    angles = [k * math.pi / 4 for k in range(8)]
    ring = [
        model(f"f{k}", (100 + 28.5 * math.cos(a), 100 + 28.5 * math.sin(a)), "imperium", "tac")
        for k, a in enumerate(angles)
    ]
    s = scene40k(
        [firer(), *ring, model("o", (250, 100))],
        [{"id": "f", "attacker": "firer", "template": "flame", "heading_deg": "auto"}],
    )
    r = s.resolve_attack("f")
    assert (r.outcome, r.reason) == ("invalid", "no_valid_placement")
    assert r.solver[0]["found"] is False
    assert r.to_dict()["hits_total"] == 0


def test_solver_respects_the_firers_base():
    # contact offsets never exceed the admissible angle, so the template never cuts in
    dmax = max_contact_offset_deg(FLAME)
    sol = solve_heading(FLAME, (0.0, 0.0), 16.0, [[0.0, 150.0, 12.5]], [])
    assert sol.found and sol.count == 1
    diff = (sol.contact_deg - sol.heading_deg + 180.0) % 360.0 - 180.0
    assert abs(diff) <= dmax + 1e-9


def test_over_the_firers_own_base_is_legal():
    # ruling A1 (SPEC 12.6): "a Template weapon never hits the model firing it" and only
    # *other* friendly models may not be touched: a flame whose narrow end touches the
    # base at 100 degrees and points along 0 lies over the firer's base, legally
    atk = {"id": "f", "attacker": "firer", "template": "flame", "heading_deg": 0}
    s = scene40k([firer(), model("o", (250, 100))], [{**atk, "contact_deg": 100}])
    r = s.resolve_attack("f")
    assert (r.outcome, r.affected) == ("resolved", ["o"])
    assert dict(r.excluded)["firer"] == "attacker"


def test_blasts_and_multiple_templates():
    models = [
        firer(),
        model("a1", (300, 100)),
        model("a2", (325, 100)),
        model("a3", (300, 160), unit="other"),
        model("b1", (300, 300)),
    ]
    s = scene40k(
        models,
        [
            # large blast (r 63.5) on a1: a1, a2 and a3 (another unit: affected, no hit)
            {"id": "lb", "attacker": "firer", "template": "large_blast", "main_target": "a1"},
            # two blasts: one on a1 (r 38.1: a1, a2), one at an explicit focus on b1
            {"id": "two", "attacker": "firer", "template": "blast", "main_target": "a1",
             "burst": 2, "placements": [{}, {"focus": [300, 300]}]},
            # a blast over the firer: the firer is a friendly model
            {"id": "self", "attacker": "firer", "template": "blast", "focus": [110, 100]},
        ],
    )  # fmt: skip
    r = s.resolve_attack("lb")
    assert r.affected == ["a1", "a2", "a3"] and r.hits == [2]
    assert r.troopers["a3"] == {"role": "secondary", "in_target_unit": False}
    assert r.troopers["a1"] == {"role": "main", "in_target_unit": True}
    r = s.resolve_attack("two")
    assert r.hits == [2, 1] and r.to_dict()["hits_total"] == 3
    assert r.affected == ["a1", "a2", "b1"]
    assert [p.affected for p in r.placements] == [["a1", "a2"], ["b1"]]
    r = s.resolve_attack("self")
    assert (r.outcome, r.reason) == ("invalid", "touches_friendly")


def test_wall_of_death_scenario():
    scene = load_scene(SCEN / "wh40k_wall_of_death.yaml")
    near = scene.resolve_attack("near").to_dict()
    assert near["wall_of_death"] == {"applies": True, "reason": "within_8in", "hits": "D3"}
    assert near["placements"] == [] and (near["hits"], near["hits_total"]) == (["D3"], "D3")
    far = scene.resolve_attack("far").to_dict()
    assert far["wall_of_death"] == {"applies": False, "reason": None, "hits": "D3"}
    assert (far["outcome"], far["reason"]) == ("failed", "no_wall_of_death")
    assert scene.resolve_attack("charge").wall_of_death["reason"] == "charging"
    assert scene.resolve_attack("hellstorm").wall_of_death["hits"] == "D6"


@pytest.mark.parametrize(("gap", "applies"), [(203.2, True), (203.3, False)])
def test_wall_of_death_8_inches_edge_to_edge(gap, applies):
    x = 100 + 16 + gap + 12.5
    s = scene40k(
        [firer(), model("m", (x, 100))],
        [{"id": "w", "attacker": "firer", "template": "flame", "target_unit": "cultists",
          "snap_shot": True}],
    )  # fmt: skip
    assert s.resolve_attack("w").wall_of_death["applies"] is applies


def _wod(template, *, models=None, **kw):
    models = models or [firer(), model("m", (250, 100))]
    atk = {"id": "w", "attacker": "firer", "template": template, "target_unit": "cultists",
           "snap_shot": True, **kw}  # fmt: skip
    return scene40k(models, [atk]).resolve_attack("w")


def test_wall_of_death_by_template_kind():
    # the model is 250 - 100 - 16 - 12.5 = 121.5 mm (< 8") from the firer
    hell = {"shape": "teardrop", "length": 254, "width": 101.6, "kind": "hellstorm"}
    assert _wod(hell).wall_of_death == {"applies": True, "reason": "within_8in", "hits": "D6"}
    # the same shape without a kind is a flame template: D3 (no longer keyed on the name)
    plain = {"shape": "teardrop", "length": 254, "width": 101.6}
    assert _wod(plain).wall_of_death["hits"] == "D3"
    # blasts never: Wall of Death is for template weapons
    r = _wod("blast")
    assert (r.outcome, r.reason) == ("failed", "no_wall_of_death")
    assert r.wall_of_death == {"applies": False, "reason": "not_a_template_weapon", "hits": None}
    circle = {"shape": "circle", "diameter": 76.2, "kind": "blast"}
    assert _wod(circle).wall_of_death["applies"] is False


def test_wall_of_death_not_against_flyers_nor_with_ordnance():
    flyer = {**model("m", (250, 100)), "flyer": True}
    r = _wod("flame", models=[firer(), flyer])
    assert r.wall_of_death == {"applies": False, "reason": "flyer", "hits": "D3"}
    # one non-flyer in the target unit makes it a legal target again
    r = _wod("flame", models=[firer(), flyer, model("g", (260, 140))])
    assert r.wall_of_death["applies"] is True
    r = _wod("flame", ordnance=True)
    assert r.wall_of_death == {"applies": False, "reason": "ordnance", "hits": "D3"}


def test_template_kind_is_checked():
    from geom3d.core.errors import ScenarioError

    bad = {"shape": "teardrop", "length": 254, "width": 101.6, "kind": "lava"}
    with pytest.raises(ScenarioError, match="unknown template kind") as ei:
        _wod(bad)
    assert ei.value.path == "attacks[0].template.kind"
