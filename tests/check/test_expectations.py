"""The per-field comparisons of an ``expect`` block (geom3d/check/expectations.py)."""

from __future__ import annotations

import math

import pytest

from geom3d.check.expectations import Checks, check_affected, check_excluded, plain, same, show


def test_same_numbers_bools_lists_and_mappings():
    assert same(1, 1.0005) and not same(1, 1.01)
    assert not same(True, 1) and not same(0, False)
    assert same([1, {"a": 2.0}], [1.0, {"a": 2}])
    assert same({"a": 1}, {"a": 1, "b": 2})  # only what the expectation writes
    assert not same({"a": 1, "b": 2}, {"a": 1})
    assert not same([1, 2], [2, 1])
    assert not same([1], [1, 2])
    assert same("blocked", "blocked") and not same("blocked", "no_lof")


def test_plain_and_show_are_json_safe():
    assert plain((1, {2: {"b", "a"}})) == [1, {"2": ["a", "b"]}]
    assert plain(math.inf) == "inf"
    assert show({"b": 1, "a": [True, None]}) == '{"a": [true, null], "b": 1}'


def test_affected_is_a_set_of_ids():
    c = Checks()
    check_affected(c, "x", ["b", "a", "a"], ["a", "b"])
    check_affected(c, "y", ["a"], ["a", "b"])
    check_affected(c, "z", "a", ["a"])
    assert [i["status"] for i in c.items] == ["pass", "fail", "error"]
    assert c.items[0]["expected"] == ["a", "b"]
    assert c.items[2] == {
        "check": "z",
        "status": "error",
        "message": "expected a list of trooper ids",
        "expected": "a",
    }


def test_excluded_ids_or_id_reason_pairs():
    actual = [{"id": "t3", "reason": "total_cover"}, {"id": "beta", "reason": "attacker"}]
    c = Checks()
    check_excluded(c, "ids", ["beta", "t3"], actual)
    check_excluded(c, "pairs", [{"id": "t3", "reason": "total_cover"}, "beta"], actual)
    check_excluded(c, "bad-reason", [{"id": "t3", "reason": "attacker"}, "beta"], actual)
    check_excluded(c, "missing", ["beta"], actual)
    check_excluded(c, "id-only-dict", [{"id": "t3"}, {"id": "beta"}], actual)
    check_excluded(c, "malformed", [{"id": "t3", "why": "x"}], actual)
    assert [i["status"] for i in c.items] == ["pass", "pass", "fail", "fail", "pass", "error"]
    assert c.items[2]["actual"] == [
        {"id": "beta", "reason": "attacker"},
        {"id": "t3", "reason": "total_cover"},
    ]
    assert c.items[3] == {
        "check": "missing",
        "status": "fail",
        "expected": ["beta"],
        "actual": ["beta", "t3"],
        "difference": "unexpected: t3",
    }
    assert c.items[2]["difference"] == "t3: reason total_cover, expected attacker"


def test_mismatches_read_as_set_differences():
    # issue 35: "missing: t-cover (excluded: total_cover)" - the result's own reason for a
    # trooper the expectation wanted affected
    c = Checks()
    excluded = [{"id": "t-cover", "reason": "total_cover"}, {"id": "a", "reason": "attacker"}]
    check_affected(c, "attacks.x.affected", ["e1", "t-cover"], ["e1", "e9"], excluded)
    assert c.items[0]["difference"] == ("missing: t-cover (excluded: total_cover); unexpected: e9")
    check_excluded(c, "attacks.x.excluded", ["a", "q"], excluded)
    assert c.items[1]["difference"] == "missing: q; unexpected: t-cover"


def test_tolerance_bounds_are_inclusive():
    from geom3d.check.expectations import same

    assert same({"min": 20}, 20) and same({"min": 20}, 20.5)
    assert not same({"min": 20}, 19.999)
    assert same({"max": 5}, 5) and not same({"max": 5}, 5.001)
    assert same({"min": 1, "max": 2}, 1) and same({"min": 1, "max": 2}, 2)
    assert not same({"min": 1, "max": 2}, 2.001) and not same({"min": 1, "max": 2}, 0.999)
    assert same({"approx": 10, "tol": 0.5}, 10.5) and same({"approx": 10, "tol": 0.5}, 9.5)
    assert not same({"approx": 10, "tol": 0.5}, 10.501)
    assert same({"approx": 10}, 10.001) and not same({"approx": 10}, 10.002)  # CHECK_NUMBER_TOL
    # a tolerance never matches something that is not a number
    assert not same({"min": 0}, None) and not same({"min": 0}, True) and not same({"min": 0}, "1")
    # inside lists and mappings too
    assert same([{"x": {"approx": 100, "tol": 1}}], [{"x": 100.9, "y": 3}])


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"min": 1, "approx": 2}, "a tolerance is"),
        ({"tol": 1}, "a tolerance is"),
        ({"min": "a"}, "tolerance min: expected a finite number"),
        ({"max": True}, "tolerance max: expected a finite number"),
        ({"min": 3, "max": 2}, "min 3 is greater than max 2"),
        ({"approx": 3, "tol": -1}, "must not be negative"),
    ],
)
def test_malformed_tolerance_is_an_error_check(spec, words):
    c = Checks()
    c.compare("x", spec, 1.0)
    (item,) = c.items
    assert item["status"] == "error" and words in item["message"], item
