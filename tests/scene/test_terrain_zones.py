"""Special Terrain zones (SPEC 12.6; rule text 000 "Area of Effect of Special Terrain
Zones"): contact, partial cover and outside; ``blocks_lof`` zones block Line of Fire.

Silhouette 2: base 25 mm (r 12.5) (ruleset data); positions below are chosen so that the
answers follow from the base radius alone.
"""

from __future__ import annotations

import pytest
from support import make_scene, trooper

from geom3d.commands.answers import attack_report, lof_report
from geom3d.core.errors import ScenarioError
from geom3d.scene.terrain_zones import disc_meets_polygon

# a 100 x 100 mm swamp from (200, 200) to (300, 300), 20 mm high
SWAMP = {"id": "swamp", "kind": "difficult", "rect": [200, 200, 300, 300], "height_mm": 20}


def test_contact_partial_and_outside():
    ts = [
        trooper("inside", [250, 250]),  # base wholly covered
        trooper("partial", [305, 250]),  # base edge 7.5 mm into the zone
        trooper("contact", [312.5, 250]),  # base edge exactly on the zone's side
        trooper("outside", [312.6, 250]),  # 0.1 mm off
        trooper("corner", [308.8, 308.8]),  # centre 12.45 mm from the corner (308.8-300)*sqrt2
        trooper("far-corner", [308.9, 308.9]),  # 12.59 mm from the corner: outside
    ]
    s = make_scene(ts, terrain_zones=[SWAMP])
    (z,) = lof_report(s, pairs=[("inside", "outside")])["terrain_zones"]
    assert z == {"id": "swamp", "kind": "difficult", "blocks_lof": False, "height_mm": 20.0,
                 "affected": ["inside", "partial", "contact", "corner"]}  # fmt: skip


def test_zone_height_counts():
    # a trooper standing on a 30 mm ledge above a 20 mm zone is not in it
    ts = [
        trooper("low", [250, 250, 0]),
        trooper("high", [260, 270, 30]),
        trooper("top", [240, 230, 20]),
    ]
    (z,) = lof_report(make_scene(ts, terrain_zones=[SWAMP]), pairs=[("low", "high")])[
        "terrain_zones"
    ]
    assert z["affected"] == ["low", "top"]  # top touches the zone's top face: contact


def test_polygon_zone_and_the_attack_document():
    tri = {"id": "t", "kind": "burning", "polygon": [[0, 0], [100, 0], [0, 100]], "height_mm": 10}
    ts = [trooper("a", [80, 80]), trooper("b", [58, 58]), trooper("c", [-10, 50], side="red")]
    # b: centre 58 + 58 = 116 > 100: outside the triangle, 16 / sqrt2 = 11.3 mm from the
    # hypotenuse < 12.5: covered partially. a: 60 / sqrt2 = 42.4 mm away: outside.
    # c: 10 mm left of the side x = 0 < 12.5: covered partially.
    s = make_scene(ts, terrain_zones=[tri],
                   attacks=[{"id": "x", "attacker": "a", "template": "circular", "mode": "impact",
                             "main_target": "c", "speculative": True}])  # fmt: skip
    assert disc_meets_polygon(58, 58, 12.5, [(0, 0), (100, 0), (0, 100)])
    assert attack_report(s)["terrain_zones"][0]["affected"] == ["b", "c"]


def test_blocking_zone_blocks_lof_through_it():
    smoke = {"id": "smoke", "kind": "smoke", "rect": [120, -50, 180, 50], "height_mm": 80,
             "blocks_lof": True}  # fmt: skip
    ts = [trooper("a", [0, 0]), trooper("b", [300, 0], side="red", facing_deg=180),
          trooper("c", [150, 0], side="red")]  # fmt: skip
    clear = make_scene(ts[:2])
    assert clear.line_of_fire("a", "b").lof
    s = make_scene(ts, terrain_zones=[smoke])
    r = s.line_of_fire("a", "b")
    assert (r.lof, r.reason) == (False, "blocked")
    # c stands in the smoke on the table (not on top of the smoke), unwarned, and is
    # seen by nobody outside
    assert s.trooper("c").position[2] == 0.0
    assert not any("embedded" in w for w in s.warnings)
    assert not s.line_of_fire("a", "c").lof
    assert lof_report(s, pairs=[("a", "b")])["terrain_zones"][0]["affected"] == ["c"]


# a U of smoke, 80 mm high, open towards +y: the bar y -60..-20 and two arms x 120..130
# and 170..180 up to y = 60; the notch between the arms is x 130..170 above y = -20
U_SMOKE = {"id": "u", "kind": "smoke", "height_mm": 80, "blocks_lof": True,
           "polygon": [[120, -60], [180, -60], [180, 60], [170, 60], [170, -20], [130, -20],
                       [130, 60], [120, 60]]}  # fmt: skip


def test_blocking_polygon_zone_blocks_through_its_body_not_its_notch():
    # b stands in the notch: base x 137.5..162.5, y -2.5..22.5, 7.5 mm from each arm and
    # 17.5 mm above the bar, so outside the zone. a looks down the notch from y = 300:
    # every segment between the two cylinders stays in x 137.5..162.5, inside the notch,
    # so nothing blocks. c looks up from y = -200: every segment to b crosses the bar
    # (y -60..-20 spans x 120..180, 80 mm high, above both troopers): blocked.
    ts = [trooper("a", [150, 300], facing_deg=-90), trooper("b", [150, 10], side="red"),
          trooper("c", [150, -200], facing_deg=90)]  # fmt: skip
    s = make_scene(ts, terrain_zones=[U_SMOKE])
    assert s.line_of_fire("a", "b").lof
    r = s.line_of_fire("c", "b")
    assert (r.lof, r.reason) == (False, "blocked")
    assert make_scene(ts).line_of_fire("c", "b").lof  # the zone is what blocks
    (z,) = lof_report(s, pairs=[("a", "b")])["terrain_zones"]
    assert z["affected"] == [] and z["blocks_lof"]
    (piece,) = [p for p in s.scenario.scenery if p.id == "zone:u"]
    assert piece.prism is not None and piece.box_size is None and piece.prism_height == 80.0


def test_a_blocking_rect_zone_is_still_a_box():
    smoke = {"id": "smoke", "kind": "smoke", "rect": [120, -50, 180, 50], "height_mm": 80,
             "blocks_lof": True}  # fmt: skip
    s = make_scene([trooper("a", [0, 0])], terrain_zones=[smoke])
    (piece,) = s.scenario.scenery
    assert (piece.id, piece.box_size, piece.position, piece.prism, piece.solid) == (
        "zone:smoke",
        (60.0, 100.0, 80.0),
        (150.0, 0.0, 0.0),
        None,
        "closed",
    )


@pytest.mark.parametrize(
    ("zone", "path", "words"),
    [
        ({"id": "z", "kind": "k", "height_mm": 5}, "terrain_zones[0]", "exactly one of"),
        ({**SWAMP, "height_mm": 0}, "terrain_zones[0].height_mm", "positive"),
        ({"id": "z", "kind": "k", "polygon": [[0, 0], [1, 1], [2, 2]], "height_mm": 5},
         "terrain_zones[0].polygon", "no area"),
        ({"id": "z", "kind": "k", "polygon": [[0, 0], [30, 10], [30, 0], [0, 20]], "height_mm": 5,
          "blocks_lof": True}, "terrain_zones[0].polygon",
         r"a blocking zone's polygon must be simple \(its edges cross or touch\)"),
    ],
)  # fmt: skip
def test_bad_zones(zone, path, words):
    with pytest.raises(ScenarioError, match=words) as err:
        make_scene([trooper("a", [0, 0])], terrain_zones=[zone])
    assert err.value.path == path


def test_a_trooper_in_a_blocking_polygon_zone_stands_on_the_ground_unwarned():
    # d in the U's bar (y -60..-20): the prism is not ground, and d is not "embedded"
    s = make_scene([trooper("a", [150, 300], facing_deg=-90), trooper("d", [150, -40])],
                   terrain_zones=[U_SMOKE])  # fmt: skip
    assert s.trooper("d").position[2] == 0.0
    assert not any("embedded" in w for w in s.warnings)
    assert not s.line_of_fire("a", "d").lof
    (z,) = lof_report(s, pairs=[("a", "d")])["terrain_zones"]
    assert z["affected"] == ["d"]
