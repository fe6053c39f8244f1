"""Exposure maps (SPEC 12.5): hand-checked shadows, ``geom3d lof`` as the reference on
sampled cells, the same document for any number of workers and on Dask."""

from __future__ import annotations

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.adjudication.lof import line_of_fire
from geom3d.core.errors import InputError, UsageError
from geom3d.exposure import exposure, observers_for, run_exposure

WALL = box("wall", [20, 100, 80], [200, 200])  # x 190..210, y 150..250, 80 mm tall
OBS = trooper("o", [50, 200], side="red", facing_deg=0)


def _doc_cells(doc):
    return {tuple(c["position"][:2]): c["seen_by"] for c in doc["cells"]}


def _without_timing(doc):
    return {k: v for k, v in doc.items() if k != "timing"}


def test_a_walls_shadow_is_safe_and_open_ground_is_not():
    # o at (50, 200) facing +x, the wall 140 mm in front of it. A probe (25 mm base) at
    # (300, 200) is hidden: every line from o's base (y 187.5..212.5) to the probe's
    # (287.5..312.5) crosses x 190..210 within y 150..250. (300, 50) is in the open; a
    # probe at (20, 200) is behind o's arc plane (x < 37.5: its base is wholly behind)
    scene = make_scene([OBS], [WALL], table={"size": [400, 400]})
    doc = exposure(scene, observers="red", spacing_mm=50, workers=1)
    cells = _doc_cells(doc)
    assert cells[(325.0, 225.0)] == [] and cells[(275.0, 175.0)] == []
    assert cells[(325.0, 25.0)] == ["o"] and cells[(125.0, 375.0)] == ["o"]
    assert cells[(25.0, 225.0)] == []  # out of arc (base x 12.5..37.5, all behind)
    assert doc["observers"] == ["o"]
    assert 0 < doc["safe_share"] < 1
    assert doc["counts"]["pairs_decided_without_rays"] >= 8  # the column x = 25 at least
    # the same with arcs ignored: the cell behind o is seen, the shadow still safe
    vis = _doc_cells(exposure(scene, observers="o", spacing_mm=50, workers=1, ignore_arcs=True))
    assert vis[(25.0, 225.0)] == ["o"] and vis[(325.0, 225.0)] == []


def _busy_scene(extra=()):
    """Two observers (one engaged, one with a 180° arc), a blue trooper that blocks, a
    wall and a raised block to stand on."""
    ts = [
        trooper("o1", [60, 60], side="red", facing_deg=45),
        trooper("o2", [340, 300], side="red", facing_deg=200),
        trooper("e", [360, 80], side="red", facing_deg=90, engaged_with=["b2"]),
        trooper("b2", [385, 80], side="blue"),
        trooper("b1", [200, 120], side="blue"),
        *extra,
    ]
    scenery = [WALL, box("block", [60, 60, 30], [100, 300])]
    return make_scene(ts, scenery, table={"size": [400, 400]})


def test_answers_are_those_of_lof_for_a_trooper_standing_on_the_cell():
    res = run_exposure(_busy_scene(), observers="red", spacing_mm=20, workers=1)
    doc = res.document
    cells = doc["cells"]
    rng = np.random.default_rng(37)
    seen_any = [i for i, c in enumerate(cells) if c["seen_by"]]
    safe = [i for i, c in enumerate(cells) if not c["seen_by"]]
    raised = [i for i, c in enumerate(cells) if c["position"][2] > 1.0]
    assert seen_any and safe and raised
    pick = sorted(
        {
            *rng.choice(seen_any, 8, replace=False).tolist(),
            *rng.choice(safe, 6, replace=False).tolist(),
            *rng.choice(raised, 2, replace=False).tolist(),
        }
    )
    for i in pick:
        pos = cells[i]["position"]
        scene = _busy_scene([trooper("p", pos, side="green")])
        want = [o for o in doc["observers"] if line_of_fire(scene, o, "p").lof]
        assert cells[i]["seen_by"] == want, (pos, cells[i]["seen_by"], want)
    # the engaged observer sees only probes in base contact (centres 25 mm apart at most)
    near = [np.hypot(c["position"][0] - 360, c["position"][1] - 80) for c in cells]
    assert all(d <= 25.0 + 1e-6 for c, d in zip(cells, near, strict=True) if "e" in c["seen_by"])


def test_observers_by_side_and_by_ids():
    scene = _busy_scene()
    assert [t.id for t in observers_for(scene, "red")] == ["o1", "o2", "e"]
    assert [t.id for t in observers_for(scene, "o2,o1,o2")] == ["o2", "o1"]
    with pytest.raises(UsageError, match="no trooper or side 'x'"):
        observers_for(scene, "o1,x")
    with pytest.raises(UsageError, match="empty name"):
        observers_for(scene, "o1,")


def test_same_document_for_one_and_two_workers():
    one = exposure(_busy_scene(), observers="red", spacing_mm=40, workers=1)
    two = exposure(_busy_scene(), observers="red", spacing_mm=40, workers=2)
    assert two["timing"]["executor"] == "processes" and two["timing"]["workers"] == 2
    assert _without_timing(one) == _without_timing(two)


@pytest.mark.dask
def test_the_same_answers_on_threads_of_this_process():
    # what the serve overlay does from a server thread (which may not fork)
    from geom3d.exposure.document import plan_engines, plan_exposure
    from geom3d.exposure.jobs import visible_tasks

    scene = _busy_scene()
    plan = plan_exposure(scene, observers="red", spacing_mm=20)
    one, _ = visible_tasks(plan.job, **plan_engines(scene, plan), workers=1)
    answers = np.full(len(plan.tasks), -1, np.int8)
    calls: list[int] = []
    got, info = visible_tasks(
        plan.job, **plan_engines(scene, plan), workers=1, threads=3, answers=answers,
        progress=lambda done, total: calls.append(done),
    )  # fmt: skip
    assert info["executor"] == "threads" and info["workers"] == 3
    assert np.array_equal(got, one) and 0 < one.sum() < len(one)
    assert calls[-1] == len(plan.tasks) and calls == sorted(calls)


def test_same_document_on_a_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    one = exposure(_busy_scene(), observers="red", spacing_mm=40, workers=1)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        doc = exposure(
            _busy_scene(), observers="red", spacing_mm=40, scheduler=cluster.scheduler_address
        )
    assert doc["timing"]["executor"] == "dask" and doc["timing"]["workers"] == 2
    assert _without_timing(doc) == _without_timing(one)


def test_the_screen_is_lofs_own_rule_on_every_cell():
    # every cell of a 10 mm grid, each observer (an engaged one, 180° arcs, a 360° one):
    # the vectorised screen against geom3d.lof's scalar function, cell by cell
    from geom3d.adjudication.lof import static_lof
    from geom3d.exposure import probe_trooper, screen
    from geom3d.exposure.cells import probe_for, standing_cells

    scene = _busy_scene([trooper("m", [300, 200], side="red", state=["arc360"])])
    obs = observers_for(scene, "red")
    probe = probe_for(scene, 2)
    cells = standing_cells(scene, probe, 10.0).positions
    # cells on o1's arc edge too (o1 at (60, 60) faces 45°: rel . f + 12.5 = ARC_EPS_MM
    # there), a hair either side and 2e-6 mm either side
    f = np.array([np.sqrt(0.5), np.sqrt(0.5)])
    edge = np.array(
        [[*(np.array([60.0, 60.0]) + (1e-6 - 12.5 + d) * f), 0.0]
         for d in (-2e-6, -1e-9, 0.0, 1e-9, 2e-6)]
    )  # fmt: skip
    cells = np.vstack([cells, edge])
    got = screen(scene, obs, probe, cells, False)
    for j, o in enumerate(obs):
        want = [
            static_lof(scene, o, probe_trooper(probe, c), (None, None)).reason == "blocked"
            for c in cells
        ]
        assert got[:, j].tolist() == want, o.id


def _hull_scene(extra=()):
    """40k: observer a at (0, 200) facing +x (silhouette 2: r 16, 40 mm); an ork rhino,
    box hull 100 x 60 x 50 at (150, 200) turned 90 (x 120..180, y 150..250, 50 tall),
    itself an observer facing -x; a baseless ork predator (barrel) at (150, 60)."""
    hull = {
        "hull": {"box": {"size": [100, 60, 50]}},
        "armour": {"front": 11, "side": 11, "rear": 10},
    }
    ts = [
        trooper("a", [0, 200], side="imperium", facing_deg=0),
        {
            "id": "rhino",
            "side": "orks",
            "position": [150, 200, 0],
            "facing_deg": 90,
            "vehicle": hull,
        },
        {
            "id": "pred",
            "side": "orks",
            "position": [150, 60, 0],
            "facing_deg": 0,
            "vehicle": {**hull, "barrel": [60, 0, 30]},
        },
        *extra,
    ]
    return make_scene(ts, table={"size": [400, 400]}, ruleset="wh40k-7e")


def test_40k_hulls_block_the_exposure_map_as_they_block_lof():
    # a probe (40k silhouette 2: r 16, 40 mm) at (330, 200) is hidden from a: every line
    # from a's cylinder (y 184..216, z <= 40) to the probe's crosses the rhino's hull
    # (x 120..180, y 150..250, z <= 50); at (330, 380) it is in the open
    scene = _hull_scene()
    doc = exposure(scene, observers="a,rhino,pred", spacing_mm=20, workers=1)
    cells = _doc_cells(doc)
    assert "a" not in cells[(330.0, 210.0)] and "a" in cells[(330.0, 390.0)]
    # the rhino sees past its own hull (lof leaves a vehicle's own hull out)
    assert "rhino" in cells[(330.0, 210.0)]
    # every answer is lof's for a model standing on the cell (sampled)
    rng = np.random.default_rng(12)
    pick = rng.choice(len(doc["cells"]), 14, replace=False)
    for i in sorted(pick.tolist()):
        pos = doc["cells"][i]["position"]
        s = _hull_scene([trooper("p", pos, side="green", silhouette=2)])
        want = [o for o in doc["observers"] if s.line_of_fire(o, "p").lof]
        assert doc["cells"][i]["seen_by"] == want, (pos, want)
    two = exposure(scene, observers="a,rhino,pred", spacing_mm=20, workers=2)
    assert _without_timing(two) == _without_timing(doc)


def test_a_standard_table_at_the_default_spacing_is_not_refused():
    # 1200 x 1200 mm at 10 mm: 120 x 120 = 14,400 cells, each paired with the observers
    # only. The survey pairs its points with each other (103,672,800 pairs) and refuses
    # such a grid; the exposure map must not (issue 37: its default spacing on a
    # standard table failed with the survey's message)
    from geom3d.exposure import standing_cells
    from geom3d.exposure.cells import probe_for
    from geom3d.survey.grid import grid_points

    scene = make_scene([OBS], table={"size": [1200, 1200]})
    cells = standing_cells(scene, probe_for(scene, 2), 10.0)
    assert len(cells.positions) == 14_400
    xs = np.unique(np.round(cells.positions[:, 0], 6))
    assert xs[0] == 5.0 and xs[-1] == 1195.0 and len(xs) == 120
    with pytest.raises(InputError, match="103,672,800 pairs"):
        grid_points((0.0, 0.0, 1200.0, 1200.0), 10.0)  # the survey's grid still refused


def test_task_keys_change_with_what_the_answer_reads_and_nothing_else():
    # the overlay reuses an answer under its key: the observer, the probe's spot and the
    # occluders near the pair are in it; an occluder far from every pair is not
    from geom3d.exposure.document import plan_exposure
    from geom3d.exposure.jobs import task_keys

    far = trooper("far", [395, 5], side="blue")
    base = plan_exposure(_busy_scene([far]), observers="red", spacing_mm=40)
    moved = plan_exposure(
        _busy_scene([trooper("far", [5, 395], side="blue")]), observers="red", spacing_mm=40
    )
    near = plan_exposure(
        _busy_scene([trooper("far", [210, 300], side="blue")]), observers="red", spacing_mm=40
    )
    k0, k1, k2 = task_keys(base.job), task_keys(moved.job), task_keys(near.job)
    assert len(set(k0)) == len(k0)  # one key per task
    assert np.array_equal(base.tasks, near.tasks)
    same = np.array([a == b for a, b in zip(k0, k2, strict=True)])
    assert 0 < same.sum() < len(same)  # the trooper now stands near some pairs
    # moved from one corner to the other, it changes only the keys of pairs near it
    assert np.array_equal(base.tasks, moved.tasks)
    changed = np.array([a != b for a, b in zip(k0, k1, strict=True)])
    assert 0 < changed.sum() < len(changed) // 2
