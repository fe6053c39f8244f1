"""Where geom3d caches: the cache folder (parsed meshes, closed solids, proof maps) and,
under it, the compiled kernels, a folder per version of the kernels' sources.

numba checks a cached kernel only against its own source file. A kernel that calls (and
so embeds) a kernel of another file, or freezes a constant of
:mod:`geom3d.bodies.kernel_constants`, would load stale code after that other file changed;
a folder per digest of all of them never does. The digest covers the kernel sources alone
(:func:`kernel_sources`): a renderer setting, an input limit or a report number lives
elsewhere, so changing one recompiles nothing.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

__all__ = [
    "KERNEL_SUPPORT",
    "default_cache_dir",
    "kernel_cache_dir",
    "kernel_sources",
    "kernel_sources_digest",
]


def default_cache_dir() -> Path:
    """The disk cache directory used when ``cache_dir`` is not given.

    ``$GEOM3D_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/geom3d``, else
    ``~/.cache/geom3d``.
    """
    env = os.environ.get("GEOM3D_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "geom3d"


#: A module defines compiled kernels when a line of it is a numba decorator of geom3d's
#: (``@njit``, ``@njit_leaf``, ``@intrinsic``, with or without options).
_KERNEL_DECORATOR = re.compile(rb"^\s*@(njit|njit_leaf|intrinsic)\b", re.MULTILINE)

#: Modules the kernels depend on that define no kernel themselves, relative to the geom3d
#: package: the constants the kernels freeze; Embree's C interface, whose symbol names the
#: kernels' calls are compiled against; and the module through which the compiled search
#: reaches the ray backend's kernels (a re-export: changing what it names changes the code
#: compiled into every kernel that casts).
KERNEL_SUPPORT: tuple[str, ...] = (
    "bodies/kernel_constants.py",
    "raycast/_embree_capi.py",
    "raycast/compiled.py",
)


def kernel_sources(root: Path | None = None) -> list[Path]:
    """The files the compiled kernels are built from, in path order: every module under
    ``root`` (default: the installed geom3d package) with a kernel decorator, and
    :data:`KERNEL_SUPPORT`.

    Parameters
    ----------
    root : Path, optional
        A geom3d package folder (a copy of it in tests).
    """
    root = Path(__file__).parent.parent if root is None else Path(root)
    support = {root / rel for rel in KERNEL_SUPPORT}
    return [
        p
        for p in sorted(root.rglob("*.py"))
        if p in support or _KERNEL_DECORATOR.search(p.read_bytes())
    ]


def kernel_sources_digest(root: Path | None = None) -> str:
    """16 hex digits of SHA-256 over :func:`kernel_sources` (each file's path relative to
    ``root`` and its bytes): what the compiled cache depends on (see the module docstring).

    Parameters
    ----------
    root : Path, optional
        A geom3d package folder; default the installed one.
    """
    root = Path(__file__).parent.parent if root is None else Path(root)
    h = hashlib.sha256()
    for p in kernel_sources(root):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def kernel_cache_dir() -> Path:
    """The folder numba caches geom3d's compiled kernels in: ``numba/<digest>`` under the
    mesh cache folder (:func:`kernel_sources_digest`), or ``<digest>`` under
    ``$NUMBA_CACHE_DIR`` when that is set (the folder itself when it is already named by
    the digest: a worker inherits the folder its parent chose).

    A folder the user chose gets the digest too: numba would otherwise load a kernel
    compiled with another file's older kernels embedded (after a ``git pull`` or
    ``checkout`` that changed only that file, or a CI cache kept from another commit)."""
    digest = kernel_sources_digest()
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        chosen = Path(env).expanduser()
        return chosen if chosen.name == digest else chosen / digest
    return default_cache_dir() / "numba" / digest
