"""Shared scene and attack data of the viewer tests.

Scenes are small scenario files written to a temporary folder: a 400 x 300 mm table, one
wall, a non-blocking crate, an attacker ``a`` facing +x, a main target ``t1``
(silhouette 4, wide base) that the attack affects, ``t2`` that it does not, and ``t3``
excluded by total cover.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pyvista")

from geom3d import load_scene
from geom3d.templates import TemplateVolume, shape_from_spec

SCENARIO = """\
format: geom3d/1
units: mm
ruleset: infinity
table:
  size: [400, 300]
scenery:
  - id: wall
    box: {size: [10, 120, 60]}
    position: [180, 250, 0]
  - id: crate
    box: {size: [30, 30, 20]}
    position: [330, 260, 0]
    blocks_lof: false
troopers:
  - {id: a, side: blue, position: [60, 150], facing_deg: 0, silhouette: 2}
  - {id: b, side: blue, position: [60, 250], facing_deg: 0, silhouette: 2}
  - {id: t1, side: red, position: [300, 150], facing_deg: 180, silhouette: 4}
  - {id: t2, side: red, position: [300, 50], facing_deg: 180, silhouette: 4}
  - {id: t3, side: red, position: [260, 250], facing_deg: 180, silhouette: 2}
attacks:
  - id: shot1
    attacker: a
    template: large_teardrop
    mode: direct
    main_target: t1
    heading_deg: 0
"""


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    d = tmp_path_factory.mktemp("viewer")
    path = d / "table.yaml"
    path.write_text(SCENARIO)
    return load_scene(path)


@pytest.fixture
def volume(scene):
    """The attack's template placed with its focus at a's front edge, heading +x."""
    spec = scene.scenario.attacks[0]
    return TemplateVolume(shape_from_spec(spec.template), (72.5, 150.0, 0.0), 0.0)


@pytest.fixture
def attack_doc():
    """A SPEC section 6 attack entry, as the engine's AttackResult.to_dict() gives it."""
    return {
        "id": "shot1",
        "outcome": "resolved",
        "reason": None,
        "main_target_in_area": True,
        "affected": ["t1"],
        "excluded": [{"id": "t3", "reason": "total_cover"}, {"id": "a", "reason": "attacker"}],
        "troopers": {
            "t1": {
                "role": "main",
                "dodge": "PH",
                "face_to_face": False,
                "critical_applies": True,
                "partial_cover_bonus": False,
            }
        },
        "placements": [{"focus": [72.5, 150.0, 0.0], "heading_deg": 0.0, "affected": ["t1"]}],
    }


class FakeAttackResult:
    """Stands in for geom3d's AttackResult: ``to_dict()`` and ``volumes``."""

    def __init__(self, doc: dict, volumes: list):
        self._doc = doc
        self.volumes = volumes

    def to_dict(self) -> dict:
        return self._doc


@pytest.fixture
def fake_attack(scene, monkeypatch, attack_doc, volume):
    """``scene.resolve_attack`` answers the fake result; returns that result."""
    res = FakeAttackResult(attack_doc, [volume.scaled(0.5)])
    monkeypatch.setattr(scene, "resolve_attack", lambda attack_id: res)
    return res
