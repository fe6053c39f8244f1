"""The ``geom3d survey`` subcommand (SPEC 11.6): options, run, summary on stdout.

``geom3d survey SCENARIO [--probe S] [--spacing D] [--out DIR] [--workers N]
[--scheduler ADDR] [--compare OLD.json] [--lanes N] [--size WxH] [--title TEXT] [--quiet]``

Writes ``DIR/survey.json`` and, when a renderer is installed (the ``geom3d.renderers``
entry point with ``render_survey``, from ``geom3d[viewer]``), ``DIR/heatmap.png`` and
``DIR/heatmap.svg``. Nothing is written until everything is computed, and each file is
written atomically: an interrupted survey (Ctrl-C) leaves no partial files. Progress (with
an ETA) goes to stderr, only on a terminal and without ``--quiet``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from geom3d.commands._common import (
    RENDERER_GROUP,
    add_verbose,
    add_workers,
    progress_for,
    renderer_function,
    warn_scene,
)
from geom3d.commands._maps import add_map_options, map_options
from geom3d.core.errors import UsageError
from geom3d.core.tolerances import SURVEY_DEFAULT_LANES as DEFAULT_LANES
from geom3d.core.units import LENGTH_UNITS

if TYPE_CHECKING:
    from geom3d.survey.document import SurveyResult

__all__ = ["RENDERER_GROUP", "add_parser", "run", "summary_lines"]

DEFAULT_SPACING_MM = 50.0
_OUTPUTS = ("survey.json", "heatmap.png", "heatmap.svg")


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``survey`` on the CLI's subparsers (``sub.add_parser``)."""
    examples = [
        "geom3d survey meshes/scenarios/wall_blocks.yaml --spacing 200 --out survey-old --quiet",
        "geom3d survey meshes/scenarios/walkway.yaml --spacing 200 --out survey-new "
        "--compare survey-old/survey.json --quiet",
    ]
    p = sub.add_parser(
        "survey",
        help="visibility heat map, lanes, zone coverage and health of a whole table",
        description=(
            "Stands a probe silhouette on a grid on every walkable level (table, floors,\n"
            "roofs, walkways), decides visibility between all probe positions by the 3 x 3 mm\n"
            "rule (arcs ignored, probes do not block each other), and writes survey.json\n"
            "(SPEC 11.6) and heatmap.png/.svg into --out, with a summary on stdout.\n"
            "A 1200 mm table at the default 50 mm grid is ~165,000 pairs: minutes per CPU."
        ),
        epilog="examples (from the repository root):\n" + "".join(f"  {e}\n" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "scenario",
        help="scenario file (YAML or JSON, format geom3d/1); zones come from its zones: list",
    )
    p.add_argument(
        "--probe", type=int, default=2, metavar="S", help="probe silhouette (default: 2)"
    )
    p.add_argument(
        "--spacing",
        type=float,
        default=None,
        metavar="D",
        help="grid spacing in the scenario file's units (default: 50 mm)",
    )
    p.add_argument(
        "--out",
        default="geom3d-survey",
        metavar="DIR",
        help="folder for survey.json and the heat maps, created if missing "
        "(default: geom3d-survey)",
    )
    add_workers(p, "runs in this process for a few chunks of pairs, else one process per CPU")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the pairs on a Dask cluster at tcp://HOST:PORT; needs the dask extra "
        "(default: none, local processes)",
    )
    p.add_argument(
        "--compare",
        metavar="OLD.json",
        help="an earlier survey.json: print what changed (default: none)",
    )
    p.add_argument(
        "--lanes",
        type=int,
        default=DEFAULT_LANES,
        metavar="N",
        help=f"longest lanes listed in survey.json (default: {DEFAULT_LANES})",
    )
    add_map_options(p, "the scenario and 'survey'")
    p.add_argument(
        "--quiet", action="store_true", help="no warnings, no progress display (default: off)"
    )
    add_verbose(p)
    p.set_defaults(func=run)
    return p


def _check_out(out: Path, scenario: str, compare: str | None) -> None:
    """Refuse an ``--out`` that is not a folder, or holds an output name that is not a
    regular file (or link) or is one of the survey's inputs (the scenario, its meshes
    and glTF buffers, the ``--compare`` report; that report may be replaced by the new
    ``survey.json``: it is read first)."""
    from geom3d.commands._guard import referenced_files, refuse_overwrite
    from geom3d.core.output import check_writable

    if out.exists() and not out.is_dir():
        raise UsageError(f"--out: {out} exists and is not a folder")
    outputs = [("--out", out / name) for name in _OUTPUTS]
    if out.is_dir():
        for _label, path in outputs:
            try:
                check_writable(path)
            except UsageError as exc:
                raise UsageError(f"--out: {exc}") from None
    inputs = referenced_files(scenario)
    allowed = []
    if compare is not None:
        inputs.append((Path(compare), "the --compare report"))
        allowed.append((out / "survey.json", compare))
    refuse_overwrite(outputs, inputs, allowed=allowed)


def _fmt(mm: float, units: str, nd: int = 1) -> str:
    return f"{mm / LENGTH_UNITS[units]:.{nd}f} {units}"


def summary_lines(res: SurveyResult, scenario: str, wall_s: float | None = None) -> list[str]:
    """The human summary: levels, distance bands, longest lanes (with their ends'
    coordinates), zones, health; ``wall_s``: the command's wall time so far (loading the
    scene, the survey, the heat map), printed as the time."""
    doc, units = res.document, res.units
    pos = doc["positions"]
    n = len(pos)
    lines = [
        f"geom3d survey - {scenario}",
        f"  probe: silhouette {res.probe.silhouette} ({res.probe.diameter:g} x "
        f"{res.probe.height:g} mm), grid every {_fmt(res.grid.spacing, units)}, "
        f"{len(res.grid.grid_xy)} grid points",
    ]
    levels: dict[int, int] = {}
    for p in pos:
        levels[p["level"]] = levels.get(p["level"], 0) + 1
    per = ", ".join(f"level {lv}: {c}" for lv, c in sorted(levels.items())) or "none"
    n_pairs = n * (n - 1) // 2
    n_vis = len(doc["visible_pairs"])
    share = n_vis / n_pairs if n_pairs else 0.0
    lines += [
        f"  positions: {n} ({per})",
        f"  pairs: {n_pairs}, visible {n_vis} ({share:.1%})",
        "  visible share by distance:",
    ]
    for lo, hi, total, seen in res.bands:
        lines.append(
            f"    {_fmt(lo, units, 0):>9} - {_fmt(hi, units, 0):<9} {seen:>8} / {total:<8} "
            f"{seen / total:6.1%}"
        )
    by_id = {p["id"]: p for p in pos}
    lines.append("  longest lanes:")
    for ln in doc["lanes"][:10]:
        a, b = by_id[ln["a"]], by_id[ln["b"]]
        lines.append(
            f"    {ln['a']} {_at(a, units)} - {ln['b']} {_at(b, units)}: "
            f"{_fmt(ln['distance_mm'], units)}"
        )
    if not doc["lanes"]:
        lines.append("    none")
    if res.zones:
        lines.append(
            "  zones (sees: share of the table outside the zone seen from it; "
            "seen: share of the zone seen from outside):"
        )
        for z in res.zones:
            lines.append(
                f"    {z.id}: {z.n} positions, sees {z.sees_share:.1%}, seen {z.seen_share:.1%}"
            )
    warnings = doc["health"]["warnings"]
    lines.append(f"  health: {len(warnings)} finding(s)" + ("" if warnings else " - none"))
    lines += [f"    - {w}" for w in warnings]
    t = doc["timing"]
    wall = t["total_s"] if wall_s is None else wall_s
    lines.append(
        f"  time: {wall:.1f} s wall (survey {t['total_s']:.1f} s: {t['pairs']} pairs in "
        f"{t['pairs_s']:.1f} s, {t['pairs_per_s']:.0f} pairs/s, {t['executor']}, "
        f"{t['workers']} worker(s))"
    )
    return lines


def _at(p: dict, units: str) -> str:
    """A position's coordinates in the file's units and its level: ``(x, y, z) level L``."""
    k = LENGTH_UNITS[units]
    x, y, z = (v / k for v in p["position"])
    return f"({x:.4g}, {y:.4g}, {z:.4g} {units}; level {p['level']})"


def run(args: argparse.Namespace) -> int:
    """Run ``geom3d survey`` (exit 0; bad input raises a Geom3dError: exit 2)."""
    started = time.perf_counter()
    from geom3d.scenario.load import load_scenario

    scenario = load_scenario(args.scenario)  # bad input answered before the engine loads
    from geom3d.api import build_scene
    from geom3d.commands._prepare import prepare_kernels
    from geom3d.core.output import atomic_write, dumps_json
    from geom3d.core.runtime import settle_heap
    from geom3d.core.scheduler_address import check_address
    from geom3d.execution.signals import exit_code, interrupt_of, signal_name
    from geom3d.survey.compare import compare_surveys, load_survey
    from geom3d.survey.document import run_survey

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: must be at least 1 (got {args.workers})")
    if args.lanes < 0:
        raise UsageError(f"--lanes: must be at least 0 (got {args.lanes})")
    if args.scheduler is not None:
        check_address(args.scheduler)
    drawn = map_options(args)  # --size, --title: checked before the work
    old = load_survey(args.compare) if args.compare else None
    out = Path(args.out)
    _check_out(out, args.scenario, args.compare)
    prepare_kernels(quiet=args.quiet)
    scene = build_scene(scenario, prefetch_proofs=True)  # the survey proves: read ahead
    settle_heap()  # the scene and the imports live to the end: out of the collector's walks
    warn_scene(scene, args)
    k = LENGTH_UNITS[scene.scenario.units]
    spacing = DEFAULT_SPACING_MM if args.spacing is None else args.spacing * k
    render, why = renderer_function("render_survey")
    try:
        with progress_for(args, "survey") as bar:
            res = run_survey(
                scene,
                probe=args.probe,
                spacing_mm=spacing,
                workers=args.workers,
                scheduler=args.scheduler,
                lanes_count=args.lanes,
                progress=lambda done, total: bar(done, total),
            )
    except BaseException as exc:  # SIGINT or SIGTERM (wrapped or not): workers stopped
        intr = interrupt_of(exc)
        if intr is None:
            raise
        print(
            f"geom3d: interrupted ({signal_name(intr)}): the survey was stopped; nothing written",
            file=sys.stderr,
        )
        return exit_code(intr)
    files = {"survey.json": dumps_json(res.document).encode("utf-8")}
    if render is not None:
        files.update(render(scene, res.document, **drawn))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot create {out}: {exc.strerror}") from None
    for name, data in files.items():
        atomic_write(out / name, data)
    lines = summary_lines(res, scene.scenario.name, time.perf_counter() - started)
    if old is not None:
        lines.append(f"  compared with {args.compare}:")
        lines += [f"    {s}" for s in compare_surveys(old, res.document, res.units)]
    lines += [f"  wrote {out / name}" for name in files]
    if why:
        lines.append(f"  heat map skipped: {why}")
    print("\n".join(lines))
    return 0
