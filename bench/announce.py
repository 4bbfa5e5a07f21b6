"""Times announcing battles for 2,000 warbands at 300 destinations (40 players, multi-band
battles up to 4 warbands) on a temporary SQLite database, or BENCH_DATABASE_URL.
Run: python -m bench.announce"""

from __future__ import annotations

import gc
import os
import random
import tempfile
import time
from pathlib import Path

from sqlmodel import Session

from app.accounts.models import User
from app.battles.service import announce
from app.campaigns.models import Campaign
from app.catalog.catalog import STARTER_DIR, load
from app.companies.models import Company, CompanyModel
from app.core.db import make_engine
from app.core.migrate import upgrade
from app.maps.models import Place
from app.warbands.models import Order, Warband, WarbandMember
from app.wiring import wire
from bench.large_campaign import add_player

wire()  # the same composition as the server (app/wiring.py)

PLAYERS, WARBANDS, DESTINATIONS = 40, 2000, 300


def build(engine, warbands: int = WARBANDS, destinations: int = DESTINATIONS) -> int:
    rng = random.Random(11)
    with Session(engine) as s:
        gm = User(nickname=f"benchgm{warbands}", nickname_key=f"benchgm{warbands}", password_hash="x")
        s.add(gm)
        s.flush()
        c = Campaign(
            gm_user_id=gm.id,
            name="Bench",
            status="running",
            round=1,
            phase="orders",
            max_players=40,
            modules={"multi_band_battles": True, "battle_size_limit": 4},
        )
        s.add(c)
        s.flush()
        places = [Place(campaign_id=c.id, name=f"P{i}") for i in range(destinations)]
        s.add_all(places)
        players = [add_player(s, c.id, f"b{warbands}_{i}") for i in range(PLAYERS)]
        companies = [Company(campaign_id=c.id, player_id=p.id, faction="orcs") for p in players]
        s.add_all(companies)
        s.flush()
        # Each player's warbands go to different places (one per place per player).
        per_player = warbands // PLAYERS
        for p, company in zip(players, companies):
            for dest in rng.sample(range(destinations), per_player):
                w = Warband(campaign_id=c.id, player_id=p.id, name=f"W{p.id}-{dest}")
                s.add(w)
                s.flush()
                models = [
                    CompanyModel(company_id=company.id, profile_key="orcs.krusher", name="Krusher", types=["Command"], points=34),
                    CompanyModel(company_id=company.id, profile_key="orcs.ax", name="Ax", types=["Grunt"], points=12),
                ]
                s.add_all(models)
                s.flush()
                s.add_all(WarbandMember(warband_id=w.id, model_id=m.id) for m in models)
                s.add(
                    Order(
                        campaign_id=c.id,
                        warband_id=w.id,
                        player_id=p.id,
                        round=1,
                        place_id=places[dest].id,
                        points=46 + rng.randint(0, 60),
                    )
                )
        s.commit()
        return c.id


def timed(warbands: int, destinations: int) -> float:
    """Seconds to announce (and commit) the battles of a fresh campaign of this size."""
    url = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{Path(tempfile.mkdtemp()) / 'announce.sqlite3'}")
    upgrade(url)
    engine = make_engine(url)
    cid = build(engine, warbands, destinations)
    catalog = load([STARTER_DIR])
    gc.collect()  # each size starts from the same heap
    with Session(engine) as s:
        campaign = s.get(Campaign, cid)
        start = time.perf_counter()
        announce(s, campaign=campaign, catalog=catalog, master_seed=1)
        s.commit()
        took = time.perf_counter() - start
    engine.dispose()
    return took


def main() -> None:
    took = timed(WARBANDS, DESTINATIONS)
    print(f"announced the battles of {WARBANDS} warbands at {DESTINATIONS} destinations in {took:.2f} s")


if __name__ == "__main__":
    main()
