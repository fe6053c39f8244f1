"""Every documented example runs: README.md, docs/*.md and each subcommand's --help.

What counts as an example:

- a fenced ```yaml block that is a complete scenario (a mapping with ``format: geom3d/1``):
  it is written to a file and ``geom3d lof`` runs on it; ``geom3d attack`` too when it
  has attacks, and ``geom3d check`` when it has an ``expect`` block, which must hold;
- every ``$ geom3d ...`` line of a fenced ```console block, and every example at the
  end of a subcommand's ``--help``: run from a temporary folder that looks like the
  repository root (``meshes`` and ``docs`` link to the repository's), so outputs land
  there. A ```yaml block whose first line is ``# NAME.yaml`` is saved there as NAME
  first, so the commands of the same page can use it. The command must exit 0, or 2
  when the lines shown after it start with ``geom3d: error:``.

```text blocks are illustrations and are not run. ``geom3d view`` needs a display and
``geom3d serve`` runs until it is stopped, so neither may appear in a console block.
Diagram commands need the viewer extra (marked ``viewer``); slow ones are marked ``slow``
(they still run in CI).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from support import REPO

from geom3d.cli import build_parser, main

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
SLOW = {"demo", "survey", "exposure"}  # whole-table runs
VIEWER = {"render"}


def fenced_blocks(path: Path) -> list[tuple[str, int, list[str]]]:
    """``(language, first line number, lines)`` of every fenced block of a Markdown page."""
    blocks, lang, start, body = [], None, 0, []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = FENCE.match(line)
        if lang is None and m:
            lang, start, body = m.group(1), n + 1, []
        elif lang is not None and line.strip() == "```":
            blocks.append((lang, start, body))
            lang = None
        elif lang is not None:
            body.append(line)
    assert lang is None, f"{path.name}: unclosed code fence from line {start - 1}"
    return blocks


def scenario_blocks(path: Path):
    """``(line, text, data, file name or None)`` of every complete-scenario yaml block."""
    out = []
    for lang, start, body in fenced_blocks(path):
        if lang != "yaml":
            continue
        text = "\n".join(body) + "\n"
        data = yaml.safe_load(text)
        if isinstance(data, dict) and data.get("format") == "geom3d/1":
            m = re.match(r"#\s*([\w.-]+\.ya?ml)\s*$", body[0]) if body else None
            out.append((start, text, data, m.group(1) if m else None))
    return out


def console_commands(path: Path):
    """``(line, argv, expected exit code)`` of every ``$ geom3d`` line in console blocks."""
    out = []
    for lang, start, body in fenced_blocks(path):
        if lang != "console":
            continue
        for i, line in enumerate(body):
            if not line.startswith("$ "):
                continue
            argv = shlex.split(line[2:], comments=True)
            after = body[i + 1] if i + 1 < len(body) else ""
            code = 2 if after.startswith("geom3d: error:") else 0
            out.append((start + i, argv, code))
    return out


def help_examples() -> dict[str, list[list[str]]]:
    """Subcommand -> the argv of each example at the end of its help, in order."""
    import argparse

    parser = build_parser()
    (subs,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {
        name: [
            shlex.split(x.strip())
            for x in (sp.epilog or "").splitlines()
            if x.startswith("  geom3d ")
        ]
        for name, sp in subs.choices.items()
    }


def _marks(argv):
    marks = []
    if len(argv) > 1 and argv[1] in SLOW:
        marks.append(pytest.mark.slow)
    if len(argv) > 1 and argv[1] in VIEWER:
        marks += [pytest.mark.slow, pytest.mark.viewer]
    return marks


def _page_id(path: Path) -> str:
    return str(path.relative_to(REPO))


SCENARIOS = [
    pytest.param(path, line, text, data, id=f"{_page_id(path)}:{line}")
    for path in PAGES
    for line, text, data, _name in scenario_blocks(path)
]
COMMANDS = [
    pytest.param(path, argv, code, id=f"{_page_id(path)}:{line}", marks=_marks(argv))
    for path in PAGES
    for line, argv, code in console_commands(path)
]
HELP = [
    pytest.param(name, examples, id=f"help-{name}", marks=_marks(examples[0]))
    for name, examples in help_examples().items()
    if name not in ("view", "serve")  # needs a display; serves until it is stopped
]


def test_the_documentation_has_examples():
    assert len(SCENARIOS) >= 5 and len(COMMANDS) >= 10 and len(HELP) >= 5


@pytest.fixture
def repo_like(tmp_path, monkeypatch):
    """A temporary working folder with ``meshes`` and ``docs`` linked to the repository's."""
    for name in ("meshes", "docs"):
        (tmp_path / name).symlink_to(REPO / name, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    assert argv[0] == "geom3d", argv
    if argv[1:2] == ["view"]:
        pytest.fail("`geom3d view` needs a display: show it in a ```text block")
    if argv[1:2] == ["serve"]:
        pytest.fail("`geom3d serve` runs until stopped: show it in a ```text block")
    if argv[1:2] == ["render"]:
        pytest.importorskip("pyvista")
    try:
        code = main(argv[1:])
    except SystemExit as exc:  # usage errors and --help exit through argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("page", "line", "text", "data"), SCENARIOS)
def test_documented_scenario_runs(capsys, repo_like, page, line, text, data):
    path = repo_like / "example.yaml"
    path.write_text(text, encoding="utf-8")
    code, _out, err = _run(capsys, ["geom3d", "lof", str(path), "--quiet"])
    assert code == 0, f"{page.name}:{line}: geom3d lof exited {code}: {err}"
    if data.get("attacks"):
        code, _out, err = _run(capsys, ["geom3d", "attack", str(path), "--quiet"])
        assert code == 0, f"{page.name}:{line}: geom3d attack exited {code}: {err}"
    if data.get("expect"):
        code, out, err = _run(capsys, ["geom3d", "check", str(path), "--workers", "1"])
        assert code == 0, f"{page.name}:{line}: its expect block does not hold:\n{out}{err}"


@pytest.mark.parametrize(("page", "argv", "expected"), COMMANDS)
def test_documented_command_runs(capsys, repo_like, page, argv, expected):
    for _line, text, _data, name in scenario_blocks(page):
        if name:
            (repo_like / name).write_text(text, encoding="utf-8")
    code, out, err = _run(capsys, argv)
    assert code == expected, f"{shlex.join(argv)} exited {code} (expected {expected}):\n{err}"
    assert "Traceback" not in err
    if expected == 0:
        assert out or argv[1:2] == ["check"], f"{shlex.join(argv)} printed nothing"


@pytest.mark.parametrize(("name", "examples"), HELP)
def test_help_examples_run(capsys, repo_like, name, examples):
    # in order, in one folder: a later example may use what an earlier one wrote
    for argv in examples:
        code, _out, err = _run(capsys, argv)
        assert code == 0, f"{shlex.join(argv)} exited {code}:\n{err}"


def test_the_extractor_finds_scenarios_and_commands(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "```yaml\n# duel.yaml\nformat: geom3d/1\ntroopers: []\n```\n"
        "```yaml\nscenery: []\n```\n"  # a fragment: not a complete scenario
        "```console\n$ geom3d lof duel.yaml --format table  # comment\n"
        "$ geom3d lof 'broken file.yaml'\ngeom3d: error: broken file.yaml: not found\n```\n"
        "```text\n$ geom3d view duel.yaml\n```\n"
    )
    assert [(line, name) for line, _t, _d, name in scenario_blocks(page)] == [(2, "duel.yaml")]
    assert console_commands(page) == [
        (10, ["geom3d", "lof", "duel.yaml", "--format", "table"], 0),
        (11, ["geom3d", "lof", "broken file.yaml"], 2),
    ]
