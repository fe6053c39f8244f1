"""``geom3d check`` under hostile conditions (issue 14): stuck scenarios, dead workers,
SIGTERM, report paths that must not be written, write failures, control characters.

Every test is bounded: in-process runs by ``--timeout`` / pytest-timeout, subprocesses by
an explicit wait, and the process trees they start are checked for leftovers.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
import weakref
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from support import REPO

from geom3d.check import executors, run_batch
from geom3d.check.executors import BatchInterrupted
from geom3d.cli import main
from geom3d.mesh.primitives import box_mesh

GEOM3D = [sys.executable, "-m", "geom3d.cli"]


def _trooper(id_, pos, facing=0.0, **kw):
    return {"id": id_, "side": kw.pop("side", "blue"), "position": list(pos),
            "facing_deg": facing, "silhouette": 2, **kw}  # fmt: skip


def _doc(troopers, scenery=(), expect=None):
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
           "table": {"size": [1200, 1200]}, "scenery": list(scenery),
           "troopers": troopers}  # fmt: skip
    if expect is not None:
        doc["expect"] = expect
    return doc


def _write(path: Path, doc) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False))
    return path


OPEN = [_trooper("a", (100, 600, 0)), _trooper("b", (400, 600, 0), 180, side="red")]
PASS_EXPECT = {"lof": [{"from": "a", "to": "b", "lof": True}]}
# A 100 mm wall hides b from a wherever b walks (x from 400 to 441): the route never gives
# LoF, so it is sampled to its end (every 1 mm of ~90 m of travel: over a minute of work,
# within the route-work cap MAX_ROUTE_MM_TROOPERS of 100 m x troopers, issue 44). Each
# leg is 0.37 mm further along x, so no position repeats (the earlier back-and-forth route
# over one line finished within the time limit after the issue 35/37 merges). The wall is
# one mesh of two boxes, the long wall and a post at its end: a box alone would be a
# convex piece, which settles each position's pair at once (issue 37); the two are not.
WALL = [{"id": "wall", "mesh": "post_wall.stl", "position": [250, 600, 0]}]
ROUTE = [[400 + 0.37 * i, 200 if i % 2 else 1000] for i in range(112)]


def _post_wall(d: Path) -> None:
    """``post_wall.stl`` in ``d``: a 10 x 1100 x 100 mm box and a 30 x 30 x 110 mm post
    at its +y end, one mesh (not convex)."""
    lines = ["solid w"]
    for size, dy in (((10.0, 1100.0, 100.0), 0.0), ((30.0, 30.0, 110.0), 535.0)):
        v, f = box_mesh(size)
        v = v + (0.0, dy, 0.0)
        for tri in f:
            lines += ["facet normal 0 0 0", "outer loop"]
            lines += [f"vertex {v[i][0]:g} {v[i][1]:g} {v[i][2]:g}" for i in tri]
            lines += ["endloop", "endfacet"]
    d.mkdir(parents=True, exist_ok=True)
    (d / "post_wall.stl").write_text("\n".join([*lines, "endsolid w", ""]))


def _quick(d: Path, name: str) -> Path:
    return _write(d / name, _doc(OPEN, expect=PASS_EXPECT))


def _heavy(d: Path, name: str = "a_heavy.yaml") -> Path:
    troopers = [OPEN[0], _trooper("b", (400, 600, 0), 180, side="red", route=ROUTE)]
    expect = {"lof": [{"from": "a", "to": "b", "lof": False}]}
    _post_wall(d)
    return _write(d / name, _doc(troopers, WALL, expect=expect))


def _descendants(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for p in pids:
        try:
            st = Path(f"/proc/{p}/stat").read_text()
        except OSError:
            continue
        if st.rsplit(")", 1)[1].split()[0] != "Z":
            alive.add(p)
    return alive


linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


# --------------------------------------------------------------------------- time limit
@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [1, 2, None])  # None: the default mode (issue 33)
def test_stuck_scenario_times_out_others_pass(tmp_path, workers):
    files = [_heavy(tmp_path), *(_quick(tmp_path, f"q{i}.yaml") for i in range(3))]
    t0 = time.monotonic()
    res = run_batch(files, workers=workers, timeout=10.0)
    took = time.monotonic() - t0
    heavy, *quick = res.records
    assert heavy["status"] == "error"
    assert heavy["error"].startswith("timed out after 10 s")
    assert [r["status"] for r in quick] == ["pass"] * 3
    assert took < 60  # the route alone takes minutes
    if workers is None:  # auto: 4 scenarios are checked in this process (SPEC 13.4)
        assert all(r["timing"]["worker"].endswith(f":{os.getpid()}") for r in quick)
        assert res.choice.startswith("auto: in-process")


@pytest.mark.timeout(120)
def test_timeout_option_through_the_cli(tmp_path, capsys):
    _heavy(tmp_path / "b")
    _quick(tmp_path / "b", "q.yaml")
    rc = main(["check", str(tmp_path / "b"), "--workers", "2", "--timeout", "10", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 1
    problem, totals = out.strip().splitlines()  # --quiet: the problem, one totals line
    # the row says how far the scenario got (the heavy one is stuck in its route LoF)
    assert problem.endswith(
        "a_heavy.yaml: error: timed out after 10 s (--timeout); the "
        "scenario was stopped while evaluating lof[a->b] (0 of 1 done)"
    )
    assert totals.startswith("2 scenarios: 1 pass, 0 fail, 1 error")


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon", "1e308", "31536001"])
def test_bad_timeout_is_usage_error(tmp_path, capsys, value):
    _quick(tmp_path, "q.yaml")
    with pytest.raises(SystemExit) as exc:
        main(["check", str(tmp_path), "--timeout", value])
    assert exc.value.code == 2
    assert "--timeout" in capsys.readouterr().err


@linux_only
@pytest.mark.timeout(60)
def test_fifo_named_yaml_never_hangs(tmp_path, capsys):
    d = tmp_path / "b"
    _quick(d, "q.yaml")
    os.mkfifo(d / "pipe.yaml")
    assert main(["check", str(d), "--workers", "1", "--quiet"]) == 0  # skipped in folders
    assert main(["check", str(d / "pipe.yaml")]) == 2  # named explicitly: usage error
    assert "not a regular file" in capsys.readouterr().err


# --------------------------------------------------------------------------- dead workers
@linux_only
@pytest.mark.timeout(180)
def test_killed_worker_scenario_is_redone_once_others_pass(tmp_path):
    """SPEC 13.4: a dead worker's scenario is redone once on a fresh worker (here it then
    runs into the time limit), and no other scenario is lost."""
    files = [_heavy(tmp_path), *(_quick(tmp_path, f"q{i}.yaml") for i in range(6))]
    killed: list[int] = []

    def on_result(i, rec):
        # the first quick result: the other worker is stuck in the heavy scenario; kill it
        if killed:
            return
        quick_worker = int(rec["timing"]["worker"].rsplit(":", 1)[1])
        import multiprocessing

        workers = {p.pid for p in multiprocessing.active_children()}  # the pool's
        stuck = _alive(workers - {quick_worker})
        assert len(stuck) == 1, stuck
        os.kill(stuck.pop(), signal.SIGKILL)
        killed.append(quick_worker)

    res = run_batch(files, workers=2, timeout=15.0, on_result=on_result)
    heavy, *quick = res.records
    assert killed
    assert heavy["status"] == "error"
    assert heavy["error"].startswith("timed out after 15 s (--timeout)"), heavy["error"]
    assert heavy["timing"]["total_seconds"] >= 15.0  # the redo's own time, not 0
    assert [r["status"] for r in quick] == ["pass"] * 6  # no cascade, nothing lost


# --------------------------------------------------------------------------- SIGTERM
def _read_until(stream, needle: str, deadline: float) -> str:
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    seen = ""
    while needle not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not sel.select(left):
            raise AssertionError(f"never saw {needle!r}; got {seen!r}")
        chunk = os.read(stream.fileno(), 4096).decode()
        if not chunk:
            raise AssertionError(f"stream closed before {needle!r}; got {seen!r}")
        seen += chunk
    return seen


@linux_only
@pytest.mark.timeout(240)
@pytest.mark.parametrize("workers", ["1", "2", None])  # None: the default mode
def test_sigterm_writes_reports_and_leaves_no_process(tmp_path, workers):
    d = tmp_path / "b"
    _heavy(d, "z_heavy.yaml")  # sorted last: the quick ones finish first
    for i in range(2):
        _quick(d, f"q{i}.yaml")
    out_json, out_xml = tmp_path / "r.json", tmp_path / "r.xml"
    cmd = [*GEOM3D, "check", str(d), *(["--workers", workers] if workers else []),
           "--json", str(out_json), "--junit", str(out_xml)]  # fmt: skip
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        _read_until(proc.stderr, "[2/3]", time.monotonic() + 150)
        time.sleep(0.5)  # the heavy scenario is under way
        tree = _descendants(proc.pid)
        if workers == "2":  # auto runs these few scenarios in this process
            assert tree, "a pool has worker processes"
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(30)
        err = proc.stderr.read().decode()
        assert rc == 143, err
        assert "Traceback" not in err
        assert "interrupted (SIGTERM): 2 of 3 scenarios finished" in err
        deadline = time.monotonic() + 10
        while _alive(tree) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(tree), "orphan processes left behind"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    doc = json.loads(out_json.read_text())
    status = {Path(r["path"]).name: r["status"] for r in doc["records"]}
    assert status == {"q0.yaml": "pass", "q1.yaml": "pass", "z_heavy.yaml": "error"}
    heavy = doc["records"][2]
    assert heavy["error"] == "not finished: check was interrupted (SIGTERM)"
    assert doc["summary"]["interrupted"] == "SIGTERM"
    ET.parse(out_xml)  # well-formed


@pytest.mark.timeout(60)
def test_keyboard_interrupt_keeps_finished_records(tmp_path):
    files = [_quick(tmp_path, f"q{i}.yaml") for i in range(3)]

    def stop_after_first(i, rec):
        raise KeyboardInterrupt

    with pytest.raises(BatchInterrupted) as exc:
        run_batch(files, workers=1, on_result=stop_after_first)
    recs = exc.value.result.records
    assert exc.value.signal_name == "SIGINT"
    assert [r["status"] for r in recs] == ["pass", "error", "error"]
    assert recs[1]["error"] == "not finished: check was interrupted (SIGINT)"


# --------------------------------------------------------------------------- report paths
@pytest.fixture
def batch(tmp_path, monkeypatch):
    """b/wall.yaml references b/wall.stl; b/q.yaml is plain; cwd = tmp_path."""
    from geom3d.mesh import box_mesh

    d = tmp_path / "b"
    v, f = box_mesh((10.0, 300.0, 60.0))
    lines = ["solid w"]
    for tri in f:
        lines += ["facet normal 0 0 0", "outer loop"]
        lines += [f"vertex {v[i][0]:g} {v[i][1]:g} {v[i][2]:g}" for i in tri]
        lines += ["endloop", "endfacet"]
    d.mkdir()
    (d / "wall.stl").write_text("\n".join([*lines, "endsolid w", ""]))
    scenery = [{"id": "wall", "mesh": "wall.stl", "position": [250, 600, 0]}]
    _write(d / "wall.yaml", _doc(OPEN, scenery, expect={"lof": [{"from": "a", "to": "b",
                                                                   "lof": False}]}))  # fmt: skip
    _quick(d, "q.yaml")
    (tmp_path / "reports").mkdir()
    monkeypatch.chdir(tmp_path)
    return d


def _snapshot(d: Path) -> dict:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(d.rglob("*")) if p.is_file()}


def test_report_folders_are_created(batch, capsys):
    # like render --out: the folders of a report are made, after the batch ran
    args = ["check", "b", "--workers", "1", "--json", "out/deep/r.json", "--junit", "out/j.xml"]
    assert main([*args, "--quiet"]) == 0
    assert json.loads(Path("out/deep/r.json").read_text())["summary"]["scenarios"] == 2
    assert Path("out/j.xml").read_text().startswith("<?xml")


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--json", "b/q.yaml"], "--json: b/q.yaml is one of the scenarios being checked"),
        (["--junit", "b/wall.stl"], "--junit: b/wall.stl is a mesh file that"),
        (["--json", "b"], "--json: b is a folder, not a regular file"),
        (["--junit", "/dev/null"], "--junit: /dev/null is a character device"),
        (["--json", "reports/r", "--junit", "reports/r"], "--json and --junit name the same"),
        (["--json", "reports/x/../r", "--junit", "reports/r"], "name the same file"),
        (["--json", "b/q.yaml/r.json"], "cannot write b/q.yaml/r.json"),
    ],
)
def test_report_path_rules(batch, capsys, extra, words):
    before = _snapshot(batch.parent)
    assert main(["check", "b", "--workers", "1", *extra]) == 2
    err = capsys.readouterr().err
    assert words in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert _snapshot(batch.parent) == before  # nothing written, nothing created
    assert not Path("missing").exists()


@linux_only
def test_report_path_fifo_and_links(batch, capsys):
    os.mkfifo("reports/fifo")
    os.symlink(batch / "q.yaml", "reports/to-scenario")
    for target, words in (
        ("reports/fifo", "is a FIFO"),
        ("reports/to-scenario", "one of the scenarios"),
    ):
        assert main(["check", "b/q.yaml", "--workers", "1", "--json", target]) == 2
        assert words in capsys.readouterr().err
    assert Path("reports/fifo").is_fifo() and Path("reports/to-scenario").is_symlink()
    # any other link at the report's name is replaced, never written through (issue 33):
    # the file, folder or nothing it pointed to stays as it was
    Path("reports/real.json").write_text("old")
    os.symlink("real.json", "reports/link.json")
    os.symlink(batch, "reports/to-folder")
    os.symlink("reports/nowhere", "reports/dangling")
    for name in ("link.json", "to-folder", "dangling"):
        argv = ["check", "b/q.yaml", "--workers", "1", "--json", f"reports/{name}"]
        assert main(argv) == 0
        assert not Path("reports", name).is_symlink()
        assert json.loads(Path("reports", name).read_text())["summary"]["pass"] == 1
    assert Path("reports/real.json").read_text() == "old" and batch.is_dir()
    assert not Path("reports/nowhere").exists()
    capsys.readouterr()


def test_existing_report_is_replaced(batch, capsys):
    Path("reports/r.json").write_text("old report")
    assert main(["check", "b", "--workers", "1", "--json", "reports/r.json", "--quiet"]) == 0
    assert json.loads(Path("reports/r.json").read_text())["summary"]["scenarios"] == 2


# --------------------------------------------------------------------------- write failures
def _run_cli(args, *, preexec=None, stdout=subprocess.PIPE, shell_redirect=None, cwd=None):
    cmd = [*GEOM3D, *args]
    if shell_redirect:
        cmd = ["sh", "-c", " ".join(f"'{c}'" for c in cmd) + " " + shell_redirect]
    return subprocess.run(cmd, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=120, preexec_fn=preexec, check=False)  # fmt: skip


@linux_only
@pytest.mark.timeout(150)
def test_report_write_failure_is_one_line_exit_2(batch):
    import resource

    def small_files():  # the JSON report is larger than this: the write fails with EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))

    Path("reports/r.json").write_text("old")
    p = _run_cli(["check", "b/q.yaml", "--workers", "1", "--json", "reports/r.json"],
                 preexec=small_files, cwd=batch.parent)  # fmt: skip
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines()[-1] == (
        "geom3d: error: cannot write reports/r.json: File too large"
    )
    assert "Traceback" not in p.stderr
    assert Path("reports/r.json").read_text() == "old"  # untouched
    assert sorted(os.listdir("reports")) == ["r.json"]  # no temporary file left


@linux_only
@pytest.mark.timeout(150)
@pytest.mark.parametrize("redirect", [">&-", "> /dev/full"])
def test_closed_or_full_stdout_is_no_traceback(batch, redirect):
    p = _run_cli(["check", "b/q.yaml", "--workers", "1"], shell_redirect=redirect,
                 stdout=None, cwd=batch.parent)  # fmt: skip
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 0, p.stderr


# --------------------------------------------------------------------------- control chars
def test_control_characters_and_surrogates_never_raw(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    evil = "x\x1b[31m\x9b\x07"
    troopers = [_trooper(evil, (100, 600, 0)), _trooper("b", (400, 600, 0), 180, side="red")]
    doc = _doc(troopers, expect={"lof": [{"from": evil, "to": "b", "lof": False}]})
    Path("b").mkdir()
    Path("b/evil\x1b]0;title\x07.json").write_text(json.dumps(doc))
    sur = _doc([_trooper("\ud800", (100, 600, 0)), OPEN[1]],
               expect={"lof": [{"from": "\ud800", "to": "b", "lof": True}]})  # fmt: skip
    Path("b/surrogate.json").write_text(json.dumps(sur))  # ASCII: "\ud800" escaped
    _quick(Path("b"), "q.yaml")
    Path("r").mkdir()
    rc = main(["check", "b", "--workers", "1", "--json", "r/r.json", "--junit", "r/r.xml",
               "--format", "github"])  # fmt: skip
    out, err = capsys.readouterr()
    assert rc == 1
    for text in (out, err):
        assert not any(c in text for c in "\x1b\x9b\x07"), text
        text.encode("utf-8")  # no lone surrogate
    assert "\\x1b" in out  # shown, escaped
    raw = Path("r/r.json").read_bytes()
    assert not any(b in raw for b in (b"\x1b", b"\x07", "\x9b".encode()))
    doc = json.loads(raw)
    assert len(doc["records"]) == 3  # the surrogate did not lose the batch report
    # the JSON escapes give the exact strings back
    assert "b/evil\x1b]0;title\x07.json" in [r["path"] for r in doc["records"]]
    root = ET.parse("r/r.xml").getroot()  # well-formed XML 1.0
    assert root.get("tests") == str(sum(int(s.get("tests")) for s in root.iter("testsuite")))


# --------------------------------------------------------------------------- Dask
@pytest.mark.dask
@pytest.mark.timeout(120)
def test_dask_without_workers_fails_in_bounded_time(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    from geom3d.core.errors import UsageError
    from geom3d.execution import dask as execution_dask

    monkeypatch.setattr(execution_dask, "WORKER_WAIT_S", 2.0)
    with distributed.LocalCluster(n_workers=0, dashboard_address=":0") as lc:
        t0 = time.monotonic()
        with pytest.raises(UsageError, match="no Dask workers connected to"):
            run_batch([_quick(tmp_path, "q.yaml")], scheduler=lc.scheduler_address)
        assert time.monotonic() - t0 < 30


@pytest.mark.dask
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_dask_timeout_stops_the_scenario_and_frees_the_worker(tmp_path):
    distributed = pytest.importorskip("distributed")
    files = [_heavy(tmp_path), *(_quick(tmp_path, f"q{i}.yaml") for i in range(2))]
    with distributed.LocalCluster(
        n_workers=1, processes=True, threads_per_worker=1, dashboard_address=":0"
    ) as lc:
        res = run_batch(files, scheduler=lc.scheduler_address, timeout=10.0)
    heavy, *quick = res.records
    assert heavy["status"] == "error" and heavy["error"].startswith("timed out after 10 s")
    assert [r["status"] for r in quick] == ["pass", "pass"], [r["error"] for r in quick]


# --------------------------------------------------------------------------- default workers
@pytest.mark.timeout(180)
def test_auto_runs_small_batches_here_and_pools_large_ones(tmp_path, monkeypatch):
    """``--workers auto`` (SPEC 13.4): below AUTO_POOL_FROM scenarios, in this process;
    from it, one worker process per CPU; the choice is said; the answers are the same."""
    from geom3d.check import executors, json_report
    from geom3d.execution import policy

    files = [_quick(tmp_path, f"q{i}.yaml") for i in range(4)]
    short = run_batch(files)
    assert (short.executor, short.workers) == ("in-process", 1)
    assert short.choice.startswith("auto: in-process (4 scenarios")
    pids = {int(r["timing"]["worker"].rsplit(":", 1)[1]) for r in short.records}
    assert pids == {os.getpid()}
    monkeypatch.setattr(executors, "AUTO_POOL_FROM", 4)  # pretend the batch is long
    monkeypatch.setattr(policy, "cpu_count", lambda: 2)
    pooled = run_batch(files)
    assert (pooled.executor, pooled.workers) == ("processes", 2)
    assert pooled.choice == "auto: 2 worker processes (4 scenarios)"
    pids = [int(r["timing"]["worker"].rsplit(":", 1)[1]) for r in pooled.records]
    assert os.getpid() not in pids

    def strip(doc):
        doc.pop("timing")
        for r in doc["records"]:
            r.pop("timing")
        return doc

    assert strip(json_report(short)) == strip(json_report(pooled))


def test_previous_report_in_the_folder_is_not_a_scenario(batch, capsys):
    args = ["check", "b", "--workers", "1", "--json", "b/report.json", "--quiet"]
    assert main(args) == 0
    assert main(args) == 0  # the report of the first run is not taken as a scenario
    doc = json.loads(Path("b/report.json").read_text())
    assert doc["summary"]["scenarios"] == 2
    # but a scenario in that place is never overwritten
    Path("b/report.json").write_text(json.dumps({"format": "geom3d/1"}))
    assert main(args) == 2
    assert "one of the scenarios being checked" in capsys.readouterr().err


def test_sigterm_rewrapped_by_the_engine_is_an_interrupt_not_an_error(tmp_path, monkeypatch):
    """A SIGTERM that lands inside code which turns any exception into its own (numba's
    compiler does) must still stop the batch, not become one scenario's ``error``."""
    from geom3d.check import record

    f = _quick(tmp_path, "q.yaml")

    sigterm = [True]

    def wrapped(*a, **k):
        if sigterm[0]:
            record.TERMINATION.set()  # as geom3d check's SIGTERM handler does first
        raise RuntimeError("numba: Failed in nopython mode pipeline (KeyboardInterrupt)")

    monkeypatch.setattr(record, "_check_scenario", wrapped)
    caught = []  # (KeyboardInterrupt subclasses: caught by hand, pytest.raises lets them by)
    try:
        for call in (lambda: record.check_scenario(str(f)), lambda: run_batch([f], workers=1)):
            try:
                call()
            except KeyboardInterrupt as exc:
                caught.append(exc)
    finally:
        record.TERMINATION.clear()
        sigterm[0] = False
    assert [type(e) for e in caught] == [record.TerminationRequested, BatchInterrupted]
    assert caught[1].signal_name == "SIGTERM"
    # without a pending SIGTERM the same failure is an ordinary error record
    rec = record.check_scenario(str(f))
    assert rec["status"] == "error" and rec["error"].startswith("internal error: RuntimeError")


def _spin(seconds=0.3):
    t = time.monotonic()
    while time.monotonic() - t < seconds:
        pass


def _times_out_after(make_slow):
    """The in-process timer (:func:`executors._timer`, 50 ms) set, ``make_slow()`` runs (the
    timer fires in there, where an exception would be printed and dropped), then a 2 s
    loop: the timeout must be raised in the loop, once the slow part is over."""
    alarm = executors._Alarm()
    callbacks = list(gc.callbacks)
    with pytest.raises(executors._ScenarioTimeout), executors._timer(alarm, 0.05):
        make_slow()  # the timer fires in here...
        _spin(2.0)  # ...and again here
    assert alarm.fired
    assert gc.callbacks == callbacks


def test_the_in_process_timer_is_not_lost_in_a_finalizer():
    # the timer fires while an object's __del__ runs: it fires again after
    class Slow:
        def __del__(self):
            _spin()

    def make_slow():
        slow = Slow()
        del slow

    _times_out_after(make_slow)


def test_the_in_process_timer_is_not_lost_in_the_collectors_work():
    # the timer fires while the collector runs a weakref callback, and while it runs a
    # gc.callbacks entry (hypothesis installs one; a full test run under load failed on
    # it): where an exception would be printed and dropped, it fires again after
    class Node:
        pass

    spun = []

    def weakref_callback():
        node = Node()
        node.cycle = node  # freed only by the collector, which then calls back
        ref = weakref.ref(node, lambda _ref: spun.append("ref") or _spin())
        del node
        gc.collect()
        assert ref() is None

    _times_out_after(weakref_callback)
    assert spun == ["ref"]
    spun.clear()

    def on_collect(phase, info):
        if phase == "start":
            spun.append(phase)
            _spin()

    gc.callbacks.append(on_collect)
    try:
        _times_out_after(gc.collect)
    finally:
        gc.callbacks.remove(on_collect)
    assert spun == ["start"]
