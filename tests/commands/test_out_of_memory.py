"""Out of memory in a command (issue 44 item 5, SPEC 13.4): exit 2 and one line saying
what was being built, never a traceback; a mesh that cannot fit is refused before it is
parsed. The children run under ``resource.setrlimit(RLIMIT_AS)`` (tests/bounded.py),
lowered to what they use once the command's modules are imported and its kernels are
ready, plus a little."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import yaml
from bounded import run_code

from geom3d.cli import main

#: Child: import what the command needs, then cap the address space at what is mapped
#: now plus HEADROOM bytes, then run the command.
_CHILD = """
import resource, sys
from geom3d.cli import main
from geom3d.commands._prepare import prepare_kernels
prepare_kernels(quiet=True)
import geom3d.api, geom3d.mesh.load, geom3d.adjudication.lof, trimesh, trimesh.exchange.stl
{setup}
vm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:"))
limit = vm * 1024 + {headroom}
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.exit(main({argv!r}))
"""


def _stl(path: Path, k: int) -> int:
    """A binary STL height field of 2 k^2 triangles (a 1 m square); its triangle count."""
    xs = np.linspace(0.0, 1000.0, k + 1)
    x, y = np.meshgrid(xs, xs, indexing="ij")
    v = np.stack([x, y, 5 + 3 * np.sin(x / 37.0) * np.cos(y / 23.0)], -1)
    a, b, c, d = v[:-1, :-1], v[1:, :-1], v[1:, 1:], v[:-1, 1:]
    tris = np.concatenate(
        [np.stack([a, b, c], -2).reshape(-1, 3, 3), np.stack([a, c, d], -2).reshape(-1, 3, 3)]
    )
    rec = np.zeros(len(tris), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["v"] = tris
    path.write_bytes(b"\0" * 80 + np.uint32(len(tris)).tobytes() + rec.tobytes())
    return len(tris)


def _scenario(d: Path, k: int) -> Path:
    _stl(d / "big.stl", k)
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
           "table": {"size": [1000, 1000]},
           "scenery": [{"id": "ground", "mesh": "big.stl", "position": [0, 0, 0]}],
           "troopers": [{"id": "a", "side": "blue", "position": [100, 100]},
                        {"id": "b", "side": "red", "position": [900, 900]}]}  # fmt: skip
    (d / "s.yaml").write_text(yaml.safe_dump(doc))
    return d / "s.yaml"


def test_a_mesh_that_cannot_fit_is_refused_before_it_is_parsed(tmp_path):
    _scenario(tmp_path, 700)  # 980,000 triangles: about 935 MiB at MESH_BYTES_PER_TRIANGLE
    code = _CHILD.format(setup="", headroom=300 << 20, argv=["lof", "s.yaml", "--quiet"])
    proc = run_code(code, tmp_path, timeout=600)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert re.fullmatch(
        r"geom3d: error: s\.yaml: scenery\[0\]\.mesh: big\.stl: 980,000 triangles need about "
        r"935 MiB of memory, more than the \d+ MiB available; simplify the mesh \(fewer "
        r"triangles\) or run with more memory\n",
        proc.stderr,
    ), proc.stderr


def test_a_memory_error_while_loading_a_mesh_is_one_line(tmp_path):
    # the check before parsing turned off: the parser itself runs out (numpy's
    # _ArrayMemoryError inside trimesh), which was "cannot parse STL file (MemoryError)"
    _scenario(tmp_path, 700)
    setup = "geom3d.mesh.load.refuse_if_too_big = lambda *a, **k: None"
    code = _CHILD.format(setup=setup, headroom=150 << 20, argv=["lof", "s.yaml", "--quiet"])
    proc = run_code(code, tmp_path, timeout=600)
    assert (proc.returncode, proc.stderr) == (
        2,
        "geom3d: error: out of memory while loading mesh big.stl\n",
    ), proc.stderr[-2000:]


def test_a_memory_error_anywhere_in_a_command_is_one_line(tmp_path, monkeypatch, capsys):
    import geom3d.commands.lof as lof

    def greedy(args):
        np.ones(1 << 60, dtype=np.uint8)  # numpy's _ArrayMemoryError

    monkeypatch.setattr(lof, "run", greedy)
    assert main(["lof", "x.yaml"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", "geom3d: error: out of memory while running geom3d lof\n")
