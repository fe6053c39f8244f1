"""Package hygiene: explicit exports, no rendering in the engine, one error root."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil

import pytest
from support import REPO

import geom3d
from geom3d import errors

ENGINE_MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(geom3d.__path__, prefix="geom3d.")
    if not m.name.endswith("__main__")
)
VIEWER_MODULES = ["viewer", "viewer.actors", "viewer.palette", "viewer.render", "viewer.window"]


@pytest.mark.parametrize("name", ["geom3d", *ENGINE_MODULES, *VIEWER_MODULES])
def test_every_module_has_an_explicit_all_whose_names_exist(name):
    mod = importlib.import_module(name)
    assert hasattr(mod, "__all__"), f"{name} has no __all__"
    for export in mod.__all__:
        # a package may list its submodules (``from viewer import *`` imports them)
        exists = hasattr(mod, export) or (
            hasattr(mod, "__path__") and importlib.util.find_spec(f"{name}.{export}") is not None
        )
        assert exists, f"{name}.__all__ names {export!r}, which does not exist"


def test_engine_never_imports_rendering():
    banned = {"pyvista", "vtk", "vtkmodules", "viewer"}
    for path in (REPO / "geom3d").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for n in names:
                assert n.split(".")[0] not in banned, f"{path.name} imports {n}"


def test_ruff_bans_rendering_imports_in_the_engine():
    text = (REPO / "pyproject.toml").read_text()
    assert '"pyvista".msg' in text and '"vtk".msg' in text
    assert '"viewer/**" = ["TID251"]' in text


def test_error_hierarchy():
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.Geom3dError)
        if cls is not errors.Geom3dError:
            assert issubclass(cls, ValueError | TypeError), name
    assert issubclass(errors.ShapeError, TypeError)
    assert issubclass(errors.ScenarioError, ValueError)


def test_scenario_error_survives_pickling():
    import pickle

    err = errors.UnknownIdError("unknown trooper 'x'", file="a.yaml", path="attacks[0].attacker")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is errors.UnknownIdError
    assert str(back) == "a.yaml: attacks[0].attacker: unknown trooper 'x'"
    assert back.path == "attacks[0].attacker"
