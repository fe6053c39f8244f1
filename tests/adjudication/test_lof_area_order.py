"""``visible_area_mm2`` is the same whichever command asks (issue 35): a single-pair query
and the matrix search a pair's witness in one canonical order (ids sorted)."""

from __future__ import annotations

import pytest
from support import make_scene, trooper

from geom3d.adjudication.lof import line_of_fire, lof_matrix


def _scene():
    # a small trooper (S2) and a tall one (S4) facing each other on open ground: the
    # area of the tall one seen from the small one's eye differs from the reverse
    return make_scene(
        [trooper("a", [0, 0], facing_deg=0), trooper("b", [300, 0], side="red",
                                                        facing_deg=180, silhouette=4)]
    )  # fmt: skip


@pytest.mark.parametrize(("x", "y"), [("a", "b"), ("b", "a")])
def test_single_pair_and_matrix_agree(x, y):
    single = line_of_fire(_scene(), x, y).to_dict()["witness"]
    matrix = next(
        r for r in lof_matrix(_scene(), areas=True) if (r.from_id, r.to_id) == (x, y)
    ).to_dict()["witness"]
    assert single == matrix
    # the witness is searched from "a" (ids sorted) whichever way the pair is asked
    assert single["viewer"] == "a"


def test_asking_the_reverse_first_changes_nothing():
    s = _scene()
    ba = line_of_fire(s, "b", "a").to_dict()["witness"]
    ab = line_of_fire(s, "a", "b").to_dict()["witness"]
    fresh = line_of_fire(_scene(), "a", "b").to_dict()["witness"]
    assert ab == fresh == ba
