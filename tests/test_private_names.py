"""No private name crosses a package: a module of ``geom3d.<a>`` imports nothing whose
name starts with ``_`` (a function, a class, or a module such as ``_common``) from
``geom3d.<b>``. What another package needs is public in its owner."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: The command line is the commands' own front: it builds the parser from their shared
#: helpers (``geom3d/cli.py`` is one module beside the ``commands`` package it runs).
ALLOWED = {("geom3d.cli", "geom3d.commands._common")}


def _package(module: str) -> str:
    """The package of ``geom3d.<a>...``: ``a`` when it is a folder, else the module
    itself (``geom3d.cli`` is its own)."""
    parts = module.split(".")
    folder = len(parts) > 1 and (REPO / "geom3d" / parts[1]).is_dir()
    return parts[1] if folder else module


def private_imports(module: str, tree: ast.AST) -> list[str]:
    """``module``'s imports of private names or modules of another geom3d package."""
    out = []
    for node in ast.walk(tree):
        targets: list[tuple[str, list[str]]] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            targets.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            targets += [(a.name, []) for a in node.names]
        for source, names in targets:
            if not source.startswith("geom3d.") or _package(source) == _package(module):
                continue
            if (module, source) in ALLOWED:
                continue
            private = [p for p in source.split(".")[2:] if p.startswith("_")]
            private += [n for n in names if n.startswith("_")]
            if private:
                out.append(f"{module}:{node.lineno}: {source} {private}")
    return out


def test_no_private_name_is_imported_across_packages():
    found = []
    for path in sorted((REPO / "geom3d").rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        found += private_imports(module.removesuffix(".__init__"), ast.parse(path.read_text()))
    assert found == []


def test_the_check_sees_each_form():
    src = (
        "from geom3d.adjudication.lof import _static_lof\n"
        "import geom3d.raycast._embree_kernels\n"
        "from geom3d.visibility._cast_kernels import clear_to_target\n"
        "from geom3d.exposure._x import y\n"  # own package: fine
    )
    got = private_imports("geom3d.exposure.decide", ast.parse(src))
    assert [g.split(":")[1] for g in got] == ["1", "2", "3"]
