"""R7.6, R2.3, R3.8 over random rounds: whatever battles, arrivals, owners and incomes a round
has, the gold End round pays equals the round income × players plus the income of every
place owned once the captures are applied, every payment is a ledger entry, the ledger sums
to the balances, and a second End round for the same round pays nothing."""

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func
from sqlmodel import Session, select

from app.accounts.models import User
from app.battles.models import Arrival, Battle, BattleWarband
from app.campaigns.models import Campaign, Player
from app.core.errors import DomainError
from app.gold import service as gold
from app.gold.models import LedgerEntry
from app.maps.models import Hideout, Place
from app.rounds import service as rounds
from app.warbands.models import Warband

counter = itertools.count()

place_st = st.tuples(st.integers(0, 12), st.integers(-1, 5))  # income, owner index (-1: none)
battle_st = st.tuples(st.integers(0, 5), st.lists(st.integers(0, 5), min_size=2, max_size=4, unique=True), st.integers(0, 3))
arrival_st = st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from(["unopposed", "left_out"]))


def _world(s: Session, n: int, players: int, round_income: int, places, battles, arrivals):
    gm = User(nickname=f"endgm{n}", nickname_key=f"endgm{n}", password_hash="x")
    s.add(gm)
    s.flush()
    campaign = Campaign(gm_user_id=gm.id, name="Rounds", status="running", round=2, phase="twilight", round_income=round_income)
    s.add(campaign)
    s.flush()
    ids = []
    for i in range(players):
        u = User(nickname=f"end{n}_{i}", nickname_key=f"end{n}_{i}", password_hash="x")
        s.add(u)
        s.flush()
        p = Player(campaign_id=campaign.id, user_id=u.id)
        s.add(p)
        s.flush()
        ids.append(p.id)
    rows = []
    for income, owner in places:
        place = Place(
            campaign_id=campaign.id,
            name=f"P{len(rows)}",
            income=income,
            owner_player_id=ids[owner % players] if owner >= 0 else None,
        )
        s.add(place)
        s.flush()
        if place.owner_player_id:
            s.add(Hideout(campaign_id=campaign.id, place_id=place.id, player_id=place.owner_player_id))
        rows.append(place)
    bands = {}
    for pid in ids:
        w = Warband(campaign_id=campaign.id, player_id=pid, name="W")
        s.add(w)
        s.flush()
        bands[pid] = w.id
    for where, fighters, won in battles:
        place = rows[where % len(rows)]
        members = sorted({ids[f % players] for f in fighters})
        if len(members) < 2:
            continue
        winners = members[:won] if won < len(members) else members[:1]
        b = Battle(campaign_id=campaign.id, round=2, place_id=place.id, seed=1, status="confirmed", winners=winners)
        s.add(b)
        s.flush()
        for side, pid in enumerate(members):
            s.add(BattleWarband(battle_id=b.id, side=side, warband_id=bands[pid], player_id=pid, name="W", points=10))
    for where, who, kind in arrivals:
        pid = ids[who % players]
        s.add(
            Arrival(
                campaign_id=campaign.id,
                round=2,
                place_id=rows[where % len(rows)].id,
                warband_id=bands[pid],
                player_id=pid,
                kind=kind,
                seed=1,
            )
        )
    s.commit()
    return gm.id, campaign.id, ids


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    players=st.integers(2, 6),
    round_income=st.integers(0, 60),
    places=st.lists(place_st, min_size=1, max_size=6),
    battles=st.lists(battle_st, max_size=5),
    arrivals=st.lists(arrival_st, max_size=4),
    pick=st.randoms(use_true_random=False),
)
def test_r7_6_r2_3_end_round_pays_round_income_and_owned_places_and_the_ledger_holds(
    engine, players, round_income, places, battles, arrivals, pick
):
    n = next(counter)
    with Session(engine) as s:
        gm, cid, ids = _world(s, n, players, round_income, places, battles, arrivals)
    with Session(engine) as s:
        campaign = s.get(Campaign, cid)
        for row in rounds.twilight_rows(s, campaign):
            if row.outcome.needs_gm_choice:
                rounds.choose(
                    s,
                    actor=s.get(User, gm),
                    campaign_id=cid,
                    place_id=row.place_id,
                    player_id=pick.choice(row.outcome.candidates),
                )
        s.commit()
    with Session(engine) as s:
        rounds.end_round(s, actor=s.get(User, gm), campaign_id=cid, round_=2)
        s.commit()
    with Session(engine) as s:
        paid = s.exec(
            select(func.coalesce(func.sum(LedgerEntry.amount), 0)).where(
                LedgerEntry.campaign_id == cid, LedgerEntry.kind.in_(("income", "place_income"))
            )
        ).one()
        owned = s.exec(
            select(func.coalesce(func.sum(Place.income), 0)).where(Place.campaign_id == cid, Place.owner_player_id.is_not(None))
        ).one()
        assert paid == round_income * players + owned
        assert (
            s.exec(
                select(func.count()).select_from(LedgerEntry).where(LedgerEntry.campaign_id == cid, LedgerEntry.amount == 0)
            ).one()
            == 0
        )
        for pid in ids:
            assert gold.balance_matches_ledger(s, pid)
        # Every owned place holds its owner's hideout (R7.3, R7.4).
        for place in s.exec(select(Place).where(Place.campaign_id == cid, Place.owner_player_id.is_not(None))).all():
            assert s.exec(select(Hideout.player_id).where(Hideout.place_id == place.id)).one() == place.owner_player_id
        assert (s.get(Campaign, cid).round, s.get(Campaign, cid).phase) == (3, "preparation")
    with Session(engine) as s:  # the same round again changes nothing
        try:
            rounds.end_round(s, actor=s.get(User, gm), campaign_id=cid, round_=2)
            raise AssertionError("a second End round for round 2 was accepted")
        except DomainError as exc:
            assert exc.code in ("end_round_mismatch", "end_round_phase")
        s.rollback()
    with Session(engine) as s:
        again = s.exec(
            select(func.coalesce(func.sum(LedgerEntry.amount), 0)).where(
                LedgerEntry.campaign_id == cid, LedgerEntry.kind.in_(("income", "place_income"))
            )
        ).one()
        assert again == paid
