"""geom3d.core.errors: every error is one printable line, whatever the input put in it."""

from __future__ import annotations

import pickle

import pytest

from geom3d.core.errors import (
    Geom3dError,
    InputError,
    MeshError,
    ScenarioError,
    UsageError,
    printable,
)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text, ünïcödé and a \\ backslash", "plain text, ünïcödé and a \\ backslash"),
        ("line\nbreak\r", "line\\x0abreak\\x0d"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),  # OSC: sets the terminal title
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("tab\there\x00\x7f\xa0", "tab\\x09here\\x00\\x7f\\xa0"),
        ("unassigned \u0378 \U000e0001", "unassigned \\u0378 \\U000e0001"),
        ("abc\u202edcba", "abc\\u202edcba"),  # right-to-left override
        ("a\u2028b", "a\\u2028b"),  # line separator
        ("lone \ud800", "lone \\ud800"),
    ],
)
def test_printable_escapes_what_could_break_a_line_or_a_terminal(raw, shown):
    assert printable(raw) == shown
    assert printable(shown) == shown  # idempotent: no double escaping
    assert shown.isprintable()
    shown.encode("utf-8")


def test_scenario_error_is_one_line_with_file_and_path():
    err = ScenarioError(
        "unknown key 'a\x1b]0;x\x07\nb'", file="s\u202e.yaml", path="troopers[0].a\x1b[2J"
    )
    text = str(err)
    assert text == "s\\u202e.yaml: troopers[0].a\\x1b[2J: unknown key 'a\\x1b]0;x\\x07\\x0ab'"
    assert err.message.startswith("unknown key 'a\x1b")  # the raw parts stay available
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == text and again.path == err.path


@pytest.mark.parametrize("cls", [Geom3dError, InputError, UsageError])
def test_every_error_class_prints_clean(cls):
    assert str(cls("bad\nvalue\x1b")) == "bad\\x0avalue\\x1b"


def test_mesh_error_is_a_scenario_error_and_clean():
    err = MeshError("cannot parse\n", file="m\x07.stl")
    assert isinstance(err, ScenarioError) and str(err) == "m\\x07.stl: cannot parse\\x0a"
