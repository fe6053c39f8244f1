"""The scenario being edited by ``geom3d serve`` (SPEC 13.6): moves, pairs, attacks, saving.

A :class:`Session` holds the scenario file's plain data (as read, in file units) and the
scene built from it. A move edits the moved trooper's entry of that data (position in
file units, facing, the ``prone`` state), for saving, and re-stands that trooper in a
new scene (:meth:`geom3d.scene.scene.Scene.restand`): the scenery, its BVH, the blocking
proofs and every other trooper are kept (nothing is rebuilt); the moved trooper stands
exactly as ``geom3d lof`` stands it when reading the saved file (13.1, 12.2: its
position goes through the file's units as the file does). So the answers equal those of
``geom3d lof`` / ``attack`` on the saved scenario (``tests/serve`` compares them, on
many seeded random moves).

The pairs' visibility is kept from one scene to the next except the pairs the move can
change (:mod:`geom3d.serve.reach`), so a move searches only the moved trooper's pairs
(and the few others its old or new spot stands between). A newer move cancels an older
one still searching: each move takes a generation number, checked between pairs.
"""

from __future__ import annotations

import copy
import json
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from geom3d.core.errors import Geom3dError, InputError, UnknownIdError
from geom3d.core.tolerances import MAX_COORD_MM
from geom3d.core.units import LENGTH_UNITS

__all__ = [
    "MAX_SAVES",
    "PAIR_THREADS",
    "BadRequest",
    "NotFound",
    "Session",
    "Superseded",
]

#: Saved files a session may write (``NAME.moved-1.yaml`` up to this number): a bound
#: on what a page can put on the disk.
MAX_SAVES = 999


#: Threads that search one move's pairs (each unordered pair in one task; their
#: compiled searches release the GIL): the CPU count, at most 4, as ``lof_matrix``.
PAIR_THREADS = min(4, os.cpu_count() or 1)


class BadRequest(InputError):
    """A request the session refuses (HTTP 400): the message is one line."""


class NotFound(UnknownIdError):
    """An unknown trooper or attack id (HTTP 404)."""


class Superseded(Geom3dError):
    """A newer move came while this one searched its pairs (HTTP 409)."""


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadRequest(f"{what}: expected a finite number, got {json.dumps(value)[:40]}")
    return float(value)


class Session:
    """One scenario file, kept in memory and edited by moves.

    Parameters
    ----------
    path : str or os.PathLike
        The scenario file (never written: :meth:`save` writes a new file beside it).

    Attributes
    ----------
    path : pathlib.Path
    scene : geom3d.scene.scene.Scene
        The current scene (replaced, never changed in place, by each move).
    generation : int
        How many moves were made; a move's pairs stop when it changes.
    bounds : list of float
        ``[x0, y0, x1, y1]`` (mm): where a trooper may be moved
        (:func:`geom3d.serve.plan.table_bounds`).
    last_request : float
        When (``time.monotonic()``) the last move, Line of Fire or attack was asked
        for: the search ahead (:mod:`geom3d.serve.ahead`) waits for a quiet spell.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        from geom3d.api import build_scene
        from geom3d.scenario.load import parse_scenario
        from geom3d.scenario.reader import read_scenario_data

        self.path = Path(path)
        data = read_scenario_data(self.path)
        self._data: dict = data if isinstance(data, dict) else {}
        scenario = parse_scenario(
            data, file=str(self.path), base_dir=self.path.resolve().parent, path=self.path
        )
        self.scene = build_scene(scenario, prefetch_proofs=True)
        self.generation = 0
        self.last_request = time.monotonic()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(PAIR_THREADS, thread_name_prefix="geom3d-pairs")
        self._k = LENGTH_UNITS[scenario.units]
        from geom3d.serve.plan import scenery_plan, table_bounds

        # the scenery never moves: its drawing and the table's edges are made once
        self.bounds = table_bounds(self.scene)
        self._scenery = scenery_plan(self.scene)

    def close(self) -> None:
        """Stop the pair threads: queued searches are dropped, none is waited for."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ reading
    def warm(self) -> None:
        """Build the blocking proofs and every pair's visibility now (the server's
        start), so the first moves find the kernels loaded and the cache full."""
        scene = self.scene
        scene.prover  # noqa: B018
        scene.convex_solids  # noqa: B018
        scene.lof_matrix(areas=False)

    def scene_doc(self) -> dict:
        """``GET /api/scene``: ``units``, ``scenario``, ``generation``, ``troopers`` (as
        in ``geom3d lof`` JSON: id, side, position, facing_deg, silhouette, ...), the
        table's plan bounds, the scenery's footprints and the attacks."""
        from geom3d.commands.answers import troopers_list
        from geom3d.serve.plan import attacks_list

        scene = self.scene
        troopers = troopers_list(scene)
        return {
            "units": "mm",
            "scenario": scene.scenario.name,
            "file_units": scene.scenario.units,
            "generation": self.generation,
            "troopers": troopers,
            "table": {"bounds": self.bounds},
            "scenery": self._scenery,
            "attacks": attacks_list(scene),
        }

    def pairs_of(self, tid: str, *, generation: int | None = None) -> dict:
        """``{trooper: {id, position}, pairs}``: every ordered pair that involves ``tid``,
        in ``geom3d lof``'s order (file order of the viewer, then of the target), each as
        in ``geom3d lof`` JSON (no visible areas, as a matrix writes them).

        Raises
        ------
        NotFound
            No trooper ``tid``.
        Superseded
            ``generation`` is given and a newer move came while the pairs were searched.
        """
        from geom3d.core.output import round_point

        self.last_request = time.monotonic()
        scene = self.scene
        if tid not in scene.troopers:
            raise NotFound(f"unknown trooper {json.dumps(tid)[:80]}")
        ids = list(scene.troopers)

        def both_ways(other: str) -> list:
            if generation is not None and generation != self.generation:
                raise Superseded(f"move of {tid!r} superseded by a newer move")
            return [
                ((tid, other), scene.line_of_fire(tid, other)),
                ((other, tid), scene.line_of_fire(other, tid)),
            ]

        # the searches release the GIL in their compiled calls: a few threads share them
        futures = [self._pool.submit(both_ways, other) for other in ids if other != tid]
        results: dict[tuple[str, str], Any] = {}
        try:
            for fut in futures:
                results.update(fut.result())
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        order = [(a, b) for a in ids for b in ids if a != b and tid in (a, b)]
        t = scene.troopers[tid]
        return {
            "trooper": {"id": tid, "position": round_point(t.position)},
            "pairs": [results[key].to_dict(area=False) for key in order],
        }

    # ------------------------------------------------------------------ moves
    def move(
        self,
        tid: Any,
        position: Any,
        facing_deg: Any = None,
        prone: Any = None,
    ) -> dict:
        """``POST /api/move``: stand trooper ``tid`` at ``position`` (mm: ``[x, y]``
        stands it on the surface by 13.1 / 12.2, ``[x, y, z]`` as given), optionally
        turned to ``facing_deg`` and laid down or stood up (``prone``); then its pairs
        (:meth:`pairs_of`).

        Raises
        ------
        BadRequest
            A malformed field, a spot off the table, or a spot inside scenery.
        NotFound
            No trooper ``tid``.
        Superseded
            A newer move came before this one's pairs were all searched.
        """
        self.last_request = time.monotonic()
        if not isinstance(tid, str):
            raise BadRequest("id: expected a trooper id (a string)")
        if tid not in self.scene.troopers:
            raise NotFound(f"unknown trooper {json.dumps(tid)[:80]}")
        if not isinstance(position, list) or len(position) not in (2, 3):
            raise BadRequest("position: expected [x, y] or [x, y, z] in mm")
        pos = [_number(v, f"position[{i}]") for i, v in enumerate(position)]
        facing = None if facing_deg is None else _number(facing_deg, "facing_deg")
        if prone is not None and not isinstance(prone, bool):
            raise BadRequest("prone: expected true or false")
        self._check_on_table(pos)
        with self._lock:
            data = self._moved_data(tid, pos, facing, prone)
            scene = self._scene_for(tid, pos, facing, prone)
            self._data, self.scene = data, scene
            self.generation += 1
            generation = self.generation
        return self.pairs_of(tid, generation=generation)

    def _check_on_table(self, pos: list[float]) -> None:
        from geom3d.serve.moves import off_table

        why = off_table(self.bounds, pos)
        if why:
            raise BadRequest(why)

    def _moved_data(self, tid: str, pos: list[float], facing, prone) -> dict:
        """The scenario data with ``tid``'s entry edited (lengths in file units)."""
        data = dict(self._data)
        troopers = list(data["troopers"])
        index = next(i for i, t in enumerate(troopers) if t.get("id") == tid)
        entry = copy.deepcopy(troopers[index])
        entry["position"] = [v / self._k for v in pos]
        if facing is not None:
            entry["facing_deg"] = facing
        if prone is not None:
            states = [s for s in entry.get("state") or [] if s != "prone"]
            entry["state"] = [*states, "prone"] if prone else states
            if not entry["state"]:
                del entry["state"]
        troopers[index] = entry
        data["troopers"] = troopers
        return data

    def _scene_for(self, tid: str, pos: list[float], facing, prone):
        """The current scene with ``tid`` re-stood (:meth:`Scene.restand`: the scenery,
        BVH, proofs and the other troopers kept), carrying over the cached visibility of
        every pair the move cannot change.

        ``pos`` (mm) goes through the file's units as saving writes it and reading
        reads it (``(v / k) * k``), so the trooper stands exactly where ``geom3d lof``
        on the saved file stands it."""
        from geom3d.serve.moves import carry_visibility, refusal

        k = self._k
        mm = [float(v / k) * k for v in pos]
        if len(mm) == 3 and abs(mm[2]) > MAX_COORD_MM:
            raise BadRequest(f"position[2]: {pos[2]:g} mm is too large (at most {MAX_COORD_MM:g})")
        try:
            scene = self.scene.restand(tid, mm, facing_deg=facing, prone=prone)
        except Geom3dError as exc:
            raise BadRequest(str(exc).splitlines()[0]) from None
        why = refusal(scene, tid)
        if why:
            raise BadRequest(why)
        carry_visibility(self.scene, scene, tid)
        return scene

    # ------------------------------------------------------------------ attacks, saving
    def attack(self, aid: Any) -> dict:
        """``POST /api/attack``: attack ``aid`` as ``geom3d attack --id ID`` writes it,
        plus ``drawing`` (the templates' outlines in plan, :func:`plan.attack_drawing`)."""
        from geom3d.commands.answers import attack_report
        from geom3d.serve.plan import attack_drawing

        self.last_request = time.monotonic()
        if not isinstance(aid, str):
            raise BadRequest("id: expected an attack id (a string)")
        scene = self.scene
        if aid not in {a.id for a in scene.scenario.attacks}:
            raise NotFound(f"unknown attack {json.dumps(aid)[:80]}")
        doc = attack_report(scene, [aid])
        doc["drawing"] = attack_drawing(scene, doc["attacks"][0])
        return doc

    def save(self) -> dict:
        """``POST /api/save``: the current data written to a new file beside the input,
        ``NAME.moved-N.EXT`` with the first N whose file does not exist (created
        exclusively: never over any file); ``{file}`` is its name."""
        import yaml

        with self._lock:
            data = self._data
        folder, stem, ext = self.path.parent, self.path.stem, self.path.suffix or ".yaml"
        if ext.lower() == ".json":
            text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        else:
            head = f"# {self.path.name} with the troopers moved by geom3d serve\n"
            text = head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        for n in range(1, MAX_SAVES + 1):
            target = folder / f"{stem}.moved-{n}{ext}"
            try:
                with open(target, "x", encoding="utf-8") as fh:
                    fh.write(text)
            except FileExistsError:
                continue
            return {"file": target.name}
        raise BadRequest(f"{MAX_SAVES} saved files already exist beside {self.path.name}")
