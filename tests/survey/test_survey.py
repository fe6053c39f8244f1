"""geom3d.survey: probe grid, pair visibility, lanes, zones, levels, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.core.errors import InputError, UsageError
from geom3d.core.output import dumps_json
from geom3d.survey import place_probes, probe_for, survey
from geom3d.survey.analysis import distance_bands, zone_shares
from geom3d.survey.grid import grid_points
from geom3d.survey.pairs import chunk_bounds, pair_indices


def _without_timing(doc: dict) -> str:
    return dumps_json({k: v for k, v in doc.items() if k != "timing"})


def test_grid_points_are_centred_in_the_table():
    xy = grid_points((0.0, 0.0, 500.0, 300.0), 100.0)
    assert xy[:, 0].tolist()[:5] == [50.0, 150.0, 250.0, 350.0, 450.0]
    assert sorted(set(xy[:, 1].tolist())) == [50.0, 150.0, 250.0]
    # 1200 / 50: 24 points from 25 to 1175
    xs = sorted(set(grid_points((0.0, 0.0, 1200.0, 1200.0), 50.0)[:, 0].tolist()))
    assert len(xs) == 24 and xs[0] == 25.0 and xs[-1] == 1175.0
    # 130 / 50: two points, the 30 mm left over split on both sides
    assert sorted(set(grid_points((0, 0, 130, 130), 50.0)[:, 0].tolist())) == [40.0, 90.0]
    with pytest.raises(InputError, match="--spacing"):
        grid_points((0, 0, 100, 100), 0.0)
    with pytest.raises(InputError, match="grid points"):  # 1200 / 2 = 600: 360,000 points
        grid_points((0, 0, 1200, 1200), 2.0)
    with pytest.raises(InputError, match="62,500 grid points = 1,953,093,750 pairs"):
        grid_points((0, 0, 1000, 250), 2.0)  # 500 x 125 points: over the pairs cap
    assert len(grid_points((0, 0, 200, 80), 2.0)) == 4_000  # 100 x 40: 7,998,000 pairs


def test_corridor_between_two_long_walls_is_the_longest_lane(corridor_doc):
    doc = corridor_doc
    pos = {p["id"]: p for p in doc["positions"]}
    assert len(pos) == 15 and {p["level"] for p in pos.values()} == {0}
    first = doc["lanes"][0]
    ends = sorted(tuple(pos[first[k]]["position"]) for k in ("a", "b"))
    assert ends == [(50.0, 150.0, 0.0), (450.0, 150.0, 0.0)]
    assert first["distance_mm"] == 400.0
    # hand count: the corridor's 5 points see each other (10 pairs), nothing else is seen
    assert len(doc["visible_pairs"]) == 10
    for p in doc["positions"]:
        assert p["sees"] == (4 if p["position"][1] == 150.0 else 0)
    dist = [ln["distance_mm"] for ln in doc["lanes"]]
    assert dist == sorted(dist, reverse=True) and dist == [
        400,
        300,
        300,
        200,
        200,
        200,
        100,
        100,
        100,
        100,
    ]
    assert all(i < j for i, j in doc["visible_pairs"])
    assert doc["probe"] == {"silhouette": 2, "diameter_mm": 25.0, "height_mm": 40.0}
    assert doc["spacing_mm"] == 100.0 and doc["units"] == "mm"
    assert list(doc) == [
        "units",
        "probe",
        "spacing_mm",
        "positions",
        "visible_pairs",
        "lanes",
        "zones",
        "health",
        "timing",
    ]


def test_a_sealed_room_is_enclosed_while_its_roof_is_a_surveyed_level(room):
    doc = survey(room(), spacing_mm=100, workers=1)
    at = {(tuple(p["position"][:2]), p["level"]): p for p in doc["positions"]}
    assert ((150.0, 150.0), 1) not in at  # the room's inside: no way in (SPEC 13.1)
    roof = at[((150.0, 150.0), 0)]
    assert roof["position"][2] == 65.0
    # the 8 points around the room see the roof probe over the roof's edge
    assert roof["sees"] == 8
    assert len(doc["positions"]) == 9
    enclosed = [w for w in doc["health"]["warnings"] if "enclosed" in w]
    assert enclosed == [
        "1 spots enclosed (inside a solid or a sealed cavity, no way in from the open air; "
        "not standable): in 'roof' 1; at (150, 150) mm"
    ]


def test_a_room_with_a_door_is_a_level_under_its_roof(room):
    doc = survey(room(door=True), spacing_mm=100, workers=1)
    at = {(tuple(p["position"][:2]), p["level"]): p for p in doc["positions"]}
    inside, roof = at[((150.0, 150.0), 0)], at[((150.0, 150.0), 1)]
    assert inside["position"][2] == 0.0 and roof["position"][2] == 65.0
    assert roof["sees"] == 8 and len(doc["positions"]) == 10
    assert not [w for w in doc["health"]["warnings"] if "enclosed" in w]


def test_probe_needs_headroom_and_rests_on_the_highest_point_under_its_base():
    # a slab 20..30 mm over (50, 50): no room under it for a 40 mm probe; its top is a level.
    # a 10 mm block under the rim of the probe at (150, 50), 7.5 mm into its base: by the
    # 12.2 rule (a jump far steeper than a slope) the probe stands on the table beside
    # it, where the block cuts into it: no spot, as a trooper dropped there is warned
    scene = make_scene(
        [trooper("t", [150, 50])],
        [box("slab", (60, 60, 10), (50, 50, 20)), box("step", (10, 10, 10), (160, 50, 0))],
        table={"size": [200, 100]},
    )
    grid = place_probes(scene, probe_for(scene, 2), 100.0)
    got = sorted((tuple(p), int(lv)) for p, lv in zip(grid.positions, grid.level, strict=True))
    assert got == [((50.0, 50.0, 30.0), 0)]
    assert scene.trooper("t").position[2] == 0.0
    assert any("overlaps scenery 'step' by 7.5 mm" in w for w in scene.warnings)
    assert any("embedded" in w for w in scene.warnings)


def test_no_probe_can_stand_is_a_health_finding():
    # a 10 mm high gap under a slab everywhere: no level 0, no roof room either (probe 40 mm
    # under a ceiling at 45 mm)
    scene = make_scene(
        [],
        [box("slab", (100, 100, 5), (50, 50, 10)), box("lid", (100, 100, 5), (50, 50, 45))],
        table={"size": [100, 100]},
    )
    grid = place_probes(scene, probe_for(scene, 2), 100.0)
    assert len(grid.positions) == 1 and grid.positions[0][2] == 50.0  # only on the lid
    scene2 = make_scene([], [box("lid", (100, 100, 5), (50, 50, 30))], table={"size": [100, 100]})
    grid2 = place_probes(scene2, probe_for(scene2, 2), 100.0)
    assert grid2.positions[:, 2].tolist() == [35.0]


def test_unknown_probe_silhouette_is_an_input_error(corridor):
    scene = corridor()
    with pytest.raises(InputError, match="no silhouette 99"):
        survey(scene, probe=99)


def test_zones_shares_by_hand(corridor_doc):
    scene = make_scene(
        [],
        [],
        table={"size": [500, 300]},
        zones=[{"id": "west", "rect": [0, 100, 100, 200]}, {"id": "empty", "rect": [0, 0, 10, 10]}],
    )
    positions = np.array([p["position"] for p in corridor_doc["positions"]])
    n = len(positions)
    ii, jj = pair_indices(n)
    vis = np.zeros(len(ii), dtype=bool)
    pairs = {tuple(p) for p in corridor_doc["visible_pairs"]}
    for k, (a, b) in enumerate(zip(ii, jj, strict=True)):
        vis[k] = (int(a), int(b)) in pairs
    west, empty = zone_shares(scene, positions, ii, jj, vis)
    # west holds (50, 150) only; it sees the 4 other corridor points of the 14 outside
    assert (west.n, west.sees_share, west.seen_share) == (1, 4 / 14, 1.0)
    assert (empty.n, empty.sees_share, empty.seen_share) == (0, 0.0, 0.0)
    bands = distance_bands(positions, ii, jj, vis, 200.0)
    assert bands[0][:2] == (0.0, 200.0) and sum(b[3] for b in bands) == 10


def test_zones_come_from_the_scenario_in_file_units():
    scene = make_scene(
        [],
        [],
        units="cm",
        table={"size": [30, 20]},
        zones=[{"id": "deploy", "rect": [0, 0, 30, 5]}],
    )
    assert scene.scenario.zones == (("deploy", (0.0, 0.0, 300.0, 50.0)),)
    doc = survey(scene, spacing_mm=100, workers=1)
    # open table: everything sees everything; the zone row (y = 50) sees the other row
    assert doc["zones"] == [{"id": "deploy", "sees_share": 1.0, "seen_share": 1.0}]
    assert all(p["sees"] == 5 for p in doc["positions"])


def test_chunks_cover_every_pair_once():
    for n_pairs, workers in ((0, 1), (10, 4), (1000, 2), (123457, 8)):
        chunks = chunk_bounds(n_pairs, workers)
        flat = [k for s, e in chunks for k in range(s, e)]
        assert flat == list(range(n_pairs))


def test_bad_worker_count_and_scheduler_address(corridor):
    scene = corridor()
    with pytest.raises(UsageError, match="--workers"):
        survey(scene, spacing_mm=250, workers=0)
    with pytest.raises(UsageError, match="--scheduler"):
        survey(scene, spacing_mm=250, scheduler="tcp://no port")


def test_same_bytes_for_one_and_two_workers(corridor, corridor_doc):
    two = survey(corridor(), spacing_mm=100, workers=2)
    assert two["timing"]["executor"] == "processes" and two["timing"]["workers"] == 2
    assert _without_timing(two) == _without_timing(corridor_doc)


def test_scene_survey_is_the_same_document(corridor, corridor_doc):
    doc = corridor().survey(spacing_mm=100, workers=1)
    assert _without_timing(doc) == _without_timing(corridor_doc)


@pytest.mark.dask
def test_same_bytes_on_a_dask_local_cluster(corridor, corridor_doc):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        doc = survey(corridor(), spacing_mm=100, scheduler=cluster.scheduler_address)
    assert doc["timing"]["executor"] == "dask" and doc["timing"]["workers"] == 2
    assert _without_timing(doc) == _without_timing(corridor_doc)


def test_health_says_each_piece_once_most_serious_first(tmp_path):
    import trimesh

    from geom3d.survey.analysis import health_warnings

    # one mesh of three separate boxes (its load says "3 separate bodies", its mesh
    # report "3 separate parts": one fact), and a piece floating 5 mm up (a warning)
    parts = [trimesh.creation.box([10, 10, 10]).apply_translation([20 * k, 0, 5]) for k in range(3)]
    three = tmp_path / "three.stl"
    trimesh.util.concatenate(parts).export(three)
    scene = make_scene(
        [],
        [
            {"id": "three", "mesh": str(three), "position": [100, 100, 0]},
            box("float", (20, 20, 20), (300, 100, 5)),
        ],
        table={"size": [400, 200]},
    )
    grid = place_probes(scene, probe_for(scene, 2), 100.0)
    found = health_warnings(scene, grid)
    mine = [w for w in found if w.startswith(("three:", "float:"))]
    assert [w.split(":")[0] for w in mine] == ["float", "three"]  # the warning first
    assert mine[1] == "three: 3 separate bodies"
