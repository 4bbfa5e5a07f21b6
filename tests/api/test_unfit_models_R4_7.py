"""R4.7: models that cannot fight (dead, captured, resting) are shown where the warband is
listed and built, each with its reason, and one tap takes one out; Send names them in good
grammar, counted with the plural forms of the reader's language."""

import pytest
from sqlmodel import Session, select

from app.core.errors import message_for
from app.core.i18n import translations
from app.warbands.models import Order, WarbandMember
from app.warbands.rules import Unfit
from tests.builders.companies import set_status, warband
from tests.builders.pages import login, post
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase


def _members(engine, wid: int) -> list[int]:
    with Session(engine) as s:
        return sorted(s.exec(select(WarbandMember.model_id).where(WarbandMember.warband_id == wid)).all())


def _send(client, w, band):
    return client.put(
        f"/api/v1/campaigns/{w['cid']}/warbands/{band['id']}/order",
        json={"place_id": w["places"][2]["id"]},
        headers=w["anna"]["headers"],
    )


def test_R4_7_send_names_the_one_model_that_cannot_fight_in_good_grammar(client, world, engine):
    w, anna = world, world["anna"]
    band = warband(client, w["cid"], anna, anna["models"][:2])  # a Krusher and an Ax
    set_status(engine, {anna["models"][1]["id"]: "miss_next"})
    to_phase(client, w["gm"], w["cid"], "orders")
    r = _send(client, w, band)
    assert r.status_code == 409 and error_code(r) == "order_model_unavailable"
    # Issue 29: the company holds three Axes, so this one is "Ax 1".
    assert r.json()["error"]["message"] == "Raiders cannot be sent: Ax 1 misses the next battle."
    assert [(d["code"], d["model_id"], d["message"]) for d in r.json()["error"]["details"]] == [
        ("model_unfit_miss_next", anna["models"][1]["id"], "Ax 1 misses the next battle")
    ]
    polish = client.put(
        f"/api/v1/campaigns/{w['cid']}/warbands/{band['id']}/order",
        json={"place_id": w["places"][2]["id"]},
        headers={**anna["headers"], "Accept-Language": "pl"},
    )
    assert polish.json()["error"]["message"] == "Nie można wysłać bandy Raiders: Ax 1 opuszcza następną bitwę."
    with Session(engine) as s:
        assert s.exec(select(Order)).first() is None


def test_R4_7_send_counts_several_models_that_cannot_fight_and_lists_each(client, world, engine):
    w, anna = world, world["anna"]
    band = warband(client, w["cid"], anna, anna["models"])  # a Krusher and three Axes
    set_status(engine, {anna["models"][1]["id"]: "dead", anna["models"][2]["id"]: "captured"})
    to_phase(client, w["gm"], w["cid"], "orders")
    r = _send(client, w, band)
    assert r.status_code == 409 and r.json()["error"]["message"] == "Raiders cannot be sent: 2 models cannot fight."
    assert [d["message"] for d in r.json()["error"]["details"]] == ["Ax 1 is dead", "Ax 2 has been captured"]


@pytest.mark.parametrize(
    "count, english, polish",
    [
        (2, "2 models cannot fight", "2 modele nie mogą walczyć"),
        (5, "5 models cannot fight", "5 modeli nie może walczyć"),
        (22, "22 models cannot fight", "22 modele nie mogą walczyć"),
    ],
)
def test_R4_7_the_count_takes_each_languages_plural_form(count, english, polish):
    unfit = Unfit(tuple((f"M{i}", "dead") for i in range(count)))
    assert (
        message_for("order_model_unavailable", {"warband": "W", "unfit": unfit}, translations("en").gettext)
        == f"W cannot be sent: {english}."
    )
    assert (
        message_for("order_model_unavailable", {"warband": "W", "unfit": unfit}, translations("pl").gettext)
        == f"Nie można wysłać bandy W: {polish}."
    )
    one = Unfit((("Greatax", "captured"),))
    assert one.text(translations("pl").gettext) == "Greatax jest w niewoli"


def test_R4_7_the_warband_list_and_builder_mark_them_and_one_tap_takes_one_out(client, world, engine, make_client):
    w, anna = world, world["anna"]
    band = warband(client, w["cid"], anna, anna["models"])
    resting, dead = anna["models"][1]["id"], anna["models"][2]["id"]
    set_status(engine, {resting: "miss_next", dead: "dead"})
    browser = make_client()
    login(browser, "player0")
    page = browser.get(f"/campaigns/{w['cid']}/warbands").text
    assert "2 models cannot fight" in page and "Ax 1 misses the next battle" in page and "Ax 2 is dead" in page
    assert f'action="/campaigns/{w["cid"]}/warbands/{band["id"]}/take-out"' in page and f'name="model_id" value="{dead}"' in page
    builder = browser.get(f"/campaigns/{w['cid']}/warbands/{band['id']}/edit").text
    assert "Cannot fight: Ax 2 is dead" in builder and "Cannot fight: Ax 1 misses the next battle" in builder
    assert f'formaction="/campaigns/{w["cid"]}/warbands/{band["id"]}/take-out?from=builder"' in builder
    r = post(browser, f"/campaigns/{w['cid']}/warbands/{band['id']}/take-out", {"model_id": str(dead)})
    assert r.status_code == 303 and r.headers["location"].endswith(f"/warbands#w{band['id']}")
    assert dead not in _members(engine, band["id"])
    r = post(browser, f"/campaigns/{w['cid']}/warbands/{band['id']}/take-out?from=builder", {"model_id": str(resting)})
    assert r.status_code == 303 and r.headers["location"].endswith(f"/warbands/{band['id']}/edit")
    page = browser.get(f"/campaigns/{w['cid']}/warbands").text
    assert "cannot fight" not in page
    # Without them the warband goes out.
    to_phase(client, w["gm"], w["cid"], "orders")
    assert _send(client, w, band).status_code == 200


def test_R4_7_take_out_refuses_a_model_that_can_fight_and_others_warbands(client, world, engine, make_client):
    w, anna = world, world["anna"]
    band = warband(client, w["cid"], anna, anna["models"])
    dead = anna["models"][3]["id"]
    set_status(engine, {dead: "dead"})
    before = _members(engine, band["id"])
    browser = make_client()
    login(browser, "player0")
    r = post(browser, f"/campaigns/{w['cid']}/warbands/{band['id']}/take-out", {"model_id": str(anna["models"][0]["id"])})
    assert r.status_code == 409 and "Krusher can fight" in r.text
    other = make_client()
    login(other, "player1")
    assert post(other, f"/campaigns/{w['cid']}/warbands/{band['id']}/take-out", {"model_id": str(dead)}).status_code == 404
    assert post(browser, f"/campaigns/{w['cid']}/warbands/{band['id']}/take-out", {"model_id": "x"}).status_code == 422
    assert _members(engine, band["id"]) == before
