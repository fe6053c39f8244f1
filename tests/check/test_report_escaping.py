"""Bidirectional overrides in file names never reach a report raw (issue 33).

A scenario named ``a\\u202egnp.yaml`` displays as ``ay.png`` reversed: in JUnit XML and
GitHub annotations (which CI shows as they are) the name misled the reader. Every text
now passes :func:`geom3d.output.safe_text`, which writes the bidirectional formatting
characters as visible escapes; the JSON report escapes them as ``\\uXXXX``.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import yaml

from geom3d.cli import main
from geom3d.core.output import dumps_json, safe_text

BIDI = "\u202e\u2066\u200f\u061c"


def test_safe_text_and_json_escape_every_bidi_control():
    for c in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert safe_text(f"x{c}y") == f"x\\u{ord(c):04x}y"
        text = dumps_json({"k": f"x{c}"})
        assert c not in text and json.loads(text) == {"k": f"x{c}"}
    assert safe_text("plain ünïcode – fine") == "plain ünïcode – fine"


def test_bidi_file_names_in_junit_github_and_json(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
           "table": {"size": [300, 300]},
           "troopers": [{"id": "a", "side": "blue", "position": [50, 150, 0]},
                        {"id": "b", "side": "red", "position": [250, 150, 0]}],
           "expect": {"lof": [{"from": "a", "to": "b", "lof": False}]}}  # fmt: skip
    name = f"a{BIDI}gnp.yaml"
    (tmp_path / name).write_text(yaml.safe_dump(doc))
    argv = ["check", name, "--workers", "1", "--format", "github", "--quiet"]
    assert main([*argv, "--junit", "r.xml", "--json", "r.json"]) == 1  # a mismatch
    out = capsys.readouterr().out
    junit = (tmp_path / "r.xml").read_text()
    report = (tmp_path / "r.json").read_text()
    for text in (out, junit, report):
        assert not any(c in text for c in BIDI)
    shown = "a\\u202e\\u2066\\u200f\\u061cgnp.yaml"
    assert out.startswith(f"::error file={shown},line=")
    root = ET.fromstring(junit.encode())
    assert {c.get("file") for c in root.iter("testcase")} == {shown}
    assert json.loads(report)["records"][0]["path"] == name
