"""R5.5: an event edit never leaves an order standing that the event now refuses. Making it a
blockade, lowering its points limit under a sent warband, or ending it undoes those orders
before Battles (mercenary fees refunded through the ledger, owners told live and on their
dashboard, the count in `undone_orders`); after Battles are announced such an edit is refused
and changes nothing."""

import pytest
from sqlmodel import Session, select

from app.accounts.models import User
from app.core.i18n import translations
from app.events.models import Event
from app.gold.service import balance_matches_ledger
from app.live import messages
from app.live.models import LiveEvent
from app.visibility import viewer_for
from app.warbands.models import Order
from tests.builders.campaigns import running_campaign
from tests.builders.companies import ORC_BAND, buy, warband
from tests.builders.responses import error_code
from tests.builders.rounds import event, to_phase

MERCENARY = "merc.kuzlo-and-madfall"  # 46 points, 46 gold at 1 gold a point


@pytest.fixture
def sent(client):
    """Round 1, Orders: Anna's 116-point warband (a hired mercenary) and Borys's smaller one
    are both sent to the event Fair; a second event, Quiet, has no orders."""
    gm, cid, players, places = running_campaign(client, 2)
    anna, borys = players
    anna["models"] = buy(client, cid, anna, *ORC_BAND, faction="orcs")
    borys["models"] = buy(client, cid, borys, "basileans.veteran-sergeant", "basileans.man-at-arms", faction="basileans")
    raiders = warband(client, cid, anna, anna["models"], "Raiders", mercenary=MERCENARY)
    guard = warband(client, cid, borys, borys["models"], "Guard")
    fair = event(client, gm, cid, places[2]["id"], "Fair")
    quiet = event(client, gm, cid, places[2]["id"], "Quiet")
    to_phase(client, gm, cid, "orders")
    gold_before = _gold(client, cid, anna)
    for player, band in ((anna, raiders), (borys, guard)):
        r = client.put(
            f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order", json={"event_id": fair["id"]}, headers=player["headers"]
        )
        assert r.status_code == 200, r.text
    assert _gold(client, cid, anna) == gold_before - 46
    points = {o["warband_id"]: o["points"] for o in client.get(f"/api/v1/campaigns/{cid}/orders", headers=gm).json()}
    assert points[raiders["id"]] > points[guard["id"]]
    return {
        "gm": gm,
        "cid": cid,
        "anna": anna,
        "borys": borys,
        "raiders": raiders,
        "guard": guard,
        "fair": fair,
        "quiet": quiet,
        "points": points,
        "gold_before": gold_before,
        "places": places,
    }


def _gold(client, cid, player) -> int:
    return client.get(f"/api/v1/campaigns/{cid}/company", headers=player["headers"]).json()["gold"]


def _orders(client, w) -> list[int]:
    return sorted(o["warband_id"] for o in client.get(f"/api/v1/campaigns/{w['cid']}/orders", headers=w["gm"]).json())


def _ledger(client, w, player) -> list[tuple[int, str]]:
    items = client.get(f"/api/v1/campaigns/{w['cid']}/ledger", headers=player["headers"]).json()["items"]
    return [(e["amount"], e["kind"]) for e in items]


def _told(engine, cid: int, nickname: str) -> list[str]:
    """The messages the live stream gives this user for the campaign's order events (R11.4)."""
    with Session(engine) as s:
        user = s.exec(select(User).where(User.nickname == nickname)).one()
        viewer = viewer_for(s, user, cid)
        rows = list(
            s.exec(select(LiveEvent).where(LiveEvent.campaign_id == cid, LiveEvent.kind == "order").order_by(LiveEvent.id)).all()
        )
        return [t.payload["message"] for t in messages.tell(s, viewer, rows, translations("en").gettext)]


def _everything(client, engine, w) -> tuple:
    with Session(engine) as s:
        ev = s.get(Event, w["fair"]["id"])
        row = (ev.blockade, ev.points_limit, ev.ended_round)
    return (row, _orders(client, w), _ledger(client, w, w["anna"]), _ledger(client, w, w["borys"]))


def test_R5_5_making_an_event_a_blockade_undoes_its_orders_refunds_fees_and_tells_the_owners(client, engine, sent):
    w = sent
    r = client.patch(f"/api/v1/campaigns/{w['cid']}/events/{w['fair']['id']}", json={"blockade": True}, headers=w["gm"])
    assert r.status_code == 200, r.text
    assert r.json()["blockade"] is True and r.json()["undone_orders"] == 2
    assert _orders(client, w) == []
    # The fee comes back as a ledger row of its own (R3.8): paid, then refunded.
    assert _gold(client, w["cid"], w["anna"]) == w["gold_before"]
    assert _ledger(client, w, w["anna"])[:2] == [(46, "mercenary_fee"), (-46, "mercenary_fee")]
    with Session(engine) as s:
        assert balance_matches_ledger(s, w["anna"]["player_id"]) and balance_matches_ledger(s, w["borys"]["player_id"])
    # Each owner is told of their own order only; the GM's stream stays quiet (it was their act).
    assert _told(engine, w["cid"], "player0") == ["Fair is now a blockade: the order of Raiders is undone."]
    assert _told(engine, w["cid"], "player1") == ["Fair is now a blockade: the order of Guard is undone."]
    assert _told(engine, w["cid"], "gamemaster") == [None, None]
    # Nothing is announced at the blockade: the battle that used to be drawn there is gone.
    to_phase(client, w["gm"], w["cid"], "battles")
    assert client.get(f"/api/v1/campaigns/{w['cid']}/battles", headers=w["gm"]).json()["items"] == []


def test_R5_5_lowering_the_points_limit_undoes_only_the_warbands_over_it(client, engine, sent):
    w = sent
    limit = w["points"][w["guard"]["id"]]  # Guard fits exactly; Raiders does not
    r = client.patch(f"/api/v1/campaigns/{w['cid']}/events/{w['fair']['id']}", json={"points_limit": limit}, headers=w["gm"])
    assert r.status_code == 200 and r.json()["undone_orders"] == 1
    assert _orders(client, w) == [w["guard"]["id"]]
    assert _gold(client, w["cid"], w["anna"]) == w["gold_before"]
    assert _told(engine, w["cid"], "player0") == [
        f"Fair now takes warbands of {limit} points at most: the order of Raiders is undone."
    ]
    assert _told(engine, w["cid"], "player1") == []
    # A limit no sent warband is over undoes nothing.
    again = client.patch(
        f"/api/v1/campaigns/{w['cid']}/events/{w['fair']['id']}",
        json={"points_limit": limit, "title": "Fair II"},
        headers=w["gm"],
    )
    assert again.status_code == 200 and again.json()["undone_orders"] == 0
    assert _orders(client, w) == [w["guard"]["id"]]
    # With Raiders gone, Guard alone at the event wins without a fight: no battle over the limit.
    to_phase(client, w["gm"], w["cid"], "battles")
    assert client.get(f"/api/v1/campaigns/{w['cid']}/battles", headers=w["gm"]).json()["items"] == []


def test_R5_5_ending_an_event_counts_the_orders_it_undoes(client, engine, sent):
    w = sent
    quiet = client.delete(f"/api/v1/campaigns/{w['cid']}/events/{w['quiet']['id']}", headers=w["gm"])
    assert quiet.status_code == 200 and quiet.json()["undone_orders"] == 0
    r = client.delete(f"/api/v1/campaigns/{w['cid']}/events/{w['fair']['id']}", headers=w["gm"])
    assert r.status_code == 200 and r.json()["undone_orders"] == 2 and r.json()["active"] is False
    assert _orders(client, w) == [] and _gold(client, w["cid"], w["anna"]) == w["gold_before"]
    assert _told(engine, w["cid"], "player0")[0] == "Fair has ended: the order of Raiders is undone."


@pytest.mark.parametrize(
    "edit",
    [
        ("patch", {"blockade": True}),
        ("patch", {"points_limit": 10}),
        ("patch", {"points_limit": 10, "title": "Renamed"}),
        ("delete", None),
    ],
)
def test_R5_5_after_battles_are_announced_an_edit_refusing_orders_is_refused_and_changes_nothing(client, engine, sent, edit):
    w = sent
    to_phase(client, w["gm"], w["cid"], "battles")
    before = _everything(client, engine, w)
    battles = client.get(f"/api/v1/campaigns/{w['cid']}/battles", headers=w["gm"]).json()["items"]
    assert len(battles) == 1
    url = f"/api/v1/campaigns/{w['cid']}/events/{w['fair']['id']}"
    method, body = edit
    r = client.patch(url, json=body, headers=w["gm"]) if method == "patch" else client.delete(url, headers=w["gm"])
    assert r.status_code == 409 and error_code(r) == "event_edit_after_battles"
    assert "Battles are announced" in r.json()["error"]["message"]
    assert _everything(client, engine, w) == before
    assert client.get(f"/api/v1/campaigns/{w['cid']}/battles", headers=w["gm"]).json()["items"] == battles
    with Session(engine) as s:
        assert s.exec(select(LiveEvent).where(LiveEvent.kind == "order")).first() is None
        assert s.get(Event, w["fair"]["id"]).title == "Fair"


def test_R5_5_after_battles_edits_that_refuse_no_order_still_go_through(client, sent):
    w = sent
    to_phase(client, w["gm"], w["cid"], "battles")
    url = f"/api/v1/campaigns/{w['cid']}/events/{w['fair']['id']}"
    r = client.patch(url, json={"title": "Fair at dusk", "points_limit": 500}, headers=w["gm"])
    assert r.status_code == 200 and r.json()["undone_orders"] == 0
    # An event without orders can still become a blockade, or end.
    quiet = f"/api/v1/campaigns/{w['cid']}/events/{w['quiet']['id']}"
    assert client.patch(quiet, json={"blockade": True}, headers=w["gm"]).status_code == 200
    assert client.delete(quiet, headers=w["gm"]).status_code == 200
    assert len(_orders(client, w)) == 2


def test_R5_5_refused_in_polish_too(client, engine, sent):
    w = sent
    to_phase(client, w["gm"], w["cid"], "battles")
    r = client.delete(f"/api/v1/campaigns/{w['cid']}/events/{w['fair']['id']}", headers={**w["gm"], "Accept-Language": "pl"})
    assert r.status_code == 409
    assert r.json()["error"]["message"].startswith("Bitwy są ogłoszone")


def test_R5_5_R4_6_the_gms_own_undo_tells_the_owner_too(client, engine, sent):
    w = sent
    r = client.delete(f"/api/v1/campaigns/{w['cid']}/warbands/{w['raiders']['id']}/order", headers=w["gm"])
    assert r.status_code == 204
    assert _told(engine, w["cid"], "player0") == ["The GM undid the order of Raiders."]
    assert _told(engine, w["cid"], "player1") == []
    with Session(engine) as s:
        assert s.exec(select(Order).where(Order.warband_id == w["raiders"]["id"])).first() is None
