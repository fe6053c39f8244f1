"""Small survey tables with hand-computed answers, as fixtures (``corridor``, ``room``)."""

from __future__ import annotations

import pytest
from support import box, make_scene

WALL_H = 80.0


def _corridor(*, open_compartment: bool = False):
    """A 500 x 300 mm table: a corridor y in [100, 200] between two long walls (80 mm high),
    the strips outside cut into 100 mm compartments by cross walls at x = 100..400.

    With a 100 mm grid (x = 50..450, y = 50, 150, 250) the only visible pairs are the ten
    pairs of the five corridor points; the longest lane is (50, 150) - (450, 150), 400 mm.
    ``open_compartment`` leaves out the cross wall at x = 100 on the south strip, so
    (50, 50) and (150, 50) see each other too.
    """
    walls = [
        box("south", (500, 5, WALL_H), (250, 97.5, 0)),
        box("north", (500, 5, WALL_H), (250, 202.5, 0)),
    ]
    for x in (100, 200, 300, 400):
        if not (open_compartment and x == 100):
            walls.append(box(f"cross-s{x}", (4, 95, WALL_H), (x, 47.5, 0)))
        walls.append(box(f"cross-n{x}", (4, 95, WALL_H), (x, 252.5, 0)))
    return make_scene([], walls, table={"size": [500, 300]})


def _room(door: bool = False):
    """A 300 x 300 mm table with a room over [95, 205]^2: four 5 mm walls 60 mm high and a
    5 mm roof on them (z 60..65). Sealed, the room's inside is enclosed (SPEC 13.1): on a
    100 mm grid the point (150, 150) has one probe, on the roof (level 0, z = 65). With
    ``door``, the west wall has a 30 mm door (y 120..150, full height): (150, 150) then
    has a probe inside the room (level 0, z = 0) and one on the roof (level 1, z = 65)."""
    west = (
        [box("w1", (5, 25, 60), (97.5, 107.5, 0)), box("w2", (5, 55, 60), (97.5, 177.5, 0))]
        if door
        else [box("w", (5, 110, 60), (97.5, 150, 0))]
    )
    parts = [
        *west,
        box("e", (5, 110, 60), (202.5, 150, 0)),
        box("s", (100, 5, 60), (150, 97.5, 0)),
        box("n", (100, 5, 60), (150, 202.5, 0)),
        box("roof", (110, 110, 5), (150, 150, 60)),
    ]
    return make_scene([], parts, table={"size": [300, 300]})


@pytest.fixture
def corridor():
    """The corridor table builder (see :func:`_corridor`)."""
    return _corridor


@pytest.fixture
def room():
    """The room table builder (see :func:`_room`; ``room(door=True)`` has a door)."""
    return _room


@pytest.fixture(scope="module")
def corridor_doc():
    """The corridor surveyed on a 100 mm grid in-process (reference for determinism)."""
    from geom3d.survey import survey

    return survey(_corridor(), spacing_mm=100, workers=1)
