"""``geom3d check`` end to end: discovery, statuses, executors, reports (geom3d/check/)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from support import REPO

from geom3d.check import exit_code, expand_paths, expectations, json_report, run_batch
from geom3d.cli import main
from geom3d.core import scheduler_address
from geom3d.core.errors import Geom3dError, ScenarioError
from geom3d.core.output import dumps_json
from geom3d.mesh import clear_memory_cache


# --------------------------------------------------------------------------- helpers
def _trooper(id_, pos, facing=0.0, **kw):
    return {"id": id_, "side": kw.pop("side", "blue"), "position": list(pos),
            "facing_deg": facing, "silhouette": kw.pop("silhouette", 2), **kw}  # fmt: skip


def _scenario(troopers, scenery=(), expect=None, attacks=None):
    doc = {
        "format": "geom3d/1",
        "units": "mm",
        "ruleset": "infinity",
        "table": {"size": [1200, 1200]},
        "scenery": list(scenery),
        "troopers": list(troopers),
    }
    if attacks is not None:
        doc["attacks"] = attacks
    if expect is not None:
        doc["expect"] = expect
    return doc


def _write(path: Path, doc) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False))
    return path


# a at (100, 600) facing +x, b at (400, 600) facing -x, nothing between: LoF both ways.
OPEN = [_trooper("a", (100, 600, 0)), _trooper("b", (400, 600, 0), 180, side="red")]
# A 60 mm wall across the line between them: blocked both ways.
WALL = [{"id": "wall", "box": {"size": [10, 300, 60]}, "position": [250, 600, 0]}]


@pytest.fixture
def mixed(tmp_path):
    """A batch with one scenario of each status (and a nested folder)."""
    d = tmp_path / "batch"
    _write(
        d / "pass.yaml",
        _scenario(OPEN, expect={"lof": [{"from": "a", "to": "b", "lof": True, "visible": True}]}),
    )
    _write(
        d / "sub" / "fail.yaml",
        _scenario(
            OPEN,
            WALL,
            expect={
                "lof": [
                    {"from": "a", "to": "b", "lof": True, "in_arc": True},  # lof wrong
                    {"from": "b", "to": "a", "reason": "blocked"},  # right
                ]
            },
        ),
    )
    _write(d / "broken.yaml", {**_scenario(OPEN), "colour": "red"})
    _write(d / "noexpect.json", json.dumps(_scenario(OPEN)))
    _write(d / "notes.txt", "not a scenario")  # ignored: not *.yaml|*.yml|*.json
    _write(d / ".hidden" / "x.yaml", "nonsense: [")  # hidden folders are skipped
    return d


@pytest.fixture
def fresh_mesh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOM3D_CACHE_DIR", str(tmp_path / "mesh-cache"))
    clear_memory_cache()
    yield
    clear_memory_cache()


def _records(result):
    return {Path(r["path"]).name: r for r in result.records}


def _strip_timing(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    doc.pop("timing")
    for r in doc["records"]:
        r.pop("timing")
    return doc


# --------------------------------------------------------------------------- paths
def test_expand_paths_folders_globs_dedup(mixed, monkeypatch):
    monkeypatch.chdir(mixed.parent)
    files = expand_paths(["batch", "batch/pass.yaml", "batch/*.yaml", "batch/./sub/fail.yaml"])
    assert [f.display for f in files] == [
        "batch/broken.yaml",
        "batch/noexpect.json",
        "batch/pass.yaml",
        "batch/sub/fail.yaml",
    ]
    assert all(os.path.isabs(f.path) for f in files)
    # a glob over folders searches them; ** recurses
    assert [f.display for f in expand_paths(["batch/**/*.yaml"])] == [
        "batch/broken.yaml",
        "batch/pass.yaml",
        "batch/sub/fail.yaml",
    ]
    # the report being written is never taken as a scenario
    assert "batch/noexpect.json" not in [
        f.display for f in expand_paths(["batch"], exclude=["batch/noexpect.json"])
    ]
    # an explicitly named file is taken whatever its extension
    assert [f.display for f in expand_paths(["batch/notes.txt"])] == ["batch/notes.txt"]


@pytest.mark.parametrize(
    ("arg", "words"),
    [
        ("nope.yaml", "no such file"),
        ("batch/*.nothing", "matches no scenario files"),
        ("empty", "no scenario files"),
    ],
)
def test_expand_paths_errors(mixed, monkeypatch, arg, words):
    monkeypatch.chdir(mixed.parent)
    (mixed.parent / "empty").mkdir()
    with pytest.raises(Geom3dError, match=words):
        expand_paths([arg])


# --------------------------------------------------------------------------- statuses
def test_mixed_batch_statuses_reports_and_exit_code(mixed, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(mixed.parent)
    out_json, out_xml = tmp_path / "r" / "report.json", tmp_path / "r" / "report.xml"
    out_json.parent.mkdir()  # reports never create folders
    rc = main(
        ["check", "batch", "--workers", "1", "--json", str(out_json), "--junit", str(out_xml)]
    )
    assert rc == 1
    captured = capsys.readouterr()
    doc = json.loads(out_json.read_text())
    recs = {r["path"]: r for r in doc["records"]}
    assert list(recs) == sorted(recs)
    assert {p: r["status"] for p, r in recs.items()} == {
        "batch/broken.yaml": "error",
        "batch/noexpect.json": "skip",
        "batch/pass.yaml": "pass",
        "batch/sub/fail.yaml": "fail",
    }
    # the failing scenario: the one wrong field, expected vs actual
    fail = recs["batch/sub/fail.yaml"]
    assert fail["checks"] == 3
    assert fail["mismatches"] == [{"check": "lof[a->b].lof", "expected": True, "actual": False}]
    assert [r["status"] for r in fail["results"]] == ["fail", "pass", "pass"]
    # the broken scenario: the one-line error naming file, field and problem
    broken = recs["batch/broken.yaml"]
    assert broken["error"] == "batch/broken.yaml: colour: unknown key 'colour'"
    assert broken["checks"] == 0
    assert recs["batch/noexpect.json"]["skip_reason"] == "no expect block"
    assert recs["batch/pass.yaml"]["checks"] == 2
    # summary
    assert doc["format"] == "geom3d-check/1"
    assert doc["summary"] == {
        "scenarios": 4,
        "pass": 1,
        "fail": 1,
        "error": 1,
        "skip": 1,
        "checks": 5,
        "mismatches": 1,
        "warnings": 0,
        "exit_code": 1,
    }
    for r in doc["records"]:
        t = r["timing"]
        assert {"load_seconds", "compute_seconds", "cache_hit", "worker"} <= set(t)
        assert t["load_seconds"] == pytest.approx(t["mesh_seconds"] + t["bvh_seconds"])
    # keys are sorted everywhere (deterministic output)
    text = out_json.read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    # terminal: the table, the problems, the totals; plain progress lines on stderr
    assert "batch/sub/fail.yaml: lof[a->b].lof: expected true, got false" in captured.out
    # the path once per line, never repeated inside the message
    assert "batch/broken.yaml: error: colour: unknown key 'colour'" in captured.out
    assert captured.out.count("batch/broken.yaml") == 2  # its table row and its problem line
    assert "4 scenarios: 1 pass, 1 fail, 1 error, 1 skip; 5 checks, 1 mismatch, " in captured.out
    lines = [ln for ln in captured.err.splitlines() if ln.startswith("[")]
    assert len(lines) == 4 and lines[0].startswith("[1/4] batch/")
    assert any(ln.endswith("batch/sub/fail.yaml: fail") for ln in lines)

    # JUnit: one testsuite, one testcase per check (+1 for the error, +1 for the skip)
    root = ET.parse(out_xml).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == 5 + 2
    failures = [c for c in cases if c.find("failure") is not None]
    errors = [c for c in cases if c.find("error") is not None]
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert (len(failures), len(errors), len(skipped)) == (1, 1, 1)
    for el in (root, suite):
        assert el.get("tests") == "7"
        assert el.get("failures") == "1"
        assert el.get("errors") == "1"
        assert el.get("skipped") == "1"
    assert failures[0].get("classname") == "batch/sub/fail"  # no extension: CI splits on dots
    assert failures[0].get("file") == "batch/sub/fail.yaml"
    assert failures[0].get("name") == "lof[a->b].lof"
    assert failures[0].find("failure").get("message") == "expected true, got false"
    assert errors[0].get("name") == "load"
    assert "unknown key 'colour'" in errors[0].find("error").get("message")


def test_all_hold_exit_0_and_quiet(mixed, monkeypatch, capsys):
    monkeypatch.chdir(mixed.parent)
    assert main(["check", "batch/pass.yaml", "batch/noexpect.json", "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["check", "batch/pass.yaml", "--workers", "1", "--quiet"]) == 0
    captured = capsys.readouterr()
    # quiet prints one totals line (a CI log still says what ran), no progress
    lines = captured.out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("1 scenario: 1 pass, 0 fail, 0 error, 0 skip;")
    assert "[1/1]" not in captured.err
    # quiet still names what did not hold
    assert main(["check", "batch/sub", "--workers", "1", "--quiet"]) == 1
    captured = capsys.readouterr()
    first, totals = captured.out.splitlines()
    assert first == "batch/sub/fail.yaml: lof[a->b].lof: expected true, got false"
    assert totals.startswith("1 scenario: 0 pass, 1 fail")
    assert "[1/1]" not in captured.err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["check", "does/not/exist.yaml"], "no such file or folder"),
        (["check", "batch", "--workers", "0"], "--workers: must be at least 1"),
        (["check", "batch", "--scheduler", "tcp://nohost"], "--scheduler: bad address"),
        (["check", "batch", "--scheduler", "tcp://h:1", "--workers", "2"], "cannot be combined"),
        (["check", "batch", "--json", "batch"], "--json: batch is a folder"),
    ],
)
def test_usage_errors_exit_2(mixed, monkeypatch, capsys, argv, words):
    monkeypatch.chdir(mixed.parent)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unreachable_scheduler_exit_2(mixed, monkeypatch, capsys):
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.chdir(mixed.parent)
    monkeypatch.setattr(scheduler_address, "CONNECT_TIMEOUT", "2s")
    assert main(["check", "batch/pass.yaml", "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    assert "cannot connect to" in capsys.readouterr().err


def test_missing_dask_is_a_clear_usage_error(mixed, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_dask(name, *args, **kw):
        if name == "distributed" or name.startswith(("distributed.", "dask")):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(Geom3dError, match=r"install geom3d\[dask\]"):
        run_batch([mixed / "pass.yaml"], scheduler="tcp://127.0.0.1:8786")


def test_missing_mesh_and_engine_crash_are_error_records(tmp_path, monkeypatch):
    p = _write(
        tmp_path / "m.yaml",
        _scenario(
            OPEN,
            [{"id": "ruin", "mesh": "ruin.stl", "position": [0, 0, 0]}],
            expect={"lof": [{"from": "a", "to": "b", "lof": True}]},
        ),
    )
    q = _write(
        tmp_path / "q.yaml",
        _scenario(OPEN, expect={"lof": [{"from": "a", "to": "b", "lof": True}]}),
    )

    def boom(scene, a, b, **kw):
        raise ZeroDivisionError("engine bug")

    monkeypatch.setattr(expectations, "line_of_fire", boom)
    res = run_batch([p, q], workers=1)
    m, crash = res.records
    assert m["status"] == "error" and "mesh file not found" in m["error"]
    assert m["error"].startswith(str(p))
    assert crash["status"] == "error"
    assert crash["error"] == "internal error: ZeroDivisionError: engine bug"
    assert "ZeroDivisionError" in crash["traceback"]
    assert exit_code(res) == 1


def test_expectation_that_asks_nothing_is_an_error(tmp_path):
    p = _write(tmp_path / "n.yaml", _scenario(OPEN, expect={"lof": [{"from": "a", "to": "b"}]}))
    (rec,) = run_batch([p], workers=1).records
    assert rec["status"] == "error"
    assert rec["error"].startswith("lof[a->b]: this expectation asks nothing")
    p = _write(tmp_path / "e.yaml", _scenario(OPEN, expect={}))
    (rec,) = run_batch([p], workers=1).records
    assert rec["status"] == "skip" and rec["skip_reason"] == "the expect block asks nothing"


# --------------------------------------------------------------------------- attacks
ATTACK = [
    {
        "id": "shot1",
        "attacker": "a",
        "template": "small_teardrop",
        "mode": "direct",
        "main_target": "b",
        "heading_deg": 0,
    }
]
# a at (100, 600) faces +x; b 60 mm ahead at (160, 600); c far off at (400, 600).
# small_teardrop: 127 mm long from a's base edge (x 112.5 .. 239.5), 38.1 wide at the far
# end: b (x 147.5 .. 172.5, on the axis) is inside, c (x >= 387.5) is not.
ATTACK_TROOPERS = [
    _trooper("a", (100, 600, 0)),
    _trooper("b", (160, 600, 0), 180, side="red"),
    _trooper("c", (400, 600, 0), 180, side="red"),
]


def test_attack_that_cannot_be_resolved_is_an_error_lof_still_checked(tmp_path, monkeypatch):
    def refuse(scene, attack_id, **kw):
        raise ScenarioError(f"attacks[0]: cannot resolve {attack_id!r}", file="att.yaml")

    monkeypatch.setattr(expectations, "resolve_attack", refuse)
    p = _write(
        tmp_path / "att.yaml",
        _scenario(
            ATTACK_TROOPERS,
            attacks=ATTACK,
            expect={
                "lof": [{"from": "a", "to": "b", "lof": True}],
                "attacks": {"shot1": {"outcome": "resolved", "affected": ["b"]}},
            },
        ),
    )
    (rec,) = run_batch([p], workers=1).records
    assert rec["status"] == "error"
    assert rec["error"] == (
        "attacks.shot1.outcome: resolving the attack failed: att.yaml: attacks[0]: "
        "cannot resolve 'shot1' (and 1 more checks could not be evaluated)"
    )
    by = {r["check"]: r for r in rec["results"]}
    assert by["lof[a->b].lof"]["status"] == "pass"  # what can be checked still is
    assert by["attacks.shot1.outcome"]["status"] == "error"
    assert by["attacks.shot1.affected"]["expected"] == ["b"]


def test_attack_expectations(tmp_path):
    good = {
        "outcome": "resolved",
        "affected": ["b"],
        "excluded": [{"id": "a", "reason": "attacker"}],
        "troopers": {"b": {"role": "main", "face_to_face": False}},
    }
    bad = {"outcome": "resolved", "affected": ["b", "c"], "no_such_field": 1}
    p = _write(
        tmp_path / "good.yaml",
        _scenario(ATTACK_TROOPERS, attacks=ATTACK, expect={"attacks": {"shot1": good}}),
    )
    q = _write(
        tmp_path / "bad.yaml",
        _scenario(ATTACK_TROOPERS, attacks=ATTACK, expect={"attacks": {"shot1": bad}}),
    )
    g, b = run_batch([p, q], workers=1).records
    assert g["status"] == "pass", g
    assert g["checks"] == 5
    by = {r["check"]: r for r in b["results"]}
    assert by["attacks.shot1.outcome"]["status"] == "pass"
    assert by["attacks.shot1.affected"]["status"] == "fail"
    assert by["attacks.shot1.affected"]["actual"] == ["b"]
    assert by["attacks.shot1.no_such_field"]["status"] == "error"
    assert b["status"] == "error"


# --------------------------------------------------------------------------- caching
STL_BOX = """solid box
{facets}endsolid box
"""


def _box_stl(path: Path, size=(20.0, 200.0, 60.0)) -> Path:
    from geom3d.mesh import box_mesh

    v, f = box_mesh(size)
    facets = ""
    for tri in f:
        facets += "facet normal 0 0 0\n outer loop\n"
        for i in tri:
            facets += f"  vertex {v[i][0]:g} {v[i][1]:g} {v[i][2]:g}\n"
        facets += " endloop\nendfacet\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(STL_BOX.format(facets=facets))
    return path


def _shared_mesh_batch(d: Path, n=4, move=False, size=(20.0, 200.0, 60.0)) -> list[Path]:
    _box_stl(d / "wall.stl", size)
    out = []
    for i in range(n):
        x = 250 + (10 * i if move else 0)
        scenery = [{"id": "wall", "mesh": "wall.stl", "position": [x, 600, 0]}]
        doc = _scenario(
            OPEN,
            scenery,
            expect={"lof": [{"from": "a", "to": "b", "lof": False, "visible": False}]},
        )
        out.append(_write(d / f"s{i}.yaml", doc))
    return out


def test_shared_mesh_loads_once_in_process(tmp_path, fresh_mesh_cache):
    files = _shared_mesh_batch(tmp_path / "same")
    res = run_batch(files, workers=1)
    assert [r["status"] for r in res.records] == ["pass"] * 4
    t = [r["timing"] for r in res.records]
    assert [x["cache_hit"] for x in t] == [False, True, True, True]
    assert [x["meshes_parsed"] for x in t] == [1, 0, 0, 0]
    assert t[0]["load_seconds"] > 0 and all(x["load_seconds"] == 0 for x in t[1:])
    assert len({x["worker"] for x in t}) == 1
    # the same mesh placed differently: a new BVH each time, but the file is parsed once
    # (a new file content, so that neither cache knows it yet)
    moved = _shared_mesh_batch(tmp_path / "moved", move=True, size=(20.0, 210.0, 60.0))
    res = run_batch(moved, workers=1)
    assert [r["timing"]["cache_hit"] for r in res.records] == [False] * 4
    assert [r["timing"]["meshes_parsed"] for r in res.records] == [1, 0, 0, 0]


def test_workers_2_match_workers_1_and_cache_per_worker(tmp_path, fresh_mesh_cache, mixed):
    files = [*_shared_mesh_batch(tmp_path / "same", n=6), *sorted(mixed.rglob("*.yaml"))]
    files = [p for p in files if ".hidden" not in p.parts]
    one = run_batch(files, workers=1)
    two = run_batch(files, workers=2)
    assert two.executor == "processes" and two.workers == 2
    assert _strip_timing(json_report(one)) == _strip_timing(json_report(two))
    # the JSON text, timing dropped, is byte-identical
    assert dumps_json(_strip_timing(json_report(one))) == dumps_json(
        _strip_timing(json_report(two))
    )
    # each worker process built the shared wall's scene at most once
    shared = [r for r in two.records if Path(r["path"]).name.startswith("s")]
    misses: dict[str, int] = {}
    for r in shared:
        misses[r["timing"]["worker"]] = misses.get(r["timing"]["worker"], 0) + (
            not r["timing"]["cache_hit"]
        )
    assert all(v <= 1 for v in misses.values()), misses
    assert os.getpid() not in {int(r["timing"]["worker"].rsplit(":", 1)[1]) for r in two.records}


# --------------------------------------------------------------------------- Dask
@pytest.mark.dask
@pytest.mark.slow
def test_dask_local_cluster_matches_local(tmp_path, fresh_mesh_cache, mixed, capsys):
    distributed = pytest.importorskip("distributed")
    files = [mixed / "broken.yaml", mixed / "pass.yaml", *_shared_mesh_batch(tmp_path / "same")]
    local = run_batch(files, workers=1)
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
    ) as cluster:
        remote = run_batch(files, scheduler=cluster.scheduler_address)
        # through the CLI too: same exit code and reports
        out = tmp_path / "dask.json"
        rc = main(
            [
                "check",
                *map(str, files),
                "--scheduler",
                cluster.scheduler_address,
                "--json",
                str(out),
                "--quiet",
            ]
        )
    assert remote.executor == "dask" and remote.workers == 2
    assert _strip_timing(json_report(local)) == _strip_timing(json_report(remote))
    assert rc == 1 == exit_code(local)
    assert _strip_timing(json.loads(out.read_text())) == _strip_timing(json_report(local))
    misses: dict[str, int] = {}
    for r in remote.records[2:]:
        w = r["timing"]["worker"]
        misses[w] = misses.get(w, 0) + (not r["timing"]["cache_hit"])
    assert all(v <= 1 for v in misses.values()), misses
    capsys.readouterr()


# --------------------------------------------------------------------------- example batch
def test_example_batch_passes(monkeypatch, fresh_mesh_cache):
    monkeypatch.chdir(REPO)
    files = expand_paths(["meshes/batch"])
    assert 6 <= len(files) <= 10
    res = run_batch(files, workers=1)
    recs = _records(res)
    assert "attack_teardrop.yaml" in recs
    bad = [(r["path"], r["error"], r["mismatches"]) for r in recs.values() if r["status"] != "pass"]
    assert not bad
    # the three door scenarios share door_wall.stl placed identically: one build
    doors = [recs[n]["timing"] for n in ("door_diagonal.yaml", "door_offset.yaml")]
    doors.append(recs["door_straight.yaml"]["timing"])
    assert [t["cache_hit"] for t in doors] == [False, True, True]
    assert [t["meshes_parsed"] for t in doors] == [1, 0, 0]


def test_check_never_modifies_its_inputs(mixed, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(mixed.parent)
    before = {p: p.read_bytes() for p in sorted(mixed.rglob("*")) if p.is_file()}
    stamps = {p: p.stat().st_mtime_ns for p in before}
    main(["check", "batch", "--workers", "1", "--json", str(tmp_path / "r.json")])
    capsys.readouterr()
    after = {p: p.read_bytes() for p in sorted(mixed.rglob("*")) if p.is_file()}
    assert after == before  # no file added, removed or changed among the inputs
    assert {p: p.stat().st_mtime_ns for p in before} == stamps
