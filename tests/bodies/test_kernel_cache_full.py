"""A full disk under the compiled-kernel cache (issue 44 item 5, SPEC 13.4): a warning
and an uncached run, never a dead command. numba writes a kernel's cache entry lazily,
right after compiling it on its first call (``Cache.save_overload``): before the fix an
``OSError(ENOSPC)`` there ended the command with "cannot write to standard output"."""

from __future__ import annotations

import errno
import logging
import os

import numba.core.caching as caching
import numpy as np
import pytest

from geom3d.bodies import kernels
from geom3d.bodies.kernels import njit


@njit(cache=True)
def _twice(x):
    return 2.0 * x


@pytest.fixture
def full_disk(monkeypatch):
    """Every cache write fails as on a full disk; every kernel compiles afresh."""
    monkeypatch.setattr(caching.FunctionCache, "load_overload", lambda self, sig, ctx: None)

    def full(self, filepath):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), filepath)

    monkeypatch.setattr(caching.IndexDataCacheFile, "_open_for_write", full)
    monkeypatch.setattr(kernels, "_CACHE_WRITE_FAILED", [])


def test_a_full_disk_under_the_kernel_cache_is_one_warning(full_disk, caplog):
    with caplog.at_level(logging.WARNING, logger="geom3d"):
        assert _twice(3.0) == 6.0  # compiled, the write fails, the answer comes
        assert _twice(np.int64(2)) == 4.0  # another signature: no second warning
    lines = [r.getMessage() for r in caplog.records if r.name == "geom3d"]
    assert lines == [
        "geom3d: warning: cannot write the compiled-kernel cache in "
        f"{os.environ['NUMBA_CACHE_DIR']} (No space left on device); running uncached"
    ]


def test_without_the_guard_the_write_error_escapes(full_disk):
    """The reproduction: numba's own save raises (what the guard catches)."""

    def bare(x):
        return x + 1.0

    disp = njit(cache=True)(bare)
    disp._cache.save_overload = type(disp._cache).save_overload.__get__(disp._cache)
    with pytest.raises(OSError, match="No space left on device"):
        disp(1.0)
