"""``geom3d render``: write one diagram (PNG, SVG, PDF or HTML), headless, through the
installed renderer plug-in (:func:`geom3d.commands._common.renderer`)."""

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
from geom3d.core.errors import UsageError
from geom3d.core.output import safe_text

#: Diagram size limits (``geom3d render --size``): each side in pixels, and the total
#: pixel count. Off-screen rendering with 8x MSAA needs about 100 bytes a pixel (8000 x
#: 8000 took 6.1 GB); 16.8 M pixels (4096 x 4096) stays under 2 GB.
RENDER_SIDE_RANGE_PX: tuple[int, int] = (16, 8192)
RENDER_MAX_PIXELS: int = 4096 * 4096

__all__ = ["RENDER_MAX_PIXELS", "RENDER_SIDE_RANGE_PX", "add_parser", "parse_size", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``render`` on the CLI's subparsers."""
    r = subparser(
        sub,
        "render",
        "write a diagram (PNG, SVG, PDF or HTML), headless",
        "Writes one diagram off-screen (no display needed); needs the viewer extra\n"
        "(pip install 'geom3d[viewer]'). Prints the path written. Plan, side and eye views\n"
        "(--view top, side[:A:B], eye:A:B) in .svg or .pdf are true vector drawings (no\n"
        "raster inside); 3D views (iso, from:ID) are rendered pixels: in a .pdf the picture\n"
        "is embedded as an image, in an .svg as an image with the text as real text.",
        [
            "geom3d render meshes/demo/table.yaml --out plan.png",
            "geom3d render meshes/scenarios/walkway.yaml --out walkway.svg --view iso "
            "--lof ground:up",
            "geom3d render docs/images/teardrop.yaml --out teardrop.pdf --attack shot "
            "--annotate templates,distances --title 'Teardrop' --caption 'One prone trooper "
            "is missed.'",
        ],
    )
    add_scenario_arg(r)
    r.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="the diagram to write: .png, .svg, .pdf or .html (required)",
    )
    r.add_argument(
        "--view",
        default="top",
        help="top (plan), iso (3D perspective), from:ID (from trooper ID's eye; aimed at the "
        "target with --lof/--attack), side or side:A:B (orthographic elevation across the "
        "line A-B), eye:A:B (from A's deciding eye point towards B, the 3 x 3 mm patch "
        "outlined) (default: top)",
    )
    r.add_argument(
        "--attack", metavar="ID", help="draw this attack's templates and troopers (default: none)"
    )
    r.add_argument(
        "--lof",
        metavar="A:B|none|all|from:ID",
        help="A:B: draw the Line of Fire from trooper A to trooper B and its deciding ray; "
        "all: the Line of Fire matrix (who sees whom); from:ID: the lines from trooper ID; "
        "none: no lines (default: the matrix on a plan of up to 8 troopers, else none)",
    )
    r.add_argument(
        "--size",
        default="1600x1200",
        metavar="WxH",
        help=f"picture size in pixels, each side {RENDER_SIDE_RANGE_PX[0]}.."
        f"{RENDER_SIDE_RANGE_PX[1]}, at most {RENDER_MAX_PIXELS / 1e6:.1f} M pixels in all "
        "(default: 1600x1200)",
    )
    r.add_argument(
        "--dpi",
        type=int,
        default=None,
        metavar="N",
        help="resolution recorded in a PNG; sets the page size of an SVG or PDF "
        "(default: none; SVG/PDF pages then use 96)",
    )
    r.add_argument(
        "--azimuth",
        type=float,
        default=None,
        metavar="DEG",
        help="camera direction, degrees counter-clockwise from +x (iso, side, from:ID; "
        "default: the view's own)",
    )
    r.add_argument(
        "--elevation",
        type=float,
        default=None,
        metavar="DEG",
        help="camera height angle, degrees above the horizontal (iso, side, from:ID; "
        "default: the view's own)",
    )
    r.add_argument(
        "--zoom",
        type=float,
        default=None,
        metavar="F",
        help="magnify the fitted picture by F about its subject (the attack's template, the "
        "Line of Fire, the side or eye view's target; 2: half as much shown; default: 1)",
    )
    r.add_argument(
        "--title",
        default=None,
        metavar="TEXT",
        help="title of the picture (default: scenario, view and what is drawn)",
    )
    r.add_argument(
        "--caption",
        default=None,
        metavar="TEXT",
        help="text printed under the picture; attack diagrams add the template dimensions "
        "(default: none)",
    )
    r.add_argument(
        "--no-legend",
        action="store_true",
        help="leave the legend out (the notes stay) (default: legend shown)",
    )
    r.add_argument(
        "--no-subtitle",
        action="store_true",
        help="leave the automatic subtitle line out (what is drawn, ruleset, file units) "
        "(default: shown)",
    )
    r.add_argument(
        "--annotate",
        default=None,
        metavar="LIST",
        help="comma-separated: heights (scenery and silhouette heights), distances (along "
        "the Line of Fire), templates (template dimensions) (default: none)",
    )
    r.add_argument(
        "--odds",
        action="store_true",
        help="with --attack: write the exact odds (SPEC 12.4) next to each affected trooper "
        "(default: off)",
    )
    add_quiet(r, "do not print the path written, no warnings")
    r.set_defaults(func=run)
    return r


def parse_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` -> ``(width, height)`` in pixels, within the render limits."""
    try:
        w, h = text.lower().split("x")
        size = int(w), int(h)
    except ValueError:
        raise UsageError(f"--size: expected WIDTHxHEIGHT, e.g. 1600x1200 (got {text!r})") from None
    lo, hi = RENDER_SIDE_RANGE_PX
    if not (lo <= size[0] <= hi and lo <= size[1] <= hi):
        raise UsageError(f"--size: each side must be {lo}..{hi} pixels (got {text!r})")
    if size[0] * size[1] > RENDER_MAX_PIXELS:
        raise UsageError(
            f"--size: {size[0]}x{size[1]} is {size[0] * size[1] / 1e6:.1f} M pixels, more than "
            f"the {RENDER_MAX_PIXELS / 1e6:.1f} M a diagram may have (e.g. 4096x4096)"
        )
    return size


def run(args: argparse.Namespace) -> int:
    """Write the diagram; print its path unless ``--quiet``."""
    if args.odds and not args.attack:
        raise UsageError("--odds needs --attack ID (the odds of that attack's troopers)")
    scene = load_for_command(args.scenario, quiet=args.quiet)  # bad input first, at once
    if args.out is not None:  # never over the scenario, its meshes or their glTF buffers
        from geom3d.commands._guard import referenced_files, refuse_overwrite

        refuse_overwrite({"--out": args.out}, referenced_files(args.scenario))
    render_mod = renderer()
    warn_scene(scene, args)
    size = parse_size(args.size)
    from geom3d.commands._isolate import run_isolated

    # VTK's native code may crash (it segfaulted under ``ulimit -v``): it draws in a child,
    # whose death is one error line here (SPEC 13.4); the file is written atomically there
    path = run_isolated(
        lambda: _draw(render_mod, scene, args, size),
        f"drawing the {safe_text(str(args.view))} view of {safe_text(str(args.scenario))}",
    )
    if not args.quiet:
        print(path)
    return EXIT_OK


def _draw(render_mod, scene, args: argparse.Namespace, size: tuple[int, int]):
    """The renderer's ``render_to_file`` with the command's options: the path written."""
    return render_mod.render_to_file(
        scene,
        args.out,
        view=args.view,
        attack=args.attack,
        lof=args.lof,
        size=size,
        dpi=args.dpi,
        azimuth=args.azimuth,
        elevation=args.elevation,
        zoom=args.zoom,
        title=args.title,
        caption=args.caption,
        legend=not args.no_legend,
        subtitle=not args.no_subtitle,
        annotate=args.annotate,
        **({"odds": True} if args.odds else {}),
    )
