"""Use cases tested without HTTP (issue 11): services return typed results saying what was
done, what it cost and the gold after (R3.2, R3.4, R3.8)."""

from sqlmodel import Session, select

from app.accounts.models import User
from app.catalog.catalog import STARTER_DIR, load
from app.companies import service
from app.gold.service import balance_matches_ledger
from tests.builders.campaigns import running_campaign


def test_r3_2_r3_4_r3_8_buying_and_selling_say_what_they_did(client, engine):
    gm, cid, players, _places = running_campaign(client, 2)
    catalog = load([STARTER_DIR])
    with Session(engine) as s:
        anna = s.exec(select(User).where(User.nickname == "player0")).one()
        service.choose_faction(s, actor=anna, campaign_id=cid, faction="orcs", catalog=catalog)
        bought = service.buy_model(s, actor=anna, campaign_id=cid, profile_key="orcs.krusher", catalog=catalog)
        assert (bought.name, bought.price, bought.balance) == ("Krusher", 34, 400 - 34)
        sold = service.sell_model(s, actor=anna, campaign_id=cid, model_id=bought.row.id)
        assert (sold.name, sold.paid, sold.refund, sold.balance) == ("Krusher", 34, 34, 400)  # before confirmation: all back
        s.commit()
        assert balance_matches_ledger(s, players[0]["player_id"])
