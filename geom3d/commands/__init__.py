"""The ``geom3d`` subcommands (layer 9): one module per subcommand.

Each module in :data:`COMMANDS` defines ``add_parser(sub) -> argparse.ArgumentParser``
(which registers its subparser on the CLI's subparsers and sets ``func=run``) and
``run(args) -> int`` (the exit code). A module imports only argparse and light layer-0
modules at import time; the engine is imported inside ``run``, so ``geom3d --help`` and
usage errors never load numba, trimesh, scipy or Embree. A new subcommand is one module
here plus one entry in :data:`COMMANDS`.

:mod:`~geom3d.commands.answers` (the ``lof`` and ``attack`` JSON documents and their text
forms, layer 8) lives here too: ``check`` compares the same documents.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["COMMANDS", "command_module"]

#: The subcommands, in the order ``geom3d --help`` lists them: each is the module
#: ``geom3d.commands.<name>``.
COMMANDS: tuple[str, ...] = (
    "demo",
    "lof",
    "attack",
    "render",
    "view",
    "check",
    "survey",
    "exposure",
    "serve",
    "doctor",
)


def command_module(name: str) -> ModuleType:
    """The module of subcommand ``name`` (one of :data:`COMMANDS`)."""
    if name not in COMMANDS:
        raise KeyError(f"unknown command {name!r}")
    return importlib.import_module(f"geom3d.commands.{name}")
