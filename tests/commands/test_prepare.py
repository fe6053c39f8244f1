"""The first run explains itself (SPEC 12.3): compiled kernels prepared once, with a
notice on stderr; ``geom3d doctor``; ``python -m geom3d``."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest
from support import REPO

import geom3d.commands._prepare as prepare
from geom3d.cli import main


@pytest.fixture
def no_marker(tmp_path, monkeypatch):
    """A kernel folder whose marker is missing (the kernels themselves stay cached)."""
    marker = tmp_path / "kernels" / prepare.MARKER
    monkeypatch.setattr(prepare, "_marker", lambda: marker)
    return marker


def test_prepared_kernels_are_skipped_at_once(capsys):
    assert prepare.kernels_prepared()  # the session fixture prepared them
    assert prepare.prepare_kernels() == 0
    assert capsys.readouterr().err == ""


def test_first_run_says_so_once_then_never_again(no_marker, capsys):
    ran = prepare.prepare_kernels()
    err = capsys.readouterr().err
    assert ran == len(prepare._steps()) and no_marker.is_file()
    assert err.count("geom3d: preparing compiled kernels") == 1
    assert "`geom3d doctor` does it ahead" in err
    assert prepare.prepare_kernels() == 0 and capsys.readouterr().err == ""


def test_collections_are_rare_while_compiling_and_as_before_after(no_marker, monkeypatch):
    # numba's long-lived compile objects made Python's default collections a tenth of
    # the compile's CPU; the thresholds are raised for the preparation only, even when
    # a step fails
    seen = []
    monkeypatch.setattr(
        prepare, "_steps", lambda: [("look", lambda st: seen.append(gc.get_threshold()))]
    )
    before = gc.get_threshold()
    assert prepare.prepare_kernels(quiet=True) == 1
    assert seen == [prepare.COMPILE_GC_THRESHOLD] != [before] and gc.get_threshold() == before

    def fail(st):
        raise RuntimeError("a step failed")

    no_marker.unlink()
    monkeypatch.setattr(prepare, "_steps", lambda: [("fail", fail)])
    with pytest.raises(RuntimeError, match="a step failed"):
        prepare.prepare_kernels(quiet=True)
    assert gc.get_threshold() == before and not no_marker.exists()


def test_quiet_first_run_prints_nothing(no_marker, capsys):
    assert prepare.prepare_kernels(quiet=True) > 0
    assert capsys.readouterr().err == "" and no_marker.is_file()


def test_a_command_prepares_before_its_work_and_after_reading_the_file(no_marker, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: geom3d/1\nunits: mm\ntroopers: 3\n")
    assert main(["lof", str(bad)]) == 2  # bad input: no kernels prepared for it
    assert not no_marker.exists() and "preparing" not in capsys.readouterr().err
    assert main(["lof", str(REPO / "meshes/scenarios/wall_blocks.yaml"), "--format", "table"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("geom3d: preparing compiled kernels") and no_marker.is_file()
    assert "wall" not in err.splitlines()[0] and "a" in out


def test_doctor_reports_both_caches(capsys):
    assert main(["doctor", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("geom3d doctor: kernels ready in ")
    assert "all were ready in the cache" in out[0]
    assert out[1].startswith("  compiled kernels: ") and out[1].endswith(" MB)")
    assert out[2].startswith("  meshes and solids: ")


def test_python_dash_m_geom3d_is_the_command():
    done = subprocess.run(
        [sys.executable, "-m", "geom3d", "--version"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("geom3d ")


def test_the_search_compiles_in_a_child_that_succeeds():
    # the preparation's child compiles (here: loads) the search on its own; it once
    # aborted at link time ("Symbol not found": Embree's functions unbound in a process
    # that had not made an engine), silently, and the parent compiled everything alone
    done = subprocess.run(
        [sys.executable, "-c", prepare._CHILD],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, NUMBA_CACHE_DIR=str(prepare._kernel_dir())),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Symbol not found" not in done.stderr
