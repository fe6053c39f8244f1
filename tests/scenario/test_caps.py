"""Cost caps a scenario meets when it is read (issue 44 item 6, SPEC 13.4): the Line of
Fire work its routes cost (mm of route x other troopers) and the length of its ids. Each
refusal is one line naming the field that causes it."""

from __future__ import annotations

import pytest

from geom3d.core.errors import ScenarioError
from geom3d.scenario import parse_scenario
from geom3d.scenario.limits import MAX_ID_CHARS, MAX_ROUTE_MM_TROOPERS


def _doc(troopers, **top) -> dict:
    return {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
            "table": {"size": [1200, 1200]}, "troopers": troopers, **top}  # fmt: skip


def _t(id_, x, y, **kw) -> dict:
    return {"id": id_, "side": kw.pop("side", "blue"), "position": [x, y, 0], **kw}


def test_the_caps_are_what_the_docs_say():
    assert MAX_ID_CHARS == 200 and MAX_ROUTE_MM_TROOPERS == 100_000


def test_route_length_times_troopers_is_capped():
    # 10 m of route past 10 other troopers: exactly the cap, allowed
    others = [_t(f"o{i}", 100 + 50 * i, 1100, side="red") for i in range(10)]
    mover = _t("m", 100, 100, route=[[0, 0], [10_000, 0]])
    ok = parse_scenario(_doc([mover, *others]))
    assert ok.troopers[0].route is not None
    # one more trooper: 10 m x 11 = 110 m x troopers, refused on the route's field
    doc = _doc([mover, *others, _t("extra", 600, 600, side="red")])
    msg = (
        r"troopers\[0\]\.route: 10\.0 m of travel x 11 other troopers makes the routes "
        r"110 m x troopers of Line of Fire scans \(about 2 min\), more than the 100 a "
        r"scenario may have; shorten the route or check it with fewer troopers"
    )
    with pytest.raises(ScenarioError, match=msg):
        parse_scenario(doc)


def test_two_routes_add_up_and_the_second_is_named():
    others = [_t(f"o{i}", 100 + 50 * i, 1100, side="red") for i in range(4)]
    a = _t("a", 0, 0, route=[[0, 0], [12_000, 0]])  # 12 m x 5 others = 60 m x troopers
    b = _t("b", 0, 100, route=[[0, 100], [9_000, 100]])  # 9 m x 5 = 45: 105 in all
    with pytest.raises(ScenarioError, match=r"troopers\[1\]\.route: 9\.0 m of travel x 5 "):
        parse_scenario(_doc([a, b, *others]))
    # a lone mover scans nobody: no cap
    assert parse_scenario(_doc([_t("a", 0, 0, route=[[0, 0], [900_000, 0]])])).troopers


@pytest.mark.parametrize(
    ("section", "where"),
    [("troopers", "troopers[1].id"), ("scenery", "scenery[0].id"), ("zones", "zones[0].id")],
)
def test_ids_are_at_most_200_characters(section, where):
    long_id = "x" * 50_000
    troopers = [_t("a", 100, 100), _t("b", 300, 300, side="red")]
    top: dict = {}
    if section == "troopers":
        troopers[1]["id"] = long_id
    elif section == "scenery":
        top["scenery"] = [{"id": long_id, "box": {"size": [10, 10, 10]}, "position": [600, 600]}]
    else:
        top["zones"] = [{"id": long_id, "rect": [0, 0, 100, 100]}]
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_doc(troopers, **top), file="test.yaml")
    assert str(err.value) == (
        f"test.yaml: {where}: 50,000 characters, more than the 200 an id may have"
    )
    # 200 characters are fine
    troopers[1]["id"] = "y" * MAX_ID_CHARS
    assert parse_scenario(_doc(troopers)).troopers[1].id == "y" * 200


def test_an_attack_id_is_capped_too():
    troopers = [_t("a", 100, 100), _t("b", 300, 300, side="red")]
    attack = {"id": "z" * 201, "attacker": "a", "template": "small_teardrop"}
    with pytest.raises(ScenarioError, match=r"attacks\[0\]\.id: 201 characters, more than"):
        parse_scenario(_doc(troopers, attacks=[attack]))
