"""What the page benchmarks share: a migrated temporary database, the app, and a GM
logged in through the login form."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HIDEOUT_FAST_HASHING", "1")

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from starlette.testclient import TestClient

from app.campaigns.deps import CampaignPage, campaign_route
from app.core import lean_routes
from app.core.db import ended_in_route
from app.core.memory import settle
from app.core.migrate import upgrade
from app.core.settings import Settings
from app.main import APP_CHECKS, create_app

GM, PASSWORD = "gamemaster", "bench password"


def logged_in_gm():
    """(app, client) with the GM `gamemaster` logged in; BENCH_DATABASE_URL picks the database."""
    tmp = Path(tempfile.mkdtemp())
    url = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    upgrade(url)
    app = create_app(Settings(database_url=url, secret_key="bench-secret-key-long-enough", var_dir=tmp, fast_hashing=True))
    settle()  # as the server does once its app is built (app/asgi.py)
    client = TestClient(app)
    client.post("/api/v1/users", json={"nickname": GM, "password": PASSWORD})
    token = client.get("/login").text.split('name="csrf_token" value="')[1].split('"')[0]
    client.post("/login", data={"nickname": GM, "password": PASSWORD, "csrf_token": token})
    return app, client


def seated_route(app) -> str:
    """A campaign page that answers as soon as its login has read the viewer, wrapped and
    included as the app's campaign pages are (app/main.py `_add_routes`): what every campaign
    page costs before its own reads and template (its unit of work, the login's statement, the
    CSRF check, the ending). Its path, with `{cid}` for the campaign."""
    router = APIRouter()

    @router.get("/bench/campaigns/{cid}/seated")
    @ended_in_route
    @campaign_route
    def bench_seated(page: CampaignPage):
        return PlainTextResponse(page.viewer.campaign.name)

    lean_routes.install(router.routes[0], checks=APP_CHECKS)  # type: ignore[arg-type]
    app.include_router(router)
    return "/bench/campaigns/{cid}/seated"


def page_table(
    title: str, names: list[str], rows: list[tuple[str, Callable[[str], float]]], label: int, column: int
) -> list[str]:
    """A table of figures per page, one column a page (named by its tab, "map" for the map),
    one row a measure: `rows` are (label, the figure of a page's name)."""
    short = [name.split(": ")[-1] if ": " in name else "map" for name in names]
    lines = [f"{title:<{label}}" + "".join(f"{n:>{column}}" for n in short)]
    for text, figure in rows:
        lines.append(f"{text:<{label}}" + "".join(f"{figure(n):>{column}.2f}" for n in names))
    return lines
