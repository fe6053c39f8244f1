"""``geom3d exposure``: files, summary, bad input (one line, exit 2, nothing written)."""

from __future__ import annotations

import json
import re

import pytest

from geom3d.cli import main


def _scenario(path, units="mm", k=1.0):
    data = {
        "format": "geom3d/1",
        "units": units,
        "table": {"size": [400 / k, 300 / k]},
        "scenery": [
            {
                "id": "wall",
                "box": {"size": [20 / k, 100 / k, 80 / k]},
                "position": [200 / k, 150 / k, 0],
            }
        ],
        "troopers": [
            {"id": "o", "side": "red", "position": [50 / k, 150 / k], "facing_deg": 0},
            {"id": "b", "side": "blue", "position": [350 / k, 50 / k], "facing_deg": 180},
        ],
    }
    path.write_text(json.dumps(data))
    return path


def test_cli_writes_json_maps_and_summary(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    src = _scenario(tmp_path / "t.json")
    out = tmp_path / "exp"
    args = ["exposure", str(src), "--observers", "red", "--spacing", "50", "--out", str(out)]
    assert main([*args, "--workers", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    doc = json.loads((out / "exposure.json").read_text())
    assert doc["observers"] == ["o"] and doc["spacing_mm"] == 50.0
    assert {p.name for p in out.iterdir()} == {"exposure.json", "exposure.png", "exposure.svg"}
    assert (out / "exposure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    safe = doc["counts"]["safe"]
    assert f"safe (seen by no observer): {safe} spots" in text
    # the same document and the same SVG bytes again (timing aside)
    first_svg = (out / "exposure.svg").read_bytes()
    assert main([*args, "--workers", "1", "--quiet"]) == 0
    again = json.loads((out / "exposure.json").read_text())
    doc.pop("timing"), again.pop("timing")
    assert again == doc
    assert (out / "exposure.svg").read_bytes() == first_svg


def test_spacing_is_in_file_units(tmp_path):
    src = _scenario(tmp_path / "t.json", units="cm", k=10.0)
    out = tmp_path / "exp"
    args = ["exposure", str(src), "--observers", "o", "--spacing", "5", "--out", str(out)]
    assert main([*args, "--workers", "1", "--quiet"]) == 0
    assert json.loads((out / "exposure.json").read_text())["spacing_mm"] == 50.0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--observers", "green"], "--observers: no trooper or side 'green'"),
        (["--observers", "red", "--workers", "0"], "--workers: must be at least 1"),
        (["--observers", "red", "--probe", "9"], "--probe: no silhouette 9"),
        (["--observers", "red", "--spacing", "-1"], "--spacing: must be a positive length"),
        (["--observers", "red", "--dask", "tcp://no port"], "--scheduler"),
        (["--observers", "red", "--size", "800by500"], "--size: expected WIDTHxHEIGHT"),
        (["--observers", "red", "--size", "8x500"], "--size: each side must be 16..8192"),
        (["--observers", "red", "--size", "8000x8000"], "--size: 8000x8000 is 64.0 M pixels"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, extra, message):
    src = _scenario(tmp_path / "t.json")
    out = tmp_path / "exp"
    assert main(["exposure", str(src), "--out", str(out), "--quiet", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not out.exists()


def test_out_that_is_a_file_is_a_usage_error(tmp_path, capsys):
    src = _scenario(tmp_path / "t.json")
    (tmp_path / "f").write_text("x")
    assert main(["exposure", str(src), "--observers", "red", "--out", str(tmp_path / "f")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_size_and_title_reach_the_maps(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    def png_size(path):
        with Image.open(path) as im:
            return im.size

    src = _scenario(tmp_path / "t.json")
    out = tmp_path / "exp"
    title = "Red's view & the wall: <where to stand> before turn 2"
    args = ["exposure", str(src), "--observers", "red", "--spacing", "50", "--out", str(out)]
    assert main([*args, "--size", "800x500", "--title", title, "--workers", "1", "--quiet"]) == 0
    assert png_size(out / "exposure.png") == (800, 500)
    svg = (out / "exposure.svg").read_text()
    assert 'viewBox="0 0 600 375"' in svg  # 800 x 500 px at 96 px per inch, in points
    words = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    # the title as written (markup escaped), perhaps wrapped over lines, and the subtitle
    assert " ".join(words.split()).count("Red's view &amp; the wall: &lt;where to stand&gt;") == 1
    assert "probe every 50 mm" in words
