"""``geom3d survey``: files, summary, bad input, --compare, Ctrl-C, agreement with ``lof``,
unit-slip health findings."""

from __future__ import annotations

import json

import numpy as np
import pytest
import trimesh
from support import box, make_scene, spy_prefetch

from geom3d.cli import main
from geom3d.survey import place_probes, probe_for, survey
from geom3d.survey.analysis import health_warnings

SCENERY = [
    box("wall", (200, 6, 60), (200, 150, 0)),
    box("deck", (80, 80, 5), (300, 60, 50)),  # room under it: two levels
    box("pillar", (20, 20, 70), (100, 220, 0)),
    box("crate", (30, 30, 25), (60, 80, 0), rotation_deg=30),
]


def _scenario(path, scenery, troopers=(), **extra):
    data = {
        "format": "geom3d/1",
        "units": "mm",
        "table": {"size": [400, 300]},
        "scenery": list(scenery),
        "troopers": list(troopers),
        **extra,
    }
    path.write_text(json.dumps(data))
    return path


def test_survey_pairs_equal_geom3d_lof_for_the_same_probe_positions(tmp_path, capsys):
    scene = make_scene([], SCENERY, table={"size": [400, 300]})
    doc = survey(scene, spacing_mm=75, workers=1)
    pos = [p["position"] for p in doc["positions"]]
    levels = {p["level"] for p in doc["positions"]}
    assert levels == {0, 1}  # under the deck and on it
    n = len(pos)
    vis = {tuple(p) for p in doc["visible_pairs"]}
    every = [(i, j) for i in range(n) for j in range(i + 1, n)]
    rng = np.random.default_rng(12)
    yes = [every[k] for k in rng.permutation(len(every)) if every[k] in vis][:5]
    no = [every[k] for k in rng.permutation(len(every)) if every[k] not in vis][:5]
    assert len(yes) == 5 and len(no) == 5
    for i, j in yes + no:
        troopers = [
            {"id": "a", "side": "blue", "position": pos[i], "silhouette": 2},
            {"id": "b", "side": "red", "position": pos[j], "silhouette": 2},
        ]
        path = _scenario(tmp_path / f"pair_{i}_{j}.json", SCENERY, troopers)
        assert main(["lof", str(path), "--from", "a", "--to", "b", "--quiet"]) == 0
        answer = json.loads(capsys.readouterr().out)["pairs"][0]
        assert answer["visible"] == ((i, j) in vis), (i, j, pos[i], pos[j])


def test_cli_writes_json_and_summary_and_compares(tmp_path, capsys):
    old = _scenario(
        tmp_path / "old.json", SCENERY, zones=[{"id": "south", "rect": [0, 0, 400, 100]}]
    )
    new = _scenario(
        tmp_path / "new.json", SCENERY[1:], zones=[{"id": "south", "rect": [0, 0, 400, 100]}]
    )
    out_old, out_new = tmp_path / "a", tmp_path / "b"
    assert (
        main(
            [
                "survey",
                str(old),
                "--spacing",
                "100",
                "--out",
                str(out_old),
                "--workers",
                "1",
                "--quiet",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    for part in (
        "positions: ",
        "level 0:",
        "visible share by distance",
        "longest lanes:",
        "south:",
        "health:",
    ):
        assert part in text
    doc_old = json.loads((out_old / "survey.json").read_text())
    assert [z["id"] for z in doc_old["zones"]] == ["south"]
    # lanes with their ends' coordinates; the time is the command's wall time
    lane = doc_old["lanes"][0]
    at = {p["id"]: p for p in doc_old["positions"]}
    x, y, z = at[lane["a"]]["position"]
    assert f"{lane['a']} ({x:.4g}, {y:.4g}, {z:.4g} mm; level 0) - " in text
    assert "s wall (survey " in text
    assert (
        main(
            [
                "survey",
                str(new),
                "--spacing",
                "100",
                "--out",
                str(out_new),
                "--workers",
                "1",
                "--quiet",
                "--compare",
                str(out_old / "survey.json"),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    doc_new = json.loads((out_new / "survey.json").read_text())
    assert "compared with" in text and "zone south: sees" in text
    # without the wall, pairs across y = 150 open up: gains, no losses
    gained = len(doc_new["visible_pairs"]) - len(doc_old["visible_pairs"])
    assert gained > 0
    assert f"+{gained} gained, -0 lost" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--probe", "99"], "no silhouette 99"),
        (["--spacing", "-5"], "--spacing"),
        (["--spacing", "nan"], "--spacing"),
        (["--workers", "0"], "--workers"),
        (["--scheduler", "tcp://host:notaport"], "--scheduler"),
        (["--compare", "missing.json"], "file not found"),
        (["--size", "big"], "--size: expected WIDTHxHEIGHT, e.g. 1600x1200 (got 'big')"),
        (["--size", "0x0"], "--size: each side must be 16..8192"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, args, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _scenario(tmp_path / "s.json", SCENERY)
    assert main(["survey", str(path), "--out", "out", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_compare_with_a_file_that_is_not_a_survey(tmp_path, capsys):
    path = _scenario(tmp_path / "s.json", SCENERY)
    bad = tmp_path / "bad.json"
    bad.write_text('{"positions": [{"id": "p1"}], "visible_pairs": [], "lanes": [], "zones": []}')
    assert main(["survey", str(path), "--compare", str(bad), "--quiet"]) == 2
    assert "not a survey.json" in capsys.readouterr().err


def test_interrupted_survey_leaves_no_files(tmp_path, capsys, monkeypatch):
    import geom3d.survey.document as document

    def interrupted(*args, **kwargs):
        kwargs["progress"](1, 10)
        raise KeyboardInterrupt

    monkeypatch.setattr(document, "run_survey", interrupted)
    path = _scenario(tmp_path / "s.json", SCENERY)
    out = tmp_path / "out"
    assert main(["survey", str(path), "--out", str(out), "--quiet"]) == 130
    assert not out.exists()


def _box_stl(path, size):
    trimesh.creation.box(extents=size).export(path)
    return path


def test_container_in_mm_declared_as_metres_is_flagged(tmp_path):
    stl = _box_stl(tmp_path / "container.stl", (75, 40, 40))
    good = make_scene(
        [],
        [{"id": "c", "mesh": str(stl), "mesh_units": "mm", "position": [200, 150, 20]}],
        table={"size": [600, 600]},
    )
    grid = place_probes(good, probe_for(good, 2), 300)
    assert not [w for w in health_warnings(good, grid) if "'c'" in w]
    bad = make_scene(
        [],
        [{"id": "c", "mesh": str(stl), "mesh_units": "m", "position": [200, 150, 20]}],
        table={"size": [600, 600]},
    )
    grid = place_probes(bad, probe_for(bad, 2), 300)
    found = [w for w in health_warnings(bad, grid) if "'c'" in w]
    assert len(found) == 1
    assert "mesh_units: m" in found[0] and "as mm it would be 75 mm" in found[0]


def test_metre_dem_declared_as_mm_is_flagged(tmp_path):
    # a 1.2 x 1.2 (metre) terrain tile declared in mm: a 1.2 mm table
    xs = np.linspace(0, 1.2, 7)
    gx, gy = np.meshgrid(xs, xs)
    v = np.column_stack([gx.ravel(), gy.ravel(), 0.01 * np.sin(4 * gx.ravel())])
    f = []
    for r in range(6):
        for c in range(6):
            k = r * 7 + c
            f += [[k, k + 1, k + 8], [k, k + 8, k + 7]]
    dem = tmp_path / "dem.stl"
    trimesh.Trimesh(v, np.array(f), process=False).export(dem)
    scene = make_scene([], [], table={"mesh": str(dem), "mesh_units": "mm"})
    grid = place_probes(scene, probe_for(scene, 2), 50)
    warnings = health_warnings(scene, grid)
    unit = [w for w in warnings if w.startswith("table mesh declared in mm")]
    assert len(unit) == 1 and "as m it would span 1200 mm" in unit[0]


def test_cli_reads_the_proof_map_ahead(tmp_path, capsys, monkeypatch):
    import geom3d.api as api

    asked = spy_prefetch(monkeypatch, api, "build_scene")
    path = _scenario(tmp_path / "s.json", SCENERY)
    argv = ["survey", str(path), "--spacing", "150", "--out", str(tmp_path / "o"), "--quiet"]
    assert main([*argv, "--workers", "1"]) == 0
    assert asked == [True]  # the survey always proves (workers=1: the scene's own prover)


def test_size_and_title_reach_the_heat_map(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    def png_size(path):
        with Image.open(path) as im:
            return im.size

    path = _scenario(tmp_path / "s.json", SCENERY)
    out = tmp_path / "out"
    argv = ["survey", str(path), "--spacing", "100", "--out", str(out), "--workers", "1"]
    assert main([*argv, "--size", "1000x700", "--title", "Deck and wall", "--quiet"]) == 0
    assert png_size(out / "heatmap.png") == (1000, 700)
    svg = (out / "heatmap.svg").read_text()
    assert ">Deck and wall</text>" in svg and "s.json: survey" not in svg
    assert main([*argv, "--quiet"]) == 0  # the defaults: 1600 x 1200, the generated title
    assert png_size(out / "heatmap.png") == (1600, 1200)
    assert "s.json: survey</text>" in (out / "heatmap.svg").read_text()
