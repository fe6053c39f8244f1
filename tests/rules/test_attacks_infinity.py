"""Infinity template attacks (SPEC 4.1): rule-text examples, hand-computed cases, invariants.

Template sizes used below (ruleset data): ``circular`` 76.2 mm across (radius and height
38.1); ``small_teardrop`` 127 long, 38.1 wide (far circle radius 19.05 centred 107.95 from
the point tip; the sides leave the tip at sin a = 0.17647, cos a = 0.98431; height 19.05);
``large_teardrop`` 203.2 x 63.5 (height 31.75). Troopers are silhouette 2 (base 25, height
40) unless said otherwise.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import REPO, box, make_scene, trooper

from geom3d import load_scene
from geom3d.check import run_batch
from geom3d.placement.direct import max_contact_offset_deg
from geom3d.templates import TeardropShape

SCEN = REPO / "meshes" / "scenarios" / "attacks"
HYP = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def attack(id_, attacker, template, mode="direct", **kw):
    return {"id": id_, "attacker": attacker, "template": template, "mode": mode, **kw}


def scene_with(troopers, attacks, scenery=(), **kw):
    return make_scene(troopers, scenery, attacks=list(attacks), **kw)


# --------------------------------------------------------------------------------------
# the rule-text example scenarios (meshes/scenarios/attacks/*.yaml, expect blocks)
# --------------------------------------------------------------------------------------


def test_every_example_scenario_holds():
    files = sorted(str(p) for p in SCEN.glob("*.yaml"))
    assert len(files) >= 10
    result = run_batch(files, workers=1)
    bad = [(r.get("scenario"), r["status"], r.get("results")) for r in result.records]
    assert all(r["status"] == "pass" for r in result.records), bad


def test_betatrooper_burst2_details(tmp_path):
    scene = load_scene(SCEN / "betatrooper_burst2.yaml")
    res = scene.resolve_attack("nanopulser")
    assert res.outcome == "resolved"
    assert res.affected == ["e1", "e2", "e3"]  # 3 of 4 enemies
    p0, p1 = res.placements
    assert p0.focus == pytest.approx((142.5, 100.0, 20.0))
    assert p1.focus == pytest.approx((130.0, 87.5, 20.0))
    assert (p0.heading_deg, p1.heading_deg) == (0.0, 270.0)
    assert p0.affected == ["e1", "e2"] and p1.affected == ["e3"]
    # the prone trooper below is inside the footprint in plan but untouched
    assert "e4" not in p0.in_area and "e4" not in p0.excluded
    assert len(res.volumes) == 2
    d = res.to_dict()
    assert d["placements"][0]["focus"] == [142.5, 100.0, 20.0]
    assert d["troopers"]["e2"]["dodge"] == "PH-3"
    # standing instead of prone, e4 is in the area
    text = (SCEN / "betatrooper_burst2.yaml").read_text().replace(", state: [prone]", "")
    tmp = tmp_path / "standing.yaml"
    tmp.write_text(text)
    res2 = load_scene(tmp).resolve_attack("nanopulser")
    assert res2.affected == ["e1", "e2", "e3", "e4"]


def test_fusilier_outside_marker_unaffected_but_affected_in_a_resolved_attack():
    scene = load_scene(SCEN / "fusilier_outside.yaml")
    res = scene.resolve_attack("nanopulser")
    assert (res.outcome, res.reason, res.affected) == ("failed", "main_target_outside", [])
    assert res.placements[0].in_area == ["camo"]
    assert dict(res.excluded) == {"beta": "attacker", "camo": "failed"}
    # aimed at the marker itself, the same template resolves and affects it
    troopers = [
        trooper("beta", [100, 100]),
        trooper("fusilier", [100, 200], side="red"),
        trooper("camo", [180, 100], side="red", state=["marker"]),
    ]
    s2 = scene_with(
        troopers, [attack("n", "beta", "small_teardrop", main_target="camo", heading_deg=0)]
    )
    r2 = s2.resolve_attack("n")
    assert (r2.outcome, r2.affected) == ("resolved", ["camo"])
    assert r2.troopers["camo"]["role"] == "main"


def test_grenade_total_cover_and_witnesses():
    res = load_scene(SCEN / "grenade_total_cover.yaml").resolve_attack("grenade")
    assert res.affected == ["t1", "t2"]
    assert res.excluded == [("t3", "total_cover")]
    w = res.placements[0].witnesses
    assert w["t1"]["kind"] == "focus_inside"
    assert w["t2"]["kind"] == "patch"
    assert res.troopers["t1"]["face_to_face"] and res.troopers["t2"]["face_to_face"]


# --------------------------------------------------------------------------------------
# placement rules
# --------------------------------------------------------------------------------------


def test_max_contact_offset_matches_the_teardrop_opening():
    shape = TeardropShape(127.0, 38.1)
    assert max_contact_offset_deg(shape) == pytest.approx(
        90.0 - math.degrees(math.asin(19.05 / 107.95))
    )
    assert max_contact_offset_deg(TeardropShape(127.0, 38.1, 10.0)) == 0.0


@pytest.mark.parametrize(
    ("contact", "outcome"),
    [(0, "resolved"), (70, "resolved"), (79.0, "resolved"), (80.5, "resolved"), (83, "invalid"),
     (-100, "invalid")],
)  # fmt: skip
def test_contact_angle_limit(contact, outcome):
    # 79.84 deg is the largest offset between heading and contact direction that keeps the
    # template off the base; past it the side cuts in R (1 - cos e) deep (e the excess):
    # 0.0008 mm at 80.5 (within the 0.01 mm contact tolerance, ruling 13.3), 0.024 mm at 83
    troopers = [trooper("a", [100, 100]), trooper("t", [300, 300], side="red")]
    s = scene_with(
        troopers, [attack("x", "a", "small_teardrop", heading_deg=0, contact_deg=contact)]
    )
    r = s.resolve_attack("x")
    assert r.outcome == outcome
    if outcome == "invalid":
        assert r.reason == "through_attacker"
    else:
        assert r.excluded == [("a", "attacker")]


def test_heading_defaults_to_the_main_target_and_auto_does_too():
    # auto: the radial placements touching t form one run symmetric about 45 degrees
    troopers = [trooper("a", [100, 100]), trooper("t", [200, 200], side="red")]
    for heading in (None, "auto"):
        kw = {} if heading is None else {"heading_deg": heading}
        s = scene_with(troopers, [attack("x", "a", "small_teardrop", main_target="t", **kw)])
        r = s.resolve_attack("x")
        assert r.placements[0].heading_deg == pytest.approx(45.0)
        assert r.placements[0].focus == pytest.approx(
            (100 + 12.5 / math.sqrt(2), 100 + 12.5 / math.sqrt(2), 0.0)
        )
        assert r.affected == ["t"]
    s = scene_with(troopers, [attack("x", "a", "small_teardrop")])
    assert (s.resolve_attack("x").outcome, s.resolve_attack("x").reason) == (
        "invalid",
        "no_heading",
    )


def test_pitched_direct_teardrop():
    # small_teardrop, height 19.05. Pitched up 10 deg from the edge of a (r 12.5, centre
    # x 100) the narrow end leans back by 19.05 sin 10 = 3.3080 mm: the template slides out
    # along the contact direction until it only touches, focus x = 112.5 + 3.3080.
    troopers = [trooper("a", [100, 100]), trooper("t", [200, 100], side="red")]
    up = scene_with(troopers, [attack("x", "a", "small_teardrop", heading_deg=0, pitch_deg=10)])
    r = up.resolve_attack("x")
    assert (r.outcome, r.affected) == ("resolved", ["t"])
    shift = 19.05 * math.sin(math.radians(10.0))
    assert r.placements[0].focus == pytest.approx((112.5 + shift, 100.0, 0.0), abs=1e-5)
    assert dict(r.excluded)["a"] == "attacker"  # it touches its attacker, as it must
    # a placement that cuts into the base in plan stays invalid, pitched or not
    bad = scene_with(
        troopers,
        [attack("x", "a", "small_teardrop", heading_deg=0, contact_deg=100, pitch_deg=10)],
    )
    assert bad.resolve_attack("x").reason == "through_attacker"
    # pitched down the volume leans away: the narrow end stays on the base edge
    down = scene_with(troopers, [attack("x", "a", "small_teardrop", heading_deg=0, pitch_deg=-5)])
    rd = down.resolve_attack("x")
    assert rd.outcome == "resolved" and rd.placements[0].focus == pytest.approx((112.5, 100, 0))


def test_explicit_focus_touching_the_attacker():
    troopers = [trooper("a", [100, 100]), trooper("t", [200, 100], side="red")]
    s = scene_with(
        troopers,
        [attack("x", "a", "small_teardrop", heading_deg=0, focus=[112.5, 100], main_target="t")],
    )
    r = s.resolve_attack("x")
    assert r.outcome == "resolved" and r.placements[0].focus == (112.5, 100.0, 0.0)


# --------------------------------------------------------------------------------------
# impact, deployable, allies, close combat
# --------------------------------------------------------------------------------------

WALL_LOS = box("wall", [10, 200, 80], [150, 100])  # x 145..155: between a and t


def test_impact_needs_lof_unless_speculative():
    troopers = [trooper("a", [50, 100]), trooper("t", [250, 100], side="red")]
    s = scene_with(
        troopers,
        [
            attack("plain", "a", "circular", "impact", main_target="t"),
            attack("spec", "a", "circular", "impact", main_target="t", speculative=True),
        ],
        [WALL_LOS],
    )
    r = s.resolve_attack("plain")
    assert (r.outcome, r.reason, r.affected) == ("failed", "no_lof", [])
    assert dict(r.excluded) == {"t": "failed"}
    r = s.resolve_attack("spec")
    assert (r.outcome, r.affected) == ("resolved", ["t"])
    # no LoF to the attacker: Dodge at PH-3; impact: a face-to-face roll
    assert r.troopers["t"] == {
        "role": "main",
        "dodge": "PH-3",
        "face_to_face": True,
        "critical_applies": True,
        "partial_cover_bonus": False,
        "roll": "BS",
    }


def test_impact_template_must_be_circular_and_have_a_target():
    troopers = [trooper("a", [50, 100]), trooper("t", [250, 100], side="red")]
    s = scene_with(
        troopers,
        [
            attack("td", "a", "small_teardrop", "impact", main_target="t"),
            attack("c", "a", "circular", "impact"),
        ],
    )
    assert s.resolve_attack("td").reason == "impact_not_circular"
    assert s.resolve_attack("c").reason == "no_main_target"


def test_deployable_dodges_at_ph_minus_3():
    troopers = [
        trooper("owner", [50, 50]),
        trooper("r1", [300, 300], side="red", facing_deg=225),
        trooper("r2", [330, 300], side="red", facing_deg=225),
    ]
    s = scene_with(
        troopers,
        [
            attack("mine", "owner", "circular", "deployable", focus=[310, 290]),
            attack("nofocus", "owner", "circular", "deployable"),
        ],
    )
    r = s.resolve_attack("mine")
    assert r.affected == ["r1", "r2"]
    assert r.main_target_in_area is None
    for t in ("r1", "r2"):
        assert r.troopers[t]["dodge"] == "PH-3"
        assert r.troopers[t]["face_to_face"] is False
        assert r.troopers[t]["role"] == "secondary"
    assert r.placements[0].focus == (310.0, 290.0, 0.0)
    assert s.resolve_attack("nofocus").reason == "no_focus"


def test_allied_and_neutral_cancel_unless_harmless():
    troopers = [
        trooper("a", [100, 100]),
        trooper("t", [200, 100], side="red"),
        trooper("pal", [180, 110], side="blue"),
        trooper("civ", [115, 200], side="neutral"),  # beside a's line of fire to t2
        trooper("t2", [100, 280], side="red"),
    ]
    s = scene_with(
        troopers,
        [
            attack("x", "a", "small_teardrop", main_target="t", heading_deg=0),
            attack("h", "a", "small_teardrop", main_target="t", heading_deg=0, harmless=True),
            attack("n", "a", "large_teardrop", main_target="t2", heading_deg=90),
        ],
    )
    r = s.resolve_attack("x")
    assert (r.outcome, r.reason, r.affected) == ("cancelled", "allied_in_area", [])
    assert dict(r.excluded) == {"a": "attacker", "t": "cancelled", "pal": "cancelled"}
    r = s.resolve_attack("h")
    assert (r.outcome, r.affected) == ("resolved", ["t", "pal"])
    r = s.resolve_attack("n")  # civ is on the way north to t2
    assert (r.outcome, r.reason) == ("cancelled", "allied_in_area")
    assert r.placements[0].in_area == ["civ", "t2"]


def test_burst_one_cancelled_placement_does_not_cancel_the_other():
    troopers = [
        trooper("a", [100, 100]),
        trooper("t", [200, 100], side="red"),
        trooper("pal", [100, 200], side="blue"),
        trooper("u", [100, 0], side="red"),
    ]
    s = scene_with(
        troopers,
        [
            attack(
                "b2",
                "a",
                "small_teardrop",
                burst=2,
                placements=[{"heading_deg": 90, "main_target": "pal"}, {"heading_deg": 270}],
            ),
            attack("b2x", "a", "small_teardrop", burst=2, heading_deg=90),
        ],
    )
    r = s.resolve_attack("b2")
    assert [p.outcome for p in r.placements] == ["cancelled", "resolved"]
    assert (r.outcome, r.affected) == ("resolved", ["u"])
    assert dict(r.excluded) == {"a": "attacker", "pal": "cancelled"}
    r = s.resolve_attack("b2x")  # both placements cancelled: the first one's outcome
    assert (r.outcome, r.reason) == ("cancelled", "allied_in_area")


def test_engaged_enemies_all_affected():
    # e1 is touched; e2, engaged with e1 (and e3 with e2), is not touched but affected
    troopers = [
        trooper("a", [100, 100]),
        trooper("e1", [200, 100], side="red", engaged_with=["e2"]),
        trooper("e2", [200, 150], side="red"),
        trooper("e3", [200, 200], side="red", engaged_with=["e2"]),
    ]
    s = scene_with(troopers, [attack("x", "a", "small_teardrop", main_target="e1", heading_deg=0)])
    r = s.resolve_attack("x")
    assert r.affected == ["e1", "e2", "e3"]
    assert r.placements[0].witnesses["e3"] == {"kind": "engaged", "via": "e1"}


def test_engaged_with_the_attacker():
    # a is engaged with e (in base contact) and sprays it: a is never affected, e is
    troopers = [
        trooper("a", [100, 100], engaged_with=["e"]),
        trooper("e", [125, 100], side="red"),
    ]
    s = scene_with(troopers, [attack("x", "a", "small_teardrop", main_target="e", heading_deg=0)])
    r = s.resolve_attack("x")
    assert (r.outcome, r.affected, r.excluded) == ("resolved", ["e"], [("a", "attacker")])


def test_impact_on_self_counts_as_an_ally():
    troopers = [trooper("a", [100, 100]), trooper("e", [125, 100], side="red")]
    s = scene_with(troopers, [attack("g", "a", "circular", "impact", main_target="e")])
    r = s.resolve_attack("g")
    assert (r.outcome, r.reason) == ("cancelled", "allied_in_area")


# --------------------------------------------------------------------------------------
# moving troopers
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("y", "hit"), [(50.0, True), (51.0, False)])
def test_route_touching_between_vertices(y, hit):
    # circle radius 38.1 centred on m at (300, 300); the mover crosses from x = 0 to
    # x = 600 at y = 300 + y: closest approach y - 12.5 = 37.5 (touches) or 38.5 (not),
    # at x = 300, far from both route vertices
    troopers = [
        trooper("a", [100, 100]),
        trooper("m", [300, 300], side="red"),
        trooper("run", [0, 300 + y], side="red", route=[[0, 300 + y], [600, 300 + y]]),
    ]
    s = scene_with(
        troopers, [attack("g", "a", "circular", "impact", main_target="m", speculative=True)]
    )
    r = s.resolve_attack("g")
    assert ("run" in r.affected) is hit
    if hit:
        pos = r.placements[0].witnesses["run"]["position"]
        assert pos[0] == pytest.approx(300.0, abs=1.0)


def test_route_behind_a_wall_then_in_the_open():
    # the mover runs along y = 360 behind a wall (x 250..350 at y 335..337) and comes out
    # at x = 380: circle 200 across centred at (300, 300) -> affected once in the open
    troopers = [
        trooper("a", [100, 100]),
        trooper("m", [300, 300], side="red"),
        trooper("run", [300, 360], side="red", route=[[300, 360], [380, 360]]),
    ]
    tpl = {"shape": "circle", "diameter": 200}
    s = scene_with(
        troopers,
        [attack("g", "a", tpl, "impact", main_target="m", speculative=True)],
        [box("w", [100, 2, 80], [300, 336])],
    )
    r = s.resolve_attack("g")
    assert "run" in r.affected
    assert r.placements[0].witnesses["run"]["position"][0] > 330
    short = scene_with(
        [*troopers[:2], trooper("run", [300, 360], side="red", route=[[290, 360], [310, 360]])],
        [attack("g", "a", tpl, "impact", main_target="m", speculative=True)],
        [box("w", [100, 2, 80], [300, 336])],
    )
    assert short.resolve_attack("g").excluded == [("run", "total_cover")]


# --------------------------------------------------------------------------------------
# invariants (hypothesis)
# --------------------------------------------------------------------------------------


def _rigid(p, yaw_deg, dx, dy):
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    x, y = p[0], p[1]
    return [c * x - s * y + dx, s * x + c * y + dy, *p[2:]]


@st.composite
def template_scenes(draw):
    """An attacker at the origin, four enemies ahead, often a wall among them; a direct
    large teardrop or a wide impact template."""
    troopers = [trooper("a", [0.0, 0.0, 0.0])]
    for i in range(4):
        if i == 0:  # the impact's main target, in front of the wall
            x = float(draw(st.integers(40, 60)))
        else:
            x = float(draw(st.sampled_from([60, 130, 150, 170])) + draw(st.integers(-5, 5)))
        y = float(draw(st.integers(-30, 30)))
        troopers.append(
            trooper(f"e{i}", [x, y, 0.0], side="red", silhouette=draw(st.sampled_from([1, 2, 3])))
        )
    walls = []
    if draw(st.integers(0, 3)):  # a wall three times in four, between x 94 and 106
        wx = float(draw(st.integers(96, 104)))
        wy = float(draw(st.integers(-40, 40)))
        walls.append(
            {
                "id": "w",
                "box": {"size": [4.0, float(draw(st.integers(20, 120))), 150.0]},
                "position": [wx, wy, 0.0],
                "rotation_deg": 0.0,
            }
        )
    mode = draw(st.sampled_from(["direct", "impact"]))
    if mode == "direct":
        atk = attack("x", "a", "large_teardrop", heading_deg=float(draw(st.integers(-8, 8))))
    else:
        tpl = {"shape": "circle", "diameter": 240.0}
        # harmless: the attacker inside its own wide template cancels nothing
        atk = attack("x", "a", tpl, "impact", main_target="e0", speculative=True, harmless=True)
    return troopers, walls, atk


def _moved(troopers, walls, atk, yaw, dx, dy):
    t2 = [{**t, "position": _rigid(t["position"], yaw, dx, dy)} for t in troopers]
    w2 = [{**w, "position": _rigid(w["position"], yaw, dx, dy), "rotation_deg": yaw} for w in walls]
    a2 = dict(atk)
    if "heading_deg" in a2:
        a2["heading_deg"] = a2["heading_deg"] + yaw
    return t2, w2, a2


@HYP
@given(
    template_scenes(),
    st.integers(0, 359),
    st.floats(-300, 300).map(lambda v: round(v, 2)),
    st.floats(-300, 300).map(lambda v: round(v, 2)),
)
def test_rigid_motion_changes_no_answer(case, yaw, dx, dy):
    troopers, walls, atk = case
    base = scene_with(troopers, [atk], walls).resolve_attack("x")
    t2, w2, a2 = _moved(troopers, walls, atk, yaw, dx, dy)
    moved = scene_with(t2, [a2], w2).resolve_attack("x")
    assert (moved.outcome, moved.reason) == (base.outcome, base.reason)
    assert moved.affected == base.affected
    assert moved.excluded == base.excluded
    assert [p.in_area for p in moved.placements] == [p.in_area for p in base.placements]


@HYP
@given(
    st.lists(
        st.tuples(st.integers(-150, 150), st.integers(-150, 150), st.sampled_from([1, 2, 3, 5])),
        min_size=1,
        max_size=8,
    ),
    st.integers(20, 160),
    st.floats(1.0, 2.5),
)
def test_a_larger_template_never_affects_fewer_troopers(spots, diameter, k):
    troopers = [trooper("owner", [1000, 1000])]
    seen = set()
    for i, (x, y, sil) in enumerate(spots):
        if any(abs(x - a) < 60 and abs(y - b) < 60 for a, b in seen):
            continue  # keep bases apart
        seen.add((x, y))
        troopers.append(trooper(f"r{i}", [float(x), float(y)], side="red", silhouette=sil))
    small = {"shape": "circle", "diameter": float(diameter)}
    big = {"shape": "circle", "diameter": float(diameter) * k}
    s = scene_with(
        troopers,
        [
            attack("s", "owner", small, "deployable", focus=[0.0, 0.0]),
            attack("b", "owner", big, "deployable", focus=[0.0, 0.0]),
        ],
    )
    a_small = set(s.resolve_attack("s").affected)
    a_big = set(s.resolve_attack("b").affected)
    assert a_small <= a_big
    # nothing blocks: every trooper touching a template is affected
    assert not s.resolve_attack("b").excluded


def test_example_scenarios_exist_for_each_rule_text_example():
    names = {p.stem for p in SCEN.glob("*.yaml")}
    for n in (
        "betatrooper_burst2",
        "grenade_total_cover",
        "fusilier_outside",
        "balcony",
        "close_combat_cancelled",
        "attacker_placement",
        "prone_below",
    ):
        assert n in names
    assert Path(SCEN).is_dir()
