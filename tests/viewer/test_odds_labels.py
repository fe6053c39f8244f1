"""``render --odds`` (SPEC 12.4): each affected trooper's label carries its exact odds."""

from __future__ import annotations

import pytest

pytest.importorskip("pyvista")

from support import REPO, make_scene, trooper

from geom3d import load_scene
from viewer.compose import build_drawing

pytestmark = pytest.mark.viewer

GRENADE = REPO / "meshes" / "scenarios" / "attacks" / "grenade_odds.yaml"


def test_labels_and_notes_carry_the_odds():
    scene = load_scene(GRENADE)
    d = build_drawing(scene, attack="grenade", odds=True)
    texts = {lb.text for lb in d.labels}
    # the values of tests/combat/test_rolls.py and test_attack_odds.py: t1 12/25 hit,
    # wounded 173/400 * 3/5 + 19/400 * 21/25 = 29.9 %
    assert "t1 (main target): P(hit) 48.0%, P(wounded) 29.9%, E(W) 0.32" in texts
    assert any(t.startswith("t3: P(hit) 54.8%") for t in texts)
    assert (
        "t3: face to face: 1@13 vs 1@8, P(critical) 0.0%; attacker wins 54.8%, t3 wins "
        "22.5%, nobody 22.8%" in d.notes
    )
    assert any(
        n.startswith("t2: face to face") and "shoots back 1@11: P(hit) 33.8%" in n
        and "attacker P(wounded) 11.2%" in n
        for n in d.notes
    )  # fmt: skip
    # the side panel names each reaction: t2 shoots back, nobody here is "none"
    assert "  t2: secondary, shoots back" in d.notes and "  t1: main, dodge PH" in d.notes
    # without --odds the labels are as before
    plain = {lb.text for lb in build_drawing(scene, attack="grenade").labels}
    assert "t1 (main target): hit" in plain and not any("P(hit)" in t for t in plain)


def test_a_trooper_that_declares_nothing_is_not_labelled_with_a_dodge():
    ts = [
        trooper("a", [100, 100], stats={"bs": 13}),
        trooper("t", [250, 100], side="red", stats={"arm": 1}, reaction="none"),
    ]
    att = {"id": "g", "attacker": "a", "template": "circular", "mode": "impact",
           "main_target": "t", "weapon": {"ps": 7}}  # fmt: skip
    d = build_drawing(make_scene(ts, attacks=[att]), attack="g", odds=True)
    assert "  t: main, no reaction" in d.notes
    assert not any("dodge" in n for n in d.notes if n.startswith("  t:"))


def test_a_plain_attack_labels_its_target_with_the_face_to_face_summary():
    ts = [
        trooper("a", [0, 0], stats={"bs": 13, "arm": 1}),
        trooper("t", [200, 0], side="red", facing_deg=180, stats={"bs": 12, "arm": 2},
                reaction={"attack": {"ps": 4}}),
    ]  # fmt: skip
    att = {"id": "p", "attacker": "a", "target": "t", "weapon": {"burst": 3, "ps": 5}}
    d = build_drawing(make_scene(ts, attacks=[att]), attack="p", odds=True)
    assert any(lb.text.startswith("t (target): P(hit)") for lb in d.labels)
    assert "  t: target, shoots back" in d.notes
    assert any(n.startswith("t: face to face: 3@13 vs 1@12") and "t wins" in n for n in d.notes)
