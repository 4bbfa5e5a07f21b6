"""Concurrent settlement requests (R7.1, V12, R2.3): a double-tapped Close applies the
settlement once, a double-tapped Pay pays the ransom once, and racing End rounds pay the
round's income once."""

from sqlmodel import Session, func, select

from app.companies.models import CompanyModel
from app.gold.models import LedgerEntry
from tests.builders.settlements import close_all, play_round
from tests.load.test_concurrency import race


def test_r7_1_a_double_tapped_close_applies_once(client, make_client, engine):
    rnd = play_round(client)
    calls = [lambda c: c.post(rnd.url(0) + "/close", headers=rnd.h(0))] * 4
    assert sorted(r.status_code for r in race(make_client, calls)) == [200, 409, 409, 409]
    with Session(engine) as s:
        assert {m.xp for m in s.exec(select(CompanyModel).where(CompanyModel.id.in_(rnd.models[0]))).all()} == {2}


def test_v12_a_double_tapped_ransom_payment_pays_once(client, make_client, engine):
    rnd = play_round(client)
    arms = rnd.models[1][1]
    rnd.put(1, {"course": {"taken_out": [arms]}, "injuries": [{"model_id": arms, "result": "captured"}]})
    close_all(rnd)
    [ransom] = client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.gm).json()
    base = f"/api/v1/campaigns/{rnd.cid}/ransoms/{ransom['id']}"
    client.post(f"{base}/offer", json={"price": 10}, headers=rnd.h(0))
    calls = [lambda c: c.post(f"{base}/pay", headers=rnd.h(1))] * 4
    assert sorted(r.status_code for r in race(make_client, calls)) == [200, 409, 409, 409]
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(LedgerEntry).where(LedgerEntry.kind == "ransom")).one() == 2


def test_r2_3_racing_end_rounds_pay_the_income_once(client, make_client, engine):
    rnd = play_round(client)
    close_all(rnd)
    rnd.phase("twilight")
    calls = [lambda c: c.post(f"/api/v1/campaigns/{rnd.cid}/end-round", json={"round": 1}, headers=rnd.gm)] * 4
    assert sorted(r.status_code for r in race(make_client, calls)) == [200, 409, 409, 409]
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(LedgerEntry).where(LedgerEntry.kind == "income")).one() == 2
