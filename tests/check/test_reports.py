"""``geom3d check`` reports (geom3d/check/reports.py): warnings, --strict, JUnit, GitHub
annotations, every mismatch listed, per-check times, the table's wrapping, tolerances."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from geom3d.check import junit_report, run_batch, summary_text
from geom3d.check.reports import classname, github_lines
from geom3d.cli import main


def _trooper(id_, pos, facing=0.0, **kw):
    return {"id": id_, "side": kw.pop("side", "blue"), "position": list(pos),
            "facing_deg": facing, "silhouette": 2, **kw}  # fmt: skip


def _write(path: Path, troopers, expect, scenery=()) -> Path:
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
           "table": {"size": [1200, 1200]}, "scenery": list(scenery), "troopers": troopers,
           "expect": expect}  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


A, B = _trooper("a", (100, 600, 0)), _trooper("b", (400, 600, 0), 180, side="red")
# c stands 15 mm behind a: their 25 mm bases overlap (centres 15 < 12.5 + 12.5 apart), which
# the scene reports as a warning; c is behind a, off the line a -> b.
C = _trooper("c", (85, 600, 0), 180)
HOLDS = {"lof": [{"from": "a", "to": "b", "lof": True}]}
OVERLAP_WARNING = "troopers 'a' and 'c' overlap"


@pytest.fixture
def warned(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "b" / "overlap.yaml", [A, B, C], HOLDS)
    _write(tmp_path / "b" / "clean.yaml", [A, B], HOLDS)
    (tmp_path / "r").mkdir()
    return tmp_path / "b"


def test_warnings_in_terminal_and_junit_system_out(warned, capsys):
    assert main(["check", "b", "--workers", "1", "--junit", "r/r.xml"]) == 0  # warnings only
    out = capsys.readouterr().out
    assert f"Warnings:\n  b/overlap.yaml: warning: {OVERLAP_WARNING}" in out
    assert "0 mismatches, 1 warning;" in out
    root = ET.parse("r/r.xml").getroot()
    (suite,) = root.findall("testsuite")
    case = next(c for c in suite.findall("testcase") if c.get("classname") == "b/overlap")
    assert case.find("system-out").text == f"b/overlap.yaml: warning: {OVERLAP_WARNING}"
    assert suite.find("system-out").text == f"b/overlap.yaml: warning: {OVERLAP_WARNING}"
    assert root.get("failures") == "0"


def test_strict_fails_on_a_warning(warned, capsys):
    rc = main(["check", "b", "--workers", "1", "--strict", "--json", "r/r.json",
               "--junit", "r/r.xml", "--quiet"])  # fmt: skip
    assert rc == 1
    out = capsys.readouterr().out
    problem, totals = out.splitlines()  # --quiet: the problems, then one totals line
    assert problem == "b/overlap.yaml: fail: 1 scene warning (--strict)"
    assert totals.startswith("2 scenarios: 1 pass, 1 fail, 0 error, 0 skip; 2 checks")
    recs = {r["path"]: r for r in json.loads(Path("r/r.json").read_text())["records"]}
    assert recs["b/overlap.yaml"]["status"] == "fail"
    assert recs["b/overlap.yaml"]["strict_failure"] == "1 scene warning (--strict)"
    assert recs["b/clean.yaml"]["status"] == "pass"
    root = ET.parse("r/r.xml").getroot()
    failed = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert [(c.get("classname"), c.get("name")) for c in failed] == [
        ("b/overlap", "scene warnings")
    ]
    assert OVERLAP_WARNING in failed[0].find("failure").text
    assert root.get("failures") == "1" and root.get("tests") == "3"


def test_github_annotations(warned, capsys, tmp_path):
    wrong = _write(warned / "wrong.yaml", [A, B],
                   {"lof": [{"from": "a", "to": "b", "lof": False, "visible": False}]})  # fmt: skip
    text = wrong.read_text().splitlines()
    # line= is where each expectation's field is written (1-based)
    at = {k: text.index(f"    {k}: false") + 1 for k in ("lof", "visible")}
    # a scene warning about troopers carries the line of the first one's entry (SPEC 13.4)
    a_at = (warned / "overlap.yaml").read_text().splitlines().index("- id: a") + 1
    assert main(["check", "b", "--workers", "1", "--format", "github", "--quiet"]) == 1
    assert capsys.readouterr().out.splitlines()[:3] == [
        f"::warning file=b/overlap.yaml,line={a_at},title=scene warning::{OVERLAP_WARNING}",
        f"::error file=b/wrong.yaml,line={at['lof']},title=geom3d check::lof[a->b].lof: "
        "expected false, got true",
        f"::error file=b/wrong.yaml,line={at['visible']},title=geom3d check::lof[a->b].visible: "
        "expected false, got true",
    ]
    # without --quiet the table follows the annotations
    main(["check", "b", "--workers", "1", "--format", "github", "--strict"])
    out = capsys.readouterr().out
    assert out.startswith("::error file=b/overlap.yaml,title=geom3d check::fail: 1 scene")
    assert f"::error file=b/overlap.yaml,line={a_at},title=scene warning::{OVERLAP_WARNING}" in out
    assert "geom3d check" in out and "Problems:" in out


def test_github_escapes_properties_and_data(tmp_path):
    res = run_batch([_write(tmp_path / "a,b:c%.yaml", [A, B], {"lof": [
        {"from": "a", "to": "b", "lof": False}]})], workers=1)  # fmt: skip
    (line,) = github_lines(res)
    assert line.startswith(f"::error file={tmp_path}/a%2Cb%3Ac%25.yaml,line=")
    assert ",title=geom3d check::" in line


def test_every_mismatch_listed_and_path_once(tmp_path):
    p = _write(tmp_path / "two.yaml", [A, B], {"lof": [
        {"from": "a", "to": "b", "lof": False, "visible": False, "in_arc": True}]})  # fmt: skip
    res = run_batch([p], workers=1)
    text = summary_text(res, width=200)
    assert "2 mismatches: lof[a->b].lof, lof[a->b].visible" in text
    assert f"{p}: lof[a->b].lof: expected false, got true" in text
    assert f"{p}: lof[a->b].visible: expected false, got true" in text
    assert "1 scenario: 0 pass, 1 fail, 0 error, 0 skip; 3 checks, 2 mismatches, 0 warnings" in (
        text
    )


def test_per_check_times_and_classname(tmp_path):
    expect = {"lof": [{"from": "a", "to": "b", "lof": True, "visible": True},
                      {"from": "b", "to": "a", "lof": True}]}  # fmt: skip
    (rec,) = (res := run_batch([_write(tmp_path / "t.v2.yaml", [A, B], expect)], workers=1)).records
    secs = rec["timing"]["check_seconds"]
    assert len(secs) == 3
    # one Line of Fire answered both: its time is the first check's, not repeated
    assert secs[0] > 0.0 and secs[1] == 0.0 and secs[2] > 0.0
    assert sum(secs) <= rec["timing"]["compute_seconds"] + 1e-9
    root = ET.fromstring(junit_report(res))
    cases = list(root.iter("testcase"))
    assert [c.get("time") for c in cases] == [f"{s:.3f}" for s in secs]
    assert {c.get("classname") for c in cases} == {f"{tmp_path}/t.v2"}
    assert classname("a.b/c") == "a.b/c" and classname("x/y.yml") == "x/y"


def test_table_never_splits_a_file_name(tmp_path):
    d = tmp_path / "some_rather_long_folder_name" / "another_long_folder_name_here"
    p = _write(d / "a_scenario_file_with_a_long_name.yaml", [A, B], HOLDS)
    text = summary_text(run_batch([p], workers=1), width=80)
    assert "a_scenario_file_with_a_long_name.yaml" in text
    assert "another_long_folder_name_here/" in text
    assert max(len(line) for line in text.splitlines() if line.startswith("│")) <= 80


# --------------------------------------------------------------------------- tolerances
def test_visible_area_tolerance_at_the_boundary(tmp_path):
    from geom3d.adjudication.lof import line_of_fire
    from geom3d.api import load_scene

    p = _write(tmp_path / "probe.yaml", [A, B], HOLDS)
    area = line_of_fire(load_scene(p), "a", "b").to_dict()["witness"]["visible_area_mm2"]
    assert area > 0

    def status(spec):
        q = _write(tmp_path / "tol.yaml", [A, B],
                   {"lof": [{"from": "a", "to": "b", "visible_area_mm2": spec}]})  # fmt: skip
        (rec,) = run_batch([q], workers=1).records
        return rec["status"]

    assert status({"min": area}) == "pass"  # bounds included
    assert status({"min": area + 0.001}) == "fail"
    assert status({"max": area}) == "pass"
    assert status({"max": area - 0.001}) == "fail"
    assert status({"min": area - 1, "max": area + 1}) == "pass"
    assert status({"approx": area + 0.5, "tol": 0.5}) == "pass"
    assert status({"approx": area + 0.502, "tol": 0.5}) == "fail"
    assert status(area) == "pass"
    assert status({"min": 5, "max": 1}) == "error"
