"""The compiled-kernel cache is trusted only when no one else can write it (issue 33).

numba's cache index is a pickle: a cache folder (or an entry in it) that another user
owns or can write lets them run code in every geom3d process that uses it. Like ssh with
its keys, such a folder is ignored with a warning and a private one used instead.
"""

from __future__ import annotations

import os
import tempfile

import pytest
from bounded import run_code

from geom3d.core.cache_paths import kernel_sources_digest
from geom3d.core.kernel_trust import cache_dir_problem, private_cache_dir

posix = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")


def _cache(tmp_path):
    top = tmp_path / "g3"
    folder = top / "numba" / "0123456789abcdef"
    (folder / "geom3d").mkdir(parents=True)
    entry = folder / "geom3d" / "_kernels.f-1.py311.nbi"
    entry.write_bytes(b"pickle")
    for p in (top, top / "numba", folder, folder / "geom3d"):
        os.chmod(p, 0o755)
    os.chmod(entry, 0o644)
    return top, folder, entry


@posix
def test_problems_are_found_anywhere_on_the_way(tmp_path):
    top, folder, entry = _cache(tmp_path)
    assert cache_dir_problem(top, folder) is None
    assert cache_dir_problem(top, top / "numba" / "missing") is None  # made private later
    os.chmod(entry, 0o646)
    assert cache_dir_problem(top, folder) == f"{entry} is writable by other users (mode 646)"
    os.chmod(entry, 0o644)
    os.chmod(top / "numba", 0o757)
    assert "numba is writable by other users (mode 757)" in cache_dir_problem(top, folder)
    os.chmod(top / "numba", 0o755)
    entry.unlink()
    entry.symlink_to(tmp_path / "planted.nbi")
    assert cache_dir_problem(top, folder) == f"{entry} is a symbolic link"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_entry_of_another_user_is_a_problem(tmp_path):
    top, folder, entry = _cache(tmp_path)
    os.chown(entry, 4321, -1)
    assert cache_dir_problem(top, folder) == f"{entry} is owned by another user (uid 4321)"


@posix
def test_fallback_is_private_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    top, folder, _entry = _cache(tmp_path)
    assert private_cache_dir(top, folder) == (folder, None)
    fresh = top / "numba" / "fedcba9876543210"
    got, why = private_cache_dir(top, fresh)  # created 0700
    assert got == fresh and why is None and (fresh.stat().st_mode & 0o777) == 0o700
    os.chmod(top, 0o777)
    got, why = private_cache_dir(top, folder)
    alt = tmp_path / "tmp" / f"geom3d-{os.geteuid()}-kernels" / folder.name
    assert got == alt and alt.is_dir()
    assert why == (
        f"ignoring the compiled-kernel cache: {top} is writable by other users (mode 777); "
        f"using {alt}"
    )
    assert (alt.parent.stat().st_mode & 0o777) == 0o700
    os.chmod(alt.parent, 0o777)  # the fallback is no better: a fresh folder each time
    got, why = private_cache_dir(top, folder)
    assert got.parent == tmp_path / "tmp" and got.name.startswith("geom3d-kernels-")
    assert why.endswith(f"compiling into {got}")


@posix
def test_import_ignores_a_shared_cache_folder(tmp_path):
    top = tmp_path / "g3"
    (top / "numba").mkdir(parents=True)
    os.chmod(top, 0o777)
    (tmp_path / "tmp").mkdir()
    env = {"GEOM3D_CACHE_DIR": str(top), "NUMBA_CACHE_DIR": "", "TMPDIR": str(tmp_path / "tmp")}
    code = "import geom3d.bodies.kernels\nfrom numba.core import config\nprint(config.CACHE_DIR)\n"
    proc = run_code(code, tmp_path, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    alt = tmp_path / "tmp" / f"geom3d-{os.geteuid()}-kernels" / kernel_sources_digest()
    assert proc.stdout.strip() == str(alt)
    assert f"{top} is writable by other users (mode 777)" in proc.stderr
    # a NUMBA_CACHE_DIR the user chose is held to the same rule
    env["NUMBA_CACHE_DIR"] = str(top / "numba")
    os.chmod(top / "numba", 0o777)
    proc = run_code(code, tmp_path, env=env, timeout=180)
    assert proc.returncode == 0 and proc.stdout.strip() != str(top / "numba")
    assert "NUMBA_CACHE_DIR: ignoring the compiled-kernel cache" in proc.stderr
