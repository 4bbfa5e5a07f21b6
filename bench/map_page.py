"""Times the map page of a campaign with 300 places and 600 paths and reports its SVG
size. Run: python -m bench.map_page"""

from __future__ import annotations

import statistics
import time

from bench.common import logged_in_gm
from bench.large_campaign import build_map


def main() -> None:
    app, client = logged_in_gm()
    with client:
        cid = build_map(app.state.engine, gm_nickname="gamemaster", places=300, paths=600)
        times = []
        for _ in range(20):
            start = time.perf_counter()
            page = client.get(f"/campaigns/{cid}/map").text
            times.append((time.perf_counter() - start) * 1000)
        svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
        print(
            f"map page, 300 places + 600 paths: median {statistics.median(times):.1f} ms, "
            f"page {len(page.encode()) / 1024:.1f} KiB, SVG {len(svg.encode()) / 1024:.1f} KiB"
        )


if __name__ == "__main__":
    main()
