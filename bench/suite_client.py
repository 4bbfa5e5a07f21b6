"""What a request costs the test suite through Starlette's TestClient and through the suite's
one-hop client (tests/one_hop_client.py), side by side on the same app and routes (issue 31:
the suite's time). Run: python -m bench.suite_client"""

from __future__ import annotations

import logging
import statistics
import time

from starlette.testclient import TestClient

from bench.common import logged_in_gm
from tests.one_hop_client import OneHopClient

ROUTES = ("/api/v1/catalog/factions", "/api/v1/nowhere", "/")
ROUNDS = 300


def _per_request_ms(client, path: str) -> float:
    for _ in range(30):  # warm-up: templates compiled, statements cached
        client.get(path)
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        client.get(path)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    app, gm = logged_in_gm()
    logging.disable(logging.INFO)  # the request log line is the same cost through both clients
    print(f"{'route':32} {'Starlette ms':>13} {'one-hop ms':>11} {'ratio':>6}")
    for path in ROUTES:
        timed = []
        for kind in (TestClient, OneHopClient):
            with kind(app, base_url="http://testserver", cookies=gm.cookies) as client:
                timed.append(_per_request_ms(client, path))
        print(f"{path:32} {timed[0]:13.2f} {timed[1]:11.2f} {timed[0] / timed[1]:6.2f}")


if __name__ == "__main__":
    main()
