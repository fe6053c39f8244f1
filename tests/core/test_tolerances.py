"""Every named number keeps its documentation beside it (issue 45, item 3): in the modules
that hold only constants, each upper-case assignment is preceded by a ``#:`` comment (or
belongs to a group of assignments under one), and the kernels' constants module imports
nothing, so any layer can read it without loading numba."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys

import pytest
from support import REPO

#: The modules that hold nothing but named numbers.
CONSTANT_MODULES = [
    "geom3d.core.tolerances",
    "geom3d.bodies.kernel_constants",
    "geom3d.combat.numbers",
    "geom3d.mesh.limits",
    "geom3d.mesh.tolerances",
    "geom3d.placement.tolerances",
    "geom3d.scenario.limits",
    "geom3d.scene.tolerances",
    "geom3d.survey.limits",
    "geom3d.templates.tolerances",
    "geom3d.visibility.tolerances",
]

_DEF = re.compile(r"^[A-Z][A-Z0-9_]*\s*:")


@pytest.mark.parametrize("name", CONSTANT_MODULES)
def test_every_constant_is_documented_beside_it(name):
    path = REPO / (name.replace(".", "/") + ".py")
    lines = path.read_text("utf-8").splitlines()
    defs = [i for i, line in enumerate(lines) if _DEF.match(line)]
    assert defs, name
    for i in defs:
        j = i - 1
        while j >= 0 and _DEF.match(lines[j]):
            j -= 1  # one comment may document a group of assignments
        assert j >= 0 and lines[j].startswith("#:"), f"{name}: {lines[i]} has no '#:' comment"


@pytest.mark.parametrize("name", CONSTANT_MODULES)
def test_all_lists_every_constant(name):
    mod = importlib.import_module(name)
    tree = ast.parse((REPO / (name.replace(".", "/") + ".py")).read_text("utf-8"))
    defined = {
        n.target.id
        for n in tree.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    assert defined and set(mod.__all__) == defined


def test_the_kernel_constants_load_nothing():
    code = (
        "import sys; import geom3d.bodies.kernel_constants, geom3d.scenario.limits\n"
        "print(sorted(m for m in ('numpy', 'numba', 'trimesh', 'embreex') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
