"""The garbage collector's share of a page (issue 37): the GM's dashboard of a 40-player campaign
drawn again and again in process, first with the app's own objects walked by every full pass
(as before app/core/memory.py `settle`), then set aside as the server sets them aside once its
app is built (app/asgi.py). Printed: the objects a full pass walks, how long one pass takes, and
the collector's time per request on average over the run (a full pass comes every few hundred
requests: a median or a minimum of rounds, as bench.request_cpu prints, does not show it).

Run: `python -m bench.collector [--requests 600]` (printed by `make bench`)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import time

from app.core.memory import settle
from bench.request_cpu import _get, _gm_pages


class _Clock:
    """Time spent in the collector, from its own start and stop callbacks."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.passes = 0
        self._started = 0.0

    def __call__(self, phase: str, _info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.spent += time.perf_counter() - self._started
            self.passes += 1


def _full_pass_ms() -> float:
    start = time.perf_counter()
    gc.collect()
    return (time.perf_counter() - start) * 1000


async def _per_request(app, headers: list, path: str, requests: int) -> tuple[float, int]:
    clock = _Clock()
    gc.callbacks.append(clock)
    try:
        for i in range(requests):
            await _get(app, headers, path, f"bench={i}".encode())
    finally:
        gc.callbacks.remove(clock)
    return clock.spent / requests * 1000, clock.passes


async def measure(requests: int) -> list[tuple[str, int, float, float, int]]:
    app, pages, headers = _gm_pages()  # settled already, as the server's app is
    path = next(iter(pages.values()))
    for _ in range(20):  # warm-up: templates compiled, statements cached
        await _get(app, headers, path)
    rows = []
    for label, prepare in (("walked by every full pass", gc.unfreeze), ("set aside (settle)", settle)):
        prepare()
        tracked, one_pass = len(gc.get_objects()), min(_full_pass_ms() for _ in range(3))
        spent, passes = await _per_request(app, headers, path, requests)
        rows.append((label, tracked, one_pass, spent, passes))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=600)
    args = parser.parse_args(argv)
    rows = asyncio.run(measure(args.requests))
    print(
        f"{'the app objects, GM dashboard of 40 players':<44} {'tracked':>8} {'full pass':>10} {'GC ms/request':>14} {'passes':>7}"
    )
    for label, tracked, one_pass, spent, passes in rows:
        print(f"{label:<44} {tracked:>8,} {one_pass:>8.1f} ms {spent:>14.3f} {passes:>7}")


if __name__ == "__main__":
    main()
