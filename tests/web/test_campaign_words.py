"""The campaign's own words (R8.2, R9.1, R11.3) and the manual's Polish names (issue 9)."""

import pytest
from babel.support import NullTranslations

from app.campaigns.terms import MODULE_NAMES, words
from app.core.i18n import translations
from app.gold.rules import KINDS
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign
from tests.builders.pages import login, post


@pytest.mark.parametrize(
    ("locale", "term", "expected"),
    [
        ("en", "cartel", {"guild_income": "Cartel income", "guild_fee": "Cartel fee", "alliance_fee": "Mission alliance fee"}),
        (
            "pl",
            "cartel",
            {"guild_income": "Dochód kartelu", "guild_fee": "Opłata kartelu", "alliance_fee": "Opłata za sojusz na misję"},
        ),
        ("en", "alliance", {"guild_income": "Alliance income", "guild_fee": "Alliance fee", "alliance_fee": "Pact fee"}),
        ("pl", "alliance", {"guild_income": "Dochód sojuszu", "guild_fee": "Opłata sojuszu", "alliance_fee": "Opłata za pakt"}),
        (
            "pl",
            "brotherhood",
            {"guild_income": "Dochód bractwa", "guild_fee": "Opłata bractwa", "alliance_fee": "Opłata za sojusz na misję"},
        ),
    ],
)
def test_r8_2_ledger_kinds_take_the_campaigns_guild_word(locale, term, expected):
    t = translations(locale)
    assert {kind: t.gettext(KINDS[kind]) % words(term, t) for kind in expected} == expected


def test_r8_2_every_term_has_every_form_in_both_languages():
    table = {  # written by hand: (one, of one, many) per language
        "en": {
            "guild": ("guild", "guild", "guilds"),
            "consortium": ("consortium", "consortium", "consortia"),
            "group": ("group", "group", "groups"),
            "brotherhood": ("brotherhood", "brotherhood", "brotherhoods"),
            "cartel": ("cartel", "cartel", "cartels"),
            "alliance": ("alliance", "alliance", "alliances"),
        },
        "pl": {
            "guild": ("gildia", "gildii", "gildie"),
            "consortium": ("konsorcjum", "konsorcjum", "konsorcja"),
            "group": ("grupa", "grupy", "grupy"),
            "brotherhood": ("bractwo", "bractwa", "bractwa"),
            "cartel": ("kartel", "kartelu", "kartele"),
            "alliance": ("sojusz", "sojuszu", "sojusze"),
        },
    }
    for locale, terms in table.items():
        t = translations(locale) if locale == "pl" else NullTranslations()
        for term, (one, of_one, many) in terms.items():
            w = words(term, t)
            assert (w["guild"], w["guild_of"], w["guilds"], w["Guilds"]) == (one, of_one, many, many.capitalize())
    assert words("alliance", translations("pl"))["Alliances"] == "Pakty"
    assert words("guild", translations("pl"))["Alliances"] == "Sojusze na misję"


def _gm_with(client, make_client, term: str, locale: str = "en"):
    gm = user(client, "gamemaster", locale=locale)
    cid = create_campaign(client, gm, guild={"term": term})["id"]
    browser = make_client()
    login(browser, "gamemaster")
    return cid, browser


def test_r8_2_r9_1_rules_tab_and_wizard_say_cartel(client, make_client):
    cid, browser = _gm_with(client, make_client, "cartel")
    rules = browser.get(f"/campaigns/{cid}/rules").text
    assert "Cartels" in rules and "Guilds" not in rules
    wizard = browser.get(f"/campaigns/{cid}/setup/6").text
    assert "Campaign modules" in wizard and "Cartels" in wizard and ">Guilds<" not in wizard


def test_r8_2_r11_3_polish_pages_use_the_manuals_names(client, make_client):
    cid, browser = _gm_with(client, make_client, "cartel", locale="pl")
    rules = browser.get(f"/campaigns/{cid}/rules").text
    for name in (
        "Kartele",
        "Sojusze na misję",
        "Wiadomości",
        "Przemieszczanie band",
        "Ścieżki między miejscami",
        "Bitwy wielu band",
    ):
        assert name in rules, name
    for wrong in ("Gildie", "Sojusze misyjne", "Ruch band", "Listy"):
        assert wrong not in rules, wrong
    wizard = browser.get(f"/campaigns/{cid}/setup/6").text
    assert "Moduły kampanii" in wizard and "Kartel" in wizard


def test_r8_2_alliance_makes_mission_alliances_pacts(client, make_client):
    cid, browser = _gm_with(client, make_client, "alliance")
    rules = browser.get(f"/campaigns/{cid}/rules").text
    assert "Pacts" in rules and "Mission alliances" not in rules


def test_r9_1_the_alliance_fee_stays_editable_in_the_wizard_once_running(client, make_client):
    from tests.builders.campaigns import running_campaign

    gm, cid, _players, _places = running_campaign(client)
    browser = make_client()
    login(browser, "gamemaster")
    page = browser.get(f"/campaigns/{cid}/setup/6").text
    assert 'name="alliance_fee"' in page
    r = post(browser, f"/campaigns/{cid}/setup/6", {"alliance_fee": "25", "module_guilds": ""})
    assert r.status_code in (200, 303), r.text
    settings = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()
    assert settings["settings"]["alliance_fee"] == 25 and settings["modules"]["guilds"] is True


def test_r9_1_module_names_cover_every_module():
    from app.campaigns.rules import MODULE_KEYS

    assert set(MODULE_NAMES) == set(MODULE_KEYS)


def test_r3_8_r11_3_ledger_notes_are_shown_in_the_readers_language(client, make_client):
    """Ledger notes are stored as a message and parameters (like the chronicle)."""
    from tests.builders.campaigns import running_campaign
    from tests.builders.companies import buy

    gm, cid, players, _places = running_campaign(client, 2)
    anna = players[0]
    buy(client, cid, anna, "orcs.krusher", faction="orcs")
    assert (
        client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=anna["headers"]).status_code
        == 200
    )
    english = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"]).json()["items"]
    assert english[0]["note"] == "Faction change: orcs → basileans"
    polish = client.get(f"/api/v1/campaigns/{cid}/ledger", headers={**anna["headers"], "Accept-Language": "pl"}).json()["items"]
    client.patch("/api/v1/me", json={"locale": "pl"}, headers=anna["headers"])
    polish = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"]).json()["items"]
    assert polish[0]["note"] == "Zmiana frakcji: orcs → basileans"
    assert english[1]["note"] == "Krusher"  # a name stays as written
