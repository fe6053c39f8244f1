"""Package hygiene: explicit exports, the import layers, no rendering in the engine, one
error root, and CI that runs what the README says."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO

from geom3d.core import errors


def _walk(package: str) -> list[str]:
    """Every module of a top-level package of the repository (the package included)."""
    found = pkgutil.walk_packages([str(REPO / package)], prefix=f"{package}.")
    return [package, *sorted(m.name for m in found if not m.name.endswith("__main__"))]


ENGINE_MODULES = _walk("geom3d")
VIEWER_MODULES = _walk("viewer")


@pytest.mark.parametrize("name", [*ENGINE_MODULES, *VIEWER_MODULES])
def test_every_module_has_an_explicit_all_whose_names_exist(name):
    mod = importlib.import_module(name)
    assert hasattr(mod, "__all__"), f"{name} has no __all__"
    for export in mod.__all__:
        # a package may list its submodules (``from viewer import *`` imports them)
        exists = hasattr(mod, export) or (
            hasattr(mod, "__path__") and importlib.util.find_spec(f"{name}.{export}") is not None
        )
        assert exists, f"{name}.__all__ names {export!r}, which does not exist"


# --------------------------------------------------------------------------- import layers
def _layers_from_docs() -> dict[str, int]:
    """The layer table of docs/architecture.md (its one source of truth): every module
    named in a row's second column, ``geom3d.``-prefixed, -> the row's layer."""
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    layers: dict[str, int] = {}
    for m in re.finditer(r"^\| (\d+) \| ([^|]+) \|", section, re.M):
        for name in re.findall(r"`([\w.]+)`", m.group(2)):
            layers["geom3d" if name == "geom3d" else f"geom3d.{name}"] = int(m.group(1))
    return layers


#: The layers of geom3d, bottom to top: a module imports only from its own layer or
#: below, at module level or inside a function. The longest matching prefix gives a
#: module's layer; a module that matches none fails the test (give it one in the docs).
LAYERS = _layers_from_docs()


def test_the_layer_table_is_read_from_the_docs():
    assert LAYERS["geom3d.core"] == 0 and LAYERS["geom3d.cli"] == 9
    assert LAYERS["geom3d.rules"] < LAYERS["geom3d.rules.registry"]
    assert len(set(LAYERS.values())) == 10  # every floor 0-9 has a row


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(name: str) -> int | None:
    while name:
        if name in LAYERS:
            return LAYERS[name]
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]
    return None


def imported_modules(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """``(line, module)`` for every geom3d module ``path`` (or ``text`` as if it were that
    file) imports, at any depth (function-level imports included), relative imports
    resolved. Imports under ``if TYPE_CHECKING:`` name types for annotations and never
    run: they are not edges of the layer drawing."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    source = path.read_text() if text is None else text
    tree = ast.parse(source, filename=str(path))
    type_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and _is_type_checking(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    out = []
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            # ``from pkg import mod`` imports pkg.mod when that is a module
            targets = [
                f"{base}.{a.name}" if _is_module(f"{base}.{a.name}") else base for a in node.names
            ]
        else:
            continue
        out += [(node.lineno, t) for t in targets if t == "geom3d" or t.startswith("geom3d.")]
    return out


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _is_module(dotted: str) -> bool:
    path = REPO.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


ENGINE_FILES = sorted((REPO / "geom3d").rglob("*.py"))


def test_every_engine_module_has_a_layer():
    missing = [_module_name(p) for p in ENGINE_FILES if _layer(_module_name(p)) is None]
    assert not missing, f"give these modules a layer in LAYERS: {missing}"


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_imports_a_higher_layer(path):
    me = _module_name(path)
    mine = _layer(me)
    if mine is None:
        pytest.fail(f"{me} has no layer in LAYERS")
    upward = [
        f"line {line}: {target} (layer {_layer(target)})"
        for line, target in imported_modules(path)
        if (_layer(target) or 0) > mine and not me.startswith(target + ".")
    ]
    assert not upward, f"{me} (layer {mine}) imports upward: {upward}"


#: Modules that ``import geom3d`` and ``geom3d --help`` must never load (SPEC 12.3).
HEAVY = ("numba", "trimesh", "scipy", "embreex", "pydantic", "yaml", "rich", "shapely")


def _imported_by(code: str) -> set[str]:
    """Top-level names of every module ``python -X importtime -c code`` imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


@pytest.mark.parametrize(
    "code",
    [
        "import geom3d",
        "import geom3d.core.errors",
        "from geom3d.cli import build_parser; build_parser()",
        "import sys; from geom3d.cli import main; sys.argv = ['geom3d', '--version']; main()",
        "from geom3d.cli import main; main(['lof'])",  # a usage error
    ],
)
def test_start_up_loads_no_heavy_library(code):
    loaded = _imported_by(code)
    assert "geom3d" in loaded  # the probe saw the imports at all
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_layer_check_sees_function_level_imports():
    lof = REPO / "geom3d" / "adjudication" / "lof.py"
    lazy = (
        lof.read_text() + "\n\ndef _probe():\n    from geom3d.cli import main\n\n    return main\n"
    )
    found = {t for _, t in imported_modules(lof, lazy)}
    assert "geom3d.cli" in found and "geom3d.cli" not in {t for _, t in imported_modules(lof)}
    assert _layer("geom3d.cli") > _layer("geom3d.adjudication.lof")


def test_the_layer_check_skips_type_only_imports():
    scene = REPO / "geom3d" / "scene" / "scene.py"
    probe = (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from geom3d.cli import main\n"
    )
    assert "geom3d.cli" not in {t for _, t in imported_modules(scene, probe)}
    found = {
        t for _, t in imported_modules(scene, probe + "else:\n    from geom3d.cli import main\n")
    }
    assert "geom3d.cli" in found


# --------------------------------------------------------------------------- rendering
def test_engine_never_imports_rendering():
    banned = {"pyvista", "vtk", "vtkmodules", "viewer"}
    for path in ENGINE_FILES:
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


def _ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
    )


@pytest.mark.parametrize("module", ["pyvista", "vtk", "vtkmodules.vtkCommonCore"])
def test_ruff_bans_rendering_imports_in_the_engine(module):
    code = f"import {module}\n\n__all__ = [{module.split('.')[0]!r}]\n"
    argv = ("check", "--no-cache", "--select", "TID251", "--output-format", "concise")
    engine = _ruff(*argv, "--stdin-filename", "geom3d/_probe.py", "-", stdin=code)
    assert engine.returncode == 1, engine.stdout + engine.stderr
    assert "TID251" in engine.stdout and "rendering lives in viewer/" in engine.stdout
    # ... and allows them where rendering lives
    for where in ("viewer/_probe.py", "tests/viewer/test_probe.py"):
        ok = _ruff(*argv, "--stdin-filename", where, "-", stdin=code)
        assert ok.returncode == 0, (where, ok.stdout + ok.stderr)


# --------------------------------------------------------------------------- CI
def _readme_test_command() -> str:
    text = (REPO / "README.md").read_text()
    m = re.search(r"Run the tests.*?```(?:bash|sh)?\n(.*?)\n```", text, re.S)
    assert m, "README.md has no 'Run the tests' command block"
    (line,) = [ln for ln in m.group(1).splitlines() if ln.strip() and not ln.startswith("#")]
    return line.strip()


def test_ci_runs_exactly_the_readme_command_with_ruff_first():
    command = _readme_test_command()
    script = (REPO / ".ci" / "run").read_text()
    lines = [ln.strip() for ln in script.splitlines() if ln.strip() and not ln.startswith("#")]
    assert command in lines, f".ci/run does not run the README's command: {command}"
    # any failing step fails CI, pytest's exit 5 (no tests collected) included
    assert "set -euo pipefail" in lines
    steps = [s.strip() for s in command.split("&&")]
    ruff_check = steps.index(".venv/bin/ruff check .")
    ruff_format = steps.index(".venv/bin/ruff format --check .")
    pytest_step = steps.index(".venv/bin/python -m pytest")
    assert ruff_check < pytest_step and ruff_format < pytest_step
    assert "||" not in command and ";" not in command  # no step's failure is swallowed


# --------------------------------------------------------------------------- errors
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
