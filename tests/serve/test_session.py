"""The session behind ``geom3d serve`` (SPEC 13.6): moves answered as ``geom3d lof`` answers
the saved scenario, refused spots, saving beside the input."""

from __future__ import annotations

import pytest

from geom3d.api import build_scene
from geom3d.commands.answers import attack_report, lof_report
from geom3d.core.output import dumps_json
from geom3d.scenario import load_scenario
from geom3d.scene.scene import clear_scene_cache
from geom3d.serve.reach import may_change
from geom3d.serve.session import BadRequest, NotFound, Session


def _fresh(path):
    """``geom3d lof``'s document of a scenario file, from a scene built anew (empty
    visibility cache)."""
    clear_scene_cache()
    return lof_report(build_scene(load_scenario(path)), areas=False)


def _involving(doc, tid):
    return [p for p in doc["pairs"] if tid in (p["from"], p["to"])]


def _saved_matches(session, moved):
    """Save, then check every moved trooper's pairs and the whole current matrix against
    ``geom3d lof`` on the saved file."""
    name = session.save()["file"]
    saved = session.path.parent / name
    fresh = _fresh(saved)
    for tid in moved:
        got = session.pairs_of(tid)
        assert dumps_json(got["pairs"]) == dumps_json(_involving(fresh, tid))
        placed = next(t for t in fresh["troopers"] if t["id"] == tid)
        assert got["trooper"]["position"] == placed["position"]
    whole = lof_report(session.scene, areas=False)  # the carried-over cache included
    assert dumps_json(whole["pairs"]) == dumps_json(fresh["pairs"])
    # every trooper placed as the file places it, the [x, y] ones "dropped"
    assert dumps_json(session.scene_doc()["troopers"]) == dumps_json(fresh["troopers"])
    return saved


def test_moves_answer_as_lof_on_the_saved_file(table_file):
    before = table_file.read_bytes()
    s = Session(table_file)
    s.warm()
    # open ground
    r = s.move("a", [200, 200])
    assert r["trooper"] == {"id": "a", "position": [200.0, 200.0, 0.0]}
    assert len(r["pairs"]) == 6  # every ordered pair with a: 3 others, both ways
    assert {(p["from"], p["to"]) for p in r["pairs"]} == {
        (x, y) for x in "abcd" for y in "abcd" if x != y and "a" in (x, y)
    }
    # behind the wall: a (S2, 40 mm) south of a 60 mm wall, b north of it, both
    # within its 200 mm length: no segment between them passes the wall
    s.move("a", [300, 250])
    r = s.move("b", [300, 330])
    ab = next(p for p in r["pairs"] if (p["from"], p["to"]) == ("a", "b"))
    assert (ab["lof"], ab["reason"]) == (False, "blocked")
    # onto the roof: [x, y] stands on the building's top, z = 80 mm
    r = s.move("c", [450, 450], facing_deg=270)
    assert r["trooper"]["position"] == [450.0, 450.0, 80.0]
    _saved_matches(s, "abc")
    assert table_file.read_bytes() == before  # the input is never written


def test_turn_and_prone(table_file):
    s = Session(table_file)
    r = s.move("b", [300, 420], facing_deg=90)  # b faces away from a (south of it)
    ba = next(p for p in r["pairs"] if (p["from"], p["to"]) == ("b", "a"))
    assert (ba["lof"], ba["reason"]) == (False, "out_of_arc")
    s.move("d", [520, 150], prone=True)
    assert s.scene.troopers["d"].height == s.scene.ruleset.base_height
    doc = s.scene_doc()
    assert next(t for t in doc["troopers"] if t["id"] == "d")["states"] == ["prone"]
    _saved_matches(s, "bd")
    s.move("d", [520, 150], prone=False)
    assert "prone" not in s.scene.troopers["d"].states


def test_moving_between_two_troopers_changes_their_pair(table_file):
    """A trooper that steps between two others (or out from between them) changes their
    pair: the cache carried from scene to scene must drop it (geom3d.serve.reach)."""
    s = Session(table_file)
    s.warm()
    s.move("a", [300, 100])  # a and d in the open, south of the wall
    s.move("d", [500, 100], facing_deg=180)
    s.move("b", [400, 100])  # the S3 b between them: a tall body in the way
    assert may_change(s.scene.troopers["b"], s.scene.troopers["a"], s.scene.troopers["d"])
    _saved_matches(s, "b")
    s.move("b", [400, 560])  # out of the way again
    _saved_matches(s, "b")


def test_refused_spots_leave_the_scene_unchanged(table_file):
    s = Session(table_file)
    s.move("c", [450, 450])
    gen = s.generation
    with pytest.raises(BadRequest, match="embedded in scenery"):
        s.move("c", [150, 450, 10])  # inside the sealed crate (13.1: solid space)
    with pytest.raises(BadRequest, match="off the table"):
        s.move("c", [700, 100])
    with pytest.raises(BadRequest, match="position"):
        s.move("c", [1, "x"])
    with pytest.raises(BadRequest, match="finite"):
        s.move("c", [1, float("nan")])
    with pytest.raises(BadRequest, match="prone"):
        s.move("c", [100, 100], prone="yes")
    with pytest.raises(NotFound):
        s.move("nobody", [100, 100])
    assert s.generation == gen
    assert s.scene.troopers["c"].position == (450.0, 450.0, 80.0)


def test_crate_top_is_a_roof(table_file):
    """[x, y] over the sealed crate stands on its lid (50 mm), never inside it."""
    s = Session(table_file)
    r = s.move("c", [150, 450])
    assert r["trooper"]["position"] == [150.0, 450.0, 50.0]


def test_attack_as_geom3d_attack(table_file):
    s = Session(table_file)
    s.move("c", [200, 120])
    got = s.attack("grenade")
    drawing = got.pop("drawing")
    saved = table_file.parent / s.save()["file"]
    clear_scene_cache()
    want = attack_report(build_scene(load_scenario(saved)), ["grenade"])
    assert (got.pop("scenario"), want.pop("scenario")) == ("table.yaml", saved.name)
    assert dumps_json(got) == dumps_json(want)  # every other field, byte for byte
    assert "c" in got["attacks"][0]["affected"]
    assert len(drawing) == 1 and len(drawing[0]["outline"]) > 8
    with pytest.raises(NotFound):
        s.attack("nothing")


def test_save_never_overwrites(table_file):
    s = Session(table_file)
    s.move("a", [250, 150])
    taken = table_file.parent / "table.moved-1.yaml"
    taken.write_text("mine\n")
    name = s.save()["file"]
    assert name == "table.moved-2.yaml"
    assert taken.read_text() == "mine\n"
    assert load_scenario(table_file.parent / name).trooper("a").position == (250.0, 150.0)


def test_units_round_trip(tmp_path, table_dict):
    """A scenario in inches: a move in mm is saved in inches and read back to the same
    placement."""
    import yaml

    data = table_dict
    k = 25.4
    for section in ("scenery",):
        for piece in data[section]:
            piece["box"]["size"] = [v / k for v in piece["box"]["size"]]
            piece["position"] = [v / k for v in piece["position"]]
    for t in data["troopers"]:
        t["position"] = [v / k for v in t["position"]]
    data["table"]["size"] = [v / k for v in data["table"]["size"]]
    data["units"] = "in"
    path = tmp_path / "inches.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    s = Session(path)
    s.move("a", [212.3, 180.7])
    _saved_matches(s, "a")


def test_stale_pairs_agree_with_may_change():
    """The vectorised test of :func:`stale_pairs` against :func:`may_change`, one pair at
    a time, on seeded random troopers (markers too)."""
    import numpy as np

    from geom3d.scene.trooper import Trooper
    from geom3d.serve.reach import stale_pairs

    rng = np.random.default_rng(5)

    def t(i):
        return Trooper(
            id=f"t{i}",
            side="blue",
            position=(
                float(rng.uniform(0, 300)),
                float(rng.uniform(0, 300)),
                float(rng.uniform(0, 40)),
            ),
            facing_deg=0.0,
            silhouette=None,
            diameter=float(rng.uniform(20, 60)),
            height=float(rng.uniform(3, 60)),
            states=frozenset(["marker"] if i % 7 == 3 else []),
        )

    for _ in range(20):
        troopers = {f"t{i}": t(i) for i in range(12)}
        old = t(0)
        keys = [(f"t{i}", f"t{j}") for i in range(12) for j in range(i + 1, 12)]
        want = {k for k in keys if "t0" in k or may_change(old, *(troopers[x] for x in k))
                or may_change(troopers["t0"], *(troopers[x] for x in k))}  # fmt: skip
        assert stale_pairs(keys, troopers, "t0", old) == want
        assert len(want) < len(keys)  # some pairs are kept


def test_a_newer_move_cancels_an_older_one(tmp_path, table_dict, monkeypatch):
    """A move whose pairs are still being searched when a newer move comes stops at its
    next pair (Superseded, HTTP 409); the newer one answers. Each pair search of the first
    move is held here until the second move has taken its generation, so that the first
    move is surely still searching however slow the machine is."""
    import threading
    import time

    import yaml

    import geom3d.rules.base as base
    from geom3d.serve.session import PAIR_THREADS, Superseded

    data = table_dict
    data["troopers"] += [
        {"id": f"x{i}", "side": "red", "position": [40 + 40 * i, 560], "silhouette": 1}
        for i in range(2 * PAIR_THREADS + 2)
    ]
    path = tmp_path / "many.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    s = Session(path)
    plain = base.line_of_fire
    searching = threading.Event()
    first_generation = s.generation + 1

    def held(*args, **kwargs):
        if s.generation == first_generation:  # a search of the first move
            searching.set()
            deadline = time.monotonic() + 60
            while s.generation == first_generation and time.monotonic() < deadline:
                time.sleep(0.01)
        return plain(*args, **kwargs)

    monkeypatch.setattr(base, "line_of_fire", held)
    got: list = []

    def first():
        try:
            got.append(s.move("a", [250, 150]))
        except Superseded as exc:
            got.append(exc)

    thread = threading.Thread(target=first)
    thread.start()
    assert searching.wait(60)  # the first move is searching its first pairs
    second = s.move("d", [500, 120])
    thread.join(60)
    assert isinstance(got[0], Superseded), got
    assert second["trooper"]["id"] == "d"
    assert s.scene.troopers["a"].position[:2] == (250.0, 150.0)  # the first move stands
    assert len(s.pairs_of("a")["pairs"]) == 2 * (len(s.scene.troopers) - 1)
