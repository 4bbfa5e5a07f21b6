"""Builds a large running campaign straight into the database, for benchmarks and the
statement-count tests."""
from __future__ import annotations

from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.chronicle.models import ChronicleEntry
from app.maps.models import Hideout, Place


def build(engine, *, gm_nickname: str, players: int, chronicle: int | None = None) -> int:
    """A running campaign with `players` players, each with a hideout, plus a field place
    with an inner place per player, and a long chronicle. Returns the campaign id."""
    with Session(engine) as s:
        gm = s.exec(select(User).where(User.nickname_key == gm_nickname)).one()
        c = Campaign(gm_user_id=gm.id, name=f"Big {players}", status="running", round=3, phase="orders",
                     max_players=40, setup_complete=True, wizard_step=6)
        s.add(c)
        s.flush()
        for i in range(players):
            u = User(nickname=f"p{c.id}_{i}", nickname_key=f"p{c.id}_{i}", password_hash="x")
            s.add(u)
            s.flush()
            p = Player(campaign_id=c.id, user_id=u.id)
            s.add(p)
            s.flush()
            home = Place(campaign_id=c.id, name=f"Home {i}", hideout_slot=True, owner_player_id=p.id, income=3)
            field = Place(campaign_id=c.id, name=f"Field {i}", income=1)
            s.add_all([home, field])
            s.flush()
            s.add(Hideout(campaign_id=c.id, place_id=home.id, player_id=p.id))
            s.add(Place(campaign_id=c.id, parent_id=field.id, name=f"Inner {i}"))
        for _ in range(players * 5 if chronicle is None else chronicle):
            s.add(ChronicleEntry(campaign_id=c.id, round=1, kind="phase_changed",
                                 params={"round": 1, "from_phase": "preparation", "to_phase": "orders"}))
        s.commit()
        return c.id
