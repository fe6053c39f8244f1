"""map_items: the items of one computation on threads (or in order), results as they come."""

from __future__ import annotations

import threading

import pytest

from geom3d.execution.items import map_items


@pytest.mark.parametrize("threads", [1, 3])
def test_results_in_item_order_and_each_handed_over_once(threads):
    seen: dict[int, int] = {}
    progress: list[int] = []
    got = map_items(
        lambda i: i * i, 20, threads=threads, chunk=3,
        on_result=lambda i, r: seen.setdefault(i, r), progress=progress.append,
    )  # fmt: skip
    assert got == [i * i for i in range(20)]
    assert seen == {i: i * i for i in range(20)}
    assert progress[-1] == 20 and progress == sorted(progress)


def test_a_callback_that_raises_stops_the_tasks_not_yet_started():
    # the exposure overlay's progress raises when a newer overlay replaces it: the
    # threads must not go on with the rest of the items
    started: list[int] = []
    gate = threading.Event()
    lock = threading.Lock()

    def fn(i: int) -> int:
        with lock:
            started.append(i)
        if i > 0:
            gate.wait(60)  # held until the first result has raised
        return i

    def on_result(i: int, r: int) -> None:
        gate.set()  # the running task may end; none not yet started may begin
        raise RuntimeError("replaced")

    with pytest.raises(RuntimeError, match="replaced"):
        map_items(fn, 200, threads=2, chunk=1, on_result=on_result)
    assert len(started) < 10
