"""``geom3d check``'s own messages (issue 44 item 7, SPEC 13.4): a file that looks like a
scenario but has no valid ``format`` is a load error; a mismatch inside a mapping shows
only the fields that differ; notes are never counted as warnings; every expectation has
its own line and JUnit name; load errors and scene warnings carry ``line=``; a timed-out
row shows its elapsed time; the totals line names its workers in good grammar."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from geom3d.check import expand_paths, run_batch
from geom3d.check.expectations import Checks, field_differences
from geom3d.check.record import BatchResult, error_record
from geom3d.check.reports import (
    executor_text,
    github_lines,
    json_report,
    problem_lines,
    summary_text,
    totals_line,
)
from geom3d.cli import main


def _trooper(id_, pos, facing=0.0, **kw):
    return {"id": id_, "side": kw.pop("side", "blue"), "position": list(pos),
            "facing_deg": facing, "silhouette": 2, **kw}  # fmt: skip


def _doc(troopers, expect, **top) -> dict:
    return {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
            "table": {"size": [1200, 1200]}, "scenery": [], "troopers": troopers,
            **top, "expect": expect}  # fmt: skip


def _write(path: Path, doc: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


A, B = _trooper("a", (100, 600, 0)), _trooper("b", (400, 600, 0), 180, side="red")
HOLDS = {"lof": [{"from": "a", "to": "b", "lof": True}]}


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---------------------------------------------------------------- discovery (SPEC 13.4)
def test_a_scenario_without_a_valid_format_is_a_load_error(here, capsys):
    good = _doc([A, B], HOLDS)
    _write(here / "b" / "good.yaml", good)
    misspelt = {("fromat" if k == "format" else k): v for k, v in good.items()}
    _write(here / "b" / "misspelt.yaml", misspelt)
    no_format = {k: v for k, v in good.items() if k != "format"}
    (here / "b" / "missing.json").write_text(json.dumps(no_format))
    # not scenarios: skipped with a note, as before
    (here / "b" / "ci.yml").write_text("on: push\njobs:\n  test:\n    runs-on: ubuntu\n")
    report = {"format": "geom3d-check/1", "records": [{"actual": {"troopers": {}}}]}
    (here / "b" / "old.json").write_text(json.dumps(report))
    notes: list[str] = []
    files = expand_paths(["b"], notes=notes)
    assert [f.display for f in files] == ["b/good.yaml", "b/missing.json", "b/misspelt.yaml"]
    assert [n.split(":")[0] for n in notes] == ["b/ci.yml", "b/old.json"]

    rc = main(["check", "b", "--workers", "1", "--strict", "--quiet", "--format", "github",
               "--json", "r.json", "--junit", "r.xml"])  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert rc == 1  # fails the run, --strict or not
    assert out == [
        "::error file=b/missing.json,title=geom3d check::error: format: required field is missing",
        "::error file=b/misspelt.yaml,title=geom3d check::error: format: required field is missing",
        "3 scenarios: 1 pass, 0 fail, 2 error, 0 skip; 1 check, 0 mismatches, 0 warnings; "
        + out[-1].split("warnings; ")[1],
    ]
    summary = json.loads(Path("r.json").read_text())["summary"]
    assert (summary["scenarios"], summary["error"], summary["exit_code"]) == (3, 2, 1)
    root = ET.parse("r.xml").getroot()
    loads = [c for c in root.iter("testcase") if c.find("error") is not None]
    assert [(c.get("classname"), c.get("name")) for c in loads] == [
        ("b/missing", "load"),
        ("b/misspelt", "load"),
    ]


def test_a_json_scenario_after_the_sniffed_head_is_still_found(here):
    # the keys sit past the first 64 KiB (a long comment-like member first)
    doc = {"zz_padding": "x" * 70_000, **{k: v for k, v in _doc([A, B], HOLDS).items()}}
    doc.pop("format")
    (here / "b").mkdir()
    (here / "b" / "late.json").write_text(json.dumps(doc))
    assert [f.display for f in expand_paths(["b"])] == ["b/late.json"]


# ---------------------------------------------------------------- a mismatch in a mapping
def test_a_mismatch_inside_a_mapping_shows_only_the_fields_that_differ():
    ledger = "; ".join(f"step {i}: roll {i % 20 + 1}" for i in range(100))  # ~1,500 chars
    actual = {"p_hit": 0.512, "p_wounded": 0.25, "expected_wounds": 0.3, "ledger": ledger}
    checks = Checks()
    checks.compare("attacks.x.troopers.t.odds", {"p_hit": 0.48, "p_crit": 0.05}, actual)
    checks.compare("attacks.x.troopers.t.role", "target", "target")
    (item, _) = checks.items
    rec = {"path": "s.yaml", "status": "fail", "results": checks.items, "warnings": []}
    assert problem_lines(rec) == [
        "s.yaml: attacks.x.troopers.t.odds: p_hit: expected 0.48, got 0.512; "
        "p_crit: missing (expected 0.05)"
    ]
    assert item["actual"]["ledger"] == ledger  # the JSON record keeps the whole answer
    # nested mappings and lists of the same length name the path to what differs
    assert field_differences(
        {"placements": [{"x": 1, "y": 2}, {"x": 3}], "hits": 2},
        {"placements": [{"x": 1, "y": 2, "z": 0}, {"x": 4, "z": 9}], "hits": 2, "note": "n"},
    ) == ["placements[1].x: expected 3, got 4"]
    # a scalar mismatch still reads "expected X, got Y"
    checks.compare("attacks.x.outcome", "hit", "miss")
    rec["results"] = checks.items
    assert problem_lines(rec)[-1] == 's.yaml: attacks.x.outcome: expected "hit", got "miss"'


# ---------------------------------------------------------------- notes are not warnings
def _rec(path: str, warnings, **kw) -> dict:
    rec = error_record(path, "unused")
    rec.update(status="pass", error=None, warnings=warnings, **kw)
    return rec


def test_notes_are_never_counted_as_warnings():
    note = {"severity": "note", "message": "crate: scaled cm -> mm (x10)"}
    recs = [_rec("n.yaml", [note], warnings_at=[7]), _rec("w.yaml", ["trooper 'a' floats"])]
    res = BatchResult(recs, 0.5, "in-process", 1)
    assert json_report(res)["summary"]["warnings"] == 1
    assert json_report(res)["summary"]["notes"] == 1
    assert totals_line(res) == (
        "2 scenarios: 2 pass, 0 fail, 0 error, 0 skip; 0 checks, 0 mismatches, 1 warning, "
        "1 note; 0.50 s (in-process)"
    )
    assert github_lines(res) == [
        "::notice file=n.yaml,line=7,title=scene note::crate: scaled cm -> mm (x10)",
        "::warning file=w.yaml,title=scene warning::trooper 'a' floats",
    ]
    text = summary_text(res, width=160)
    rows = {line.split()[1]: line.split("│") for line in text.splitlines() if ".yaml" in line}
    assert rows["n.yaml"][5].strip() == "0" and rows["w.yaml"][5].strip() == "1"  # warn
    assert "Warnings:\n  w.yaml: warning: trooper 'a' floats\nNotes:\n  n.yaml: note: " in text


# ---------------------------------------------------------------- lines and JUnit names
def test_two_expectations_about_one_pair_have_their_own_lines_and_names(here, capsys):
    expect = {"lof": [{"from": "a", "to": "b", "lof": False},
                      {"from": "a", "to": "b", "lof": False}]}  # fmt: skip
    path = _write(here / "dup.yaml", _doc([A, B], expect))
    text = path.read_text().splitlines()
    at = [i + 1 for i, line in enumerate(text) if line.strip() == "lof: false"]
    assert len(at) == 2
    res = run_batch([path], workers=1)
    (rec,) = res.records
    assert [(r["check"], r["line"]) for r in rec["results"]] == [
        ("lof[a->b].lof", at[0]),
        ("lof[a->b]#2.lof", at[1]),
    ]
    assert main(["check", "dup.yaml", "--workers", "1", "--junit", "r.xml", "--quiet"]) == 1
    names = [c.get("name") for c in ET.parse("r.xml").getroot().iter("testcase")]
    assert names == ["lof[a->b].lof", "lof[a->b]#2.lof"]


def test_load_errors_and_scene_warnings_carry_their_line(here, capsys):
    bad = _doc([A, {**B, "position": [400, 600, 0, 5]}], HOLDS)
    path = _write(here / "bad.yaml", bad)
    lines = path.read_text().splitlines()
    b_at = lines.index("- id: b")
    at = next(i for i in range(b_at, len(lines)) if lines[i] == "  position:") + 1  # b's
    c = _trooper("c", (85, 600, 0), 180)  # overlaps a: a scene warning about 'a'
    warned = _write(here / "warned.yaml", _doc([A, B, c], HOLDS))
    a_at = warned.read_text().splitlines().index("- id: a") + 1
    assert main(["check", "bad.yaml", "warned.yaml", "--workers", "1", "--format", "github",
                 "--quiet"]) == 1  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        f"::error file=bad.yaml,line={at},title=geom3d check::error: troopers[1].position: "
        "expected [x, y] or [x, y, z]",
        f"::warning file=warned.yaml,line={a_at},title=scene warning::troopers 'a' and 'c' overlap",
    ]


# ---------------------------------------------------------------- rows and totals
def test_a_timed_out_row_shows_its_elapsed_time():
    rec = error_record("slow.yaml", "timed out after 1 s (while building the scene)",
                       elapsed=1.25, stage="building the scene")  # fmt: skip
    assert rec["timing"]["total_seconds"] == 1.25 and rec["stage"] == "building the scene"
    res = BatchResult([rec], 1.3, "processes", 2)
    row = next(line for line in summary_text(res, width=160).splitlines() if "slow" in line)
    assert "1.25" in row and "0.00" not in row
    assert error_record("x.yaml", "m")["timing"]["total_seconds"] == 0.0


@pytest.mark.parametrize(
    ("executor", "workers", "text"),
    [
        ("in-process", 1, "in-process"),
        ("processes", 1, "1 worker process"),
        ("processes", 2, "2 worker processes"),
        ("mixed", 1, "in-process, then 1 worker process"),
        ("mixed", 2, "in-process, then 2 worker processes"),
        ("dask", 1, "1 Dask worker at tcp://h:1"),
        ("dask", 3, "3 Dask workers at tcp://h:1"),
    ],
)
def test_the_totals_line_names_its_workers_in_good_grammar(executor, workers, text):
    res = BatchResult([], 0.1, executor, workers, scheduler="tcp://h:1")
    assert executor_text(res) == text
    assert totals_line(res).endswith(f"({text})")
