"""The examples in geom3d's docstrings run and print what they say (``doctest``), from the
repository root (they read the bundled files under ``meshes/``). A module is found by its
``>>>`` lines; ``geom3d/__main__.py`` runs the command when imported, so it has none."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest
from support import REPO

MODULES = sorted(
    ".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
    for p in (REPO / "geom3d").rglob("*.py")
    if p.name != "__main__.py" and re.search(r"^\s*>>> ", p.read_text("utf-8"), flags=re.M)
)


def test_the_examples_are_found():
    assert {"geom3d", "geom3d.api", "geom3d.survey"} <= set(MODULES)


#: Examples that disagree with the code today, each with what differs: the test fails
#: as soon as one agrees again (strict), so the entry goes with the fix.
KNOWN_STALE: dict[str, str] = {}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, monkeypatch, request):
    if name in KNOWN_STALE:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_STALE[name], strict=True))
    monkeypatch.chdir(REPO)
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, verbose=False, report=True)
    assert result.attempted > 0
    assert result.failed == 0
