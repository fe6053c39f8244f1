"""The danger map (``geom3d exposure --odds``, SPEC 13.2): each sampled cell's
``p_hit_by`` equals ``attack --odds`` of a plain ARO by that observer on a trooper
standing there (reaction none), and ``p_hit`` combines them as independent AROs; an
observer without a weapon profile is an input error."""

from __future__ import annotations

import json

import pytest
import yaml
from support import box, make_scene, trooper

from geom3d.cli import main
from geom3d.core.errors import ScenarioError
from geom3d.exposure import exposure
from geom3d.exposure.odds import add_danger_odds

BANDS = [{"to": 150, "mod": 3}, {"to": 300, "mod": 0}, {"to": 450, "mod": -3}]
PROFILE = {"attack": {"ps": 4, "ranges": BANDS}}
# the wall touches the probe on the 40 mm grid's cell (270, 190) (its edge at 257.5) on
# o1's side: Partial Cover from o1
SCENERY = [box("wall", [2, 80, 15], [256.5, 190, 0]), box("block", [40, 40, 60], [150, 320, 0])]


def _observers():
    return [
        trooper("o1", [40, 60], side="red", facing_deg=45, stats={"bs": 12}, reaction=PROFILE),
        trooper("o2", [380, 40], side="red", facing_deg=135, stats={"bs": 10},
                reaction={"attack": {"ps": 4, "mod": 1}}),
    ]  # fmt: skip


def _scene(extra=(), attacks=()):
    return make_scene([*_observers(), *extra], SCENERY, table={"size": [420, 420]},
                      attacks=list(attacks))  # fmt: skip


def _attack_p(cell, oid):
    """attack --odds of a plain ARO by ``oid`` on a trooper standing on ``cell``."""
    w = next(t for t in _observers() if t["id"] == oid)["reaction"]["attack"]
    p = trooper("p", cell["position"][:2], side="blue", reaction="none", stats={"arm": 1})
    att = {"id": "aro", "attacker": oid, "target": "p", "aro": True, "weapon": w}
    d = _scene([p], [att]).resolve_attack("aro", odds=True).to_dict()
    if d["outcome"] != "resolved":
        return 0.0
    return d["troopers"]["p"]["odds"]["p_hit"]


def test_danger_map_matches_attack_odds_on_sampled_cells():
    s = _scene()
    doc = exposure(s, observers="red", spacing_mm=40, workers=1)
    add_danger_odds(s, doc)
    cells = doc["cells"]
    assert doc["odds"]["profiles"]["o1"]["ranges"][0] == {"to": 150.0, "mod": 3}
    # the cell touching the wall: from o1 (centres 264.0 mm apart: 239.0 between the
    # silhouettes, band 150-300, +0) BS 12 - 3 for Partial Cover: P(hit) = 9/20 by hand
    near = next(c for c in cells if c["position"][:2] == [270.0, 190.0])
    assert "o1" in near["seen_by"]
    assert near["p_hit_by"]["o1"] == pytest.approx(9 / 20)
    sample = [near, *cells[:: max(1, len(cells) // 6)]]
    for cell in sample:
        miss = 1.0
        for oid in ("o1", "o2"):
            want = _attack_p(cell, oid)
            got = cell["p_hit_by"].get(oid, 0.0)
            assert got == pytest.approx(want, abs=1e-6), (cell["position"], oid)
            miss *= 1.0 - got
        assert cell["p_hit"] == pytest.approx(1.0 - miss, abs=1e-6)


def test_an_observer_without_a_weapon_profile_is_an_input_error():
    s = make_scene([trooper("o", [40, 60], side="red", stats={"bs": 12})], SCENERY)
    doc = exposure(s, observers="red", spacing_mm=100, workers=1)
    with pytest.raises(ScenarioError) as err:
        add_danger_odds(s, doc)
    assert err.value.path == "troopers[0].reaction"


def _write(tmp_path, troopers):
    doc = {"format": "geom3d/1", "units": "mm", "table": {"size": [420, 420]},
           "scenery": SCENERY, "troopers": troopers}  # fmt: skip
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


def test_the_command_writes_the_danger_map_and_rejects_observers_without_profiles(tmp_path, capsys):
    p = _write(tmp_path, _observers())
    out = tmp_path / "out"
    argv = ["exposure", str(p), "--observers", "red", "--spacing", "100", "--odds",
            "--out", str(out), "--workers", "1", "--quiet"]  # fmt: skip
    assert main(argv) == 0
    doc = json.loads((out / "exposure.json").read_text())
    assert set(doc["odds"]["profiles"]) == {"o1", "o2"}
    assert all("p_hit" in c and set(c["p_hit_by"]) == set(c["seen_by"]) for c in doc["cells"])
    capsys.readouterr()
    bare = [trooper("o", [40, 60], side="red", stats={"bs": 12})]
    assert main([*argv[:1], str(_write(tmp_path, bare)), *argv[2:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "troopers[0].reaction" in err and "Traceback" not in err
