"""Builds a large running campaign straight into the database, for benchmarks and the
statement-count tests."""

from __future__ import annotations

from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.chronicle.models import ChronicleEntry
from app.maps.models import Hideout, Place
from app.wiring import wire

wire()  # the same composition as the server (app/wiring.py)


def add_player(s: Session, campaign_id: int, nickname: str, gold: int = 0) -> Player:
    """A user who plays in the campaign (no usable password: benchmarks do not log in)."""
    user = User(nickname=nickname, nickname_key=nickname.lower(), password_hash="x")
    s.add(user)
    s.flush()
    player = Player(campaign_id=campaign_id, user_id=user.id, gold=gold)
    s.add(player)
    s.flush()
    return player


def build(engine, *, gm_nickname: str, players: int, chronicle: int | None = None) -> int:
    """A running campaign with `players` players, each with a hideout, plus a field place
    with an inner place per player, and a long chronicle. Returns the campaign id."""
    with Session(engine) as s:
        gm = s.exec(select(User).where(User.nickname_key == gm_nickname)).one()
        c = Campaign(
            gm_user_id=gm.id,
            name=f"Big {players}",
            status="running",
            round=3,
            phase="orders",
            max_players=40,
            setup_complete=True,
            wizard_step=6,
        )
        s.add(c)
        s.flush()
        for i in range(players):
            p = add_player(s, c.id, f"p{c.id}_{i}")
            home = Place(campaign_id=c.id, name=f"Home {i}", hideout_slot=True, owner_player_id=p.id, income=3)
            field = Place(campaign_id=c.id, name=f"Field {i}", income=1)
            s.add_all([home, field])
            s.flush()
            s.add(Hideout(campaign_id=c.id, place_id=home.id, player_id=p.id))
            s.add(Place(campaign_id=c.id, parent_id=field.id, name=f"Inner {i}"))
        for _ in range(players * 5 if chronicle is None else chronicle):
            s.add(
                ChronicleEntry(
                    campaign_id=c.id,
                    round=1,
                    kind="phase_changed",
                    params={"round": 1, "from_phase": "preparation", "to_phase": "orders"},
                )
            )
        s.commit()
        return c.id


def build_map(engine, *, gm_nickname: str, places: int, paths: int, players: int = 20) -> int:
    """A running campaign whose top map holds `places` places and `paths` paths, with
    `players` players each holding a hideout (paths module on)."""
    import random

    from app.maps.models import Path

    rng = random.Random(7)
    with Session(engine) as s:
        gm = s.exec(select(User).where(User.nickname_key == gm_nickname)).one()
        c = Campaign(
            gm_user_id=gm.id,
            name=f"Map {places}",
            status="running",
            round=2,
            phase="preparation",
            max_players=40,
            setup_complete=True,
            wizard_step=6,
            modules={"paths": True, "guilds": True, "multi_band_battles": True},
        )
        s.add(c)
        s.flush()
        rows = []
        for i in range(places):
            rows.append(
                Place(
                    campaign_id=c.id,
                    name=f"Place {i:03d}",
                    income=rng.randint(0, 20),
                    hideout_slot=i % 5 == 0,
                    x=round(rng.uniform(0, 100), 2),
                    y=round(rng.uniform(0, 100), 2),
                )
            )
        s.add_all(rows)
        s.flush()
        for i in range(players):
            p = add_player(s, c.id, f"m{c.id}_{i}")
            rows[i * 5].owner_player_id = p.id
            s.add(Hideout(campaign_id=c.id, place_id=rows[i * 5].id, player_id=p.id))
        pairs: set[frozenset[int]] = set()
        while len(pairs) < paths:
            a, b = rng.sample(range(places), 2)
            pairs.add(frozenset((rows[a].id, rows[b].id)))
        s.add_all(
            Path(campaign_id=c.id, from_place_id=min(pair), to_place_id=max(pair), one_way=rng.random() < 0.3) for pair in pairs
        )
        s.commit()
        return c.id


def build_round(engine, *, gm_nickname: str, players: int) -> tuple[int, list[str]]:
    """A campaign in Battles: each player has a company of orcs with an item, a warband
    sent to a field (one event per field), and the battles announced. Returns the
    campaign id and the players' nicknames."""
    from app.battles.service import announce
    from app.catalog.catalog import STARTER_DIR, load
    from app.companies.models import Company, CompanyItem, CompanyModel
    from app.events.models import Event
    from app.warbands.models import Order, Warband, WarbandMember

    with Session(engine) as s:
        gm = s.exec(select(User).where(User.nickname_key == gm_nickname)).one()
        c = Campaign(
            gm_user_id=gm.id,
            name=f"Round {players}",
            status="running",
            round=1,
            phase="orders",
            max_players=40,
            setup_complete=True,
            wizard_step=6,
            modules={"multi_band_battles": True, "battle_size_limit": 4},
        )
        s.add(c)
        s.flush()
        fields = [Place(campaign_id=c.id, name=f"Field {i}", income=2) for i in range(max(1, players // 2))]
        s.add_all(fields)
        s.flush()
        s.add_all(Event(campaign_id=c.id, place_id=f.id, title=f"Clash {i}", round_added=1) for i, f in enumerate(fields))
        nicknames = []
        for i in range(players):
            nick = f"r{c.id}_{i}"
            nicknames.append(nick)
            p = add_player(s, c.id, nick, gold=100)
            home = Place(campaign_id=c.id, name=f"Home {i}", hideout_slot=True, owner_player_id=p.id)
            s.add(home)
            s.flush()
            s.add(Hideout(campaign_id=c.id, place_id=home.id, player_id=p.id))
            company = Company(campaign_id=c.id, player_id=p.id, faction="orcs")
            s.add(company)
            s.flush()
            models = [
                CompanyModel(company_id=company.id, profile_key="orcs.krusher", name="Krusher", types=["Command"], points=34),
                CompanyModel(company_id=company.id, profile_key="orcs.ax", name="Ax", types=["Grunt"], points=12),
                CompanyModel(company_id=company.id, profile_key="orcs.ax", name="Ax", types=["Grunt"], points=12),
            ]
            s.add_all(models)
            s.flush()
            s.add(
                CompanyItem(
                    company_id=company.id,
                    model_id=models[0].id,
                    item_key="item.bandages",
                    name="Bandages",
                    rarity="Common",
                    slot="Sundries",
                    points=2,
                )
            )
            w = Warband(campaign_id=c.id, player_id=p.id, name=f"Band {i}")
            s.add(w)
            s.flush()
            s.add_all(WarbandMember(warband_id=w.id, model_id=m.id) for m in models)
            field = fields[i % len(fields)]
            event = s.exec(select(Event).where(Event.place_id == field.id)).one()
            s.add(
                Order(campaign_id=c.id, warband_id=w.id, player_id=p.id, round=1, event_id=event.id, place_id=field.id, points=60)
            )
        s.flush()
        c.phase = "battles"
        announce(s, campaign=c, catalog=load([STARTER_DIR]), master_seed=3)
        s.commit()
        return c.id, nicknames
