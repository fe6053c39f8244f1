"""geom3d/core/output.py: deterministic JSON, safe text, and atomic writes that never replace
what they must not (issue 14)."""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geom3d.core.errors import UsageError
from geom3d.core.messages import Message
from geom3d.core.output import atomic_write, check_writable, dumps_json, safe_text


def test_dumps_json_escapes_controls_and_surrogates_losslessly():
    value = {"k": "a\x1b[31m\x9b\x7f\ud800é\u2028"}
    text = dumps_json(value)
    assert not any(c in text for c in "\x1b\x9b\x7f\ud800\u2028")
    assert "é" in text  # ordinary non-ASCII stays UTF-8
    text.encode("utf-8")
    assert json.loads(text) == value


def test_safe_text():
    assert safe_text("a\x1b[0m\nb\t\x9b\ud800") == "a\\x1b[0m\\nb\\t\\x9b\\ud800"
    assert safe_text("plain é/ü") == "plain é/ü"


def test_atomic_write_writes_and_replaces(tmp_path):
    p = tmp_path / "r.json"
    assert atomic_write(p, "one") == p
    atomic_write(p, b"two")
    assert p.read_text() == "two"
    assert os.listdir(tmp_path) == ["r.json"]  # no temporary left
    assert p.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def test_atomic_write_never_creates_folders(tmp_path):
    with pytest.raises(UsageError, match=r"the folder .*missing.deeper does not exist"):
        atomic_write(tmp_path / "missing" / "deeper" / "r.json", "x")
    assert not (tmp_path / "missing").exists()


def test_atomic_write_refuses_non_regular_files(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    cases = [(folder, "is a folder")]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        cases.append((tmp_path / "fifo", "is a FIFO"))
    if Path("/dev/null").exists():
        cases.append((Path("/dev/null"), "is a character device"))
    for path, words in cases:
        with pytest.raises(UsageError, match=words):
            atomic_write(path, "x")
    assert folder.is_dir() and not any(folder.iterdir())
    if hasattr(os, "mkfifo"):
        assert (tmp_path / "fifo").is_fifo()


def test_atomic_write_replaces_a_link_and_never_writes_through_it(tmp_path):
    """A link planted at the output's name (to a file, a folder, a device, nothing) is
    replaced by the new file; what it pointed to is untouched (the red team's
    ``out/survey.json -> ~/.bashrc``)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    folder = tmp_path / "folder"
    folder.mkdir()
    links = {"to-file": victim, "to-folder": folder, "dangling": tmp_path / "nowhere"}
    if Path("/dev/null").exists():
        links["to-device"] = Path("/dev/null")
    for name, dest in links.items():
        link = tmp_path / name
        link.symlink_to(dest)
        assert check_writable(link) == link
        assert atomic_write(link, f"report {name}") == link
        assert not link.is_symlink() and link.read_text() == f"report {name}"
    assert victim.read_text() == "precious"
    assert not any(folder.iterdir()) and not (tmp_path / "nowhere").exists()


def test_atomic_write_follows_links_in_the_folder_part(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    assert atomic_write(tmp_path / "alias" / "r.json", "x") == real / "r.json"
    assert (real / "r.json").read_text() == "x"


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_failed_write_keeps_the_old_file_and_is_one_line(tmp_path, monkeypatch, err):
    p = tmp_path / "r.json"
    p.write_text("old")

    def fail(*args, **kw):
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(UsageError) as exc:
        atomic_write(p, "new")
    assert str(exc.value) == f"cannot write {p}: {os.strerror(err)}"
    assert p.read_text() == "old"
    assert os.listdir(tmp_path) == ["r.json"]


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=8)
    | st.sampled_from([np.float64(1.5), np.float64(-0.0), "\ud800", "\x1b\x9b", 1e16, 1e-7])
    | st.sampled_from([Message("a \x85 é", "note"), Message("w")])  # a str subclass
)
_KEYS = st.text(max_size=6) | st.integers(-5, 5) | st.sampled_from([1.5, True, None])


@settings(max_examples=400, deadline=None)
@given(
    st.recursive(
        _SCALARS,
        lambda kids: (
            st.lists(kids, max_size=4)
            | st.lists(kids, max_size=3).map(tuple)
            | st.dictionaries(_KEYS, kids, max_size=4)
        ),
        max_leaves=30,
    )
)
def test_dumps_json_is_exactly_the_standard_librarys_text(doc):
    def reference():
        text = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        return re.sub(
            "[\x7f-\x9f\ud800-\udfff\u2028\u2029]", lambda m: f"\\u{ord(m.group()):04x}", text
        )

    try:
        expected = reference()
    except ValueError as exc:  # NaN or infinity: the same error, from json itself
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            dumps_json(doc)
        return
    assert dumps_json(doc) == expected


def test_dumps_json_deep_and_circular_documents_behave_as_json():
    deep: list = []
    for _ in range(200):
        deep = [deep, {"k": 1.25}]
    assert dumps_json(deep) == json.dumps(deep, indent=2, ensure_ascii=False) + "\n"
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps_json(loop)
