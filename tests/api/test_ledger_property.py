"""R3.8: whatever sequence of gold operations runs, the balance equals the sum of the
ledger and never goes below zero; a refused operation changes nothing."""

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.core.errors import DomainError
from app.gold import service as gold
from app.gold.models import LedgerEntry

KINDS = ["income", "purchase", "sale", "gm_adjustment", "transfer", "mercenary_fee"]
counter = itertools.count()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(-300, 300), st.sampled_from(KINDS)), min_size=1, max_size=25))
def test_r3_8_random_operations_keep_balance_equal_to_ledger_and_never_negative(engine, operations):
    n = next(counter)
    with Session(engine) as s:
        user = User(nickname=f"prop{n}", nickname_key=f"prop{n}", password_hash="x")
        s.add(user)
        s.flush()
        campaign = Campaign(gm_user_id=user.id, name="Property")
        s.add(campaign)
        s.flush()
        player = Player(campaign_id=campaign.id, user_id=user.id)
        s.add(player)
        s.commit()
        expected = 0
        for amount, kind in operations:
            try:
                with s.begin_nested():
                    gold.change(s, campaign=campaign, player_id=player.id, amount=amount, kind=kind)
                expected += amount
            except DomainError as exc:
                assert exc.code == "not_enough_gold" and expected + amount < 0
            balance = s.exec(select(Player.gold).where(Player.id == player.id)).one()
            assert balance == expected >= 0
            assert gold.balance_matches_ledger(s, player.id)
        entries = s.exec(select(LedgerEntry).where(LedgerEntry.player_id == player.id).order_by(LedgerEntry.id)).all()
        running = 0
        for entry in entries:
            running += entry.amount
            assert entry.balance_after == running >= 0
        s.commit()
