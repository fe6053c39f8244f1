"""The one progress display (geom3d/core/progress.py): which mode, and what each mode prints."""

from __future__ import annotations

import sys

import pytest

from geom3d.core.progress import Progress, progress_mode


def _ttys(*streams):
    return lambda s: any(s is t for t in streams)


@pytest.mark.parametrize(
    ("quiet", "terminals", "when_piped", "mode"),
    [
        (True, ("out", "err"), "off", "off"),
        (True, ("out", "err"), "lines", "off"),
        (False, ("out", "err"), "off", "bar"),
        (False, ("out", "err"), "lines", "bar"),
        (False, ("err",), "off", "off"),  # lof > file.json: no bar at all
        (False, ("err",), "lines", "bar"),  # check > summary.txt: bar on stderr
        (False, ("out",), "off", "off"),
        (False, ("out",), "lines", "lines"),
        (False, (), "lines", "lines"),
        (False, (), "off", "off"),
    ],
)
def test_progress_mode(monkeypatch, quiet, terminals, when_piped, mode):
    streams = {"out": sys.stdout, "err": sys.stderr}
    isatty = _ttys(*(streams[t] for t in terminals))
    assert progress_mode(quiet, when_piped=when_piped, isatty=isatty) == mode


def test_lines_mode_prints_only_lines_on_stderr(capsys):
    with Progress("check", "lines", total=2) as bar:
        bar(1, note="1 pass", line="[1/2] a.yaml: pass")
        bar(2)  # no line given: nothing printed
    out, err = capsys.readouterr()
    assert out == "" and err == "[1/2] a.yaml: pass\n"
    assert bar.total == 2


def test_off_mode_prints_nothing(capsys):
    with Progress("Line of Fire", "off") as bar:
        bar(3, 6, line="never shown")
    assert capsys.readouterr() == ("", "")
    assert bar.total == 6


def test_bar_mode_draws_on_stderr_only_and_leaves_nothing(capsys):
    with Progress("Line of Fire", "bar") as bar:
        for i in range(1, 5):
            bar(i, 4, note="n")
    out, err = capsys.readouterr()
    assert out == ""  # an answer on stdout is never mixed with progress
    assert "Traceback" not in err


def test_bad_mode_is_refused():
    with pytest.raises(ValueError, match="mode"):
        Progress("x", "spinner")
    with pytest.raises(ValueError, match="when_piped"):
        progress_mode(False, when_piped="bar")
