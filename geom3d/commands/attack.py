"""``geom3d attack``: resolve the scenario's template attacks."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from geom3d.commands._common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    add_quiet,
    add_scenario_arg,
    load_for_command,
    subparser,
    warn_scene,
    write_stdout,
)
from geom3d.core.errors import UsageError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``attack`` on the CLI's subparsers."""
    at = subparser(
        sub,
        "attack",
        "resolve the scenario's template attacks",
        "Resolves the scenario's attacks in file order (or only --id): who is affected,\n"
        "who is excluded and why, roles and dodge modifiers (Infinity), hits and Wall of\n"
        "Death (Warhammer 40k 7e).",
        [
            "geom3d attack meshes/scenarios/template_wall.yaml --format table",
            "geom3d attack meshes/scenarios/attacks/betatrooper_burst2.yaml --id nanopulser",
            "geom3d attack meshes/scenarios/attacks/grenade_odds.yaml --odds --format table",
        ],
    )
    add_scenario_arg(at)
    at.add_argument(
        "--id", metavar="ID", help="resolve only the attack with this id (default: every attack)"
    )
    at.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help="json: the full document; table: one row per attack (default: json)",
    )
    at.add_argument(
        "--odds",
        action="store_true",
        help="add the exact odds of every affected trooper (attacks with a weapon; SPEC 12.4): "
        "rolls, hits, Saving Rolls, wounds and the ledger of every number (default: off)",
    )
    at.add_argument(
        "--wide",
        action="store_true",
        help="--format table: every column of the odds table (default: a compact table that "
        "reads in 100 columns)",
    )
    add_quiet(at)
    at.set_defaults(func=run)
    return at


def run(args: argparse.Namespace) -> int:
    """Answer ``geom3d attack``: the document on stdout in the chosen format."""
    from geom3d.commands.answers import (
        attack_errors,
        attack_report,
        attack_table,
        attack_warnings,
    )
    from geom3d.core.output import dumps_json

    scene = load_for_command(args.scenario, quiet=args.quiet)
    warn_scene(scene, args)
    ids = None
    if args.id:
        known = {a.id for a in scene.scenario.attacks}
        if args.id not in known:
            raise UsageError(
                f"{scene.scenario.name}: --id: unknown attack {args.id!r} "
                f"(known: {', '.join(sorted(known)) or 'none'})"
            )
        ids = [args.id]
    doc = attack_report(scene, ids, odds=args.odds)
    write_stdout(dumps_json(doc) if args.format == "json" else attack_table(doc, wide=args.wide))
    if not args.quiet:  # e.g. a 40k placement that covers fewer models than possible
        for line in attack_warnings(doc):
            print(f"geom3d: warning: {line}", file=sys.stderr)
    errors = attack_errors(doc)  # attacks with an input error of their own (SPEC 12.6)
    for line in errors:
        print(f"geom3d: error: {line}", file=sys.stderr)
    return EXIT_BAD_INPUT if errors else EXIT_OK
