"""Many seeded random moves through a :class:`Session` (which re-stands the moved trooper
in the scene it keeps, :meth:`Scene.restand`), each checked against ``geom3d lof`` on
the saved file, read and built from scratch: the moved trooper's pairs byte for byte,
every trooper's placement, the whole matrix (the carried-over pairs included) and the
scene's messages. Spots on open ground, on the building's roof, behind the wall, on the
crate's lid, onto another trooper, prone and standing, turned; explicit ``[x, y, z]``
spots, inside the crate too (refused, the scene unchanged)."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from geom3d.api import build_scene
from geom3d.commands.answers import lof_report
from geom3d.core.output import dumps_json
from geom3d.scenario import load_scenario
from geom3d.scene.scene import clear_scene_cache
from geom3d.serve.session import BadRequest, Session

#: Seeded random moves per test (each checked against a scene built from scratch).
MOVES = 16


def _spot(rng: np.random.Generator, kind: str) -> list[float]:
    """A spot (mm) of the conftest table of the given kind."""
    u = rng.uniform
    if kind == "roof":  # the building: 400..500 x 400..500, roof at 80 mm
        return [u(412, 488), u(412, 488)]
    if kind == "behind_wall":  # the wall: x 200..400, y 295..305, 60 mm tall; bases clear
        return [u(210, 390), float(rng.choice([u(255, 270), u(330, 345)]))]
    if kind == "lid":  # the crate: 120..180 x 420..480, lid at 50 mm
        return [u(130, 170), u(430, 470)]
    if kind == "in_crate":  # explicit z inside the sealed crate: refused
        return [u(135, 165), u(435, 465), u(5, 10)]
    if kind == "explicit":  # explicit z on open ground, a little above it
        return [u(40, 160), u(40, 240), u(0, 3)]
    while True:  # open ground: the base (at most 20 mm in radius) clear of every piece
        x, y = u(30, 570), u(30, 570)
        if not any(abs(x - cx) < hx + 25 and abs(y - cy) < hy + 25 for cx, cy, hx, hy in _PIECES):
            return [x, y]


#: The conftest pieces' plan footprints: centre x, y and half sizes (mm).
_PIECES = ((300, 300, 100, 5), (450, 450, 50, 50), (150, 450, 30, 30))


def _check(session: Session, tid: str) -> None:
    """The session against ``geom3d lof`` on its saved file, read and built anew."""
    saved = session.path.parent / session.save()["file"]
    clear_scene_cache()
    scene = build_scene(load_scenario(saved))
    fresh = lof_report(scene, areas=False)
    got = session.pairs_of(tid)
    want = [p for p in fresh["pairs"] if tid in (p["from"], p["to"])]
    assert dumps_json(got["pairs"]) == dumps_json(want)
    whole = lof_report(session.scene, areas=False)
    assert dumps_json(whole["pairs"]) == dumps_json(fresh["pairs"])
    assert dumps_json(whole["troopers"]) == dumps_json(fresh["troopers"])
    assert [str(w) for w in session.scene.warnings] == [str(w) for w in scene.warnings]
    assert [w.severity for w in session.scene.warnings] == [w.severity for w in scene.warnings]
    assert session.scene.troopers == scene.troopers  # every field, the floats exact


@pytest.mark.parametrize("seed", [0, 1])
def test_random_moves_answer_as_lof_on_the_saved_file(tmp_path, table_dict, seed):
    data = table_dict
    data["troopers"] += [
        {"id": "e", "side": "blue", "position": [60, 540], "silhouette": 1, "engaged_with": ["c"]},
        {"id": "f", "side": "red", "position": [560, 320], "facing_deg": 200, "silhouette": 5},
    ]
    path = tmp_path / "table.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    s = Session(path)
    s.warm()
    rng = np.random.default_rng(seed)
    kinds = ["open", "roof", "behind_wall", "lid", "in_crate", "explicit", "onto"]
    ids = list(s.scene.troopers)
    seen: set[str] = set()
    refused = 0
    overlaps = False
    for n in range(MOVES):
        kind = kinds[n % len(kinds)] if n < len(kinds) else str(rng.choice(kinds))
        tid = str(rng.choice(ids))
        if kind == "onto":  # next to (overlapping, or in contact with) another trooper
            other = s.scene.troopers[str(rng.choice([i for i in ids if i != tid]))]
            spot = [other.position[0] + float(rng.uniform(-30, 30)), other.position[1]]
        else:
            spot = _spot(rng, kind)
        facing = float(rng.uniform(0, 360)) if rng.random() < 0.5 else None
        prone = bool(rng.random() < 0.5) if rng.random() < 0.6 else None
        before = (s.generation, s.scene)
        try:
            r = s.move(tid, spot, facing_deg=facing, prone=prone)
        except BadRequest as exc:
            # beside a trooper may be against a piece's side
            assert kind in ("in_crate", "onto"), (kind, spot, str(exc))
            assert "embedded" in str(exc) or "enclosed" in str(exc)
            assert (s.generation, s.scene) == before  # a refusal changes nothing
            refused += 1
            continue
        assert kind != "in_crate", spot
        seen.add(kind)
        z = r["trooper"]["position"][2]
        if kind == "roof":
            assert z == pytest.approx(80.0)
        elif kind == "lid":
            assert z == pytest.approx(50.0)
        elif kind == "behind_wall":
            assert z == 0.0
        if prone is not None:
            assert s.scene.troopers[tid].is_prone == prone
        _check(s, tid)
        overlaps |= any("overlap" in w for w in s.scene.warnings)
    assert refused >= 1 and {"open", "roof", "behind_wall", "lid", "explicit", "onto"} <= seen
    assert overlaps


def test_a_spot_far_up_is_refused_as_the_file_would_be(table_file):
    """A z the scenario reader refuses (over ``MAX_COORD_MM``) is a 400, not a scene."""
    from geom3d.core.tolerances import MAX_COORD_MM

    s = Session(table_file)
    with pytest.raises(BadRequest, match="too large"):
        s.move("a", [100, 100, 2 * MAX_COORD_MM])
    assert s.generation == 0
