"""The suite's remembered worlds (tests/builders/memo.py): a world written back answers as the
one built over the API did, and the chain of remembered calls ends at a test's own request."""

from __future__ import annotations

from tests.builders import memo
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.companies import ORC_BAND, buy
from tests.builders.pages import login


def _empty(engine) -> None:
    memo.empty_database(engine)
    memo.begin_test(engine)


def _seen(client, gm: dict, cid: int, player: dict) -> tuple:
    campaign = client.get(f"/api/v1/campaigns/{cid}", headers=gm)
    company = client.get(f"/api/v1/campaigns/{cid}/company", headers=player["headers"])
    assert campaign.status_code == company.status_code == 200
    return campaign.json(), company.json()


def test_a_restored_world_answers_as_the_built_one_with_working_tokens(client, engine):
    memo.forget()
    built = running_campaign(client, 2)
    models = buy(client, built[1], built[2][0], *ORC_BAND, faction="orcs")
    before = memo.stats()
    seen = _seen(client, built[0], built[1], built[2][0])

    _empty(engine)
    again = running_campaign(client, 2)
    assert buy(client, again[1], again[2][0], *ORC_BAND, faction="orcs") == models
    assert memo.stats()["restored"] == before["restored"] + 2 and memo.stats()["built"] == before["built"]
    assert again == built
    assert _seen(client, again[0], again[1], again[2][0]) == seen  # the restored tokens sign in
    again[2][0]["headers"]["Authorization"] = "changed"  # a test's change to its answer stays its own
    _empty(engine)
    assert running_campaign(client, 2) == built


def test_the_chain_ends_at_the_tests_own_request_and_a_builder_after_it_builds(client, engine):
    memo.forget()
    gm, cid, players, places = running_campaign(client, 2)
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).status_code == 200
    before = memo.stats()
    user(client, "latecomer")
    assert memo.stats() == before  # neither built for later nor restored: the database is the test's own

    _empty(engine)
    gm, cid, players, places = running_campaign(client, 2)
    user(client, "latecomer")
    assert memo.stats()["built"] == before["built"] + 1  # with nothing between, remembered


def test_a_world_older_than_the_bound_is_built_again(client, engine, monkeypatch):
    memo.forget()
    running_campaign(client, 2)
    _empty(engine)
    monkeypatch.setattr(memo, "MAX_AGE_SECONDS", -1)  # every kept world is too old now
    before = memo.stats()
    running_campaign(client, 2)
    assert memo.stats() == {"built": before["built"] + 1, "restored": before["restored"]}


def test_a_kept_world_gives_its_browsers_back_logged_in(client, make_client, engine):
    def build():
        user(client, "keeper")
        browser = make_client()
        login(browser, "keeper")
        return {"browsers": {"keeper": browser}, "nickname": "keeper"}

    memo.forget()
    built = memo.kept_with_browsers("test", build, make_client, lambda w: w["browsers"])
    assert "keeper" in built["browsers"]["keeper"].get("/").text
    _empty(engine)
    before = memo.stats()
    again = memo.kept_with_browsers("test", build, make_client, lambda w: w["browsers"])
    assert memo.stats()["restored"] == before["restored"] + 1
    browser = again["browsers"]["keeper"]
    assert browser is not built["browsers"]["keeper"]
    assert "keeper" in browser.get("/").text  # its session cookie names a session row written back
    assert "keeper" not in make_client().get("/").text  # a new browser is nobody's


def test_a_world_built_again_drops_the_worlds_kept_after_the_old_one(client, engine):
    memo.forget()
    running_campaign(client, 2)
    user(client, "latecomer")  # kept after the campaign
    _empty(engine)
    (first,) = [k for k in memo._worlds if len(k) == 1]
    memo._worlds[first].built_at -= memo.MAX_AGE_SECONDS + 1  # the campaign alone grew old
    before = memo.stats()
    gm, cid, players, places = running_campaign(client, 2)  # built again: new tokens
    user(client, "latecomer")  # not the old latecomer's rows, which hold the old tokens
    assert memo.stats() == {"built": before["built"] + 2, "restored": before["restored"]}
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).status_code == 200
