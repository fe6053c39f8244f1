"""``check`` globs never follow links under ``**`` (issue 33).

``check 'loop/**/*.yaml'`` over a folder holding ``up -> ..`` and ``self -> .`` ran
``glob.glob(recursive=True)``, which follows both links: the match list grows without end.
:func:`geom3d.check.globbing.safe_glob` walks real folders only. On a tree without links
it must match exactly what ``glob.glob`` matches (the standard library is the reference).
"""

from __future__ import annotations

import glob
import os

import pytest
import yaml
from bounded import run_cli

from geom3d.check.globbing import safe_glob

PATTERNS = ["**/*.yaml", "**", "*/*.yaml", "a/**/*.yml", "*", "a/b/c.yaml", "[ab]/*",
            "**/c.*", "a/**", "missing/**/*.yaml", ".hidden/*", "a/*/", "**/"]  # fmt: skip


def _tree(root):
    for rel in ["top.yaml", "a/b/c.yaml", "a/b/d/e.yml", "a/x.json", "b/f.yaml",
                ".hidden/g.yaml", "a/.h.yaml", "a/b/d/.deep/i.yaml"]:  # fmt: skip
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")


@pytest.mark.parametrize("pattern", PATTERNS)
def test_same_matches_as_glob_without_links(tmp_path, monkeypatch, pattern):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    want = sorted({os.path.normpath(m) for m in glob.glob(pattern, recursive=True)})
    assert sorted({os.path.normpath(m) for m in safe_glob(pattern)}) == want
    absolute = str(tmp_path / pattern)
    want_abs = sorted({os.path.normpath(m) for m in glob.glob(absolute, recursive=True)})
    assert sorted({os.path.normpath(m) for m in safe_glob(absolute)}) == want_abs


def test_links_are_matched_but_never_recursed(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    os.symlink("..", "a/b/up")
    os.symlink(".", "a/self")
    os.symlink("b/f.yaml", "a/link.yaml")
    assert safe_glob("a/**/*.yaml") == ["a/b/c.yaml", "a/link.yaml"]
    assert safe_glob("a/*/b/c.yaml") == ["a/self/b/c.yaml"]  # one step through a link
    assert safe_glob("a/b/*/*.yaml") == ["a/b/up/link.yaml"]  # up -> .. is a


def test_check_over_a_link_loop_ends(tmp_path):
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
           "table": {"size": [300, 300]},
           "troopers": [{"id": "a", "side": "blue", "position": [50, 150, 0]}]}  # fmt: skip
    d = tmp_path / "loop" / "sub"
    d.mkdir(parents=True)
    (tmp_path / "loop" / "a.yaml").write_text(yaml.safe_dump(doc))
    (d / "b.yaml").write_text(yaml.safe_dump(doc))
    os.symlink("..", d / "up")
    os.symlink(".", d / "self")
    os.symlink("../..", d / "top")
    (res,) = run_cli([["check", "loop/**/*.yaml", "--workers", "1", "--quiet"]], tmp_path,
                     timeout=120)  # fmt: skip
    assert res["rc"] == 0, res["stderr"]
