"""The compiled-kernel cache is keyed on the kernels' sources alone (issue 45, item 3).

numba checks a cached kernel only against its own file, so the cache folder is named by a
digest of every module a kernel is built from: the modules that define kernels and the
constants they freeze (:mod:`geom3d.bodies.kernel_constants`). A renderer setting, an input
limit or a report number must not be part of it (changing one would recompile every
kernel for every user); a kernel constant must.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

import geom3d
from geom3d.core.cache_paths import KERNEL_SUPPORT, kernel_sources, kernel_sources_digest

PKG = Path(geom3d.__file__).parent


def _rel(paths: list[Path], root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in paths}


def test_the_sources_are_the_kernel_modules_and_their_constants():
    rel = _rel(kernel_sources(), PKG)
    assert {"bodies/kernels.py", "bodies/kernel_constants.py", "raycast/_embree_kernels.py"} <= rel
    assert {"visibility/_cast_kernels.py", "visibility/_proof_kernels.py"} <= rel
    assert set(KERNEL_SUPPORT) <= rel
    # the tolerances, the input limits and the modules that only *use* kernels are not
    for other in ("core/tolerances.py", "core/cache_paths.py", "commands/_prepare.py"):
        assert other not in rel
    assert not any(r.endswith(("limits.py", "/tolerances.py")) for r in rel)
    # every module with a kernel decorator is a source (found by reading, not by a list)
    for p in PKG.rglob("*.py"):
        if re.search(r"^\s*@(njit|njit_leaf)\b", p.read_text("utf-8"), flags=re.M):
            assert p.relative_to(PKG).as_posix() in rel


_KERNEL_DECORATORS = {"njit", "njit_leaf", "intrinsic"}


def _is_kernel(fn: ast.FunctionDef) -> bool:
    for d in fn.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        if isinstance(d, ast.Name) and d.id in _KERNEL_DECORATORS:
            return True
    return False


def _outside_names(tree: ast.Module, sources: set[Path]) -> set[str]:
    """Names a module binds to constants of modules outside the digest: imported
    upper-case names, and module-level names assigned from them (``_T = OTHER``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("geom3d"):
            where = (PKG.parent / (node.module.replace(".", "/") + ".py")).resolve()
            if where not in sources:
                names |= {a.asname or a.name for a in node.names if a.name.isupper()}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            read = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            if read & names:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def test_no_kernel_reads_a_constant_from_outside_the_digest():
    # a constant a kernel freezes must come from a file the digest covers
    sources = {p.resolve() for p in kernel_sources()}
    kernels = 0
    for src in sources:
        tree = ast.parse(src.read_text("utf-8"))
        outside = _outside_names(tree, sources)
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and _is_kernel(fn):
                kernels += 1
                read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
                assert not read & outside, f"{src.name}: {fn.name} reads {read & outside}"
    assert kernels > 50  # the walk found the kernels


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "geom3d"
    shutil.copytree(PKG, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_bundled"))
    return root


def _set(root: Path, rel: str, name: str, value: str) -> None:
    """Give constant ``name`` of ``root/rel`` a new value (the assignment must be there)."""
    path = root / rel
    text, n = re.subn(
        rf"^({name}\s*:[^=]*=\s*).*$", rf"\g<1>{value}", path.read_text("utf-8"), flags=re.M
    )
    assert n == 1, (rel, name)
    path.write_text(text, "utf-8")


@pytest.mark.parametrize(
    ("rel", "name", "value"),
    [
        ("core/tolerances.py", "PATCH_MM", "4.0"),  # passed to kernels as an argument
        ("core/tolerances.py", "RAY_EPS_MM", "2e-3"),
        ("scenario/limits.py", "MAX_SCENARIO_BYTES", "1 << 20"),  # input limits
        ("mesh/limits.py", "MAX_MESH_BYTES", "1 << 20"),
        ("survey/limits.py", "SURVEY_MAX_PAIRS", "1_000"),
        ("commands/render.py", "RENDER_MAX_PIXELS", "1024 * 1024"),  # renderer
        ("check/expectations.py", "CHECK_NUMBER_TOL", "1e-2"),  # report
        ("survey/compare.py", "MAX_REPORT_BYTES", "1 << 20"),
        ("visibility/tolerances.py", "PROOF_MAX_DEPTH", "5"),  # Python-side proof budget
        ("scene/tolerances.py", "FOOTING_STEP_MM", "2.0"),  # an argument of footing's kernel
    ],
)
def test_other_constants_do_not_change_the_digest(tmp_path, rel, name, value):
    root = _copy(tmp_path)
    before = kernel_sources_digest(root)
    assert before == kernel_sources_digest()  # the copy digests like the package
    _set(root, rel, name, value)
    assert kernel_sources_digest(root) == before


@pytest.mark.parametrize(
    ("rel", "name", "value"),
    [
        ("bodies/kernel_constants.py", "GEOM_EPS_MM", "1e-8"),
        ("bodies/kernel_constants.py", "PROOF_CLEARANCE_MM", "2e-2"),
        ("visibility/_proof_kernels.py", "PROOF_TOP_COLUMNS", "8"),
    ],
)
def test_kernel_constants_change_the_digest(tmp_path, rel, name, value):
    root = _copy(tmp_path)
    before = kernel_sources_digest(root)
    _set(root, rel, name, value)
    after = kernel_sources_digest(root)
    assert after != before and len(after) == 16


def test_kernel_code_changes_the_digest_and_other_code_does_not(tmp_path):
    # a kernel embedding a changed kernel of another file must get a fresh folder
    root = _copy(tmp_path)
    first = kernel_sources_digest(root)
    (root / "cli.py").write_text((root / "cli.py").read_text() + "#\n")
    (root / "commands" / "_prepare.py").write_text(
        (root / "commands/_prepare.py").read_text() + "#\n"
    )
    assert kernel_sources_digest(root) == first
    kern = root / "visibility" / "_cast_kernels.py"
    kern.write_text(kern.read_text() + "#\n")
    second = kernel_sources_digest(root)
    assert second != first
    compiled = root / "raycast" / "compiled.py"
    compiled.write_text(compiled.read_text() + "#\n")
    assert kernel_sources_digest(root) not in (first, second)
