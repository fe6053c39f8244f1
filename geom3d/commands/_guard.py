"""No command writes over one of its own inputs.

Every command that writes files (``check --json/--junit``, ``survey --out``, ``render
--out``, ``demo --out``) checks, before any work, that none of its outputs is one of the
files it reads: the scenario files, every mesh they reference, and every external buffer
of a glTF/GLB mesh (the ``.bin`` next to it). :func:`referenced_files` lists them and
:func:`refuse_overwrite` compares.

An output *is* an input when writing it (:func:`geom3d.core.output.atomic_write`: a temporary
file renamed over the name) would replace the input's content or its name: the output's
name in its folder (folder links resolved) is the input's name or the file its links end
at, or the output's name is another hard link of the input's file. A symbolic link at the
output's name that points at an input is also refused (it would be replaced, not written
through, but the user evidently meant the input).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Union

from geom3d.core.errors import Geom3dError, UsageError
from geom3d.core.output import safe_text
from geom3d.mesh.digest import gltf_buffer_paths

#: A path as the commands hold one.
PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["referenced_files", "refuse_overwrite"]


def referenced_files(scenario_path: PathLike) -> list[tuple[Path, str]]:
    """The files reading ``scenario_path`` reads, each with what it is.

    Parameters
    ----------
    scenario_path : str or os.PathLike

    Returns
    -------
    list of (pathlib.Path, str)
        ``(path, role)``: the scenario itself (``"a scenario being read"``), each mesh it
        references (``"a mesh file that SCEN references"``) and each external buffer of a
        glTF/GLB mesh (``"a glTF buffer that SCEN references"``). A scenario that cannot
        be read or parsed gives only itself (its own error is reported where it is read).
    """
    from geom3d.scenario import load_scenario  # a parse per call: only the commands call this

    shown = safe_text(os.fspath(scenario_path))
    out = [(Path(scenario_path), "a scenario being read")]
    try:
        scenario = load_scenario(scenario_path)
    except (Geom3dError, OSError, RecursionError, MemoryError):
        return out
    for m in [scenario.table_mesh, *(s.mesh_path for s in scenario.scenery)]:
        if m is None:
            continue
        out.append((Path(m), f"a mesh file that {shown} references"))
        out += [(b, f"a glTF buffer that {shown} references") for b in gltf_buffer_paths(m)]
    return out


def _ids(path: Path, follow: bool) -> tuple[int, int] | None:
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _entry(path: PathLike) -> Path | None:
    """``path``'s name in its folder with the folder's links resolved."""
    p = Path(path)
    try:
        return Path(os.path.realpath(p.parent)) / p.name
    except (OSError, ValueError):
        return None


def refuse_overwrite(
    outputs: Mapping[str, PathLike] | Iterable[tuple[str, PathLike]],
    inputs: Iterable[tuple[PathLike, str]],
    *,
    allowed: Iterable[tuple[PathLike, PathLike]] = (),
) -> None:
    """:class:`UsageError` if writing one of ``outputs`` would replace one of ``inputs``.

    Parameters
    ----------
    outputs : mapping, or iterable of (label, path)
        Label for messages (``"--json"``, ``"--out"``) -> the path that will be written.
    inputs : iterable of (path, role)
        What is read (:func:`referenced_files`, or ``(path, "the --compare report")``).
    allowed : iterable of (output path, input path)
        An input this output may replace: ``survey --out DIR --compare DIR/survey.json``
        reads the old report before writing the new one over it.

    Raises
    ------
    UsageError
        ``"LABEL: OUTPUT is ROLE; refusing to overwrite it"``.
    """
    inputs = list(inputs)
    ok = {(_entry(o), _entry(i)) for o, i in allowed}
    pairs = outputs.items() if isinstance(outputs, Mapping) else outputs
    for label, out in pairs:
        entry = _entry(out)
        if entry is None:
            continue
        out_ids = {i for i in (_ids(entry, False), _ids(entry, True)) if i is not None}
        for path, role in inputs:
            names = {_entry(path)}
            try:
                names.add(Path(os.path.realpath(path)))
            except (OSError, ValueError):
                pass
            in_ids = _ids(Path(path), True)
            same = entry in names or (in_ids is not None and in_ids in out_ids)
            if same and (entry, _entry(path)) not in ok:
                raise UsageError(
                    f"{label}: {safe_text(os.fspath(out))} is {role}; refusing to overwrite it"
                )
