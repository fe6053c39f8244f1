"""``geom3d doctor``: compile every kernel now and report the caches.

A newcomer's first command would otherwise pay numba's compile time (see
:mod:`geom3d.core.cache_paths`); ``geom3d doctor`` pays it up front, with progress, and
says where the compiled kernels and the parsed meshes are cached and how much they hold.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from geom3d.commands._common import EXIT_OK, add_quiet, subparser

__all__ = ["add_parser", "cache_summary", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``doctor`` on the CLI's subparsers."""
    d = subparser(
        sub,
        "doctor",
        "compile every kernel now and report the caches",
        "Compiles (or loads from the cache) every compiled kernel the engine uses, so that\n"
        "later commands start at full speed, and prints where the kernel cache and the mesh\n"
        "cache are and how large they are. Run it once after installing.",
        ["geom3d doctor", "geom3d doctor --quiet"],
    )
    add_quiet(d, "no progress display")
    d.set_defaults(func=run)
    return d


def _folder_size(path: Path) -> tuple[int, int]:
    """``(files, bytes)`` under ``path`` (0, 0 when it does not exist)."""
    files = size = 0
    if path.is_dir():
        for p in path.rglob("*"):
            if p.is_file() and not p.is_symlink():
                files += 1
                size += p.stat().st_size
    return files, size


def cache_summary() -> list[str]:
    """One line each for the kernel cache and the mesh cache: folder, files, size."""
    from geom3d.core.cache_paths import default_cache_dir, kernel_cache_dir

    lines = []
    for what, folder in (
        ("compiled kernels", kernel_cache_dir()),
        ("meshes and solids", default_cache_dir()),
    ):
        n, size = _folder_size(folder)
        lines.append(f"  {what}: {folder} ({n} files, {size / 1e6:.1f} MB)")
    return lines


def run(args: argparse.Namespace) -> int:
    """Prepare every kernel, then print the cache summary."""
    from geom3d.commands._prepare import prepare_kernels

    t0 = time.perf_counter()
    compiled = prepare_kernels(quiet=args.quiet, announce=False)
    took = time.perf_counter() - t0
    state = f"compiled {compiled} now" if compiled else "all were ready in the cache"
    print(f"geom3d doctor: kernels ready in {took:.1f} s ({state})")
    print("\n".join(cache_summary()))
    sys.stdout.flush()
    return EXIT_OK
