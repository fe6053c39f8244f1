"""The geom3d command line: exit codes, one-line errors, deterministic JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from support import REPO, spy_prefetch

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
    assert ac["lof"] and list(ac["witness"]) == ["eye", "patch_center", "viewer"]
    for p in doc["pairs"]:
        assert set(p) >= {"from", "to", "lof", "in_arc", "visible", "reason", "witness"}


def test_lof_areas_are_measured_when_asked(capsys, scenario):
    _, plain, _ = run(capsys, "lof", str(scenario))
    code, out, _ = run(capsys, "lof", str(scenario), "--areas")
    assert code == 0
    with_areas = json.loads(out)
    visible = [p for p in with_areas["pairs"] if p["visible"]]
    assert visible and all(
        list(p["witness"]) == ["eye", "patch_center", "visible_area_mm2", "viewer"]
        and p["witness"]["visible_area_mm2"] > 9.0
        for p in visible
    )
    for p in visible:  # the area is all --areas adds
        del p["witness"]["visible_area_mm2"]
    assert with_areas == json.loads(plain)
    # a single pair always has it, and the same number
    _, one, _ = run(capsys, "lof", str(scenario), "--from", "alpha", "--to", "charlie")
    _, out, _ = run(capsys, "lof", str(scenario), "--areas")
    full = {(p["from"], p["to"]): p for p in json.loads(out)["pairs"]}
    (single,) = json.loads(one)["pairs"]
    assert single == full[("alpha", "charlie")]


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
    import geom3d.core.progress

    code, plain, err = run(capsys, "lof", str(scenario))
    assert code == 0 and err == ""  # stderr is not a terminal here: no progress at all
    shown = []

    def always_bar(quiet, **kw):
        shown.append(quiet)
        return "off" if quiet else "bar"

    monkeypatch.setattr(geom3d.core.progress, "progress_mode", always_bar)
    code, with_bar, _ = run(capsys, "lof", str(scenario))
    assert code == 0 and with_bar == plain and shown == [False]
    run(capsys, "lof", str(scenario), "--quiet")
    assert shown == [False, True]


def test_demo_writes_the_same_documents_as_lof_and_attack(capsys, tmp_path, monkeypatch):
    import geom3d.commands.demo as demo
    from geom3d.commands._common import demo_scenario_path
    from geom3d.core.errors import UsageError

    def no_renderer():
        raise UsageError("no renderer in this test")

    monkeypatch.setattr(demo, "renderer", no_renderer)
    import geom3d.api as api
    from geom3d.core.tolerances import PROOF_MIN_PAIRS
    from geom3d.scenario import load_scenario

    asked = spy_prefetch(monkeypatch, api, "build_scene")
    code, out, _ = run(capsys, "demo", "--out", str(tmp_path / "d"), "--quiet")
    assert code == 0
    assert "diagrams skipped: no renderer in this test" in out
    n = len(load_scenario(demo_scenario_path()).troopers)  # the whole matrix: read ahead
    assert asked == [n * (n - 1) // 2 >= PROOF_MIN_PAIRS]
    table = str(demo_scenario_path())
    _, lof_json, _ = run(capsys, "lof", table, "--areas", "--quiet")
    _, attack_json, _ = run(capsys, "attack", table, "--quiet")
    assert (tmp_path / "d" / "lof.json").read_text() == lof_json
    assert (tmp_path / "d" / "attacks.json").read_text() == attack_json


# --------------------------------------------------------------------------- help, version
def _subparsers(parser):
    import argparse

    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices


def test_version_comes_from_the_package_metadata(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"geom3d {version('geom3d')}\n"


def test_bare_geom3d_prints_the_help_and_succeeds(capsys):
    from geom3d.cli import build_parser

    code, out, err = run(capsys)
    assert code == 0 and err == ""
    assert out.startswith("usage: geom3d ")
    for name in _subparsers(build_parser()):
        assert f"\n    {name} " in out, name
    assert "Exit codes:" in out


def test_every_option_of_every_subcommand_has_help_with_its_default():
    import argparse

    from geom3d.cli import build_parser

    subs = _subparsers(build_parser())
    assert set(subs) >= {"demo", "lof", "attack", "render", "view", "check"}
    for name, sp in subs.items():
        for a in sp._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            where = f"geom3d {name} {'/'.join(a.option_strings) or a.dest}"
            assert a.help and a.help is not argparse.SUPPRESS and a.help.strip(), where
            if a.option_strings:  # options say their default, or that they are required
                expect = "(required)" if a.required else "default: "
                assert expect in a.help, f"{where}: {a.help!r} does not say {expect!r}"
                if not a.required and a.default not in (None, False):
                    shown = {str(a.default)}
                    if isinstance(a.default, float):
                        shown.add(f"{a.default:g}")
                    assert any(f"default: {v}" in a.help for v in shown), (where, a.help)


def test_every_subcommand_help_ends_with_two_or_three_examples():
    from geom3d.cli import build_parser

    for name, sp in _subparsers(build_parser()).items():
        text = sp.format_help().rstrip("\n").splitlines()
        head = text.index("examples (from the repository root):")
        examples = text[head + 1 :]
        assert 2 <= len(examples) <= 3, (name, examples)
        assert all(e.startswith(f"  geom3d {name}") for e in examples), (name, examples)


# --------------------------------------------------------------------------- lof formats
#: a faces +x, b 200 mm ahead facing away; a wall (x -50..50, y 145..155, 60 high)
#: between a and the engaged pair c (0, 300) / d (25, 300), which touch (25 mm apart).
MATRIX_SCENE = {
    "format": "geom3d/1",
    "scenery": [{"id": "wall", "box": {"size": [100, 10, 60]}, "position": [0, 150, 0]}],
    "troopers": [
        {"id": "a", "side": "blue", "position": [0, 0], "facing_deg": 0},
        {"id": "b", "side": "blue", "position": [200, 0], "facing_deg": 0},
        {"id": "c", "side": "red", "position": [0, 300], "facing_deg": 270},
        {"id": "d", "side": "red", "position": [25, 300], "facing_deg": 270, "engaged_with": ["c"]},
    ],
}


def test_lof_matrix_hand_checked(capsys, tmp_path):
    # a -> b: b ahead of a, nothing between: yes. b -> a, c, d: b faces +x and all three
    # stand at x <= 25 < 200 - 12.5: out of arc. a -> c, d: every segment from a's base
    # (|x| <= 12.5, y <= 12.5, z <= 40) to c's or d's (x <= 37.5, y >= 287.5) crosses
    # y 145..155 at |x| < 50 below z 40 < 60: inside the wall, blocked (c and d face a, so
    # it is in their arc; they are engaged, which decides first). c and d are engaged
    # with each other: each sees only the other (base contact), "engaged" towards a, b.
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(MATRIX_SCENE))
    code, out, _ = run(capsys, "lof", str(path), "--format", "matrix")
    assert code == 0
    grid = [line.split() for line in out.splitlines()[2:7]]
    assert grid == [
        ["from", "\\", "to", "a", "b", "c", "d"],
        ["a", ".", "yes", "no:blk", "no:blk"],
        ["b", "no:arc", ".", "no:arc", "no:arc"],
        ["c", "no:eng", "no:eng", ".", "yes"],
        ["d", "no:eng", "no:eng", "yes", "."],
    ]
    legend = out[out.index("Legend:") :]
    for code_ in ("yes", "no:arc", "no:blk", "no:eng", "(blank)"):
        assert f"\n  {code_} " in legend
    # the same answers as the JSON, cell by cell
    _, js, _ = run(capsys, "lof", str(path))
    cells = {(p["from"], p["to"]): p["reason"] for p in json.loads(js)["pairs"]}
    names = {None: "yes", "blocked": "no:blk", "out_of_arc": "no:arc", "engaged": "no:eng"}
    for row in grid[1:]:
        for col, cell in zip("abcd", row[1:], strict=True):
            assert cell == ("." if col == row[0] else names[cells[(row[0], col)]])
    # --from leaves one row, --to one column; the rest is not asked
    _, one, _ = run(capsys, "lof", str(path), "--format", "matrix", "--to", "a")
    assert [line.split() for line in one.splitlines()[2:7]] == [
        ["from", "\\", "to", "a"],
        ["b", "no:arc"],
        ["c", "no:eng"],
        ["d", "no:eng"],
        [],
    ]


def test_lof_table_one_row_per_pair_with_both_directions(capsys, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(MATRIX_SCENE))
    _, js, _ = run(capsys, "lof", str(path), "--areas")
    doc = json.loads(js)
    code, out, _ = run(capsys, "lof", str(path), "--format", "table", "--areas")
    assert code == 0
    assert "True" not in out and "False" not in out
    rows = [
        [c.strip() for c in line.strip("│").split("│")]
        for line in out.splitlines()
        if line.startswith("│") and line.count("│") == 7
    ]
    pairs = [r for r in rows if r[0] in "abcd" and r[1] in "abcd" and len(r) == 6]
    assert [(r[0], r[1]) for r in pairs] == [
        ("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")
    ]  # fmt: skip
    by = {(r[0], r[1]): r[2:] for r in pairs}
    assert by[("a", "b")][:3] == ["yes", "no (out of arc)", "yes"]
    assert by[("a", "c")][:3] == ["no (blocked)", "no (engaged)", "no"]
    # b (200, 0) - d (25, 300) crosses y = 150 at x ~ 112, east of the wall: visible
    assert by[("b", "d")][:3] == ["no (out of arc)", "no (engaged)", "yes"]
    assert by[("c", "d")][:3] == ["yes", "yes", "yes"]
    assert by[("a", "c")][3] == "nothing"
    for p in doc["pairs"]:  # the deciding view names the eye the JSON names
        key = (p["from"], p["to"])
        if key in by and p["visible"]:
            w = p["witness"]
            assert by[key][3] == f"{w['visible_area_mm2']:.0f} mm² seen from {w['viewer']}'s eye"
    # without --areas the deciding view names the eye only
    _, plain, _ = run(capsys, "lof", str(path), "--format", "table")
    rows = [[c.strip() for c in line.strip("│").split("│")] for line in plain.splitlines()]
    plain_by = {(r[0], r[1]): r[2:] for r in rows if len(r) == 6 and (r[0], r[1]) in by}
    assert plain_by.keys() == by.keys()
    for key, row in by.items():
        seen = row[3] if row[3] == "nothing" else row[3].split(" mm² ")[1]
        assert plain_by[key] == [*row[:3], seen]
    assert plain_by[("c", "d")][3] == "seen from c's eye"
    # placed troopers are listed above the pairs
    assert out.index("Troopers - m.yaml") < out.index("Line of Fire - m.yaml")
    # a direction that was not asked for is "-"
    _, one_way, _ = run(capsys, "lof", str(path), "--format", "table", "--from", "b")
    rows = [line.split("│")[1:-1] for line in one_way.splitlines() if line.count("│") == 7]
    asked = [[c.strip() for c in r[:4]] for r in rows if r[0].strip() == "b"]
    assert asked == [["b", "a", "no (out of arc)", "-"], ["b", "c", "no (out of arc)", "-"],
                     ["b", "d", "no (out of arc)", "-"]]  # fmt: skip


def test_lof_json_lists_the_placed_troopers(capsys, tmp_path):
    data = {
        "format": "geom3d/1",
        "units": "cm",
        "scenery": [{"id": "crate", "box": {"size": [6, 6, 3]}, "position": [50, 50, 0]}],
        "troopers": [
            {"id": "up", "side": "blue", "position": [50, 50], "facing_deg": 90},
            {"id": "low", "side": "red", "position": [10, 10], "state": ["prone"]},
            {"id": "big", "side": "red", "position": [20, 80, 1],
             "silhouette": {"diameter": 3, "height": 5}},
        ],
    }  # fmt: skip
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data))
    code, out, _ = run(capsys, "lof", str(path), "--from", "up", "--to", "low")
    assert code == 0
    doc = json.loads(out)
    assert list(doc)[:3] == ["units", "scenario", "troopers"]
    by = {t["id"]: t for t in doc["troopers"]}
    assert [t["id"] for t in doc["troopers"]] == ["up", "low", "big"]  # all, in file order
    # the crate's top is 30 mm high: "up" drops onto it; "big" keeps its explicit z (10 mm)
    assert by["up"] == {
        "id": "up", "side": "blue", "position": [500.0, 500.0, 30.0], "dropped": True,
        "facing_deg": 90.0, "silhouette": 2, "diameter_mm": 25.0, "height_mm": 40.0,
        "states": [],
    }  # fmt: skip
    assert by["low"]["position"] == [100.0, 100.0, 0.0] and by["low"]["height_mm"] == 3.0
    assert by["low"]["states"] == ["prone"] and by["low"]["silhouette"] == 2
    assert by["big"]["position"] == [200.0, 800.0, 10.0] and not by["big"]["dropped"]
    assert (by["big"]["silhouette"], by["big"]["diameter_mm"], by["big"]["height_mm"]) == (
        None,
        30.0,
        50.0,
    )


def test_from_and_to_the_same_trooper_is_a_usage_error(capsys, scenario):
    code, out, err = run(capsys, "lof", str(scenario), "--from", "alpha", "--to", "alpha")
    assert code == 2 and out == ""
    assert err == "geom3d: error: --from and --to name the same trooper ('alpha')\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/full is Linux")
@pytest.mark.parametrize(
    ("command", "redirect", "message"),
    [
        (["lof"], "> /dev/full", "cannot write the answer to standard output: No space left"),
        (["lof"], ">&-", "cannot write the answer: standard output is closed"),
        (["attack", "--format", "table"], "> /dev/full", "No space left on device"),
        (["demo", "--out", "d"], "> /dev/full", "cannot write to standard output: No space"),
    ],
)
def test_full_or_closed_stdout_is_one_line_exit_2(tmp_path, scenario, command, redirect, message):
    if command[0] != "demo":
        command = [command[0], str(scenario), *command[1:]]
    argv = " ".join([sys.executable, "-m", "geom3d.cli", *command])
    p = subprocess.run(
        f"{argv} {redirect}", shell=True, cwd=tmp_path, capture_output=redirect == ">&-",
        stderr=subprocess.PIPE if redirect != ">&-" else None, text=True, timeout=300,
    )  # fmt: skip
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], p.stderr


def test_demo_refuses_a_bad_out_folder_before_any_work(capsys, tmp_path):
    (tmp_path / "afile").write_text("x")
    code, out, err = run(capsys, "demo", "--out", str(tmp_path / "afile"), "--quiet")
    assert code == 2
    assert out == ""  # nothing computed or printed first
    assert (
        err.strip()
        == f"geom3d: error: --out: cannot create the folder {tmp_path / 'afile'}: File exists"
    )


@pytest.mark.parametrize(
    ("n", "flags", "ahead"),
    [
        (9, [], True),  # 36 unordered pairs: a matrix that proves
        (8, [], False),  # 28 pairs: under PROOF_MIN_PAIRS (32)
        (33, ["--to", "t0"], True),  # 32 pairs
        (32, ["--from", "t0"], False),  # 31 pairs
        (40, ["--from", "t0", "--to", "t1"], False),
    ],
)
def test_lof_reads_the_proof_map_ahead_only_for_a_matrix_that_proves(
    capsys, tmp_path, monkeypatch, caplog, n, flags, ahead
):
    import geom3d.api as api
    from geom3d.core.tolerances import PROOF_MIN_PAIRS

    assert PROOF_MIN_PAIRS == 32  # the cases above are sized for it
    asked = spy_prefetch(monkeypatch, api, "build_scene")
    doc = {
        "format": "geom3d/1",
        "units": "mm",
        "troopers": [
            {"id": f"t{i}", "side": "blue", "position": [60.0 * i, 0], "silhouette": 2}
            for i in range(n)
        ],
    }
    p = tmp_path / "row.yaml"
    p.write_text(yaml.safe_dump(doc))
    code, _out, _err = run(capsys, "lof", str(p), "--quiet", *flags)
    assert code == 0 and asked == [ahead]
    # its forked worker never found a lock of the reading ahead held (it stood still once)
    assert "stood still" not in caplog.text


def test_a_renderer_plugin_is_imported_with_sigint_and_sigterm_held(monkeypatch):
    """SIGTERM landing while VTK's extension modules initialised crashed ``geom3d
    exposure`` (SIGSEGV, exit -11) instead of exit 143 (SPEC 13.4): the plugin's import
    runs with both signals blocked, delivered once it is done."""
    import signal

    from geom3d.commands import _common

    seen = []

    class EntryPoint:
        name = "fake"

        def load(self):
            seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
            return type("Mod", (), {"render_survey": staticmethod(lambda: None)})

    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: [EntryPoint()])
    fn, why = _common.renderer_function("render_survey")
    assert fn is not None and why is None
    assert {signal.SIGINT, signal.SIGTERM} <= seen[0]
    assert signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # let go after
    assert _common.renderer_function("render_nothing") == (
        None,
        "no renderer with render_nothing: install geom3d[viewer]",
    )
