"""Times the campaign pages of a 40-player campaign with 120 places and 2,000 chronicle
entries on a temporary SQLite database. Run: `make bench` (or python -m bench.dashboard)."""

from __future__ import annotations

import statistics
import time

from bench.common import logged_in_gm
from bench.large_campaign import build

PAGES = ("", "/players", "/places", "/rules", "/chronicle")


def main() -> None:
    app, client = logged_in_gm()
    with client:
        cid = build(app.state.engine, gm_nickname="gamemaster", players=40, chronicle=2000)
        for path in PAGES:
            times = []
            for _ in range(30):
                start = time.perf_counter()
                assert client.get(f"/campaigns/{cid}{path}").status_code == 200
                times.append((time.perf_counter() - start) * 1000)
            print(
                f"/campaigns/{{id}}{path or '':<11} median {statistics.median(times):6.1f} ms   p90 {sorted(times)[26]:6.1f} ms"
            )


if __name__ == "__main__":
    main()
