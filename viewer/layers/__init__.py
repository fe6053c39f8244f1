"""The layers of a drawing: functions turning scene parts into :class:`~viewer.model.ActorSpec` s.

- :mod:`viewer.layers.scenery`: table top and scenery (``scenery`` layer).
- :mod:`viewer.layers.troopers`: silhouettes, facing marks, routes, labels and attack
  highlights (``silhouettes`` layer).
- :mod:`viewer.layers.templates`: template volumes, Blast Focus and the attack part of a
  diagram (``templates`` layer).
- :mod:`viewer.layers.focus_rays`: Blast Focus rays to troopers in Total Cover
  (``templates`` layer).
- :mod:`viewer.layers.lof`: Line of Fire rays and the LoF matrix summary (``rays`` layer).
- :mod:`viewer.layers.annotations`: scale bar and arc boundary (``annotations`` layer).

Nothing is imported here, so ``import viewer.layers`` stays cheap.
"""

from __future__ import annotations

__all__ = ["annotations", "focus_rays", "lof", "scenery", "templates", "troopers"]
