"""Where a page's time goes (issue 37): the demo campaign's dashboard and map drawn for a
logged-in player (`anna`), in process, under cProfile; the top of the profile by cumulative
time is printed (or written to `--out FILE`).

Run: `python -m bench.profile_pages [--rounds 200] [--out /tmp/profile.txt] [--again | --revalidate]`.
Each page is drawn every time (a query parameter of its own per request, which the page
ignores); `--again`: loaded again unchanged (drawn again all the same, SPEC R11.2);
`--revalidate`: the unchanged 304s, If-None-Match naming the ETag of the first load;
`--after-change`: instead, a GM's dashboard, players' list and orders page of a 40-player round in
Battles (`bench.large_campaign.build_round`), each drawn with nothing remembered, as
`bench.report`'s row "drawn after a change".
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import tempfile
from pathlib import Path

os.environ.setdefault("HIDEOUT_FAST_HASHING", "1")

import anyio.to_thread
import httpx
from sqlmodel import select

from app.campaigns.models import Campaign
from app.core.db import unit_of_work
from app.core.memory import settle
from app.core.migrate import upgrade
from app.core.settings import Settings
from app.demo import DEMO_NAME, DEMO_PASSWORD, DEMO_PLAYERS, create_demo
from app.main import create_app
from app.versions import remembered
from bench.common import GM, logged_in_gm
from bench.large_campaign import build_round


async def _inline(func, *args, **_kwargs):
    """anyio.to_thread.run_sync, run in the loop's own thread: cProfile sees one thread only."""
    return func(*args)


def demo_app():
    """The app on a migrated temporary database with the demo campaign, and the campaign's id."""
    tmp = Path(tempfile.mkdtemp())
    url = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{tmp / 'profile.sqlite3'}")
    upgrade(url)
    app = create_app(Settings(database_url=url, secret_key="bench-secret-key-long-enough", var_dir=tmp, fast_hashing=True))
    settle()  # as the server does once its app is built (app/asgi.py)
    with unit_of_work(app.state.engine, write=True) as session:
        create_demo(session)
        cid = session.exec(select(Campaign.id).where(Campaign.name == DEMO_NAME)).one()
    return app, cid


async def _login(client: httpx.AsyncClient) -> None:
    token = (await client.get("/login")).text.split('name="csrf_token" value="')[1].split('"')[0]
    await client.post("/login", data={"nickname": DEMO_PLAYERS[0], "password": DEMO_PASSWORD, "csrf_token": token})
    await client.get("/")  # the login's flash message


async def _run(
    app, urls: tuple[str, ...], rounds: int, revalidate: bool, again: bool, cookies: dict | None = None
) -> cProfile.Profile:
    """`cookies`: a login already made (the GM's, `--after-change`); each page then drawn with
    nothing remembered."""
    profiler = cProfile.Profile()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", cookies=cookies) as client:
        if cookies is None:
            await _login(client)
        etags = {}
        for url in urls:  # warm-up: templates compiled, catalogs loaded
            first = await client.get(url)
            assert first.status_code == 200, url
            etags[url] = {"If-None-Match": first.headers["etag"]} if revalidate else {}
        profiler.enable()
        for i in range(rounds):
            for url in urls:
                if cookies is not None:
                    remembered.memory.forget()  # as after a change every member sees
                await client.get(url if again or revalidate else f"{url}?profile={i}", headers=etags[url])
        profiler.disable()
    return profiler


def _round_as_gm():
    """(app, the GM's cookies, the campaign's id): `bench.report`'s round of 40 players in Battles."""
    app, client = logged_in_gm()
    with client:
        cid, _ = build_round(app.state.engine, gm_nickname=GM, players=40)
        client.get("/")  # the login's flash message
    return app, dict(client.cookies), cid


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--out")
    parser.add_argument("--lines", type=int, default=60)
    parser.add_argument("--revalidate", action="store_true", help="profile the unchanged pages' 304s")
    parser.add_argument("--again", action="store_true", help="profile unchanged pages loaded again")
    parser.add_argument("--after-change", action="store_true", help="a GM's pages of a 40-player round, nothing remembered")
    parser.add_argument("--pstats", help="also dump the raw profile here (for pstats or snakeviz)")
    args = parser.parse_args()
    cookies, who = None, f"player {DEMO_PLAYERS[0]}"
    if args.after_change:
        app, cookies, cid = _round_as_gm()
        urls: tuple[str, ...] = (f"/campaigns/{cid}", f"/campaigns/{cid}/players", f"/campaigns/{cid}/orders")
        who = "the GM, each drawn with nothing remembered"
    else:
        app, cid = demo_app()
        urls = (f"/campaigns/{cid}", f"/campaigns/{cid}/map")
    anyio.to_thread.run_sync = _inline
    profiler = asyncio.run(_run(app, urls, args.rounds, args.revalidate, args.again, cookies))
    if args.pstats:
        profiler.dump_stats(args.pstats)
    out = io.StringIO()
    what = "304 revalidations" if args.revalidate else "unchanged loads" if args.again else "drawn rounds"
    out.write(f"{args.rounds} {what} of {', '.join(urls)} as {who}\n")
    stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("cumulative")
    stats.print_stats(args.lines)
    stats.sort_stats("tottime").print_stats(args.lines)
    text = out.getvalue()
    if args.out:
        Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
