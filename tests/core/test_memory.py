"""Out of memory as one line, and allocations refused before they are made
(geom3d/core/memory.py; issue 44 item 5, SPEC 13.4)."""

from __future__ import annotations

import numpy as np
import pytest

from geom3d.core import memory
from geom3d.core.errors import InputError
from geom3d.core.memory import building, memory_available, out_of_memory_line, refuse_if_too_big


def test_the_innermost_stage_names_the_error():
    with pytest.raises(MemoryError) as err:
        with building("building the scene"), building("loading mesh wall.stl"):
            np.empty(1 << 60, dtype=np.uint8)  # numpy's _ArrayMemoryError
    assert type(err.value) is not MemoryError  # numpy._core._exceptions._ArrayMemoryError
    assert out_of_memory_line(err.value, "lof") == "out of memory while loading mesh wall.stl"
    # outside any stage: the command
    try:
        raise MemoryError
    except MemoryError as exc:
        assert out_of_memory_line(exc, "render") == "out of memory while running geom3d render"


def test_an_error_raised_from_a_memory_error_is_one_too():
    try:
        with building("parsing the glTF"):
            try:
                raise MemoryError
            except MemoryError as inner:
                raise SystemError("a C extension gave up") from inner
    except SystemError as exc:
        assert out_of_memory_line(exc, "lof") == "out of memory while running geom3d lof"
    assert out_of_memory_line(ValueError("no"), "lof") is None


def test_memory_available_reads_meminfo_and_the_address_space_limit(monkeypatch):
    free = memory_available()
    assert free is not None and free > 0
    monkeypatch.setattr(memory, "_meminfo_available", lambda: 64 << 30)
    monkeypatch.setattr(memory, "_address_space_left", lambda: 1 << 30)
    assert memory_available() == 1 << 30  # the least of the two


def test_refuse_if_too_big_names_what_lowers_it(monkeypatch):
    monkeypatch.setattr(memory, "memory_available", lambda: 2 << 30)
    refuse_if_too_big(1 << 30, "a", "b")  # 1 GiB of 2: fits under the 80 % headroom
    with pytest.raises(InputError) as err:
        refuse_if_too_big(2 << 30, "160,000 cells x 6 observers", "use a coarser --spacing")
    assert str(err.value) == (
        "160,000 cells x 6 observers need about 2.0 GiB of memory, more than the 2.0 GiB "
        "available; use a coarser --spacing"
    )
    monkeypatch.setattr(memory, "memory_available", lambda: None)
    refuse_if_too_big(1 << 50, "a", "b")  # nothing known: nothing refused
