"""Every path, module and dotted name the docs mention exists.

The docs (``README.md``, ``docs/*.md``) name code in inline code spans: paths
(``geom3d/raycast/base.py``; a span is a path when its last part has an extension, a
wildcard or a trailing slash: ``geom3d/1`` is a format), modules (``geom3d.visibility``,
``core.forked``) and names (``output.dumps_json``, ``Scene.convex_solids``,
``scene.lof_matrix``). A path must
exist (``<name>`` and ``...`` stand for anything); a dotted name whose first part is
geom3d, one of its modules (the short name a doc uses, e.g. ``forked`` or
``visibility._cast_kernels``), one of its public classes, or ``scene`` (a
:class:`~geom3d.scene.scene.Scene`) must resolve to a module or an attribute. Other
dotted words (scenario keys such as ``table.size``, output files) are not code and are
not checked. The data-flow drawing of docs/architecture.md (a fenced block) is read too.
"""

from __future__ import annotations

import ast
import glob
import importlib
import inspect
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest
from support import REPO

import geom3d

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: top-level folders: a code span starting with one is a path
FOLDERS = ("geom3d/", "viewer/", "tests/", "benchmarks/", "meshes/", "docs/", ".ci/")
DOTTED = re.compile(r"(?<![\w./-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")
#: what a doc's file name may end with that is not Python: outputs and data, unchecked
NOT_CODE = (".json", ".png", ".svg", ".pdf", ".html", ".yaml", ".yml", ".stl", ".md", ".txt")


@cache
def modules() -> dict[str, list[str]]:
    """Every module of geom3d and viewer by each dotted suffix of its name."""
    out: dict[str, list[str]] = {}
    names = ["geom3d", "viewer"]
    for pkg in ("geom3d", "viewer"):
        mod = importlib.import_module(pkg)
        found = pkgutil.walk_packages(mod.__path__, f"{pkg}.")
        names += [m.name for m in found if not m.name.endswith("__main__")]  # it would run
    for full in names:
        parts = full.split(".")
        for i in range(len(parts)):
            out.setdefault(".".join(parts[i:]), []).append(full)
    return out


@cache
def classes() -> dict[str, list[type]]:
    """Public classes defined in geom3d, by name."""
    out: dict[str, list[type]] = {}
    every = sorted({m for v in modules().values() for m in v})
    for full in every:
        if not full.startswith("geom3d"):
            continue
        mod = importlib.import_module(full)
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and obj.__module__ == full and not name.startswith("_"):
                out.setdefault(name, [])
                if obj not in out[name]:
                    out[name].append(obj)
    return out


def _attr_chain(obj, parts: list[str]) -> bool:
    for p in parts:
        if inspect.isclass(obj) and p in getattr(obj, "__dataclass_fields__", {}):
            return p == parts[-1]  # a dataclass field: no attribute on the class
        if inspect.isclass(obj) and p in getattr(obj, "__annotations__", {}):
            return p == parts[-1]
        try:
            obj = getattr(obj, p)
        except AttributeError:
            return False
    return True


def checked(name: str, short: bool = True) -> bool:
    """Whether ``name`` names geom3d code (and so must resolve). ``short``: a module's
    short name counts (docs/architecture.md); the user docs name output keys that
    share a module's name (``wall_of_death.reason``), so there only ``geom3d.``,
    ``viewer.``, a class or ``scene.`` does."""
    first = name.split(".")[0]
    return (
        (short and first in modules())
        or first in classes()
        or first in ("geom3d", "viewer", "scene")
    ) and not name.endswith(NOT_CODE)


@cache
def resolves(name: str) -> bool:
    """Whether ``name`` is a module, or an attribute under a module or a class."""
    if name.endswith(".py"):  # a file named by its base name
        return bool(list(REPO.glob(f"**/{name}")))
    if name in entry_points():
        return True
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        for full in modules().get(".".join(parts[:i]), []):
            if _attr_chain(importlib.import_module(full), parts[i:]):
                return True
    head = "Scene" if parts[0] == "scene" else parts[0]
    return any(_attr_chain(c, parts[1:]) for c in classes().get(head, []))


@cache
def entry_points() -> set[str]:
    """Entry-point groups pyproject.toml declares (``geom3d.renderers``)."""
    text = (REPO / "pyproject.toml").read_text()
    return set(re.findall(r'^\[project\.entry-points\."([^"]+)"\]', text, flags=re.M))


def mentions(page: Path) -> tuple[list[str], list[str]]:
    """Paths and dotted names of ``page``'s code spans (and of architecture.md's
    drawings)."""
    text = page.read_text()
    fenced = re.findall(r"^```text\n(.*?)^```", text, flags=re.S | re.M)
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    spans = re.findall(r"`([^`\n]+)`", prose)
    paths = [s.split()[0].rstrip(",:;") for s in spans if s.startswith(FOLDERS)]
    paths = [p for p in paths if re.search(r"[.*<]|/$", p.rsplit("/", 1)[-1] or "/")]
    dotted = [m for s in spans if not s.startswith(FOLDERS) for m in DOTTED.findall(s)]
    if page.name == "architecture.md":
        dotted += [m for block in fenced for m in DOTTED.findall(block)]
    return paths, [d for d in dotted if checked(d, short=page.name == "architecture.md")]


@cache
def defined() -> set[str]:
    """Every name the code defines: functions, classes, assignments, annotated fields,
    ``self.x`` attributes and keyword parameters, in geom3d, viewer, tests, benchmarks."""
    out: set[str] = set()
    for folder in ("geom3d", "viewer", "tests", "benchmarks", "meshes"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    out.add(node.name)
                    if not isinstance(node, ast.ClassDef):
                        out.update(a.arg for a in [*node.args.args, *node.args.kwonlyargs])
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    out.add(node.id)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    out.add(node.attr)
    return out


#: a bare code name: snake_case with an underscore, or CamelCase
BARE = re.compile(r"^(?:[a-z_][a-z0-9]*_[a-z0-9_]+|_?[A-Z][a-z0-9]+[A-Z]\w*)$")


def bare_names(page: Path) -> list[str]:
    """The code spans of ``page`` that are one bare code name (``cmd_lof``,
    ``RayBackend``), a call's parentheses dropped."""
    prose = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    spans = [re.sub(r"\(.*\)$", "", s) for s in re.findall(r"`([^`\n]+)`", prose)]
    return [s for s in spans if BARE.match(s)]


def test_every_code_name_of_the_architecture_page_is_defined():
    """docs/architecture.md is for people who change the code: its bare names too
    (``make_lof_policy``, ``ProofTrees``) must be defined somewhere in the code."""
    page = REPO / "docs" / "architecture.md"
    known = defined() | set(modules()) | {"__main__"}  # walked past: importing it runs it
    assert sorted({n for n in bare_names(page) if n not in known}) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_path_and_name_a_doc_mentions_exists(page):
    paths, names = mentions(page)
    bad = []
    for p in paths:
        pattern = re.sub(r"<[^>]*>|\.\.\.", "*", p)
        if not glob.glob(str(REPO / pattern)):
            bad.append(f"path {p}")
    bad += [f"name {n}" for n in sorted(set(names)) if not resolves(n)]
    assert bad == []


def test_the_check_fails_on_a_stale_name_and_path():
    assert checked("lof._static_lof") and not resolves("geom3d.cli.cmd_lof")
    assert resolves("output.dumps_json") and resolves("scene.lof_matrix")
    assert resolves("forked.STALL_S") and resolves("geom3d.renderers")
    assert not resolves("visibility.nothing_here") and not resolves("Scene.nowhere")
    assert not checked("table.size") and not checked("survey.json")
    assert checked("forked.STALL_S") and not checked("forked.STALL_S", short=False)
    assert not glob.glob(str(REPO / "geom3d/ruledata.py"))
    assert geom3d.__name__ == "geom3d"
    assert "cmd_lof" not in defined() and "lof_report" in defined()
    assert BARE.match("cmd_lof") and BARE.match("RayBackend") and not BARE.match("lof")


#: a cross-reference in a docstring: :mod:`x`, :func:`x`, :class:`x`, :meth:`x`, ...
ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc|obj):`~?([^`<]+?)`", re.S)


def _instance_attr(cls: type, name: str) -> bool:
    """``name`` is an attribute ``cls`` gives its instances (``self.name = ...``)."""
    text = _source(cls)
    return f"self.{name} " in text or f"self.{name}:" in text


@cache
def _source(cls: type) -> str:
    try:
        return inspect.getsource(cls)
    except (OSError, TypeError):
        return ""


def docstring_target(name: str, module: str) -> bool:
    """Whether a docstring's reference ``name`` in ``module`` resolves: absolute, relative
    to the package (leading dots), to the module, or to one of its classes; a last part
    may be an instance attribute of the class before it."""
    name = re.sub(r"\s+", "", name).rstrip(".")
    mod = importlib.import_module(module)
    package = module.split(".") if hasattr(mod, "__path__") else module.split(".")[:-1]
    if name.startswith("."):
        dots = len(name) - len(name.lstrip("."))
        base = package[: len(package) - dots + 1]
        candidates = [".".join([*base, name.lstrip(".")])]
    else:
        candidates = [name, f"{module}.{name}", ".".join([*package, name])]
    for cls in [c for c in vars(mod).values() if inspect.isclass(c)]:
        candidates.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
    for full in candidates:
        if resolves(full) or _external(full):
            return True
        head, _, last = full.rpartition(".")
        owner = _object(head)
        if inspect.isclass(owner) and _instance_attr(owner, last):
            return True
    return False


@cache
def _object(name: str):
    """The module, class or attribute ``name`` names, or None."""
    parts = name.split(".")
    if not all(parts):
        return None
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except (ImportError, TypeError):
            continue
        for p in parts[i:]:
            obj = getattr(obj, p, None)
            if obj is None:
                return None
        return obj
    return None


def _external(name: str) -> bool:
    """A name outside geom3d (the standard library, numpy, pydantic) that resolves."""
    if name.startswith(("geom3d", "viewer")):
        return False
    return _object(name) is not None or _object(f"builtins.{name}") is not None


def test_every_docstring_reference_resolves():
    bad = []
    for path in sorted((REPO / "geom3d").rglob("*.py")):
        if path.name == "__main__.py":
            continue
        parts = path.relative_to(REPO).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for ref in sorted(set(ROLE.findall(path.read_text("utf-8")))):
            if not docstring_target(ref, module):
                bad.append(f"{path.relative_to(REPO)}: {ref}")
    assert bad == []
