"""Close combat: engaged groups (connected components of ``engaged_with``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from geom3d.scene.scene import Scene

__all__ = ["engaged_groups"]


def engaged_groups(scene: Scene) -> dict[str, tuple[str, ...]]:
    """Trooper id -> its engaged group (connected component of ``engaged_with``).

    Only troopers engaged with someone appear; groups are in scenario order.
    """
    order = list(scene.troopers)
    seen: dict[str, tuple[str, ...]] = {}
    for tid in order:
        t = scene.troopers[tid]
        if tid in seen or not t.engaged_with:
            continue
        comp = {tid}
        todo = [tid]
        while todo:
            x = todo.pop()
            for y in scene.troopers[x].engaged_with:
                if y not in comp:
                    comp.add(y)
                    todo.append(y)
        group = tuple(i for i in order if i in comp)
        for i in group:
            seen[i] = group
    return seen
