"""``geom3d lof``: Line of Fire for every ordered pair of troopers, or those asked for."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from geom3d.commands._common import (
    EXIT_OK,
    add_quiet,
    add_scenario_arg,
    load_for_command,
    progress_for,
    subparser,
    warn_scene,
    write_stdout,
)
from geom3d.core.errors import InputError, UsageError
from geom3d.core.tolerances import PROOF_MIN_PAIRS

if TYPE_CHECKING:
    from geom3d.scenario import Scenario
    from geom3d.scene.scene import Scene

__all__ = [
    "LOF_BYTES_PER_PAIR",
    "LOF_MAX_PAIRS",
    "add_parser",
    "all_pairs",
    "check_lof_pairs",
    "run",
]

#: Most ordered pairs one ``geom3d lof`` answers (SPEC 13.4; ``survey`` caps its pairs
#: the same way, ``SURVEY_MAX_PAIRS``): about 1,000 troopers. The answer holds every pair,
#: about ``LOF_BYTES_PER_PAIR`` bytes of JSON each (measured: 20 troopers, 380 pairs,
#: 123 kB), so the cap keeps it near 300 MB, under what geom3d reads back as a report
#: (``MAX_REPORT_BYTES``); 50,000 troopers (2.5e9 pairs) were accepted before.
LOF_MAX_PAIRS: int = 1_000_000
LOF_BYTES_PER_PAIR: int = 320


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``lof`` on the CLI's subparsers."""
    lof = subparser(
        sub,
        "lof",
        "Line of Fire for all ordered pairs of troopers, or those asked for",
        "Line of Fire for every ordered pair of troopers (file order), or for the pairs\n"
        "asked for: --from A gives every pair from A, --to B every pair to B, both the\n"
        "single pair A -> B. Line of Fire is not symmetric (front arcs, engagement).",
        [
            "geom3d lof meshes/scenarios/open_ground.yaml --format matrix",
            "geom3d lof meshes/scenarios/walkway.yaml --from ground --to up",
            "geom3d lof meshes/scenarios/wall_blocks.yaml --format table",
        ],
    )
    add_scenario_arg(lof)
    lof.add_argument(
        "--from",
        dest="from_id",
        metavar="A",
        help="only pairs whose viewer is trooper A (default: every trooper)",
    )
    lof.add_argument(
        "--to",
        dest="to_id",
        metavar="B",
        help="only pairs whose target is trooper B (default: every trooper)",
    )
    lof.add_argument(
        "--format",
        choices=("json", "table", "matrix"),
        default="json",
        help="json: the full document with witnesses and placed troopers; table: one row "
        "per pair of troopers, a column per direction; matrix: N x N, row sees column, "
        "with a legend (default: json)",
    )
    lof.add_argument(
        "--areas",
        action="store_true",
        help="measure each witness's visible area (visible_area_mm2, and mm² in the "
        "table's deciding view) for every pair; a single pair (--from A --to B) always "
        "has it (default: off, about a tenth of a large matrix's time)",
    )
    add_quiet(lof)
    lof.set_defaults(func=run)
    return lof


def all_pairs(scenario: Scenario) -> int:
    """Unordered pairs of the scenario's troopers."""
    n = len(scenario.troopers)
    return n * (n - 1) // 2


def _matrix_pairs(scenario: Scenario, args: argparse.Namespace) -> int:
    """How many unordered pairs ``geom3d lof`` will answer. From ``PROOF_MIN_PAIRS`` on
    the matrix uses blocking proofs, so their map is read ahead while the BVH builds."""
    if args.from_id is not None and args.to_id is not None:
        return 1
    if args.from_id is not None or args.to_id is not None:
        return len(scenario.troopers) - 1
    return all_pairs(scenario)


def check_lof_pairs(scenario: Scenario, args: argparse.Namespace) -> None:
    """:class:`InputError` when ``geom3d lof`` would answer more than ``LOF_MAX_PAIRS``
    ordered pairs (like ``survey``'s ``SURVEY_MAX_PAIRS``): one line with the pairs, the
    answer's size and the options that lift it (``--from`` / ``--to`` choose fewer)."""
    n = len(scenario.troopers)
    if args.from_id is not None and args.to_id is not None:
        return
    pairs = n - 1 if (args.from_id is not None or args.to_id is not None) else n * (n - 1)
    if pairs <= LOF_MAX_PAIRS:
        return
    gib = pairs * LOF_BYTES_PER_PAIR / (1 << 30)
    raise InputError(
        f"{n:,} troopers make {pairs:,} ordered pairs, more than the {LOF_MAX_PAIRS:,} one "
        f"lof may answer (about {gib:,.1f} GiB of JSON); choose fewer pairs with --from A "
        "and/or --to B"
    )


def _pairs(scene: Scene, args: argparse.Namespace) -> list[tuple[str, str]]:
    ids = list(scene.troopers)
    for who in (args.from_id, args.to_id):
        if who is not None:
            scene.trooper(who)
    froms = [args.from_id] if args.from_id else ids
    tos = [args.to_id] if args.to_id else ids
    return [(a, b) for a in froms for b in tos if a != b]


def run(args: argparse.Namespace) -> int:
    """Answer ``geom3d lof``: the document on stdout in the chosen format."""
    from geom3d.commands.answers import lof_matrix_text, lof_report, lof_table
    from geom3d.core.output import dumps_json

    scene = load_for_command(
        args.scenario,
        lambda scn: _matrix_pairs(scn, args) >= PROOF_MIN_PAIRS,
        quiet=args.quiet,
        refuse=lambda scn: check_lof_pairs(scn, args),
    )
    warn_scene(scene, args)
    pairs = _pairs(scene, args)
    if args.from_id is not None and args.from_id == args.to_id:
        raise UsageError(f"--from and --to name the same trooper ({args.from_id!r})")
    # a single pair's area is as cheap as its answer; a matrix measures them when asked
    areas = args.areas or (args.from_id is not None and args.to_id is not None)
    with progress_for(args, "Line of Fire") as bar:
        # this command owns its process: the matrix may fork workers that share the scene
        doc = lof_report(scene, pairs, progress=bar, areas=areas, processes=True)
    renderers: dict[str, Callable[[dict[str, Any]], str]] = {
        "json": dumps_json,
        "table": lof_table,
        "matrix": lof_matrix_text,
    }
    render = renderers[args.format]
    write_stdout(render(doc))
    return EXIT_OK
