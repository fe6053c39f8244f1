"""User text in diagrams is escaped in every format (issue 33).

The red team's 3D-view SVG: ``--title '<script>...'`` (and a caption, and a trooper id
holding markup) came out as live ``<script>`` elements, run when the SVG is opened in a
browser; an ``&`` made the file invalid XML. The HTML page's title went through
``re.sub``, where a ``\\g<0>`` in it is a group reference.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("pyvista")

from geom3d import load_scene
from viewer import render as vr

NS = "{http://www.w3.org/2000/svg}"
HOSTILE_ID = "a<script>alert(1)</script>&"
SCENARIO = f"""\
format: geom3d/1
units: mm
ruleset: infinity
table: {{size: [400, 200]}}
scenery:
  - {{id: "w&<x>", box: {{size: [10, 100, 50]}}, position: [200, 100, 0]}}
troopers:
  - {{id: "{HOSTILE_ID}", side: blue, position: [100, 100], silhouette: 2}}
  - {{id: b, side: red, position: [300, 100], facing_deg: 180, silhouette: 2}}
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    path = tmp_path_factory.mktemp("inj") / "t.yaml"
    path.write_text(SCENARIO)
    return load_scene(path)


def test_3d_svg_text_is_escaped_and_valid_xml(hostile, tmp_path):
    title = "<script>alert('t')</script> & \\g<0>"
    caption = "cap</text><script>x</script>\u202e"
    out = vr.render_to_file(hostile, tmp_path / "iso.svg", view="iso", size=(320, 240),
                            title=title, caption=caption)  # fmt: skip
    root = ET.parse(out).getroot()  # well-formed: every & and < escaped
    assert not [el for el in root.iter() if el.tag.endswith("script")]
    texts = [t.text or "" for t in root.iter(f"{NS}text")]
    assert title in texts  # shown as written
    assert "cap</text><script>x</script>\\u202e" in texts  # bidi override as an escape
    assert any(HOSTILE_ID in t for t in texts)  # the trooper's label
    assert "<script" not in out.read_text()
    # the picture itself is drawn from the original strings
    png = vr.render(hostile, None, view="iso", size=(320, 240), title=title)
    assert png.drawing.title == title


def test_html_title_with_markup_and_group_references(hostile, tmp_path):
    pytest.importorskip("trame_vtk")
    title = "<script>x</script> \\g<0> \\1"
    out = vr.render_to_file(hostile, tmp_path / "p.html", size=(320, 240), title=title)
    page = out.read_text()
    escaped = "&lt;script&gt;x&lt;/script&gt; \\g&lt;0&gt; \\1"
    assert f"<title>{escaped}</title>" in page and "<script>x</script>" not in page
