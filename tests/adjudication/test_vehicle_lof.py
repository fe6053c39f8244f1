"""40k vehicle hulls in Line of Fire (SPEC 12.6): a hull blocks Line of Fire between other
models; a pair with a vehicle leaves that vehicle's own hull out.

40k silhouette 2: base 32 mm (r 16), 40 mm high. a at (0, 0) facing +x, b at (300, 0)
facing -x. rhino: box hull 100 x 60 x 50 at (150, 0), facing 90: x 120..180, y -50..50,
z 0..50. Every segment between a's and b's cylinders (|y| <= 16, z <= 40) crosses it.
tank: the same hull at (75, 0): x 45..105, between a and the rhino.
"""

from __future__ import annotations

from support import make_scene

ARMOUR = {"front": 11, "side": 11, "rear": 10}


def model(id_, x, facing):
    return {"id": id_, "side": "imperium" if x < 150 else "orks", "position": [x, 0, 0],
            "facing_deg": facing, "silhouette": 2}  # fmt: skip


def vehicle(id_, x, barrel=None):
    v = {"hull": {"box": {"size": [100, 60, 50]}}, "armour": ARMOUR}
    if barrel:
        v["barrel"] = barrel
    return {"id": id_, "side": "orks", "position": [x, 0, 0], "facing_deg": 90, "vehicle": v}


def scene(*troopers):
    return make_scene(list(troopers), ruleset="wh40k-7e")


def test_a_hull_blocks_the_models_behind_it():
    assert scene(model("a", 0, 0), model("b", 300, 180)).line_of_fire("a", "b").lof
    s = scene(model("a", 0, 0), model("b", 300, 180), vehicle("rhino", 150))
    r = s.line_of_fire("a", "b")
    assert (r.lof, r.reason) == (False, "blocked")
    m = {(x.from_id, x.to_id): x.reason for x in s.lof_matrix([("a", "b"), ("b", "a")])}
    assert m == {("a", "b"): "blocked", ("b", "a"): "blocked"}


def test_a_vehicle_is_seen_and_sees_past_its_own_hull():
    for rhino in (vehicle("rhino", 150), vehicle("rhino", 150, barrel=[50, 0, 30])):
        s = scene(model("a", 0, 0), rhino)
        assert s.line_of_fire("a", "rhino").lof
        assert make_scene([model("a", 0, 0), {**rhino, "facing_deg": 180}],
                          ruleset="wh40k-7e").line_of_fire("rhino", "a").lof  # fmt: skip


def test_another_hull_still_blocks_a_vehicle():
    s = scene(model("a", 0, 0), vehicle("tank", 75), vehicle("rhino", 150))
    r = s.line_of_fire("a", "rhino")
    assert (r.lof, r.reason) == (False, "blocked")
    # without the tank the rhino is seen (its own hull is left out)
    assert scene(model("a", 0, 0), vehicle("rhino", 150)).line_of_fire("a", "rhino").lof
