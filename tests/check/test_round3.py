"""``geom3d check`` round 3 (issue 35, SPEC 12.2): accepted warnings, ``reason: null``,
discovery that skips what is not a scenario, ``--exclude``, ``line=`` for annotations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from geom3d.check import expand_paths, run_batch
from geom3d.check.lines import error_line, expectation_lines, line_of
from geom3d.check.record import apply_strict
from geom3d.cli import main


def _trooper(id_, pos, facing=0.0, **kw):
    return {"id": id_, "side": kw.pop("side", "blue"), "position": list(pos),
            "facing_deg": facing, "silhouette": 2, **kw}  # fmt: skip


def _write(path: Path, troopers, expect, scenery=(), **top) -> Path:
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
           "table": {"size": [1200, 1200]}, "scenery": list(scenery), "troopers": troopers,
           **top, "expect": expect}  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


A, B = _trooper("a", (100, 600, 0)), _trooper("b", (400, 600, 0), 180, side="red")
C = _trooper("c", (85, 600, 0), 180)  # overlaps a: a scene warning
WALL = [{"id": "wall", "box": {"size": [10, 300, 60]}, "position": [250, 600, 0]}]
HOLDS = {"lof": [{"from": "a", "to": "b", "lof": True}]}
OVERLAP = "troopers 'a' and 'c' overlap"


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_accept_warnings_key_and_allow_warning_option(here, capsys):
    _write(here / "b" / "accepted.yaml", [A, B, C], HOLDS, accept_warnings=["*overlap"])
    _write(here / "b" / "plain.yaml", [A, B, C], HOLDS)
    args = ["check", "b", "--workers", "1", "--strict", "--json", "r.json"]
    assert main([*args, "--quiet"]) == 1  # plain.yaml still fails on its warning
    out = capsys.readouterr().out
    assert "b/plain.yaml: fail: 1 scene warning (--strict)" in out
    assert "b/accepted.yaml" not in out
    recs = {r["path"]: r for r in json.loads(Path("r.json").read_text())["records"]}
    assert recs["b/accepted.yaml"]["status"] == "pass"
    assert recs["b/accepted.yaml"]["accepted_warnings"] == [
        {"warning": OVERLAP, "pattern": "*overlap"}
    ]
    # --allow-warning accepts it everywhere; a pattern that matches nothing does not
    assert main([*args, "--allow-warning", "nothing like it", "--quiet"]) == 1
    capsys.readouterr()
    assert main([*args, "--allow-warning", "troopers * overlap", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("2 scenarios: 2 pass")
    assert "2 warnings (2 accepted)" in out
    # the terminal says which pattern accepted each
    main(["check", "b", "--workers", "1", "--strict", "--allow-warning", "*overlap"])
    assert f"b/plain.yaml: warning: {OVERLAP} (accepted: *overlap)" in capsys.readouterr().out


def test_notes_never_fail_strict():
    # composes with message severity (SPEC 12.2): a note is a fact, not a likely mistake
    rec = {"status": "pass", "warnings": [{"severity": "note", "message": "scaled m -> mm"}]}
    assert apply_strict(rec)["status"] == "pass"
    rec = {"status": "pass", "warnings": [{"severity": "warning", "message": "floats"}]}
    assert apply_strict(rec)["status"] == "fail"
    assert apply_strict(rec, ["floats"])["status"] == "pass"


def test_reason_null_is_checked(here):
    # a blocked pair expecting reason: null must fail; a clear one passes; reason: null
    # alone asks something (no "asks nothing" error)
    null = {"lof": [{"from": "a", "to": "b", "reason": None}]}
    blocked = run_batch([_write(here / "blocked.yaml", [A, B], null, WALL)], workers=1)
    (rec,) = blocked.records
    assert rec["status"] == "fail"
    assert rec["mismatches"] == [{"check": "lof[a->b].reason", "expected": None,
                                  "actual": "blocked"}]  # fmt: skip
    clear = run_batch([_write(here / "clear.yaml", [A, B], null)], workers=1)
    assert clear.records[0]["status"] == "pass" and clear.records[0]["checks"] == 1
    # beside other fields it is not dropped
    both = {"lof": [{"from": "a", "to": "b", "lof": False, "reason": None}]}
    (rec,) = run_batch([_write(here / "both.yaml", [A, B], both, WALL)], workers=1).records
    assert rec["checks"] == 2 and [m["check"] for m in rec["mismatches"]] == ["lof[a->b].reason"]


def test_discovery_skips_files_that_are_not_scenarios(here, capsys):
    _write(here / "b" / "s.yaml", [A, B], HOLDS)
    (here / "b" / "ci.yml").write_text("on: push\njobs:\n  test:\n    runs-on: ubuntu\n")
    (here / "b" / "old-report.json").write_text('{"format": "geom3d-check/1", "records": []}')
    (here / "b" / "v2.yaml").write_text("format: geom3d/2\ntroopers: []\n")  # a scenario
    notes: list[str] = []
    files = expand_paths(["b"], notes=notes)
    assert [f.display for f in files] == ["b/s.yaml", "b/v2.yaml"]
    assert notes == [
        "b/ci.yml: skipped, not a scenario (no 'format: geom3d/1')",
        "b/old-report.json: skipped, not a scenario (no 'format: geom3d/1')",
    ]
    # named one by one, a file is always taken (and its error says why)
    assert [f.display for f in expand_paths(["b/ci.yml"])] == ["b/ci.yml"]
    rc = main(["check", "b", "--workers", "1", "--quiet", "--exclude", "v2*"])
    out, err = capsys.readouterr()
    assert rc == 0 and out.splitlines()[-1].startswith("1 scenario: 1 pass")
    assert "geom3d: note: b/ci.yml: skipped, not a scenario" in err


def test_exclude_globs(here):
    for name in ("a.yaml", "drafts/x.yaml", "drafts/deep/y.yaml", "z.draft.yaml"):
        _write(here / "b" / name, [A, B], HOLDS)
    shown = [f.display for f in expand_paths(["b"], patterns=["*/drafts/*", "*.draft.yaml"])]
    assert shown == ["b/a.yaml"]
    # a named file is excluded too; nothing left is a usage error
    with pytest.raises(Exception, match="no scenario files to check"):
        expand_paths(["b/z.draft.yaml"], patterns=["*.draft.yaml"])


def test_expectation_and_error_lines(here):
    p = _write(
        here / "s.yaml",
        [A, B],
        {
            "lof": [{"from": "a", "to": "b", "lof": True, "reason": None}],
        },
        attacks=[{"id": "x", "attacker": "a", "template": "small_teardrop", "main_target": "b"}],
    )
    doc = yaml.safe_load(p.read_text())
    doc["expect"]["attacks"] = {"x": {"outcome": "resolved", "troopers": {"b": {"dodge": "PH"}}}}
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    text = p.read_text().splitlines()
    lines = expectation_lines(str(p))
    assert lines["lof[a->b]"] == text.index("  - from: a") + 1
    assert lines["lof[a->b].reason"] == text.index("    reason: null") + 1
    assert lines["attacks.x.outcome"] == text.index("      outcome: resolved") + 1
    assert line_of(lines, "attacks.x.troopers.b.dodge") == text.index("          dodge: PH") + 1
    assert line_of(lines, "lof[q->r].lof") is None
    assert error_line("s.yaml: invalid YAML at line 12 column 3: oops") == 12
