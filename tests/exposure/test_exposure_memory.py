"""An exposure map that cannot fit is refused before its cells x observers arrays are
made (issue 44 item 5, SPEC 13.4: ``exposure --spacing 3`` was numpy's
``_ArrayMemoryError``), in one line naming ``--spacing`` and ``--observers``."""

from __future__ import annotations

import pytest
from support import make_scene, trooper

from geom3d.core import memory
from geom3d.core.errors import InputError
from geom3d.exposure import run_exposure
from geom3d.exposure.document import EXPOSURE_BYTES_PER_PAIR


def test_a_map_that_cannot_fit_is_refused_before_the_screen(monkeypatch):
    import geom3d.exposure.document as document

    def never(*a, **k):
        raise AssertionError("the screen ran")

    monkeypatch.setattr(document, "screen", never)
    scene = make_scene(
        [trooper("o1", [50, 200], side="red"), trooper("o2", [350, 200], side="red")],
        table={"size": [400, 400]},
    )
    # a 400 mm table at 50 mm: 8 x 8 = 64 cells, x 2 observers = 128 pairs
    need = 128 * EXPOSURE_BYTES_PER_PAIR
    monkeypatch.setattr(memory, "memory_available", lambda: need)  # 80 % of it is allowed
    with pytest.raises(InputError) as err:
        run_exposure(scene, observers="red", spacing_mm=50, workers=1)
    assert str(err.value) == (
        "64 cells x 2 observers need about 212 kB of memory, more than the 212 kB "
        "available; use a coarser --spacing (now 50 mm) or fewer --observers"
    )
