"""Work shared with forked children (geom3d.execution.shared): results in order, whatever
the children do; a failing child's items are computed by the parent; no deadlock however
small the pipes; a child dies with its parent."""

from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np
import pytest

from geom3d.execution import shared
from geom3d.execution.child import in_child
from geom3d.execution.policy import STALL_S
from geom3d.execution.shared import TAIL_SPLIT, chunk_bounds, fork_usable, shared_map
from geom3d.raycast import RayEngine

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")


@pytest.fixture
def spawned(monkeypatch):
    """The pids of the children forked_map starts during the test."""
    pids = []
    start = shared._fork_child

    def recording(*args):
        kid = start(*args)
        pids.append(kid.pid)
        return kid

    monkeypatch.setattr(shared, "_fork_child", recording)
    return pids


def _reaped(pids) -> bool:
    """Were all these children waited for (none left running or a zombie)?"""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return bool(pids)


def _square(i: int) -> tuple[int, int, bool]:
    time.sleep(0.002)  # long enough for every process to get some
    return i * i, os.getpid(), in_child()


@pytest.mark.parametrize("children", [1, 2])
def test_results_in_order_and_shared_with_children(children, spawned):
    done = []
    got = shared_map(_square, 203, children=children, chunk=2, progress=done.append)
    assert [g[0] for g in got] == [i * i for i in range(203)]
    assert len({g[1] for g in got}) == children + 1  # each process computed some
    assert all(flag == (pid != os.getpid()) for _, pid, flag in got)
    assert done[-1] == 203 and done == sorted(done)
    assert not in_child()
    assert _reaped(spawned)


def test_a_child_that_dies_leaves_its_items_to_the_parent(spawned):
    def fn(i):
        if in_child() and i % 7 == 3:
            os._exit(9)  # killed mid-chunk
        return i, os.getpid()

    got = shared_map(fn, 120, children=1, chunk=3)
    assert [g[0] for g in got] == list(range(120))
    assert all(pid == os.getpid() for i, pid in got if i % 7 == 3)
    assert _reaped(spawned)


def test_a_child_that_raises_leaves_its_items_to_the_parent(spawned):
    def fn(i):
        if in_child():
            raise ValueError("only in a child")
        return -i

    assert shared_map(fn, 50, children=2, chunk=4) == [-i for i in range(50)]
    assert _reaped(spawned)


def test_an_unpicklable_result_is_computed_by_the_parent():
    def fn(i):
        return (lambda: i) if in_child() else i  # a lambda does not pickle

    assert shared_map(fn, 40, children=1, chunk=4) == list(range(40))


def test_the_parents_own_error_propagates_and_children_are_reaped(spawned):
    def fn(i):
        if not in_child():
            raise KeyError("parent item")
        time.sleep(0.01)  # the parent gets chunks too
        return i

    with pytest.raises(KeyError, match="parent item"):
        shared_map(fn, 64, children=1, chunk=4)
    assert _reaped(spawned)


def test_no_bvh_is_built_in_a_child():
    v = np.array([[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0]])
    f = np.array([[0, 1, 2]])

    def fn(i):
        return RayEngine(v, f).n_triangles, in_child()

    got = shared_map(fn, 20, children=1, chunk=2)
    assert got == [(1, False)] * 20  # each one built here, by the parent


def test_other_threads_and_no_children_run_serially():
    assert shared_map(_square, 10, children=0)[3] == (9, os.getpid(), False)
    out = []
    t = threading.Thread(
        target=lambda: out.append((fork_usable(), shared_map(_square, 30, children=2)))
    )
    t.start()
    t.join()
    usable, got = out[0]
    assert not usable
    assert {pid for _, pid, _ in got} == {os.getpid()}


def test_chunks_grow_past_the_queue_limit():
    got = shared_map(lambda i: i % 5, 20_000, children=1, chunk=1)
    assert got == [i % 5 for i in range(20_000)]


def test_chunk_bounds_shrink_to_single_items_at_the_end():
    # 20 items, chunks of 4, two processes: each chunk at most ceil(left / 8) items
    assert chunk_bounds(20, 4, 2) == [0, 3, 6, 8, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20]
    assert chunk_bounds(0, 8, 2) == [0]
    assert chunk_bounds(5, 8, 1) == [0, 2, 3, 4, 5]  # ceil(5 / 4), then ceil(3 / 4) ...
    for n, chunk, procs in [(780, 8, 2), (1000, 1, 3), (97, 16, 4), (1, 8, 2)]:
        b = chunk_bounds(n, chunk, procs)
        sizes = np.diff(b)
        assert b[0] == 0 and b[-1] == n
        assert (sizes >= 1).all() and (sizes <= chunk).all()
        assert (np.diff(sizes) <= 0).all()  # never larger than the chunk before
        assert sizes[-1] == 1
        left = n - np.array(b[:-1])
        assert (sizes[left > 2 * TAIL_SPLIT * procs * chunk] == chunk).all()  # full ahead


def test_results_are_unpacked_in_order_before_the_children_are_reaped(monkeypatch, spawned):
    events = []
    real_waitpid = os.waitpid

    def waitpid(pid, options):
        events.append("reap")
        return real_waitpid(pid, options)

    def unpack(i, got):
        events.append("unpack")
        return (i, got[0])

    monkeypatch.setattr(shared.os, "waitpid", waitpid)
    got = shared_map(_square, 60, children=2, chunk=3, unpack=unpack)
    assert got == [(i, i * i) for i in range(60)]
    assert events == ["unpack"] * 60 + ["reap"] * len(spawned)
    assert _reaped(spawned)
    # serially too, and an error of unpack's still reaps the children
    assert shared_map(_square, 5, children=0, unpack=lambda i, g: g[0] + i) == [
        i * i + i for i in range(5)
    ]

    def failing(i, got):
        raise ValueError("unpack")

    with pytest.raises(ValueError, match="unpack"):
        shared_map(_square, 30, children=1, chunk=2, unpack=failing)
    assert _reaped(spawned)


def test_a_child_stuck_on_a_lock_is_killed_and_its_items_redone(spawned, caplog):
    held = threading.Lock()
    held.acquire()  # held by this thread: a forked child finds it held forever

    def fn(i):
        if in_child():
            held.acquire()
        time.sleep(0.01)  # the child surely takes a chunk meanwhile
        return i + 1

    t0 = time.monotonic()
    assert shared_map(fn, 40, children=1, chunk=4) == [i + 1 for i in range(40)]
    assert time.monotonic() - t0 < STALL_S + 5.0
    assert _reaped(spawned)
    assert "stood still" in caplog.text
    held.release()


def test_small_pipe_buffers_never_deadlock(monkeypatch, spawned):
    """The old queue was written whole before the fork: past a pipe's buffer (4-8 kB for
    a user over the pipe quota) the parent blocked forever. Orders now go one chunk at a
    time through each child's own pipe, shrunk here to one page."""
    import fcntl

    real_pipe = os.pipe

    def small_pipe():
        r, w = real_pipe()
        fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
        return r, w

    monkeypatch.setattr(shared.os, "pipe", small_pipe)
    n = 4_000  # 4,000 chunks of one: 16 kB of chunk numbers in the old queue (hung at 8.4)
    got = shared_map(lambda i: i * 3, n, children=2, chunk=1)
    assert got == [i * 3 for i in range(n)]
    assert _reaped(spawned)


def test_a_child_dies_with_its_parent(tmp_path):
    """Whatever kills the parent (SIGKILL here), its forked children end within 2 s."""
    import signal
    import subprocess

    code = (
        "import os, sys, time\n"
        "from geom3d.execution.shared import shared_map\n"
        "def fn(i):\n"
        "    if os.getpid() != PARENT:\n"
        "        print(os.getpid(), flush=True)\n"
        "        time.sleep(60)\n"
        "    time.sleep(60)\n"
        "PARENT = os.getpid()\n"
        "shared_map(fn, 8, children=2, chunk=1)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    kids = {int(proc.stdout.readline()) for _ in range(2)}
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and any(_alive(k) for k in kids):
        time.sleep(0.05)
    assert not any(_alive(k) for k in kids)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
