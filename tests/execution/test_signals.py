"""Signals wait where raising them could crash the process (SPEC 13.4: interrupts
raised inside VTK's import and inside numba's dispatcher ended in SIGSEGV).

``held()``: SIGINT and SIGTERM wait for the block's end, whichever thread the kernel gives
them to. The handlers: a signal that comes inside an import or inside numba's code is
raised just after it (:func:`retry_later`), and so is one that comes where Python would
print and drop it (a ``gc.callbacks`` entry, a ``__del__``).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
import weakref

import pytest

from geom3d.execution.signals import GRACE_S, Terminated, held, sigterm_raises

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks"
)


class _Caught(Exception):
    pass


_BLOCK = {"inside": False}


class _Inside:
    """Marks the test's ``held()`` block (entered after it, left before it)."""

    def __enter__(self):
        _BLOCK["inside"] = True

    def __exit__(self, *exc):
        _BLOCK["inside"] = False


@pytest.fixture
def recording():
    """SIGINT and SIGTERM handlers that record and raise :class:`_Caught`: each signal
    with whether it came inside the ``held()`` block (``_BLOCK``)."""
    got: list[tuple[int, bool]] = []

    def handler(signum, frame):
        got.append((signum, _BLOCK["inside"]))
        raise _Caught(signum)

    before = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    yield got, handler
    for s, h in before.items():
        signal.signal(s, h)


def _busy(seconds: float) -> int:
    """Python bytecode for ``seconds``: where a pending handler would run."""
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        n += 1
    return n


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_taken_by_another_thread_waits_for_the_block(recording, sig):
    got, handler = recording
    sent = threading.Event()

    def other():  # started before the block: the signal is not blocked here
        os.kill(os.getpid(), sig)
        sent.set()
        time.sleep(0.5)  # still alive when the kernel picks a thread for it

    t = threading.Thread(target=other)
    with pytest.raises(_Caught), held(), _Inside():
        t.start()
        assert sent.wait(5)
        _busy(0.3)
    t.join()
    assert got == [(sig, False)]  # noted inside the block, handled after it
    assert signal.getsignal(sig) is handler


def test_signal_to_this_thread_waits_for_the_block(recording):
    got, _ = recording
    with pytest.raises(_Caught), held(), _Inside():
        signal.raise_signal(signal.SIGINT)
        _busy(0.1)
    assert got == [(signal.SIGINT, False)]


def test_two_signals_end_with_the_first_handled(recording):
    got, _ = recording
    with pytest.raises(_Caught), held(), _Inside():
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
            signal.raise_signal(s)
        _busy(0.05)
    # the first handler raised, and the other signal ends with it (which comes first is
    # the kernel's choice: pending signals are delivered lowest number first)
    assert len(got) == 1
    assert got[0] in ((signal.SIGINT, False), (signal.SIGTERM, False))


def test_no_signal_leaves_handlers_and_mask_as_they_were(recording):
    _, handler = recording
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with held():
        assert signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert signal.getsignal(signal.SIGINT) is handler
    assert signal.getsignal(signal.SIGTERM) is handler
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask


def test_ignored_signal_stays_ignored():
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with held():
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_held_in_another_thread_only_masks():
    errors: list[BaseException] = []

    def run():
        try:
            with held():
                assert signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, [])
        except BaseException as exc:  # reported in the main thread
            errors.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert errors == []


_SLOW = """
import signal, time
signal.raise_signal(signal.SIGTERM)
end = time.monotonic() + 0.2
while time.monotonic() < end:
    pass
finished.append(True)
"""


def test_sigterm_inside_an_import_is_raised_just_after_it(tmp_path, monkeypatch):
    (tmp_path / "g3d_slow_import.py").write_text(
        "finished = []\n" + _SLOW.replace("finished.append(True)", "finished = [True]")
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    t0 = time.monotonic()
    try:
        with sigterm_raises(), pytest.raises(Terminated):
            import g3d_slow_import  # noqa: F401

            _busy(5.0)  # raised here, a retry (RETRY_S) after the import's end
        took = time.monotonic() - t0
        assert sys.modules["g3d_slow_import"].finished == [True]
        assert took < 0.2 + GRACE_S  # soon after the import, not after the busy loop
    finally:
        sys.modules.pop("g3d_slow_import", None)


def test_sigterm_inside_numbas_code_is_raised_once_out_of_it():
    finished: list[bool] = []
    with sigterm_raises(), pytest.raises(Terminated):
        exec(_SLOW, {"__name__": "numba.core.dispatcher_like", "finished": finished})
        _busy(1.0)
    assert finished == [True]


def test_sigterm_in_own_code_is_raised_at_once():
    finished: list[bool] = []
    with sigterm_raises(), pytest.raises(Terminated):
        exec(_SLOW, {"__name__": "geom3d.somewhere", "finished": finished})
    assert finished == []


def test_sigterm_inside_a_gc_callback_is_raised_just_after_it():
    # raised inside a gc.callbacks entry, Terminated would be printed ("Exception ignored
    # in ...", a traceback on stderr) and dropped: the command went on. It is raised once
    # the collection is over
    state = {"sent": False, "finished": False}

    def callback(phase, info):
        if phase == "start" and not state["sent"]:
            state["sent"] = True
            signal.raise_signal(signal.SIGTERM)  # its handler runs in here
            _busy(0.05)
            state["finished"] = True

    gc.callbacks.append(callback)
    try:
        with sigterm_raises(), pytest.raises(Terminated):
            gc.collect()
            _busy(5.0)  # raised here, a retry (RETRY_S) after the collection
    finally:
        gc.callbacks.remove(callback)
    assert state == {"sent": True, "finished": True}


class _Cycle:
    """Garbage only the collector frees (it refers to itself)."""

    def __init__(self):
        self.me = self


def test_sigterm_while_the_collector_runs_weakref_callbacks_is_raised_after_it():
    # the collector's start callback gets SIGTERM; then three weakref callbacks of 30 ms
    # each run inside the collection, where a raised Terminated would be dropped: it is
    # raised once the collection is over, after all three
    done: list[int] = []
    state = {"sent": False}

    def slow(_ref):
        _busy(0.03)
        done.append(1)

    def callback(phase, info):
        if phase == "start" and not state["sent"]:
            state["sent"] = True
            signal.raise_signal(signal.SIGTERM)

    refs = []
    for _ in range(3):
        c = _Cycle()
        refs.append(weakref.ref(c, slow))
    del c
    gc.callbacks.append(callback)
    try:
        with sigterm_raises(), pytest.raises(Terminated):
            gc.collect()
            _busy(5.0)
    finally:
        gc.callbacks.remove(callback)
    assert done == [1, 1, 1]
    assert all(r() is None for r in refs)


_DEL_FINISHED: list[bool] = []


class _SignalsInDel:
    """An object whose ``__del__`` gets SIGTERM and goes on for 50 ms."""

    def __del__(self):
        signal.raise_signal(signal.SIGTERM)
        _busy(0.05)
        _DEL_FINISHED.append(True)


def test_sigterm_inside_a_del_is_raised_just_after_it():
    _DEL_FINISHED.clear()
    with sigterm_raises(), pytest.raises(Terminated):
        x = _SignalsInDel()
        del x
        _busy(5.0)
    assert _DEL_FINISHED == [True]
