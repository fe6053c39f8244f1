"""No command writes over its inputs or through a planted link (issue 33, data loss).

The red team's reproductions: a scenario named ``survey.json`` inside ``survey --out``;
``check --json wall.bin`` where ``wall.bin`` is a glTF mesh's external buffer;
``render SCEN --out SCEN``; ``out/survey.json`` (and every other output name) a symbolic
link to a file the user cares about.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
import yaml

from geom3d.cli import main
from geom3d.commands._guard import referenced_files, refuse_overwrite
from geom3d.core.errors import UsageError

# a 20 mm cube as a glTF with its geometry in wall.bin (the red team's file layout)
_V = np.array([[x, y, z] for x in (0, 20) for y in (0, 20) for z in (0, 20)], dtype="<f4")
_F = np.array(
    [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
     [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]],
    dtype="<u4",
)  # fmt: skip


def _gltf(folder: Path, name="wall.gltf", uri="wall.bin") -> Path:
    data = _V.tobytes() + _F.tobytes()
    doc = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"uri": uri, "byteLength": len(data)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": _V.nbytes},
                        {"buffer": 0, "byteOffset": _V.nbytes, "byteLength": _F.nbytes}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
             "min": [0, 0, 0], "max": [20, 20, 20]},
            {"bufferView": 1, "componentType": 5125, "count": 36, "type": "SCALAR"}],
    }  # fmt: skip
    (folder / uri).write_bytes(data)
    path = folder / name
    if name.endswith(".glb"):
        text = json.dumps(doc).encode()
        text += b" " * (-len(text) % 4)
        body = struct.pack("<II", len(text), 0x4E4F534A) + text
        path.write_bytes(struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body)
    else:
        path.write_text(json.dumps(doc))
    return path


def _scenario(path: Path, mesh: str | None = None) -> Path:
    doc = {
        "format": "geom3d/1", "units": "mm", "ruleset": "infinity",
        "table": {"size": [300, 300]},
        "scenery": [{"id": "w", "mesh": mesh, "position": [150, 150, 0]}] if mesh else [],
        "troopers": [
            {"id": "a", "side": "blue", "position": [50, 150, 0], "silhouette": 2},
            {"id": "b", "side": "red", "position": [250, 150, 0], "silhouette": 2,
             "facing_deg": 180}],
        "expect": {"lof": [{"from": "a", "to": "b", "lof": True}]} if not mesh else None,
    }  # fmt: skip
    if doc["expect"] is None:
        del doc["expect"]
    text = json.dumps(doc) if path.suffix == ".json" else yaml.safe_dump(doc)
    path.write_text(text)
    return path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("suffix", [".gltf", ".glb"])
def test_referenced_files_include_gltf_buffers(tmp_path, suffix):
    mesh = _gltf(tmp_path, "wall" + suffix)
    scen = _scenario(tmp_path / "s.yaml", mesh.name)
    got = {(p.resolve(), role.split(" that ")[0]) for p, role in referenced_files(scen)}
    assert got == {
        (scen.resolve(), "a scenario being read"),
        (mesh.resolve(), "a mesh file"),
        ((tmp_path / "wall.bin").resolve(), "a glTF buffer"),
    }


def test_check_json_over_a_gltf_buffer_is_refused(tmp_path, capsys):
    _gltf(tmp_path)
    scen = _scenario(tmp_path / "s.yaml", "wall.gltf")
    before = _snapshot(tmp_path)
    for opt in ("--json", "--junit"):
        assert main(["check", str(scen), opt, str(tmp_path / "wall.bin")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [
            f"geom3d: error: {opt}: {tmp_path / 'wall.bin'} is a glTF buffer that "
            f"{scen} references; refusing to overwrite it"
        ]
    assert _snapshot(tmp_path) == before


def test_survey_refuses_its_own_scenario_named_survey_json(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    scen = _scenario(out / "survey.json")
    before = scen.read_bytes()
    assert main(["survey", str(scen), "--out", str(out), "--quiet", "--workers", "1"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"geom3d: error: --out: {out / 'survey.json'} is a scenario being read; "
        "refusing to overwrite it"
    )
    assert scen.read_bytes() == before and sorted(p.name for p in out.iterdir()) == ["survey.json"]


def test_survey_refuses_a_mesh_or_buffer_at_an_output_name(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    _gltf(out, "wall.gltf", uri="heatmap.svg")  # the buffer has an output's name
    scen = _scenario(tmp_path / "s.yaml", "out/wall.gltf")
    before = _snapshot(out)
    assert main(["survey", str(scen), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "heatmap.svg is a glTF buffer that" in err and err.count("\n") == 1
    assert _snapshot(out) == before


def test_render_refuses_to_write_over_its_scenario(tmp_path, capsys):
    pytest.importorskip("pyvista")
    scen = _scenario(tmp_path / "scene.svg")  # a YAML scenario that happens to end in .svg
    before = scen.read_bytes()
    assert main(["render", str(scen), "--out", str(scen), "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"geom3d: error: --out: {scen} is a scenario being read; refusing to overwrite it"
    )
    assert scen.read_bytes() == before


def test_guard_allows_only_the_pair_it_is_told(tmp_path):
    old = tmp_path / "survey.json"
    old.write_text("{}")
    other = tmp_path / "heatmap.png"
    other.write_text("x")
    refuse_overwrite([("--out", old)], [(old, "r")], allowed=[(old, old)])
    with pytest.raises(UsageError, match=r"heatmap\.png is r; refusing"):
        refuse_overwrite([("--out", other)], [(other, "r")], allowed=[(old, other)])
    link = tmp_path / "alias.json"
    link.symlink_to(old)
    with pytest.raises(UsageError, match=r"alias\.json is r;"):  # a link to an input
        refuse_overwrite({"--json": link}, [(old, "r")])
    hard = tmp_path / "hard.json"
    hard.hardlink_to(old)
    with pytest.raises(UsageError, match=r"hard\.json is r;"):  # another name of it
        refuse_overwrite({"--json": hard}, [(old, "r")])


def test_check_reports_replace_planted_links(tmp_path):
    scen = _scenario(tmp_path / "s.yaml")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    rep = tmp_path / "reports"
    rep.mkdir()
    (rep / "r.json").symlink_to(victim)
    (rep / "r.xml").symlink_to(victim)
    argv = ["check", str(scen), "--workers", "1", "--quiet"]
    assert main([*argv, "--json", str(rep / "r.json"), "--junit", str(rep / "r.xml")]) == 0
    assert victim.read_text() == "precious"
    assert not (rep / "r.json").is_symlink() and not (rep / "r.xml").is_symlink()
    assert json.loads((rep / "r.json").read_text())["format"].startswith("geom3d-check/")


def test_survey_replaces_planted_links_and_may_replace_its_compare_report(tmp_path, capsys):
    scen = _scenario(tmp_path / "s.yaml")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("survey.json", "heatmap.png", "heatmap.svg"):
        (out / name).symlink_to(victim)
    argv = ["survey", str(scen), "--out", str(out), "--spacing", "100", "--quiet"]
    assert main([*argv, "--workers", "1"]) == 0
    assert victim.read_text() == "precious"
    assert not (out / "survey.json").is_symlink()
    first = json.loads((out / "survey.json").read_text())
    assert len(first["positions"]) == 9  # 3 x 3 grid points on the 300 mm table
    capsys.readouterr()
    # reading the old report and writing the new one over it is the usual workflow
    assert main([*argv, "--workers", "1", "--compare", str(out / "survey.json")]) == 0
    assert "compared with" in capsys.readouterr().out
