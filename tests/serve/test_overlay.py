"""The exposure overlay (geom3d.serve.overlay): passes coarse to fine, the spots done so far
after each, and at the end the map ``geom3d exposure`` makes of the saved scenario."""

from __future__ import annotations

import time

import numpy as np
import pytest

from geom3d.api import build_scene
from geom3d.exposure import run_exposure
from geom3d.scenario import load_scenario
from geom3d.scene.scene import clear_scene_cache
from geom3d.serve.overlay import (
    OVERLAY_PROBE,
    OVERLAY_SPACING_MM,
    OVERLAY_STRIDES,
    ExposureJobs,
    pass_of_cells,
)
from geom3d.serve.session import Session


def test_pass_of_cells_by_hand():
    """A 9 x 9 grid 20 mm apart (from 10 mm): every 4th line each way is pass 0 (3 x 3
    points), every 2nd pass 1 (5 x 5 less those 9), the rest pass 2; two levels at one
    point share its pass."""
    assert OVERLAY_STRIDES == (4, 2, 1)
    xs = 10.0 + 20.0 * np.arange(9)
    grid_xy = np.array([(x, y) for y in xs for x in xs])
    cell = np.arange(81)
    got = pass_of_cells(grid_xy, cell, 20.0)
    assert np.bincount(got).tolist() == [9, 16, 56]
    i, j = cell % 9, cell // 9
    assert (got[(i % 4 == 0) & (j % 4 == 0)] == 0).all()
    assert (got[(i % 2 == 1) | (j % 2 == 1)] == 2).all()
    assert pass_of_cells(grid_xy, np.array([40, 40]), 20.0).tolist() == [0, 0]


class _Recording(ExposureJobs):
    """Keeps every state that carried spots (each pass's, then the map's)."""

    def __init__(self) -> None:
        super().__init__()
        self.snapshots: list[dict] = []

    def _update(self, job: int, **fields) -> None:
        super()._update(job, **fields)
        if "cells" in fields:
            self.snapshots.append(self.status())


def _wait(jobs: ExposureJobs) -> dict:
    deadline = time.monotonic() + 600  # a long cap, never a race: the state says when done
    while (st := jobs.status())["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    return st


@pytest.mark.parametrize("batch", [1000, 60])
def test_overlay_is_geom3d_exposure_on_the_saved_file(table_file, monkeypatch, batch):
    """The finished overlay is ``geom3d exposure --spacing 20`` on the saved file; on the
    way, every batch (one or two per pass here, or 60 searches) showed more spots, each as the
    finished map has it, drawn as wide as its pass's grid."""
    import geom3d.serve.overlay as overlay

    monkeypatch.setattr(overlay, "OVERLAY_BATCH", batch)
    s = Session(table_file)
    s.move("a", [250, 150], facing_deg=45)
    s.move("d", [450, 450])  # onto the roof
    jobs = _Recording()
    jobs.workers = 1  # in the overlay's thread (the pipeline's pools answer the same)
    first = jobs.start(s.scene, "red", s.generation)
    assert first["state"] == "running" and first["passes"] == len(OVERLAY_STRIDES)
    st = _wait(jobs)
    assert st["state"] == "done", st
    want = _exposure_of_saved(s, table_file, "red")
    assert st["cells"] == want["cells"]
    assert (st["safe_share"], st["observers"], st["spacing_mm"]) == (
        want["safe_share"],
        want["observers"],
        want["spacing_mm"],
    )
    assert (
        st["done"]
        == st["total"]
        == want["counts"]["pairs"] - (want["counts"]["pairs_decided_without_rays"])
    )
    final = {(tuple(c["position"]), c["level"]): c["seen_by"] for c in want["cells"]}
    partial = jobs.snapshots[:-1]  # the last: the finished map
    sizes = [len(snap["cells"]) for snap in partial]
    assert sizes == sorted(sizes) and 0 < sizes[0] and sizes[-1] == len(want["cells"])
    assert sizes[0] * 8 < len(want["cells"])  # the first picture: about a sixteenth
    assert len(partial) >= len(OVERLAY_STRIDES)  # a picture per pass at least
    if batch == 60:  # batches within the passes: more pictures
        assert len(partial) > 2 * len(OVERLAY_STRIDES)
    assert {c["size_mm"] for c in partial[0]["cells"]} == {80.0}
    grid_xy = np.array([c["position"][:2] for c in want["cells"]])
    for snap in partial:
        for c in snap["cells"]:
            assert final[(tuple(c["position"]), c["level"])] == c["seen_by"]
            ij = np.rint((np.array(c["position"][:2]) - grid_xy.min(axis=0)) / 20.0)
            stride = next(k for k in OVERLAY_STRIDES if not (ij % k).any())
            assert c["size_mm"] == 20.0 * stride
    assert all("size_mm" not in c for c in st["cells"])


def test_a_new_overlay_cancels_the_running_one(table_file):
    """The first job's next report raises Cancelled: it never writes over the second's
    state (the second is started while the first is held in its first report)."""
    import threading

    s = Session(table_file)
    release = threading.Event()
    held = threading.Event()

    class Held(ExposureJobs):
        def _update(self, job: int, **fields) -> None:
            if job == 1 and not held.is_set():
                held.set()
                release.wait(600)
            super()._update(job, **fields)

    jobs = Held()
    jobs.workers = 1
    jobs.start(s.scene, "red", s.generation)
    assert held.wait(600)
    second = jobs.start(s.scene, "blue", s.generation)
    release.set()
    st = _wait(jobs)
    assert st["job"] == second["job"] == 2 and st["side"] == "blue"
    assert st["state"] == "done" and st["observers"] == ["a", "d"]


@pytest.mark.slow
def test_overlay_on_spawned_workers_answers_the_same(table_file, monkeypatch):
    """Every pass on two spawned worker processes (from the overlay's thread a process
    is never forked): the same map as in the thread, and on the way the chunks' answers
    as they came (a picture every 50 answers), each spot as the finished map has it."""
    import geom3d.serve.overlay as overlay

    s = Session(table_file)
    here = ExposureJobs()
    here.workers = 1
    here.start(s.scene, "red", s.generation)
    want = _wait(here)
    monkeypatch.setattr(overlay, "OVERLAY_POOL_FROM", 0)
    monkeypatch.setattr(overlay, "OVERLAY_POOL_CPUS", 2)  # a pool of two, on any machine
    monkeypatch.setattr(overlay, "OVERLAY_BATCH", 50)
    import geom3d.survey.runners as runners

    pools: list[int] = []
    real_pool = runners.run_pool

    def counted(work, chunks, **kw):
        pools.append(kw["workers"])
        return real_pool(work, chunks, **kw)

    monkeypatch.setattr(runners, "run_pool", counted)
    pool = _Recording()
    pool.workers = 2
    pool.start(s.scene, "red", s.generation)
    got = _wait(pool)
    assert pools and set(pools) == {2}  # every pass on the pool
    assert got["state"] == want["state"] == "done", got
    assert got["cells"] == want["cells"] and got["total"] == want["total"]
    final = {(tuple(c["position"]), c["level"]): c["seen_by"] for c in want["cells"]}
    assert len(pool.snapshots) > len(OVERLAY_STRIDES) + 1  # within the passes too
    for snap in pool.snapshots:
        for c in snap["cells"]:
            assert final[(tuple(c["position"]), c["level"])] == c["seen_by"]


def counting_searches(monkeypatch) -> list[int]:
    """The pairs each call of the exposure pipeline searches (``visible_tasks``: the
    overlay's, and the search ahead's), appended to the list returned."""
    import geom3d.exposure.jobs as jobs_module

    asked: list[int] = []
    real = jobs_module.visible_tasks

    def counting(job, **kw):
        asked.append(len(job.tasks))
        return real(job, **kw)

    monkeypatch.setattr(jobs_module, "visible_tasks", counting)
    return asked


def _exposure_of_saved(session: Session, table_file, side: str) -> dict:
    saved = table_file.parent / session.save()["file"]
    clear_scene_cache()
    return run_exposure(
        build_scene(load_scenario(saved)),
        observers=side,
        probe=OVERLAY_PROBE,
        spacing_mm=OVERLAY_SPACING_MM,
        workers=1,
    ).document


def test_after_a_move_only_the_pairs_it_can_change_are_searched_again(table_file, monkeypatch):
    """Each overlay equals ``geom3d exposure`` on the file saved then, whether its answers
    were searched or kept from the overlay before (moving an occluder, then an observer,
    then onto the roof); a repeat with nothing moved searches nothing."""
    asked = counting_searches(monkeypatch)
    import geom3d.exposure.document as document

    grids: list[bool] = []  # whether each plan was given the cells stood before
    real_plan = document.plan_exposure

    def planning(scene, **kw):
        if "threads" not in kw:  # the overlay's plans (run_exposure, the reference, sets it)
            grids.append(kw.get("grid") is not None)
        return real_plan(scene, **kw)

    monkeypatch.setattr(document, "plan_exposure", planning)
    s = Session(table_file)
    jobs = ExposureJobs()
    jobs.workers = 1
    reused = []
    for move in (None, ("a", [330, 340]), ("b", [200, 380]), ("a", [450, 450]), None):
        if move is not None:
            s.move(*move)
        asked.clear()
        jobs.start(s.scene, "red", s.generation)
        st = _wait(jobs)
        assert st["state"] == "done", st
        want = _exposure_of_saved(s, table_file, "red")
        assert st["cells"] == want["cells"] and st["safe_share"] == want["safe_share"]
        assert st["done"] == st["total"] and sum(asked) == st["total"] - st["reused"]
        reused.append((st["reused"], st["total"]))
    assert reused[0][0] == 0  # nothing kept yet
    assert 0 < reused[1][0] < reused[1][1]  # a, an occluder, moved: some pairs again
    assert 0 < reused[2][0] < reused[2][1]  # b, an observer: its own pairs at least
    assert reused[4][0] == reused[4][1]  # nothing moved: every answer kept
    assert grids == [False, True, True, True, True]  # moves keep the scenery's cells


def test_cells_stood_ahead_serve_the_first_overlay(table_file, monkeypatch):
    """``prepare`` (``geom3d serve`` runs it once warm) stands the cells once; the
    overlay then stands none and makes the map ``geom3d exposure`` makes; a second
    ``prepare`` does nothing."""
    import geom3d.exposure.document as document

    s = Session(table_file)
    jobs = ExposureJobs()
    jobs.workers = 1
    jobs.prepare_in_background(s.scene).join()
    stood = []
    real = document.standing_cells
    monkeypatch.setattr(
        document, "standing_cells", lambda *a, **k: stood.append(1) or real(*a, **k)
    )
    assert jobs.prepare(s.scene) == 0.0
    jobs.start(s.scene, "red", s.generation)
    st = _wait(jobs)
    assert st["state"] == "done" and stood == []
    assert st["cells"] == _exposure_of_saved(s, table_file, "red")["cells"]
