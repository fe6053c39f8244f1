"""Whether geom3d may trust a compiled-kernel (numba) cache folder.

numba's cache index is a pickle: whoever can write a folder numba loads from can run code
in every process that uses it. :func:`private_cache_dir` refuses a folder that another
user owns or can write (and any entry in it), like ssh with its keys, and falls back to
a private folder (issue 33).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from geom3d.core.cache_paths import default_cache_dir, kernel_cache_dir

__all__ = ["cache_dir_problem", "private_cache_dir", "settle_kernel_dir"]


def _private_group(gid: int) -> bool:
    """Is ``gid`` this user's own group (their primary group, no other member)? Then
    group write (a umask of 002, as many systems give) lets no one else in."""
    if not hasattr(os, "getegid") or gid != os.getegid():
        return False
    try:
        import grp
        import pwd

        me = pwd.getpwuid(os.geteuid()).pw_name
        members = set(grp.getgrgid(gid).gr_mem) - {me}
        others = [u for u in pwd.getpwall() if u.pw_gid == gid and u.pw_uid != os.geteuid()]
    except (ImportError, KeyError, OSError):
        return False
    return not members and not others


def _unsafe(path: Path, st: os.stat_result) -> str | None:
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link"
    if uid is not None and st.st_uid != uid:
        return f"{path} is owned by another user (uid {st.st_uid})"
    mode = stat.S_IMODE(st.st_mode)
    if mode & stat.S_IWOTH or (mode & stat.S_IWGRP and not _private_group(st.st_gid)):
        return f"{path} is writable by other users (mode {mode:o})"
    return None


def cache_dir_problem(top: Path, folder: Path) -> str | None:
    """Why the compiled-kernel cache ``folder`` (inside ``top``, geom3d's cache root) is
    not to be trusted, or None.

    numba's cache index is a pickle: whoever can write a folder numba loads from can run
    code in every process that uses it. Like ssh with its keys, every folder from ``top``
    down to ``folder`` that exists, and every folder and file below ``folder``, must be
    this user's, not a symbolic link, and not writable by group or others.
    """
    chain = [top, *reversed([p for p in folder.parents if p.is_relative_to(top) and p != top])]
    for p in [*chain, folder] if folder != top else chain:
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return None  # nothing below can exist yet: created private (0700) by the caller
        except OSError as exc:
            return f"{p} cannot be examined ({exc.strerror or exc})"
        why = _unsafe(p, st)
        if why:
            return why
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root) / name
            try:
                why = _unsafe(p, os.lstat(p))
            except OSError:
                continue
            if why:
                return why
    return None


def private_cache_dir(top: Path, folder: Path) -> tuple[Path, str | None]:
    """The folder numba should cache compiled kernels in, and a warning when it is not
    ``folder``.

    ``folder`` when it passes :func:`cache_dir_problem` (created with mode 0700 where
    missing); else ``geom3d-<uid>-kernels/<digest>`` in the temporary folder if that
    passes; else a fresh private temporary folder (kernels compiled again in each
    process, nothing untrusted loaded).
    """
    why = cache_dir_problem(top, folder)
    if why is None:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            return folder, None
        except OSError as exc:
            why = f"{folder} cannot be created ({exc.strerror or exc})"
    uid = os.geteuid() if hasattr(os, "geteuid") else 0
    alt_top = Path(tempfile.gettempdir()) / f"geom3d-{uid}-kernels"
    alt = alt_top / folder.name
    if cache_dir_problem(alt_top, alt) is None:
        try:
            alt.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(alt_top, 0o700)
            return alt, f"ignoring the compiled-kernel cache: {why}; using {alt}"
        except OSError:
            pass
    fresh = Path(tempfile.mkdtemp(prefix="geom3d-kernels-"))
    return fresh, f"ignoring the compiled-kernel cache: {why}; compiling into {fresh}"


def settle_kernel_dir() -> str | None:
    """Point ``$NUMBA_CACHE_DIR`` at the folder geom3d's kernels are cached in: the folder
    per digest of the kernel sources (:func:`geom3d.core.cache_paths.kernel_cache_dir`,
    under the user's ``$NUMBA_CACHE_DIR`` when they chose one), or the private folder
    :func:`private_cache_dir` falls back to. Returns the warning to give, if any (prefixed
    ``NUMBA_CACHE_DIR:`` when the folder refused was the user's)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    top = Path(chosen).expanduser() if chosen else default_cache_dir()
    folder, why = private_cache_dir(top, kernel_cache_dir())
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if why is None:
        return None
    return f"NUMBA_CACHE_DIR: {why}" if chosen else why
