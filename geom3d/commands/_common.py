"""What the subcommands share: subparser construction, standard output, warnings, the
scene loader, the progress display and the renderer plug-in lookup.

Imported by every command module at start-up, so it imports only argparse and light
layer-0 modules; the engine is imported inside the functions that need it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from geom3d.commands._bundled import bundled_meshes_dir, demo_scenario_path
from geom3d.core.errors import UsageError

if TYPE_CHECKING:
    from geom3d.core.progress import Progress
    from geom3d.scenario import Scenario
    from geom3d.scene.scene import Scene

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_OK",
    "RENDERER_GROUP",
    "Formatter",
    "add_quiet",
    "add_scenario_arg",
    "add_verbose",
    "bundled_meshes_dir",
    "demo_scenario_path",
    "load_for_command",
    "progress_for",
    "renderer",
    "silence_stdout",
    "subparser",
    "warn_scene",
    "write_stdout",
]

EXIT_OK, EXIT_BAD_INPUT = 0, 2

#: Entry-point group through which a diagram renderer plugs into the CLI. The engine
#: never imports rendering code: ``viewer`` (PyVista) registers itself here from
#: pyproject.toml, and any other renderer may do the same.
RENDERER_GROUP = "geom3d.renderers"


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's and the examples' line breaks."""


def subparser(
    sub: Any, name: str, summary: str, description: str, examples: list[str]
) -> argparse.ArgumentParser:
    """A subcommand parser whose help ends with ``examples`` (run from the repo root)."""
    epilog = "examples (from the repository root):\n" + "".join(f"  {e}\n" for e in examples)
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=summary, description=description, epilog=epilog, formatter_class=Formatter
    )
    return parser


def add_quiet(
    parser: argparse.ArgumentParser, what: str = "no warnings, no progress display"
) -> None:
    """The ``--quiet`` and ``-v`` flags every command has."""
    parser.add_argument("--quiet", action="store_true", help=f"{what} (default: off)")
    add_verbose(parser)


def _workers_value(text: str) -> int | None:
    """``--workers`` value: ``auto`` -> None, else a whole number (the command checks that
    it is at least 1, with its own one-line error)."""
    if text.strip().lower() == "auto":
        return None
    try:
        return int(text)
    except ValueError:
        why = f"expected 'auto' or a whole number (got {text[:40]!r})"
        raise argparse.ArgumentTypeError(why) from None


def add_workers(parser: argparse.ArgumentParser, auto_means: str) -> None:
    """``--workers auto|N`` (SPEC 13.4); ``auto_means``: what ``auto`` does here."""
    parser.add_argument(
        "--workers",
        type=_workers_value,
        default=None,
        metavar="auto|N",
        help=f"worker processes; 1 runs in this process; auto {auto_means} (default: auto)",
    )


def add_verbose(parser: argparse.ArgumentParser) -> None:
    """``-v``: print the scene's notes too (SPEC 12.2)."""
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print the notes (facts such as units scaled or holes closed; "
        "default: warnings only)",
    )


def add_scenario_arg(parser: argparse.ArgumentParser) -> None:
    """The positional scenario file."""
    parser.add_argument(
        "scenario",
        help="scenario file (YAML or JSON, format geom3d/1; see docs/scenario-format.md)",
    )


def silence_stdout() -> None:
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
        silence_stdout()
        reason = getattr(exc, "strerror", None) or str(exc)
        raise UsageError(f"cannot write the answer to standard output: {reason}") from None


def progress_for(args: argparse.Namespace, description: str) -> Progress:
    """The progress display of a command (none with ``--quiet`` or off a terminal)."""
    from geom3d.core.progress import Progress, progress_mode

    return Progress(description, progress_mode(getattr(args, "quiet", False)))


def warn_scene(scene: Scene, args: argparse.Namespace) -> None:
    """Print the scene's warnings on stderr, and its notes with ``-v`` (SPEC 12.2; none
    with ``--quiet``)."""
    if getattr(args, "quiet", False):
        return
    from geom3d.core.messages import terminal_lines

    verbose = getattr(args, "verbose", False)
    for line in terminal_lines(scene.warnings, scene.scenario.name, verbose):
        print(line, file=sys.stderr)


def load_for_command(
    path: str | os.PathLike[str],
    proofs_for: Callable[[Scenario], bool] | None = None,
    *,
    quiet: bool = False,
    refuse: Callable[[Scenario], None] | None = None,
) -> Scene:
    """The scene of scenario file ``path``; ``proofs_for(scenario) -> bool`` says whether
    to read the blocking proofs' map while the BVH is built (a Line of Fire matrix);
    ``refuse(scenario)`` raises when the command would cost more than its caps allow
    (called as soon as the scenario is read, before kernels or meshes are loaded).

    Compiled kernels are made ready first
    (:func:`geom3d.commands._prepare.prepare_kernels`), with a notice on stderr the first
    time on a machine; the scenario is read before, so bad input fails at once."""
    from geom3d.core.memory import building
    from geom3d.scenario.load import load_scenario

    with building("reading the scenario"):
        scenario = load_scenario(path)  # bad input answered before the engine loads
    from geom3d.api import build_scene
    from geom3d.commands._prepare import prepare_kernels
    from geom3d.core.runtime import settle_heap

    if refuse is not None:
        refuse(scenario)
    with building("loading the compiled kernels"):
        prepare_kernels(quiet=quiet)
    settle_heap()  # the imports live to the end: the load's collections walk only the load
    with building("building the scene (meshes, solids, BVH)"):
        scene = build_scene(
            scenario, prefetch_proofs=proofs_for is not None and proofs_for(scenario)
        )
    settle_heap()  # the scene and the imports live to the end: out of the collector's walks
    return scene


def renderer() -> ModuleType:
    """The installed renderer plugin module (``render_to_file``, ``demo_diagrams``,
    ``open_viewer``, ``render_survey``)."""
    from importlib.metadata import entry_points

    eps = sorted(entry_points(group=RENDERER_GROUP), key=lambda ep: ep.name)
    if not eps:
        raise UsageError(
            "diagrams need a renderer: install the viewer extra (pip install 'geom3d[viewer]')"
        )
    try:
        module: ModuleType = _load_plugin(eps[0])
    except ImportError as exc:
        raise UsageError(
            f"the {eps[0].name!r} renderer cannot be loaded ({exc}); "
            "install the viewer extra (pip install 'geom3d[viewer]')"
        ) from None
    return module


def renderer_function(name: str) -> tuple[Callable[..., Any] | None, str | None]:
    """The first installed renderer plugin's function ``name`` (``render_survey``,
    ``render_exposure``), or None with the reason it cannot be had."""
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=RENDERER_GROUP), key=lambda e: e.name):
        try:
            mod = _load_plugin(ep)
        except ImportError as exc:
            return None, f"the {ep.name!r} renderer cannot be loaded ({exc})"
        if hasattr(mod, name):
            return getattr(mod, name), None
    return None, f"no renderer with {name}: install geom3d[viewer]"


def _load_plugin(ep: Any) -> Any:
    """Import an entry point's module with SIGINT and SIGTERM held until it is loaded: an
    interrupt raised inside a native extension's initialisation (VTK's) crashed the
    process (SIGSEGV) instead of ending it with 130 or 143 (SPEC 13.4); held, it is
    delivered as soon as the import is done."""
    from geom3d.execution.signals import held

    with held():
        return ep.load()
