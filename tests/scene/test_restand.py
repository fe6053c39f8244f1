"""``Scene.restand``: one trooper moved in a kept scene equals the scene built from scratch
with that trooper's entry changed (troopers, messages in order, Line of Fire), on seeded
random moves: open ground, a container's roof, inside the sealed container (enclosed),
into a wall (embedded), onto another trooper (overlap), prone, turned."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.core.errors import InputError, UnknownIdError

#: A sealed container, 150 x 150 mm (floor 0..3, walls 3 mm thick up to 63, roof 63..66)
#: centred on (200, 200), and a wall, on a 400 mm table.
SCENERY = [
    box("floor", [150, 150, 3], [200, 200, 0]),
    box("roof", [150, 150, 3], [200, 200, 63]),
    box("wall_n", [150, 3, 60], [200, 273.5, 3]),
    box("wall_s", [150, 3, 60], [200, 126.5, 3]),
    box("wall_w", [3, 150, 60], [126.5, 200, 3]),
    box("wall_e", [3, 150, 60], [273.5, 200, 3]),
    box("wall", [100, 8, 50], [200, 340, 0]),
]
TABLE = {"size": [400, 400]}


def _troopers() -> list[dict]:
    return [
        trooper("a", [40, 40], facing_deg=45),
        trooper("b", [360, 60], side="red", facing_deg=135, silhouette=3),
        trooper("c", [200, 370], side="red", facing_deg=270, engaged_with=["d"]),
        trooper("d", [220, 372], facing_deg=90, silhouette=1),
        trooper("m", [60, 360], state=["marker"]),
        trooper("r", [350, 300], side="red", route=[[350, 300], [300, 380]]),
        trooper("e", [200, 200]),  # on the roof
    ]


def _moved(entries: list[dict], tid: str, pos, facing, prone) -> list[dict]:
    out = copy.deepcopy(entries)
    t = next(t for t in out if t["id"] == tid)
    t["position"] = list(pos)
    if facing is not None:
        t["facing_deg"] = facing
    if prone is not None:
        states = [s for s in t.get("state", []) if s != "prone"]
        t["state"] = [*states, "prone"] if prone else states
    return out


def _same(got, want, tid: str) -> None:
    assert got.troopers == want.troopers  # every field, the floats exact
    assert [(str(w), w.severity) for w in got.warnings] == [
        (str(w), w.severity) for w in want.warnings
    ]
    ids = [i for i in want.troopers if i != "r"]  # a route's pairs: a scan, slow
    pairs = [(x, y) for x in ids for y in ids if x != y and tid in (x, y)]
    got_lof = [r.to_dict(area=False) for r in got.lof_matrix(pairs)]
    assert got_lof == [r.to_dict(area=False) for r in want.lof_matrix(pairs)]


def _spot(rng, kind: str):
    u = rng.uniform
    return {
        "open": lambda: [u(20, 110), u(20, 110)],
        "roof": lambda: [u(150, 250), u(150, 250)],
        "inside": lambda: [u(160, 240), u(160, 240), 3.0],  # enclosed: a warning
        "wall": lambda: [u(170, 230), 340.0],  # cuts into the wall: embedded
        "high": lambda: [u(300, 380), u(20, 100), u(5, 20)],  # given z, floating
    }[kind]()


@pytest.mark.parametrize("seed", [3, 4])
def test_restand_equals_a_scene_built_from_scratch(seed):
    rng = np.random.default_rng(seed)
    entries = _troopers()
    scene = make_scene(entries, SCENERY, table=TABLE)
    kinds = ["open", "roof", "inside", "wall", "high", "onto"]
    for n in range(10):
        kind = kinds[n % len(kinds)]
        tid = str(rng.choice(["a", "b", "c", "e", "m", "r"] if n else ["r"]))
        if kind == "onto":
            other = scene.troopers[str(rng.choice([i for i in scene.troopers if i != tid]))]
            pos = [other.position[0] + float(rng.uniform(-10, 10)), other.position[1]]
        else:
            pos = _spot(rng, kind)
        facing = float(rng.uniform(0, 360)) if rng.random() < 0.5 else None
        prone = bool(rng.random() < 0.5) if rng.random() < 0.7 else None
        before = (dict(scene.troopers), list(scene.warnings))
        new = scene.restand(tid, pos, facing_deg=facing, prone=prone)
        assert (dict(scene.troopers), list(scene.warnings)) == before  # unchanged
        entries = _moved(entries, tid, pos, facing, prone)
        _same(new, make_scene(entries, SCENERY, table=TABLE), tid)
        for other, t in new.troopers.items():
            if other != tid:  # kept as it stood, not stood again
                assert t is scene.troopers[other]
        scene = new
    text = " ".join(scene.warnings)
    assert "enclosed" in text or "embedded" in text or "overlap" in text


def test_restand_refuses_bad_input():
    scene = make_scene(_troopers(), SCENERY, table=TABLE)
    with pytest.raises(UnknownIdError):
        scene.restand("nobody", [10, 10])
    with pytest.raises(InputError, match="position"):
        scene.restand("a", [10])
    with pytest.raises(InputError, match="position"):
        scene.restand("a", [10, float("nan")])
    with pytest.raises(InputError, match="facing_deg"):
        scene.restand("a", [10, 10], facing_deg=float("inf"))


def test_restand_moves_40k_vehicles_as_a_scene_built_anew():
    """A baseless vehicle (its hull's stand-in cylinder) and a vehicle on a base moved and
    turned: the same placed hulls, warnings and Line of Fire as the scenario read anew."""
    import dataclasses
    from pathlib import Path

    from geom3d.api import build_scene
    from geom3d.scenario import load_scenario
    from geom3d.scene.vehicles import engine_for

    path = Path(__file__).resolve().parents[2] / "meshes/scenarios/attacks/wh40k_vehicle.yaml"
    scene = build_scene(load_scenario(path))
    moves = (
        ("pred", (160.0, 300.0, 0.0), 0.0),
        ("rhino", (260.0, 120.0), 45.0),
        ("flamer", (60.0, 200.0), 30.0),  # no vehicle: the hulls' BVHs are kept
    )
    for tid, pos, facing in moves:
        hulls = engine_for(scene, ("sergeant",))  # the scenery plus both hulls
        new = scene.restand(tid, pos, facing_deg=facing)
        assert (engine_for(new, ("sergeant",)) is hulls) == (tid == "flamer")
        specs = tuple(
            dataclasses.replace(t, position=pos, facing_deg=facing) if t.id == tid else t
            for t in scene.scenario.troopers
        )
        want = build_scene(dataclasses.replace(scene.scenario, troopers=specs))
        for t in want.troopers.values():
            got = new.troopers[t.id]
            assert (got.position, got.facing_deg, got.height) == (
                t.position,
                t.facing_deg,
                t.height,
            )
            if t.vehicle is not None:
                assert got.vehicle is not None
                a, b = got.vehicle, t.vehicle
                assert (a.barrel, a.base_z, a.height, a.origin) == (
                    b.barrel, b.base_z, b.height, b.origin
                )  # fmt: skip
                assert (a.hull.center, a.hull.half_size, a.hull.heading_deg) == (
                    b.hull.center, b.hull.half_size, b.hull.heading_deg
                )  # fmt: skip
                assert a.hull.footprint.equals_exact(b.hull.footprint, 0.0)
        assert [str(w) for w in new.warnings] == [str(w) for w in want.warnings]
        pairs = [(tid, o) for o in want.troopers if o != tid]
        pairs += [(o, tid) for o in want.troopers if o != tid]
        assert [r.to_dict(area=False) for r in new.lof_matrix(pairs)] == [
            r.to_dict(area=False) for r in want.lof_matrix(pairs)
        ]
        scene = new
