"""Answers do not depend on how work ran (SPEC 13.4): one process, forked copies, spawned
workers (as macOS and Windows start them) and a Dask cluster give identical survey pairs
and check records."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from support import box, make_scene

from geom3d.execution import policy
from geom3d.survey.pairs import visible_pairs

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork on Linux")


@pytest.fixture(scope="module")
def job():
    from geom3d.survey.document import _job
    from geom3d.survey.grid import place_probes, probe_for

    scene = make_scene(
        [],
        scenery=[box("w1", (10, 200, 60), (300, 300, 0)), box("w2", (200, 10, 40), (500, 600, 0))],
        table={"size": [800, 800]},
    )
    probe = probe_for(scene, 2)
    return _job(scene, place_probes(scene, probe, 60.0), probe)


def _run(job, monkeypatch, workers, method=None):
    if method is not None:
        monkeypatch.setenv(policy.START_METHOD_ENV, method)
    vis, info = visible_pairs(job, workers=workers)
    return vis, info


def test_survey_pairs_same_for_one_forked_and_spawned(job, monkeypatch):
    one, info1 = _run(job, monkeypatch, 1)
    forked, info2 = _run(job, monkeypatch, 2, "fork")
    spawned, info3 = _run(job, monkeypatch, 2, "spawn")
    assert info1["executor"] == "in-process"
    assert info2["executor"] == info3["executor"] == "processes"
    assert one.any() and not one.all()
    assert np.array_equal(one, forked) and np.array_equal(one, spawned)
    assert info1["counters"] == info2["counters"] == info3["counters"]


@pytest.mark.dask
@pytest.mark.slow
def test_survey_pairs_same_on_dask(job):
    distributed = pytest.importorskip("distributed")
    one, _ = visible_pairs(job, workers=1)
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
    ) as lc:
        on_dask, info = visible_pairs(job, scheduler=lc.scheduler_address)
    assert info["executor"] == "dask" and np.array_equal(one, on_dask)


def test_check_records_same_for_one_forked_and_spawned(tmp_path, monkeypatch):
    from geom3d.check import json_report, run_batch

    src = os.path.join(os.path.dirname(__file__), "..", "..", "meshes", "batch")
    files = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".yaml"))[:6]

    def strip(doc):
        doc.pop("timing")
        for r in doc["records"]:
            r.pop("timing")
        return doc

    one = strip(json_report(run_batch(files, workers=1)))
    monkeypatch.setenv(policy.START_METHOD_ENV, "fork")
    forked = strip(json_report(run_batch(files, workers=2)))
    monkeypatch.setenv(policy.START_METHOD_ENV, "spawn")
    spawned = strip(json_report(run_batch(files, workers=2)))
    assert [r["status"] for r in one["records"]] == ["pass"] * 6
    assert one == forked == spawned
