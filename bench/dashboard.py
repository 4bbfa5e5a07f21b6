"""Times the campaign pages of a 40-player campaign with 120 places and 2,000 chronicle
entries on a temporary SQLite database. Run: `make bench` (or python -m bench.dashboard)."""
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
from bench.large_campaign import build  # noqa: E402

PAGES = ("", "/players", "/places", "/rules", "/chronicle")


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    url = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    upgrade(url)
    app = create_app(Settings(database_url=url, secret_key="bench-secret-key-long-enough", var_dir=tmp, fast_hashing=True))
    with TestClient(app) as client:
        client.post("/api/v1/users", json={"nickname": "gamemaster", "password": "bench password"})
        page = client.get("/login").text
        token = page.split('name="csrf_token" value="')[1].split('"')[0]
        client.post("/login", data={"nickname": "gamemaster", "password": "bench password", "csrf_token": token})
        cid = build(app.state.engine, gm_nickname="gamemaster", players=40, chronicle=2000)
        for path in PAGES:
            times = []
            for _ in range(30):
                start = time.perf_counter()
                assert client.get(f"/campaigns/{cid}{path}").status_code == 200
                times.append((time.perf_counter() - start) * 1000)
            print(f"/campaigns/{{id}}{path or '':<11} median {statistics.median(times):6.1f} ms   p90 {sorted(times)[26]:6.1f} ms")


if __name__ == "__main__":
    main()
