"""The geom3d command line: exit codes, one-line errors, deterministic JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from support import REPO

from geom3d.cli import main

SCENARIO = {
    "format": "geom3d/1",
    "units": "mm",
    "scenery": [{"id": "wall", "box": {"size": [10, 200, 60]}, "position": [150, 0, 0]}],
    "troopers": [
        {"id": "alpha", "side": "blue", "position": [0, 0], "facing_deg": 0, "silhouette": 2},
        {"id": "bravo", "side": "red", "position": [300, 0], "facing_deg": 180, "silhouette": 2},
        {
            "id": "charlie",
            "side": "red",
            "position": [150, 200],
            "facing_deg": 270,
            "silhouette": 3,
        },
    ],
}


@pytest.fixture
def scenario(tmp_path):
    p = tmp_path / "duel.yaml"
    p.write_text(yaml.safe_dump(SCENARIO))
    return p


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_lof_json_shape(capsys, scenario):
    code, out, _err = run(capsys, "lof", str(scenario))
    assert code == 0
    doc = json.loads(out)
    assert doc["units"] == "mm"
    pairs = {(p["from"], p["to"]): p for p in doc["pairs"]}
    assert len(pairs) == 6
    ab = pairs[("alpha", "bravo")]
    assert (ab["lof"], ab["visible"], ab["reason"]) == (False, False, "blocked")
    ac = pairs[("alpha", "charlie")]
    assert ac["lof"] and set(ac["witness"]) >= {"eye", "patch_center", "visible_area_mm2"}
    for p in doc["pairs"]:
        assert set(p) >= {"from", "to", "lof", "in_arc", "visible", "reason", "witness"}


def test_lof_single_pair_and_table(capsys, scenario):
    code, out, _ = run(capsys, "lof", str(scenario), "--from", "alpha", "--to", "charlie")
    assert code == 0 and [(p["from"], p["to"]) for p in json.loads(out)["pairs"]] == [
        ("alpha", "charlie")
    ]
    code, out, _ = run(capsys, "lof", str(scenario), "--format", "table")
    assert code == 0 and "alpha" in out and "blocked" in out


def test_same_input_gives_byte_identical_json(capsys, scenario):
    _, a, _ = run(capsys, "lof", str(scenario))
    _, b, _ = run(capsys, "lof", str(scenario))
    assert a == b


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "format: geom3d/1\ntroopers:\n  - {id: a, side: x, position: [0, 0], silhouette: 9}\n",
            r"^geom3d: error: .*bad\.yaml: troopers\[0\]\.silhouette: "
            r"unknown silhouette 9 \(known: 1-8\)\n$",
        ),
        (
            "format: geom3d/1\nwizards: 3\n",
            r"^geom3d: error: .*bad\.yaml: wizards: unknown key 'wizards'\n$",
        ),
        ("format: geom3d/1\ntroopers: [\n", r"^geom3d: error: .*bad\.yaml: invalid YAML at line"),
    ],
)
@pytest.mark.parametrize("command", ["lof", "attack"])
def test_bad_file_exits_2_with_one_line(capsys, tmp_path, content, message, command):
    import re

    p = tmp_path / "bad.yaml"
    p.write_text(content)
    code, out, err = run(capsys, command, str(p))
    assert code == 2 and out == ""
    assert re.match(message, err), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_and_unknown_ids(capsys, scenario, tmp_path):
    code, _, err = run(capsys, "lof", str(tmp_path / "nope.yaml"))
    assert code == 2 and err.endswith("nope.yaml: file not found\n")
    code, _, err = run(capsys, "lof", str(scenario), "--from", "zulu")
    assert code == 2 and "unknown trooper 'zulu'" in err
    code, _, err = run(capsys, "attack", str(scenario), "--id", "nope")
    assert code == 2 and "--id: unknown attack 'nope' (known: none)" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["lof"])
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2


def test_console_script_runs_without_traceback(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"format": "geom3d/1", "troopers": [{"id": "a"}]}')
    proc = subprocess.run(
        [sys.executable, "-m", "geom3d.cli", "lof", str(p)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("troopers[0].side: required field is missing")
    assert "Traceback" not in proc.stderr


def test_progress_never_touches_the_answer(capsys, scenario, monkeypatch):
    import geom3d.progress

    code, plain, err = run(capsys, "lof", str(scenario))
    assert code == 0 and err == ""  # stderr is not a terminal here: no progress at all
    shown = []

    def always_bar(quiet, **kw):
        shown.append(quiet)
        return "off" if quiet else "bar"

    monkeypatch.setattr(geom3d.progress, "progress_mode", always_bar)
    code, with_bar, _ = run(capsys, "lof", str(scenario))
    assert code == 0 and with_bar == plain and shown == [False]
    run(capsys, "lof", str(scenario), "--quiet")
    assert shown == [False, True]


def test_demo_writes_the_same_documents_as_lof_and_attack(capsys, tmp_path, monkeypatch):
    import geom3d.cli as cli
    from geom3d.errors import UsageError

    def no_renderer():
        raise UsageError("no renderer in this test")

    monkeypatch.setattr(cli, "_viewer", no_renderer)
    code, out, _ = run(capsys, "demo", "--out", str(tmp_path / "d"), "--quiet")
    assert code == 0
    assert "diagrams skipped: no renderer in this test" in out
    table = str(cli.demo_scenario_path())
    _, lof_json, _ = run(capsys, "lof", table, "--quiet")
    _, attack_json, _ = run(capsys, "attack", table, "--quiet")
    assert (tmp_path / "d" / "lof.json").read_text() == lof_json
    assert (tmp_path / "d" / "attacks.json").read_text() == attack_json
