"""Report files read back as input (issue 33): ``survey --compare`` and ``check``'s peek.

``survey --compare`` read the old report with ``read_text()``: a FIFO blocked forever,
``/dev/zero`` ran out of memory, 100,000 nested brackets were a ``RecursionError``
traceback. Each probe runs in a bounded child (``bounded``: memory cap and timeout).
"""

from __future__ import annotations

import json
import os
import sys

import pytest
import yaml
from bounded import assert_one_clean_line, run_cli

from geom3d.core.errors import UsageError
from geom3d.core.reportfile import read_head, read_json_report
from geom3d.survey.compare import MAX_REPORT_BYTES

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs, /dev")

SCENARIO = {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
            "table": {"size": [300, 300]},
            "troopers": [{"id": "a", "side": "blue", "position": [50, 150, 0]},
                         {"id": "b", "side": "red", "position": [250, 150, 0]}],
            "expect": {"lof": [{"from": "a", "to": "b", "lof": True}]}}  # fmt: skip


@linux_only
def test_survey_compare_refuses_what_is_not_a_report_file(tmp_path):
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(SCENARIO))
    os.mkfifo(tmp_path / "fifo.json")
    os.symlink("fifo.json", tmp_path / "to-fifo.json")
    os.symlink("/dev/zero", tmp_path / "zero.json")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with open(tmp_path / "huge.json", "wb") as fh:  # sparse: costs no disk
        fh.truncate(MAX_REPORT_BYTES + 1)
    (tmp_path / "list.json").write_text("[1, 2]")
    cases = {
        "fifo.json": "is a FIFO (named pipe), not a regular file",
        "to-fifo.json": "is a FIFO (named pipe), not a regular file",
        "/dev/zero": "is a device, not a regular file",
        "zero.json": "is a device, not a regular file",
        "deep.json": "JSON nested too deeply to read",
        "huge.json": "file is 512 MiB, larger than the 512 MiB",
        "list.json": "not a survey.json (expected a mapping)",
        "missing.json": "file not found",
    }
    argvs = [["survey", "s.yaml", "--out", "o", "--quiet", "--compare", c] for c in cases]
    for res, (name, words) in zip(
        run_cli(argvs, tmp_path, timeout=240), cases.items(), strict=True
    ):
        assert_one_clean_line(res, f"--compare: {name}: {words}")
    assert not (tmp_path / "o").exists()


@linux_only
def test_read_head_never_blocks_and_skips_devices(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    os.symlink(tmp_path / "fifo", tmp_path / "link")
    (tmp_path / "r.json").write_text('{"format": "geom3d-check/1"}')
    assert read_head(tmp_path / "fifo", 10) == b"" and read_head(tmp_path / "link", 10) == b""
    assert read_head("/dev/zero", 10) == b"" and read_head(tmp_path / "nope", 10) == b""
    assert read_head(tmp_path / "r.json", 10) == b'{"format":'
    with pytest.raises(UsageError, match=r"^--x: .*r\.json: not JSON \(line 1 column 1: "):
        (tmp_path / "r.json").write_text("nope")
        read_json_report(tmp_path / "r.json", 100, "--x")
    (tmp_path / "r.json").write_text(json.dumps({"a": [1]}))
    assert read_json_report(tmp_path / "r.json", 100, "--x") == {"a": [1]}


@linux_only
def test_check_report_linked_to_a_fifo_is_replaced_without_blocking(tmp_path):
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(SCENARIO))
    os.mkfifo(tmp_path / "fifo")
    os.symlink("fifo", tmp_path / "r.json")
    (res,) = run_cli([["check", "s.yaml", "--workers", "1", "--quiet", "--json", "r.json"]],
                     tmp_path, timeout=120)  # fmt: skip
    assert res["rc"] == 0, res["stderr"]
    assert (tmp_path / "fifo").is_fifo() and not (tmp_path / "r.json").is_symlink()
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["pass"] == 1
