"""Hostile and ambiguous scenario files (issue 14): one clean error, bounded time and memory.

Each probe file is made here. Probes that could exhaust memory or hang run through
``geom3d.cli.main`` in a child process under ``RLIMIT_AS`` and a timeout (``bounded``).
"""

from __future__ import annotations

import json
import os

import pytest
from bounded import assert_one_clean_line, run_cli
from support import make_scene, trooper

from geom3d.core.errors import ScenarioError
from geom3d.scenario import load_scenario, parse_scenario
from geom3d.scenario.limits import (
    MAX_BURST,
    MAX_SCALE,
    MAX_SCENARIO_BYTES,
    MAX_SCENARIO_DEPTH,
    MAX_SCENARIO_INT,
    MAX_SILHOUETTE_MM,
    MIN_BODY_MM,
    MIN_SCALE,
)

BASE = {
    "format": "geom3d/1",
    "units": "mm",
    "troopers": [
        {"id": "a", "side": "blue", "position": [0, 0]},
        {"id": "b", "side": "red", "position": [300, 0]},
    ],
}


def _data(**changes) -> dict:
    data = json.loads(json.dumps(BASE))
    data.update(changes)
    return data


def _write(folder, name, text: str):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _error(path) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    text = str(info.value)
    assert "\n" not in text
    return text


# ------------------------------------------------------------------ 7: YAML alias bomb
def _alias_bomb(levels: int, fan: int = 9) -> str:
    lines = ["format: geom3d/1", "a0: &a0 [" + ", ".join(["1"] * fan) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fan) + "]")
    lines.append(f"troopers: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_in_bounded_time_and_memory(tmp_path):
    bomb = _write(tmp_path, "bomb.yaml", _alias_bomb(10))  # 9**10 ~ 3.5e9 values
    assert len(bomb.read_bytes()) < 600
    loop = _write(tmp_path, "loop.yaml", "format: geom3d/1\ntroopers: &t [*t]\n")
    (res_bomb, res_loop) = run_cli(
        [["lof", "bomb.yaml", "--quiet"], ["lof", "loop.yaml", "--quiet"]], tmp_path, timeout=120
    )
    assert_one_clean_line(res_bomb, "bomb.yaml", "once aliases are expanded")
    assert_one_clean_line(res_loop, "loop.yaml", "alias refers to a node that contains it")
    assert loop.exists()


def test_aliases_within_the_budget_still_work(tmp_path):
    text = (
        "format: geom3d/1\n"
        "troopers:\n"
        "  - {id: a, side: blue, position: &p [0, 0], silhouette: 2}\n"
        "  - {id: b, side: red, position: [300, 0], engaged_with: [], state: &s []}\n"
        "  - {id: c, side: red, position: *p, state: *s}\n"
    )
    scn = load_scenario(_write(tmp_path, "ok.yaml", text))
    assert scn.troopers[2].position == (0.0, 0.0)


# ------------------------------------------------------------------ 9: nesting, big ints
def test_deep_nesting_is_one_error_not_a_recursion_error(tmp_path):
    deep = "[" * 2000 + "]" * 2000
    _write(tmp_path, "deep.json", '{"format": "geom3d/1", "x": ' + deep + "}")
    _write(tmp_path, "deep.yaml", "format: geom3d/1\nx: " + deep + "\n")
    results = run_cli(
        [["lof", "deep.json", "--quiet"], ["lof", "deep.yaml", "--quiet"]], tmp_path, timeout=120
    )
    for res, name in zip(results, ("deep.json", "deep.yaml"), strict=True):
        assert_one_clean_line(res, name, f"nested more than {MAX_SCENARIO_DEPTH} levels deep")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_nesting_at_the_limit_is_read_one_more_is_not(tmp_path, suffix):
    def nested(depth: int) -> str:  # the top-level mapping is level 1
        inner = "[" * (depth - 1) + "]" * (depth - 1)
        return '{"format": "geom3d/1", "x": ' + inner + "}"

    ok = _write(tmp_path, f"ok{suffix}", nested(MAX_SCENARIO_DEPTH))
    assert "unknown key 'x'" in _error(ok)  # read fine, then the schema objects
    bad = _write(tmp_path, f"bad{suffix}", nested(MAX_SCENARIO_DEPTH + 1))
    assert "nested more than" in _error(bad)


def test_nesting_through_aliases_counts(tmp_path):
    """An alias placed deep that names a deep anchor nests as deep as both together."""
    deep = "[" * 40 + "]" * 40  # 40 levels, anchored at level 2
    wrap = "[" * 30  # the alias sits at level 32: 32 + 40 - 1 = 71 levels
    text = f"format: geom3d/1\nx: &d {deep}\ny: {wrap}*d{']' * 30}\n"
    assert "levels deep (through aliases)" in _error(_write(tmp_path, "a.yaml", text))
    shallow = f"format: geom3d/1\nx: &d {deep}\ny: {'[' * 5}*d{']' * 5}\n"  # 46 levels
    assert "unknown key 'x'" in _error(_write(tmp_path, "b.yaml", shallow))


def test_nesting_of_data_handed_to_the_api(tmp_path):
    data = _data()
    node = data["x"] = []
    for _ in range(3000):
        node.append([])
        node = node[0]
    with pytest.raises(ScenarioError, match="nested more than"):
        parse_scenario(data, file="api.yaml")


def test_huge_integers_are_errors(tmp_path):
    digits = "9" * 5000
    _write(
        tmp_path, "int.yaml", f"format: geom3d/1\ntroopers: [{{id: a, position: [{digits}, 0]}}]\n"
    )
    _write(tmp_path, "int.json", '{"format": "geom3d/1", "x": ' + digits + "}")
    results = run_cli(
        [["lof", "int.yaml", "--quiet"], ["lof", "int.json", "--quiet"]], tmp_path, timeout=120
    )
    assert_one_clean_line(results[0], "int.yaml: troopers[0].position[0]", "too large")
    assert_one_clean_line(results[1], "int.json", "too large")


def test_integer_limit_is_2_pow_53():
    at = _data(troopers=[{"id": "a", "side": "b", "position": [0, 0], "facing_deg": 2**53}])
    parse_scenario(at, file="s.yaml")  # exact as a float: accepted (the angle wraps)
    over = _data(troopers=[{"id": "a", "side": "b", "position": [0, 0], "facing_deg": 2**53 + 1}])
    with pytest.raises(ScenarioError, match=r"troopers\[0\]\.facing_deg: integer too large"):
        parse_scenario(over, file="s.yaml")
    assert MAX_SCENARIO_INT == 2**53


# ------------------------------------------------------------------ 12: duplicate keys
def test_duplicate_keys_in_yaml_are_errors(tmp_path):
    text = (
        "format: geom3d/1\n"
        "troopers:\n"
        "  - {id: a, side: blue, position: [0, 0]}\n"
        "  - {id: b, side: red, position: [300, 0]}\n"
        "expect:\n"
        "  lof: [{from: a, to: b, lof: false}]\n"
        "expect:\n"
        "  lof: [{from: a, to: b, lof: true}]\n"
    )
    msg = _error(_write(tmp_path, "dup.yaml", text))
    assert (
        msg
        == "dup.yaml: expect: duplicate key 'expect' at line 7 (first given at line 5)".replace(
            "dup.yaml", str(tmp_path / "dup.yaml")
        )
    )
    nested = "format: geom3d/1\ntroopers:\n  - {id: a, side: x, side: y, position: [0, 0]}\n"
    assert "troopers[0].side: duplicate key 'side'" in _error(_write(tmp_path, "n.yaml", nested))


def test_duplicate_keys_in_json_are_errors(tmp_path):
    text = (
        '{"format": "geom3d/1", '
        '"troopers": [{"id": "a", "side": "x", "id": "b", "position": [0, 0]}]}'
    )
    assert "troopers[0].id: duplicate key 'id'" in _error(_write(tmp_path, "d.json", text))


def test_yaml_merge_keys_are_not_duplicates(tmp_path):
    text = (
        "format: geom3d/1\n"
        "troopers:\n"
        "  - &base {id: a, side: blue, position: [0, 0]}\n"
        "  - {<<: *base, id: b, position: [300, 0]}\n"
    )
    scn = load_scenario(_write(tmp_path, "merge.yaml", text))
    assert [(t.id, t.side) for t in scn.troopers] == [("a", "blue"), ("b", "blue")]


# ------------------------------------------------------------------ 8: files that are not
def test_fifo_device_and_sparse_scenarios_are_refused_unread(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    sparse = tmp_path / "huge.yaml"
    with open(sparse, "wb") as fh:
        fh.truncate(5 << 30)  # 5 GB, sparse: costs no disk
    results = run_cli(
        [
            ["lof", "pipe.yaml", "--quiet"],
            ["lof", "/dev/zero", "--quiet"],
            ["lof", "huge.yaml", "--quiet"],
        ],
        tmp_path,
        timeout=120,
    )
    assert_one_clean_line(results[0], "pipe.yaml: is a FIFO (named pipe), not a regular file")
    assert_one_clean_line(results[1], "/dev/zero: is a device, not a regular file")
    assert_one_clean_line(results[2], "huge.yaml: file is 5 GiB, larger than the 8 MiB")


def test_scenario_size_limit_threshold(tmp_path):
    head = "format: geom3d/1\n#"
    at = tmp_path / "at.yaml"
    at.write_text(head + "x" * (MAX_SCENARIO_BYTES - len(head) - 1) + "\n")
    assert at.stat().st_size == MAX_SCENARIO_BYTES
    assert load_scenario(at).troopers == ()  # read: a comment-padded empty scenario
    over = tmp_path / "over.yaml"
    over.write_text(head + "x" * (MAX_SCENARIO_BYTES - len(head)) + "\n")
    assert "larger than the 8 MiB an input file may be" in _error(over)


def test_mesh_paths_that_are_not_regular_files(tmp_path):
    (tmp_path / "loop.stl").symlink_to("loop.stl")
    os.mkfifo(tmp_path / "pipe.stl")
    with open(tmp_path / "huge.stl", "wb") as fh:
        fh.truncate(5 << 30)
    argvs = []
    for name, mesh in [
        ("loop", "loop.stl"),
        ("pipe", "pipe.stl"),
        ("zero", "/dev/zero"),
        ("huge", "huge.stl"),
    ]:
        _write(tmp_path, f"{name}.yaml", f"format: geom3d/1\nscenery: [{{id: w, mesh: {mesh}}}]\n")
        argvs.append(["lof", f"{name}.yaml", "--quiet"])
    loop, pipe, zero, huge = run_cli(argvs, tmp_path, timeout=120)
    assert_one_clean_line(loop, "loop.yaml: scenery[0].mesh: ", "symbolic link loop")
    assert_one_clean_line(pipe, "pipe.yaml: scenery[0].mesh: ", "FIFO (named pipe)")
    assert_one_clean_line(zero, "zero.yaml: scenery[0].mesh: ", "is a device")
    assert_one_clean_line(huge, "huge.yaml: scenery[0].mesh: ", "5 GiB, larger than the 1 GiB")


# ------------------------------------------------------------------ 8: sizes that exhaust
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {
                "attacks": [
                    {"id": "x", "attacker": "a", "template": "small_teardrop", "burst": 10**9}
                ]
            },
            rf"attacks\[0\]\.burst: must be between 1 and {MAX_BURST}$",
        ),
        (
            {
                "troopers": [
                    {
                        "id": "a",
                        "side": "x",
                        "position": [0, 0],
                        "silhouette": {"diameter": 5000, "height": 5000},
                    }
                ]
            },
            r"troopers\[0\]\.silhouette\.diameter: 5000 mm is too large: at most 1000 mm",
        ),
    ],
)
def test_sizes_that_would_exhaust_memory_are_errors(changes, message):
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(_data(**changes), file="s.yaml")


def test_limits_at_their_thresholds():
    def sil(d):
        return _data(
            troopers=[
                {
                    "id": "a",
                    "side": "x",
                    "position": [0, 0],
                    "silhouette": {"diameter": d, "height": 30},
                }
            ]
        )

    assert (
        parse_scenario(sil(MAX_SILHOUETTE_MM), file="s").troopers[0].diameter == MAX_SILHOUETTE_MM
    )
    with pytest.raises(ScenarioError, match="too large"):
        parse_scenario(sil(MAX_SILHOUETTE_MM + 0.5), file="s")
    assert parse_scenario(sil(MIN_BODY_MM), file="s").troopers[0].diameter == MIN_BODY_MM
    with pytest.raises(ScenarioError, match=r"silhouette\.diameter: 0\.0099 mm is too small"):
        parse_scenario(sil(0.0099), file="s")

    def burst(n):
        return _data(
            attacks=[{"id": "x", "attacker": "a", "template": "small_teardrop", "burst": n}]
        )

    assert parse_scenario(burst(MAX_BURST), file="s").attacks[0].burst == MAX_BURST
    with pytest.raises(ScenarioError, match="burst: must be between"):
        parse_scenario(burst(MAX_BURST + 1), file="s")

    def scaled(k):
        return _data(scenery=[{"id": "w", "box": {"size": [10, 10, 10]}, "scale": k}])

    assert parse_scenario(scaled(MAX_SCALE), file="s").scenery[0].scale == (MAX_SCALE,) * 3
    assert parse_scenario(scaled(MIN_SCALE), file="s").scenery[0].scale == (MIN_SCALE,) * 3
    for k in (MAX_SCALE * 1.001, MIN_SCALE * 0.999, 1e38):
        with pytest.raises(ScenarioError, match=r"scenery\[0\]\.scale: .*\(wrong units\?\)$"):
            parse_scenario(scaled(k), file="s")


# ------------------------------------------------------------------ 12: misread values
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"scenery": [{"id": "w", "box": {"size": [1e-300, 10, 10]}}]},
            r"scenery\[0\]\.box\.size\[0\]: 1e-300 mm is too small: at least 0\.01 mm",
        ),
        (
            {"scenery": [{"id": "w", "box": {"size": [10, 10, 10]}, "scale": [1, 1e38, 1]}]},
            r"scenery\[0\]\.scale: scale 1e\+38 is outside",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [0, 0], "silhouette": True}]},
            r"troopers\[0\]\.silhouette: input should be a valid integer \(got True\)",
        ),
        (
            {
                "attacks": [
                    {"id": "x", "attacker": "a", "template": "small_teardrop", "burst": True}
                ]
            },
            r"attacks\[0\]\.burst: input should be a valid integer \(got True\)",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": [True, 0]}]},
            r"troopers\[0\]\.position\[0\]: input should be a valid number \(got True\)",
        ),
        (
            {"troopers": [{"id": "a", "side": "x", "position": ["12", 0]}]},
            r"troopers\[0\]\.position\[0\]: input should be a valid number \(got '12'\)",
        ),
        (
            {"scenery": [{"id": "w", "box": {"size": [10, 10, 10]}, "blocks_lof": 1}]},
            r"scenery\[0\]\.blocks_lof: input should be a valid boolean \(got 1\)",
        ),
        (
            {"table": {"size": [600, 1e-9]}},
            r"table\.size\[1\]: 1e-09 mm is too small",
        ),
    ],
)
def test_values_that_were_silently_misread_are_errors(changes, message):
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(_data(**changes), file="s.yaml")


def test_integers_still_work_where_numbers_are_expected():
    scn = parse_scenario(
        _data(scenery=[{"id": "w", "box": {"size": [10, 20, 30]}, "scale": 2}]), file="s"
    )
    assert scn.scenery[0].box_size == (10.0, 20.0, 30.0) and scn.scenery[0].scale == (2.0,) * 3


# ------------------------------------------------------------------ 9: ruleset_overrides
@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"silhouettes": [1, 2]}, r"ruleset_overrides\.silhouettes: expected a mapping, got list$"),
        ({"templates": [1]}, r"ruleset_overrides\.templates: expected a mapping, got list$"),
        (
            {"template_sources": "x"},
            r"ruleset_overrides\.template_sources: expected a mapping, got str$",
        ),
        ({"silhouettes": {2: [25, 40]}}, r"ruleset_overrides\.silhouettes\.2: expected \{diameter"),
        (
            {"silhouettes": {2: {"diameter": [25], "height": 40}}},
            r"ruleset_overrides\.silhouettes\.2\.diameter: expected a number$",
        ),
        ({"base_height": [3]}, r"ruleset_overrides\.base_height: expected a number$"),
        (
            {"templates": {"huge": {"shape": "circle", "diameter": 1e9}}},
            r"ruleset_overrides\.templates\.huge\.diameter: template diameter is 1e\+09 mm, larger "
            r"than the 5000 mm",
        ),
        (
            {"silhouettes": {2: {"diameter": 25, "height": 2000}}},
            r"ruleset_overrides\.silhouettes\.2\.height: 2000 mm is outside 0\.01\.\.1000 mm",
        ),
        (
            {"base_height": 1e-5},
            r"ruleset_overrides\.base_height: 1e-05 mm is outside",
        ),
    ],
)
def test_ruleset_overrides_are_checked_like_the_scenario(over, message):
    """A list where a mapping belongs was a TypeError; an unused huge template passed."""
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(_data(ruleset_overrides=over), file="s.yaml")


def test_override_limits_apply_in_file_units():
    over = {"silhouettes": {2: {"diameter": 2.5, "height": 100.1}}}  # 1001 mm
    with pytest.raises(ScenarioError, match=r"100\.1 cm is outside"):
        parse_scenario(_data(units="cm", ruleset_overrides=over), file="s.yaml")
    over = {"silhouettes": {2: {"diameter": 2.5, "height": 100}}}  # exactly 1000 mm
    assert parse_scenario(_data(units="cm", ruleset_overrides=over), file="s").ruleset.silhouettes[
        2
    ] == (
        25.0,
        1000.0,
    )


# ------------------------------------------------------------------ 9: lone surrogates
def test_lone_surrogate_in_an_id_or_key_is_an_error(tmp_path):
    in_id = (
        '{"format": "geom3d/1", "troopers": [{"id": "a\\ud800", "side": "x", "position": [0, 0]}]}'
    )
    assert "troopers[0].id: text holds a lone surrogate" in _error(
        _write(tmp_path, "s.json", in_id)
    )
    in_yaml = 'format: geom3d/1\ntroopers: [{id: "a\\ud800", side: x, position: [0, 0]}]\n'
    # libyaml (the C parser, issue 33) refuses the escape itself; PyYAML's reader later
    msg = _error(_write(tmp_path, "s.yaml", in_yaml))
    assert "lone surrogate" in msg or "invalid Unicode character escape code" in msg
    in_key = '{"format": "geom3d/1", "x\\udfff": 1}'
    msg = _error(_write(tmp_path, "k.json", in_key))
    assert "x\\udfff: key holds a lone surrogate" in msg
    msg.encode("utf-8")  # the error itself can be printed


# ------------------------------------------------------------------ 11: control characters
def test_control_characters_in_keys_stay_one_escaped_line(tmp_path):
    _write(tmp_path, "ctl.yaml", 'format: geom3d/1\n"bad\\e]0;pwned\\a\\nnext\\e[31m": 1\n')
    (res,) = run_cli([["lof", "ctl.yaml", "--quiet"]], tmp_path, timeout=120)
    line = assert_one_clean_line(
        res,
        "ctl.yaml: bad\\x1b]0;pwned\\x07\\x0anext\\x1b[31m: key holds a control or other "
        "non-printable character (\\x1b): ids, names and paths must be plain text",
    )
    assert "\x1b" not in line and "\x07" not in line


@pytest.mark.parametrize("text", ["w\x1b[2J", "a\tb", "x\u202ey", "line\nbreak", "bell\a"])
def test_ids_with_control_characters_are_input_errors(text):
    """An id is plain text: control characters would reach tables, JUnit and SVG raw."""
    with pytest.raises(ScenarioError) as err:
        make_scene([trooper(text, (0, 0))])
    msg = str(err.value)
    assert "troopers[0].id: text holds a control or other non-printable character (" in msg
    assert msg.isprintable()
