"""The ``geom3d`` command line (SPEC section 6).

Exit codes: 0 success (or every expectation holds), 1 some expectation failed, 2 bad input
or usage - one line on stderr naming the file, the field path and the problem.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import time
from pathlib import Path

from .answers import attack_report, attack_table, lof_matrix_text, lof_report, lof_table
from .errors import Geom3dError, UsageError
from .output import atomic_write, dumps_json
from .runtime import settle_heap
from .tolerances import PROOF_MIN_PAIRS, RENDER_MAX_PIXELS, RENDER_SIDE_RANGE_PX

__all__ = ["bundled_meshes_dir", "demo_scenario_path", "main"]

EXIT_OK, EXIT_BAD_INPUT = 0, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every other bad input
        self.exit(EXIT_BAD_INPUT, f"geom3d: error: {message}\n")


def bundled_meshes_dir() -> Path:
    """The ``meshes/`` folder: the repository's, or the copy bundled in the wheel."""
    here = Path(__file__).resolve().parent
    for cand in (here.parent / "meshes", here / "_bundled" / "meshes"):
        if (cand / "demo").is_dir():
            return cand
    raise UsageError("the bundled meshes/ folder is missing from this installation")


def demo_scenario_path() -> Path:
    """The bundled demo table scenario."""
    return bundled_meshes_dir() / "demo" / "table.yaml"


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so the interpreter's last flush cannot fail
    a second time after a full or broken standard output was reported."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
    except OSError:
        pass


def write_stdout(text: str) -> None:
    """Write a command's answer to standard output.

    Raises
    ------
    UsageError
        Standard output is closed, full or a broken pipe: one line, exit 2, no traceback.
    """
    if sys.stdout is None:  # started with file descriptor 1 closed
        raise UsageError("cannot write the answer: standard output is closed")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except (OSError, ValueError) as exc:
        _silence_stdout()
        reason = getattr(exc, "strerror", None) or str(exc)
        raise UsageError(f"cannot write the answer to standard output: {reason}") from None


def _progress(args, description: str):
    from .progress import Progress, progress_mode

    return Progress(description, progress_mode(getattr(args, "quiet", False)))


def _warn(scene, args) -> None:
    if getattr(args, "quiet", False):
        return
    for w in scene.warnings:
        print(f"warning: {scene.scenario.name}: {w}", file=sys.stderr)


def _load(path, proofs_for=None):
    """The scene of scenario file ``path``; ``proofs_for(scenario) -> bool`` says whether
    to read the blocking proofs' map while the BVH is built (a Line of Fire matrix)."""
    from .api import build_scene
    from .scenario import load_scenario

    scenario = load_scenario(path)
    scene = build_scene(scenario, prefetch_proofs=proofs_for is not None and proofs_for(scenario))
    settle_heap()  # the scene and the imports live to the end: out of the collector's walks
    return scene


# --------------------------------------------------------------------------- lof
def _lof_pairs(scene, args):
    ids = list(scene.troopers)
    for who in (args.from_id, args.to_id):
        if who is not None:
            scene.trooper(who)
    froms = [args.from_id] if args.from_id else ids
    tos = [args.to_id] if args.to_id else ids
    return [(a, b) for a in froms for b in tos if a != b]


def _matrix_pairs(scenario, args) -> int:
    """How many unordered pairs ``geom3d lof`` will answer. From ``PROOF_MIN_PAIRS`` on
    the matrix uses blocking proofs, so their map is read ahead while the BVH builds."""
    if args.from_id is not None and args.to_id is not None:
        return 1
    if args.from_id is not None or args.to_id is not None:
        return len(scenario.troopers) - 1
    return _all_pairs(scenario)


def _all_pairs(scenario) -> int:
    """Unordered pairs of the scenario's troopers."""
    n = len(scenario.troopers)
    return n * (n - 1) // 2


def cmd_lof(args) -> int:
    scene = _load(args.scenario, lambda scn: _matrix_pairs(scn, args) >= PROOF_MIN_PAIRS)
    _warn(scene, args)
    pairs = _lof_pairs(scene, args)
    if args.from_id is not None and args.from_id == args.to_id:
        raise UsageError(f"--from and --to name the same trooper ({args.from_id!r})")
    # a single pair's area is as cheap as its answer; a matrix measures them when asked
    areas = args.areas or (args.from_id is not None and args.to_id is not None)
    with _progress(args, "Line of Fire") as bar:
        doc = lof_report(scene, pairs, progress=bar, areas=areas)
    render = {"json": dumps_json, "table": lof_table, "matrix": lof_matrix_text}[args.format]
    write_stdout(render(doc))
    return EXIT_OK


# --------------------------------------------------------------------------- attack
def cmd_attack(args) -> int:
    scene = _load(args.scenario)
    _warn(scene, args)
    ids = None
    if args.id:
        known = {a.id for a in scene.scenario.attacks}
        if args.id not in known:
            raise UsageError(
                f"{scene.scenario.name}: --id: unknown attack {args.id!r} "
                f"(known: {', '.join(sorted(known)) or 'none'})"
            )
        ids = [args.id]
    doc = attack_report(scene, ids)
    write_stdout(dumps_json(doc) if args.format == "json" else attack_table(doc))
    return EXIT_OK


# --------------------------------------------------------------------------- render/view
#: Entry-point group through which a diagram renderer plugs into the CLI. The engine
#: never imports rendering code: ``viewer`` (PyVista) registers itself here from
#: pyproject.toml, and any other renderer may do the same.
RENDERER_GROUP = "geom3d.renderers"


def _viewer():
    """The installed renderer plugin module (``render_to_file``, ``demo_diagrams``,
    ``open_viewer``)."""
    from importlib.metadata import entry_points

    eps = sorted(entry_points(group=RENDERER_GROUP), key=lambda ep: ep.name)
    if not eps:
        raise UsageError(
            "diagrams need a renderer: install the viewer extra (pip install 'geom3d[viewer]')"
        )
    try:
        return eps[0].load()
    except ImportError as exc:
        raise UsageError(
            f"the {eps[0].name!r} renderer cannot be loaded ({exc}); "
            "install the viewer extra (pip install 'geom3d[viewer]')"
        ) from None


def _parse_size(text: str) -> tuple[int, int]:
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


def cmd_render(args) -> int:
    render_mod = _viewer()
    scene = _load(args.scenario)
    _warn(scene, args)
    path = render_mod.render_to_file(
        scene,
        args.out,
        view=args.view,
        attack=args.attack,
        lof=args.lof,
        size=_parse_size(args.size),
        dpi=args.dpi,
        azimuth=args.azimuth,
        elevation=args.elevation,
        zoom=args.zoom,
        title=args.title,
        caption=args.caption,
        legend=not args.no_legend,
        annotate=args.annotate,
    )
    if not args.quiet:
        print(path)
    return EXIT_OK


def cmd_view(args) -> int:
    render_mod = _viewer()
    scene = _load(args.scenario)
    _warn(scene, args)
    render_mod.open_viewer(scene)
    return EXIT_OK


# --------------------------------------------------------------------------- check
def cmd_check(args) -> int:
    from .check.command import run_check_cli

    return run_check_cli(args)


# --------------------------------------------------------------------------- demo
def cmd_demo(args) -> int:
    path = demo_scenario_path()
    out_dir = Path(args.out)
    try:  # made first (atomic_write never creates folders): a bad --out fails before the work
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot create the folder {args.out}: {exc.strerror}") from None
    t0 = time.perf_counter()
    scene = _load(path, lambda scn: _all_pairs(scn) >= PROOF_MIN_PAIRS)  # the full matrix
    load_s = time.perf_counter() - t0
    _warn(scene, args)
    s = scene.summary()
    print(f"geom3d demo - {path}")
    print(
        f"  ruleset {s['ruleset']}, {s['scenery_elements']} scenery elements, "
        f"{s['triangles']} triangles ({s['blocking_triangles']} blocking), "
        f"{len(s['troopers'])} troopers, loaded in {load_s:.2f} s"
    )
    t0 = time.perf_counter()
    with _progress(args, "Line of Fire") as bar:
        doc = lof_report(scene, progress=bar)
    lof_s = time.perf_counter() - t0
    print(lof_table(doc))
    print(lof_matrix_text(doc))
    print(f"  Line of Fire matrix: {len(doc['pairs'])} ordered pairs in {lof_s:.2f} s")
    if scene.scenario.attacks:
        t0 = time.perf_counter()
        adoc = attack_report(scene)
        print(attack_table(adoc))
        print(f"  {len(adoc['attacks'])} attacks resolved in {time.perf_counter() - t0:.2f} s")
    atomic_write(out_dir / "lof.json", dumps_json(doc))
    print(f"  wrote {out_dir / 'lof.json'}")
    if scene.scenario.attacks:
        atomic_write(out_dir / "attacks.json", dumps_json(adoc))
        print(f"  wrote {out_dir / 'attacks.json'}")
    try:
        render_mod = _viewer()
    except UsageError as exc:
        print(f"  diagrams skipped: {exc}")
        return EXIT_OK
    for p in render_mod.demo_diagrams(scene, out_dir, doc):
        print(f"  wrote {p}")
    return EXIT_OK


# --------------------------------------------------------------------------- main
class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's and the examples' line breaks."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("geom3d")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown (not installed: pip install -e .)"


def _sub(sub, name: str, summary: str, description: str, examples: list[str]):
    """A subcommand parser whose help ends with ``examples`` (run from the repo root)."""
    epilog = "examples (from the repository root):\n" + "".join(f"  {e}\n" for e in examples)
    return sub.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=_Formatter,
    )


def _quiet(parser, what: str = "no warnings, no progress display") -> None:
    parser.add_argument("--quiet", action="store_true", help=f"{what} (default: off)")


def _scenario_arg(parser) -> None:
    parser.add_argument(
        "scenario",
        help="scenario file (YAML or JSON, format geom3d/1; see docs/scenario-format.md)",
    )


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="geom3d",
        description="Exact Line of Fire and template adjudication for tabletop wargames.",
        epilog=(
            "Run `geom3d COMMAND --help` for a command's options and examples.\n"
            "Exit codes: 0 success (check: every expectation holds), 1 some expectation\n"
            "failed, 2 bad input or usage (one line on stderr: file, field path, problem).\n"
            "Outputs are in millimetres. Documentation: docs/cli.md, docs/scenario-format.md."
        ),
        formatter_class=_Formatter,
    )
    p.add_argument("--version", action="version", version=f"geom3d {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    d = _sub(
        sub,
        "demo",
        "run the bundled demo table end to end",
        "Loads the bundled demo table (meshes/demo/table.yaml), prints its troopers, the\n"
        "Line of Fire table and matrix and the attacks, and writes lof.json, attacks.json\n"
        "and (with the viewer extra) diagrams into --out.",
        ["geom3d demo", "geom3d demo --out demo-out --quiet"],
    )
    d.add_argument(
        "--out",
        default="geom3d-demo",
        metavar="DIR",
        help="folder for the JSON files and diagrams, created if missing (default: geom3d-demo)",
    )
    _quiet(d)
    d.set_defaults(func=cmd_demo)

    lof = _sub(
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
    _scenario_arg(lof)
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
    _quiet(lof)
    lof.set_defaults(func=cmd_lof)

    at = _sub(
        sub,
        "attack",
        "resolve the scenario's template attacks",
        "Resolves the scenario's attacks in file order (or only --id): who is affected,\n"
        "who is excluded and why, roles and dodge modifiers (Infinity), hits and Wall of\n"
        "Death (Warhammer 40k 7e).",
        [
            "geom3d attack meshes/scenarios/template_wall.yaml --format table",
            "geom3d attack meshes/scenarios/attacks/betatrooper_burst2.yaml --id nanopulser",
        ],
    )
    _scenario_arg(at)
    at.add_argument(
        "--id", metavar="ID", help="resolve only the attack with this id (default: every attack)"
    )
    at.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help="json: the full document; table: one row per attack (default: json)",
    )
    _quiet(at)
    at.set_defaults(func=cmd_attack)

    r = _sub(
        sub,
        "render",
        "write a diagram (PNG, SVG, PDF or HTML), headless",
        "Writes one diagram off-screen (no display needed); needs the viewer extra\n"
        "(pip install 'geom3d[viewer]'). Prints the path written. Plan views (--view top)\n"
        "in .svg or .pdf are true vector drawings (no raster inside); 3D views (iso,\n"
        "from:ID, side, eye) are rendered pixels: in a .pdf the picture is embedded as an\n"
        "image, in an .svg the picture is an embedded image with the text as real text.",
        [
            "geom3d render meshes/demo/table.yaml --out plan.png",
            "geom3d render meshes/scenarios/walkway.yaml --out walkway.svg --view iso "
            "--lof ground:up",
            "geom3d render docs/images/teardrop.yaml --out teardrop.pdf --attack shot "
            "--annotate templates,distances --title 'Teardrop' --caption 'One prone trooper "
            "is missed.'",
        ],
    )
    _scenario_arg(r)
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
        metavar="A:B",
        help="draw the Line of Fire from trooper A to trooper B and its deciding ray "
        "(default: none)",
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
        help="magnify the fitted picture by F (2: half as much shown; default: 1)",
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
        "--annotate",
        default=None,
        metavar="LIST",
        help="comma-separated: heights (scenery and silhouette heights), distances (along "
        "the Line of Fire), templates (template dimensions) (default: none)",
    )
    _quiet(r, "do not print the path written, no warnings")
    r.set_defaults(func=cmd_render)

    v = _sub(
        sub,
        "view",
        "open the interactive 3D viewer",
        "Opens the interactive viewer window (PyVista); needs the viewer extra and a display.",
        ["geom3d view meshes/demo/table.yaml", "geom3d view meshes/scenarios/walkway.yaml"],
    )
    _scenario_arg(v)
    _quiet(v, "no warnings")
    v.set_defaults(func=cmd_view)

    c = _sub(
        sub,
        "check",
        "check every scenario's expect block (batch, JSON/JUnit reports)",
        "Loads every scenario, builds its scene and evaluates what its expect block asks.\n"
        "Exit 0: every scenario passes or is skipped; 1: some check failed or some\n"
        "scenario could not be checked; 2: bad usage.",
        [
            "geom3d check meshes/batch",
            "geom3d check meshes/scenarios --workers 1 --json check.json --junit check.xml",
            "geom3d check 'meshes/scenarios/attacks/wh40k_*.yaml' --quiet",
        ],
    )
    from .check.command import add_arguments as check_arguments

    check_arguments(c)
    c.set_defaults(func=cmd_check)
    from .survey.command import add_parser as add_survey_parser

    add_survey_parser(sub)
    return p


def main(argv=None) -> int:
    """Entry point of the ``geom3d`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare `geom3d`: the help, on stdout, and success
        parser.print_help()
        return EXIT_OK
    try:
        code = int(args.func(args))
        if sys.stdout is not None:
            sys.stdout.flush()  # printed lines (demo, render) fail here when stdout is full
        return code
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EPIPE, errno.EBADF):
            raise
        _silence_stdout()
        print(f"geom3d: error: cannot write to standard output: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Geom3dError as exc:
        print(f"geom3d: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("geom3d: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
