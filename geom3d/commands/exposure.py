"""The ``geom3d exposure`` subcommand (SPEC 12.5): where on the table a trooper stands
unseen by the chosen observers.

``geom3d exposure SCENARIO --observers SIDE|ID[,ID...] [--probe S] [--spacing D]
[--ignore-arcs] [--size WxH] [--title TEXT] [--out DIR] [--workers N]
[--scheduler|--dask ADDR] [--quiet]``

Writes ``DIR/exposure.json`` and, when a renderer is installed (the ``geom3d.renderers``
entry point with ``render_exposure``, from ``geom3d[viewer]``), ``DIR/exposure.png`` and
``DIR/exposure.svg``. Nothing is written until everything is computed, and each file is
written atomically. Progress goes to stderr, only on a terminal and without ``--quiet``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from geom3d.commands._common import (
    add_workers,
    progress_for,
    renderer_function,
    warn_scene,
)
from geom3d.commands._maps import add_map_options, map_options
from geom3d.core.errors import UsageError
from geom3d.core.units import LENGTH_UNITS

__all__ = ["DEFAULT_SPACING_MM", "add_parser", "run", "summary_lines"]

DEFAULT_SPACING_MM = 10.0
_OUTPUTS = ("exposure.json", "exposure.png", "exposure.svg")


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``exposure`` on the CLI's subparsers (``sub.add_parser``)."""
    examples = [
        "geom3d exposure meshes/scenarios/wall_blocks.yaml --observers red --spacing 50 "
        "--out exposure-out --quiet",
        "geom3d exposure meshes/scenarios/wall_blocks.yaml --observers a,c --spacing 100 "
        "--ignore-arcs --out exposure-out --workers 1 --quiet",
        "geom3d exposure meshes/scenarios/wall_blocks.yaml --seen-from a --spacing 50 "
        "--out seen-out --quiet",
    ]
    p = sub.add_parser(
        "exposure",
        help="where a trooper stands unseen: which observers have LoF to every spot",
        description=(
            "Stands a probe silhouette at every standable spot of the table (a grid on\n"
            "every level, as survey does) and decides which observers have Line of Fire\n"
            "to it: arcs, engagement and the 3 x 3 mm rule exactly as `geom3d lof`, the\n"
            "other troopers blocking. Writes exposure.json (SPEC 12.5) and\n"
            "exposure.png/.svg (observers per spot, safe ground marked) into --out.\n"
            "--seen-from ID maps instead where trooper ID can be seen from: whether a\n"
            "probe on each spot, free to face anywhere, has Line of Fire to it (SPEC 13.1)."
        ),
        epilog="examples (from the repository root):\n" + "".join(f"  {e}\n" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scenario", help="scenario file (YAML or JSON, format geom3d/1)")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument(
        "--observers",
        metavar="SIDE|ID[,ID...]",
        help="a side (all its troopers) or comma-separated trooper ids (default: none; "
        "one of --observers and --seen-from is needed)",
    )
    who.add_argument(
        "--seen-from",
        metavar="ID",
        help="map where trooper ID can be seen from: a probe on each spot, free to face "
        "anywhere, has Line of Fire to it (its viewshed; arcs of the probe ignored) "
        "(default: none)",
    )
    p.add_argument(
        "--probe", type=int, default=2, metavar="S", help="probe silhouette (default: 2)"
    )
    p.add_argument(
        "--spacing",
        type=float,
        default=None,
        metavar="D",
        help="grid spacing in the scenario file's units (default: 10 mm)",
    )
    p.add_argument(
        "--ignore-arcs",
        action="store_true",
        help="visibility only: no front arcs, no engagement (default: Line of Fire)",
    )
    p.add_argument(
        "--out",
        default="geom3d-exposure",
        metavar="DIR",
        help="folder for exposure.json and the maps, created if missing (default: geom3d-exposure)",
    )
    add_workers(p, "runs in this process for a few chunks of cells, else one process per CPU")
    p.add_argument(
        "--scheduler",
        "--dask",
        dest="scheduler",
        metavar="ADDRESS",
        help="run on a Dask cluster at tcp://HOST:PORT; needs the dask extra "
        "(default: none, local processes)",
    )
    p.add_argument(
        "--odds",
        action="store_true",
        help="danger map (SPEC 13.2): per spot P(hit) by each observer's ARO (its "
        "reaction: {attack: ...} profile, range and Partial Cover from the geometry) and "
        "from any (default: off)",
    )
    add_map_options(p, "the scenario, the observers and what is decided")
    p.add_argument(
        "--quiet", action="store_true", help="no warnings, no progress display (default: off)"
    )
    p.set_defaults(func=run)
    return p


def _check_out(out: Path, scenario: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out: {out} exists and is not a folder")
    for name in _OUTPUTS:
        target = (out / name).resolve()
        if target.exists() and not target.is_file():
            raise UsageError(f"--out: {out / name} exists and is not a regular file")
        if target == scenario.resolve():
            raise UsageError(f"--out: writing {out / name} would overwrite an input")


def summary_lines(doc: dict, units: str) -> list[str]:
    """The human summary: observers, cells, safe share, per observer, time."""
    k = LENGTH_UNITS[units]
    cells = doc["cells"]
    c = doc["counts"]
    per = {o: 0 for o in doc["observers"]}
    for cell in cells:
        for o in cell["seen_by"]:
            per[o] += 1
    n = max(1, len(cells))
    t = doc["timing"]
    what = "visibility (arcs ignored)" if doc["ignore_arcs"] else "Line of Fire"
    target = doc.get("seen_from")
    if target is not None:
        seen = sum(1 for cell in cells if cell["sees"])
        lines = [
            f"geom3d exposure - {doc['scenario']}",
            f"  where {target} can be seen from (a probe free to face anywhere, Line of Fire)",
            f"  probe: silhouette {doc['probe']['silhouette']}, grid every "
            f"{doc['spacing_mm'] / k:g} {units}, {c['cells']} standable spots",
            f"  {target} seen from: {seen} spots ({seen / n:.1%}); "
            f"hidden from: {c['safe']} spots ({doc['safe_share']:.1%})",
        ]
        return lines + _tail(doc, c, t)
    lines = [
        f"geom3d exposure - {doc['scenario']}",
        f"  observers: {', '.join(doc['observers'])} ({what})",
        f"  probe: silhouette {doc['probe']['silhouette']}, grid every "
        f"{doc['spacing_mm'] / k:g} {units}, {c['cells']} standable spots",
        f"  safe (seen by no observer): {c['safe']} spots, {doc['safe_share']:.1%}",
    ]
    lines += [f"    seen by {o}: {m} spots ({m / n:.1%})" for o, m in per.items()]
    return lines + _tail(doc, c, t)


def _tail(doc: dict, c: dict, t: dict) -> list[str]:
    """The summary's last lines: enclosed spots (SPEC 13.1) and the time."""
    lines = []
    enc = doc.get("enclosed") or {}
    if enc.get("spots"):
        by = ", ".join(f"{name!r} {m}" for name, m in enc["pieces"].items())
        lines.append(
            f"  note: {enc['spots']} spots enclosed (inside a solid or a sealed cavity, "
            f"not standable, not on the map): {by}"
        )
    lines.append(
        f"  time: {t['total_s']:.1f} s ({c['pairs']} spot x observer pairs, "
        f"{c['pairs_decided_without_rays']} decided without rays, {t['pairs_per_s']:.0f} "
        f"pairs/s, {t['executor']}, {t['workers']} worker(s))"
    )
    return lines


def run(args) -> int:
    """Run ``geom3d exposure`` (exit 0; bad input raises a Geom3dError: exit 2)."""
    from geom3d.scenario.load import load_scenario

    scenario = load_scenario(args.scenario)  # bad input answered before the engine loads
    from geom3d.api import build_scene
    from geom3d.commands._prepare import prepare_kernels
    from geom3d.core.output import atomic_write, dumps_json
    from geom3d.core.runtime import settle_heap
    from geom3d.core.scheduler_address import check_address
    from geom3d.exposure import run_exposure

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: must be at least 1 (got {args.workers})")
    if getattr(args, "odds", False) and args.seen_from is not None:
        raise UsageError("--odds maps the observers' AROs; it does not combine with --seen-from")
    if args.scheduler is not None:
        check_address(args.scheduler)
    drawn = map_options(args)  # --size, --title: checked before the work
    out = Path(args.out)
    _check_out(out, Path(args.scenario))
    prepare_kernels(quiet=args.quiet)
    scene = build_scene(scenario, prefetch_proofs=True)
    settle_heap()
    warn_scene(scene, args)
    units = scene.scenario.units
    spacing = DEFAULT_SPACING_MM if args.spacing is None else args.spacing * LENGTH_UNITS[units]
    render, why = renderer_function("render_exposure")
    with progress_for(args, "exposure") as bar:
        res = run_exposure(
            scene,
            observers=args.observers,
            seen_from=args.seen_from,
            probe=args.probe,
            spacing_mm=spacing,
            ignore_arcs=args.ignore_arcs,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=lambda done, total: bar(done, total),
        )
    if getattr(args, "odds", False):  # computed here, from the workers' visibility answers
        from geom3d.exposure.odds import add_danger_odds

        add_danger_odds(scene, res.document)
    files = {"exposure.json": dumps_json(res.document).encode("utf-8")}
    if render is not None:
        files.update(render(scene, res.document, **drawn))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot create {out}: {exc.strerror}") from None
    for name, data in files.items():
        atomic_write(out / name, data)
    lines = summary_lines(res.document, units)
    lines += [f"  wrote {out / name}" for name in files]
    if why:
        lines.append(f"  maps skipped: {why}")
    print("\n".join(lines))
    return 0
