"""Infinity round 2 (SPEC 11.4): valid main targets, ARO (Update 1.3), roll flags.

Open ground, silhouette 2 troopers (base 25, r 12.5) unless said otherwise;
``small_teardrop`` 127 x 38.1 (far circle r 19.05 centred 107.95 from the point tip),
``circular`` 76.2 across (r 38.1).
"""

from __future__ import annotations

import pytest
from support import make_scene, trooper

from geom3d.core.errors import ScenarioError, UnknownIdError


def attack(id_, attacker, template, mode="direct", **kw):
    return {"id": id_, "attacker": attacker, "template": template, "mode": mode, **kw}


def test_direct_template_at_a_main_target_behind_the_attacker_fails_no_lof():
    # a faces +x; t is 100 mm behind it (its base spans x -12.5..12.5, all behind a's arc
    # plane x = 100): outside the front arc, no LoF. A teardrop aimed backwards (heading
    # 180, tip at x 87.5, reaching x -39.5) contains t, but t is not a valid target.
    ts = [trooper("a", [100, 100]), trooper("t", [0, 100], side="red")]
    s = make_scene(ts, attacks=[
        attack("d", "a", "small_teardrop", main_target="t", heading_deg=180),
        attack("i", "a", "circular", mode="impact", main_target="t"),
    ])  # fmt: skip
    d = s.resolve_attack("d")
    assert (d.outcome, d.reason, d.affected) == ("failed", "no_lof", [])
    assert d.placements[0].in_area == ["t"]  # it would have been in the area
    assert s.resolve_attack("i").reason == "no_lof"  # the impact template agrees
    # facing it, the same attack resolves
    ts[0] = trooper("a", [100, 100], facing_deg=180)
    s = make_scene(ts, attacks=[attack("d", "a", "small_teardrop", main_target="t",
                                       heading_deg=180)])  # fmt: skip
    assert s.resolve_attack("d").affected == ["t"]


def test_an_engaged_attacker_may_only_target_what_it_is_engaged_with():
    # a and b in base contact (centres 25 apart), engaged; t 100 mm ahead of a
    ts = [
        trooper("a", [100, 100], engaged_with=["b"]),
        trooper("b", [125, 100], side="red"),
        trooper("t", [200, 140], side="red"),
    ]
    s = make_scene(ts, attacks=[
        attack("x", "a", "small_teardrop", main_target="t"),
        attack("y", "a", "small_teardrop", main_target="b", heading_deg=0),
        attack("z", "a", "circular", mode="impact", main_target="t", speculative=True),
    ])  # fmt: skip
    x = s.resolve_attack("x")
    assert (x.outcome, x.reason) == ("failed", "engaged")
    y = s.resolve_attack("y")
    assert y.outcome == "resolved" and "b" in y.affected
    assert s.resolve_attack("z").reason == "engaged"  # speculative fire does not help


def _aro_scene(**kw):
    # r (reactive, blue) faces -x. t (red, the declared main target) at (100, 100) is far
    # off the template; m (red) moves along y = 400 through the template's area.
    # The teardrop from r (centre (300, 400), heading 180) spans x 160.5..287.5 on y 400.
    ts = [
        trooper("r", [300, 400], facing_deg=180),
        trooper("t", [100, 330], side="red"),
        trooper("m", [100, 500], side="red", route=[[100, 500], [220, 400], [220, 300]]),
        trooper("s", [240, 560], side="red"),
    ]
    base = attack("x", "r", "small_teardrop", main_target="t", heading_deg=180, **kw)
    return make_scene(ts, attacks=[base], **({"active": ["s"]} if "aro" in kw else {}))


def test_aro_active_trooper_in_the_area_counts_as_main_target():
    # not an ARO: t is outside -> failed
    r = _aro_scene().resolve_attack("x")
    assert (r.outcome, r.reason) == ("failed", "main_target_outside")
    # in ARO, m (active: it has a route) is in the area: the template is not failed
    r = _aro_scene(aro=True).resolve_attack("x")
    assert r.outcome == "resolved" and r.affected == ["m"]
    assert r.troopers["m"]["role"] == "secondary"


def test_aro_burst_is_one_unless_aro_burst():
    two = [{"heading_deg": 180}, {"heading_deg": 170}]
    r = _aro_scene(aro=True, burst=2, placements=two).resolve_attack("x")
    assert len(r.placements) == 1
    r = _aro_scene(aro=True, burst=2, placements=two, aro_burst=2).resolve_attack("x")
    assert [p.heading_deg for p in r.placements] == [180.0, 170.0]
    r = _aro_scene(burst=2, placements=two).resolve_attack("x")
    assert len(r.placements) == 2


def test_aro_keys_are_checked():
    # an error of that attack (13.3): the scene loads, resolving the attack raises it
    s = _aro_scene(aro_burst=2)
    with pytest.raises(ScenarioError, match="aro_burst needs aro") as ei:
        s.resolve_attack("x")
    assert ei.value.path == "attacks[0].aro_burst"
    ts = [trooper("r", [0, 0])]
    with pytest.raises(UnknownIdError) as ei:
        make_scene(ts, active=["ghost"])
    assert ei.value.path == "active[0]"


def test_roll_flags_only_where_a_roll_is_made():
    # impact circular (r 38.1) on t at (200, 100): u (red) 30 mm east and pal (blue)
    # 35 mm north are within 38.1 + 12.5; the template is harmless, so pal stays.
    ts = [
        trooper("a", [100, 100]),
        trooper("t", [200, 100], side="red"),
        trooper("u", [230, 100], side="red"),
        trooper("pal", [200, 135]),
    ]
    s = make_scene(ts, attacks=[
        attack("i", "a", "circular", mode="impact", main_target="t", harmless=True),
        attack("d", "a", "small_teardrop", main_target="t", heading_deg=0),
        attack("m", "a", "circular", mode="deployable", main_target="t", focus=[200, 100],
               harmless=True),
    ])  # fmt: skip
    i = s.resolve_attack("i")
    assert i.affected == ["t", "u", "pal"]
    assert i.troopers["t"]["face_to_face"] and i.troopers["t"]["critical_applies"]
    assert i.troopers["u"]["face_to_face"] and not i.troopers["u"]["critical_applies"]
    assert not i.troopers["pal"]["face_to_face"] and not i.troopers["pal"]["critical_applies"]
    d = s.resolve_attack("d")  # direct: no roll at all, not even against the main target
    assert d.troopers["t"] == {**d.troopers["t"], "face_to_face": False, "critical_applies": False}
    m = s.resolve_attack("m")  # a mine: no attack roll either
    assert not any(v["critical_applies"] or v["face_to_face"] for v in m.troopers.values())


@pytest.mark.parametrize(("active", "outcome"), [(["k"], "resolved"), ([], "failed")])
def test_aro_active_list(active, outcome):
    # k stands still at (220, 400), inside the teardrop; it is active only when listed
    ts = [
        trooper("r", [300, 400], facing_deg=180),
        trooper("t", [100, 330], side="red"),
        trooper("k", [220, 400], side="red"),
    ]
    atk = attack("x", "r", "small_teardrop", main_target="t", heading_deg=180, aro=True)
    r = make_scene(ts, attacks=[atk], active=active).resolve_attack("x")
    assert r.outcome == outcome
