"""Times the map page of a campaign with 300 places and 600 paths and reports its SVG
size. Run: python -m bench.map_page"""
from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HIDEOUT_FAST_HASHING", "1")

from starlette.testclient import TestClient  # noqa: E402

from app.core.migrate import upgrade  # noqa: E402
from app.core.settings import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from bench.large_campaign import build_map  # noqa: E402


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    url = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    upgrade(url)
    app = create_app(Settings(database_url=url, secret_key="bench-secret-key-long-enough", var_dir=tmp, fast_hashing=True))
    with TestClient(app) as client:
        client.post("/api/v1/users", json={"nickname": "gamemaster", "password": "bench password"})
        token = client.get("/login").text.split('name="csrf_token" value="')[1].split('"')[0]
        client.post("/login", data={"nickname": "gamemaster", "password": "bench password", "csrf_token": token})
        cid = build_map(app.state.engine, gm_nickname="gamemaster", places=300, paths=600)
        times = []
        for _ in range(20):
            start = time.perf_counter()
            page = client.get(f"/campaigns/{cid}/map").text
            times.append((time.perf_counter() - start) * 1000)
        svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
        print(f"map page, 300 places + 600 paths: median {statistics.median(times):.1f} ms, "
              f"page {len(page.encode()) / 1024:.1f} KiB, SVG {len(svg.encode()) / 1024:.1f} KiB")


if __name__ == "__main__":
    main()
