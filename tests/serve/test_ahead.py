"""The overlays searched ahead (geom3d.serve.ahead): only while the session is quiet, at
the lowest priority, and an overlay drawn from what it found is the map ``geom3d
exposure`` makes of the saved scenario."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

import numpy as np
import pytest

import geom3d.serve.ahead as ahead_module
from geom3d.serve.ahead import AHEAD_NICE, ExposureAhead
from geom3d.serve.overlay import OVERLAY_MEMO_SCENERIES, ExposureJobs
from geom3d.serve.session import Session

from .test_overlay import _exposure_of_saved, _wait, counting_searches


def _caught_up(ahead: ExposureAhead, session: Session, cap_s: float = 600) -> dict:
    """The search ahead's status once it has every side's answers for the session's
    scene (a long cap, never a race: the state says when)."""
    deadline = time.monotonic() + cap_s
    while time.monotonic() < deadline:
        st = ahead.status()
        assert st["state"] != "error", st
        if st["state"] == "done" and st.get("generation") == session.generation:
            return st
        time.sleep(0.05)
    raise AssertionError(f"the search ahead did not catch up: {ahead.status()}")


@contextlib.contextmanager
def _searching_ahead(table_file, idle_s: float, threads: int = 1):
    """A session on the table, its overlay jobs (in their thread) and the search ahead
    started on them; stopped (and its thread ended) on the way out."""
    s = Session(table_file)
    jobs = ExposureJobs()
    jobs.workers = 1
    ahead = ExposureAhead(jobs, s, idle_s=idle_s, threads=threads)
    started = ahead.start()
    assert len(started) == threads
    try:
        yield s, jobs, ahead
    finally:
        ahead.stop(timeout=60)
    assert not any(t.is_alive() for t in started)


@pytest.mark.parametrize("threads", [1, 3])
def test_overlays_searched_ahead_are_geom3d_exposure(table_file, monkeypatch, threads):
    """Once the search ahead caught up, each side's overlay searches nothing (every answer
    kept) and is ``geom3d exposure`` on the saved file; after a move it searches the
    pairs the move changed, and the overlay is again the saved file's map, searched
    nothing."""
    asked = counting_searches(monkeypatch)
    with _searching_ahead(table_file, idle_s=0.0, threads=threads) as (s, jobs, ahead):
        st = _caught_up(ahead, s)
        assert set(st["sides"]) == {"blue", "red"}
        assert all(v["done"] == v["total"] > 0 for v in st["sides"].values())
        assert sum(asked) == sum(v["total"] for v in st["sides"].values())
        for move in (None, ("b", [200, 380])):  # b: a red observer
            if move is not None:
                asked.clear()
                s.move(*move)
                _caught_up(ahead, s)
                assert 0 < sum(asked) < st["sides"]["red"]["total"]
            for side in ("red", "blue"):
                asked.clear()
                jobs.start(s.scene, side, s.generation)
                got = _wait(jobs)
                assert got["state"] == "done" and asked == []
                assert got["reused"] == got["total"] == got["done"]
                want = _exposure_of_saved(s, table_file, side)
                assert got["cells"] == want["cells"]
                assert got["safe_share"] == want["safe_share"]


def test_it_waits_for_a_quiet_spell_and_for_a_running_overlay(table_file, monkeypatch):
    """With a request in the last ``idle_s`` seconds it searches nothing; nor while an
    overlay runs; then, quiet, it searches."""
    asked = counting_searches(monkeypatch)
    with _searching_ahead(table_file, idle_s=3600.0) as (s, jobs, ahead):
        s.pairs_of("a")  # a request just now
        time.sleep(0.5)
        assert ahead.status()["state"] == "waiting" and asked == []
        ahead.idle_s = 0.0
        monkeypatch.setattr(jobs, "status", lambda: {"state": "running", "side": "red"})
        time.sleep(0.5)
        assert ahead.status()["state"] == "waiting" and asked == []
        monkeypatch.undo()  # (the overlay ended; the pipeline's counter goes too)
        _caught_up(ahead, s)


def test_the_side_mapped_last_comes_first(table_file, monkeypatch):
    """Red mapped last: the search ahead plans red before blue (the scenario's first)."""
    planned: list[str] = []
    s = Session(table_file)
    jobs = ExposureJobs()
    jobs.workers = 1
    real = jobs.plan
    monkeypatch.setattr(jobs, "plan", lambda scene, side: planned.append(side) or real(scene, side))
    jobs.start(s.scene, "red", s.generation)
    assert _wait(jobs)["state"] == "done"
    ahead = ExposureAhead(jobs, s, idle_s=0.0)
    ahead.start()
    try:
        _caught_up(ahead, s)
    finally:
        ahead.stop(timeout=60)
    assert planned == ["red", "red", "blue"]  # the overlay's, then the search ahead's


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice: Linux")
def test_its_thread_runs_at_the_lowest_priority(table_file):
    """The search ahead's threads are niced to AHEAD_NICE; the caller's thread is not."""
    s = Session(table_file)
    ahead = ExposureAhead(ExposureJobs(), s, idle_s=3600.0, threads=2)
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    started = ahead.start()
    try:
        deadline = time.monotonic() + 60
        for thread in started:
            while os.getpriority(os.PRIO_PROCESS, thread.native_id) != AHEAD_NICE:
                assert time.monotonic() < deadline
                time.sleep(0.01)
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine < AHEAD_NICE
    finally:
        ahead.stop(timeout=60)


def test_an_error_stops_it_with_one_line(table_file, monkeypatch, caplog):
    """A failure inside stops the search ahead (the overlay still searches when asked)
    and its status says why in one line."""
    s = Session(table_file)
    jobs = ExposureJobs()
    ahead = ExposureAhead(jobs, s, idle_s=0.0, threads=2)

    def broken(*a, **k):
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(ahead_module.ExposureAhead, "_step", broken)
    for thread in ahead.start():  # (one fails, and stops the other)
        thread.join(timeout=120)
        assert not thread.is_alive()
    st = ahead.status()
    assert st["state"] == "error" and st["error"] == "disk on fire"
    assert "the exposure search ahead stopped: disk on fire" in caplog.text


def test_kept_answers_per_scenery_most_recent_kept():
    """Answers are kept per scenery key, at most OVERLAY_MEMO_SCENERIES of them: a new
    one pushes out the least recently asked (``cleared`` counts it); an answer for a
    scenery pushed out meanwhile is dropped."""
    jobs = ExposureJobs()
    keys = [b"k1", b"k2"]
    jobs.recall("s0", keys)
    jobs.remember("s0", keys, np.array([True, False]))
    assert jobs.recall("s0", keys).tolist() == [1, 0] and jobs.cleared == 0
    for k in range(1, OVERLAY_MEMO_SCENERIES):
        jobs.recall(f"s{k}", keys)
        jobs.remember(f"s{k}", keys[:1], np.array([True]))
    assert jobs.cleared == 0
    assert jobs.recall("s0", keys).tolist() == [1, 0]  # now the most recent: s1 is oldest
    assert jobs.recall("new", keys).tolist() == [-1, -1] and jobs.cleared == 1
    jobs.remember("s1", keys, np.array([True, True]))  # pushed out: dropped
    assert jobs.recall("s2", keys).tolist() == [1, -1]
    assert jobs.recall("s1", keys).tolist() == [-1, -1] and jobs.cleared == 2


def test_past_the_cap_the_least_recently_asked_answers_go(monkeypatch):
    """Past OVERLAY_MEMO_MAX answers (8 here) the least recently asked go, down to three
    quarters of it: k0 and k1, asked again, stay; k2 to k5 (a moved trooper's old pairs,
    asked by no plan since) go."""
    import geom3d.serve.overlay as overlay

    monkeypatch.setattr(overlay, "OVERLAY_MEMO_MAX", 8)
    jobs = ExposureJobs()
    keys = [f"k{i}".encode() for i in range(10)]
    jobs.recall("s", [])
    jobs.remember("s", keys[:6], np.arange(6) % 2 == 0)
    assert jobs.recall("s", keys[:2]).tolist() == [1, 0]
    jobs.remember("s", keys[6:], np.ones(4, bool))
    assert jobs.cleared == 1
    assert jobs.recall("s", keys).tolist() == [1, 0, -1, -1, -1, -1, 1, 1, 1, 1]
