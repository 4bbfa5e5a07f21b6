"""SPEC R8.2, R11.3: the refusals and labels that name a setting of guilds or mission
alliances say the campaign's word, in its grammar — the "settings locked" refusal (API and
wizard) and the wizard's fee label in its problems; a refusal changes nothing."""

from __future__ import annotations

from tests.builders.campaigns import running_campaign
from tests.builders.pages import login, post
from tests.builders.responses import error_code


def running(client, term: str):
    gm, cid, _, _ = running_campaign(client, 2, 2, names=("anna", "borys"), guild={"term": term})
    return gm, cid


def test_R8_2_the_settings_locked_refusal_names_the_cartel(client):
    gm, cid = running(client, "cartel")
    before = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()
    for language, said in (("pl", "Ustawienia kartelu: "), ("en", "Cartel settings can no longer be changed")):
        r = client.patch(
            f"/api/v1/campaigns/{cid}", json={"guild": {"level_cost": 99}}, headers={**gm, "Accept-Language": language}
        )
        assert (r.status_code, error_code(r)) == (409, "settings_locked")
        assert r.json()["error"]["message"].startswith(said), r.json()
        assert "gildi" not in r.json()["error"]["message"].lower() and "guild" not in r.json()["error"]["message"].lower()
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json() == before


def test_R8_2_the_wizards_fee_label_says_pact_with_sojusz(client, make_client):
    gm, cid = running(client, "alliance")
    browser = make_client()
    login(browser, "gamemaster")
    before = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()
    r = post(
        browser,
        f"/campaigns/{cid}/setup/6",
        {"alliance_fee": "-3"},
        token_from=f"/campaigns/{cid}/setup/6",
        headers={"Accept-Language": "pl"},
    )
    assert r.status_code == 422, r.text
    assert "Opłata za pakt" in r.text and "sojusz na misję" not in r.text.lower()
    r = post(browser, f"/campaigns/{cid}/setup/6", {"alliance_fee": "-3"}, token_from=f"/campaigns/{cid}/setup/6")
    assert r.status_code == 422 and "Pact fee" in r.text and "Mission-alliance fee" not in r.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json() == before
