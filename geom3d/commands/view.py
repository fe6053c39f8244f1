"""``geom3d view``: open the interactive 3D viewer (needs the viewer extra and a display)."""

from __future__ import annotations

import argparse
from typing import Any

from geom3d.commands._common import (
    EXIT_OK,
    add_quiet,
    add_scenario_arg,
    load_for_command,
    renderer,
    subparser,
    warn_scene,
)

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``view`` on the CLI's subparsers."""
    v = subparser(
        sub,
        "view",
        "open the interactive 3D viewer",
        "Opens the interactive viewer window (PyVista); needs the viewer extra and a display.",
        ["geom3d view meshes/demo/table.yaml", "geom3d view meshes/scenarios/walkway.yaml"],
    )
    add_scenario_arg(v)
    add_quiet(v, "no warnings")
    v.set_defaults(func=run)
    return v


def run(args: argparse.Namespace) -> int:
    """Open the viewer window on the scenario's scene."""
    scene = load_for_command(args.scenario, quiet=args.quiet)  # bad input first, at once
    render_mod = renderer()
    warn_scene(scene, args)
    render_mod.open_viewer(scene)
    return EXIT_OK
