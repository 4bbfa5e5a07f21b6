"""SPEC R11.3, issue 34: the account's time zone through the API (PATCH /me), the daily digest
in its reader's language, and a campaign's webhooks in the campaign's language — its GM's
(the account's language of the campaign's GM: no setting of its own)."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from app.accounts.models import User
from app.chronicle.texts import TEXTS
from app.core import formats
from app.core.i18n import DEFAULT_LOCALE, LOCALES, translations
from app.season import digest
from tests.api.test_season_digest_api import _world, noon
from tests.api.test_webhooks_api import Receiver, add_hook, deliver
from tests.builders.accounts import user
from tests.builders.battles import campaign_with_warbands
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

LANGUAGES = [code for code in LOCALES if code != DEFAULT_LOCALE]


def test_r11_3_the_time_zone_is_set_through_the_api_and_a_bad_one_changes_nothing(client):
    anna = user(client, "anna")
    me = client.get("/api/v1/me", headers=anna).json()
    assert me["time_zone"] is None and me["locale"] is None
    r = client.patch("/api/v1/me", json={"time_zone": "America/Argentina/Buenos_Aires"}, headers=anna)
    assert r.status_code == 200 and r.json()["time_zone"] == "America/Argentina/Buenos_Aires"
    for bad in ("Mars/Olympus", "/etc/localtime", "Europe/../../etc/passwd", "x" * 65, 7):
        refused = client.patch("/api/v1/me", json={"locale": "pl", "time_zone": bad}, headers=anna)
        assert refused.status_code == 422, bad
        if isinstance(bad, str) and len(bad) <= 64:
            assert error_code(refused) == "time_zone_unknown"
        me = client.get("/api/v1/me", headers=anna).json()
        assert me["time_zone"] == "America/Argentina/Buenos_Aires" and me["locale"] is None  # nothing changed
    assert client.patch("/api/v1/me", json={"locale": "pl"}, headers=anna).json()["time_zone"] == "America/Argentina/Buenos_Aires"
    assert client.patch("/api/v1/me", json={"time_zone": None}, headers=anna).json()["time_zone"] is None


def test_r11_3_the_time_zone_patch_honours_an_idempotency_key(client):
    anna = user(client, "anna")
    headers = {**anna, "Idempotency-Key": "tz-once-1"}
    first = client.patch("/api/v1/me", json={"time_zone": "Asia/Tokyo"}, headers=headers)
    again = client.patch("/api/v1/me", json={"time_zone": "Asia/Tokyo"}, headers=headers)
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert client.patch("/api/v1/me", json={"time_zone": "UTC"}, headers=headers).status_code == 422


@pytest.mark.parametrize("locale", ["en", *LANGUAGES])
def test_r11_3_the_digest_speaks_its_readers_language(client, app, engine, locale):
    _gm, _cid, players, _places, ends = _world(client, engine)
    with Session(engine) as s:
        reader = s.exec(select(User).where(User.nickname == players[2]["nickname"])).one()
        reader.locale = None if locale == "en" else locale
        reader.time_zone = "Asia/Tokyo"
        s.add(reader)
        s.commit()
        s.refresh(reader)
        settings = app.state.settings.model_copy(
            update={"smtp_host": "127.0.0.1", "smtp_from": "hideout@example.org", "public_url": "https://hideout.example.org"}
        )
        message = digest.compose(s, reader, settings, noon())
    catalog = translations(locale)
    count = int(re.search(r"\d+", message["Subject"]).group())
    assert message["Content-Language"] == locale and count >= 1
    assert message["Subject"] == catalog.ngettext(
        "Hideout: %(num)d thing waits for you", "Hideout: %(num)d things wait for you", count
    ) % {"num": count}
    # The deadline in the reader's language and time zone.
    at = f"{formats.when(ends, locale, 'Asia/Tokyo')} Asia/Tokyo"
    said = catalog.gettext("Orders close at %(at)s and you have not sent any warband yet.") % {"at": at}
    assert said in message.get_content()
    if locale != "en":
        assert message["Subject"] != translations("en").ngettext(
            "Hideout: %(num)d thing waits for you", "Hideout: %(num)d things wait for you", count
        ) % {"num": count}


@pytest.fixture
def hook_receiver(app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)
    r = Receiver()
    yield r
    r.close()


@pytest.mark.parametrize("locale", ["en", *LANGUAGES])
def test_r11_3_a_webhook_speaks_the_campaigns_language_the_gms(client, app, engine, hook_receiver, locale):
    gm, cid, players, _places = campaign_with_warbands(client, 2)
    assert client.patch("/api/v1/me", json={"locale": locale}, headers=gm).status_code == 200
    for p in players:  # the players' own languages do not matter
        client.patch("/api/v1/me", json={"locale": "en" if locale != "en" else LOCALES[-1]}, headers=p["headers"])
    add_hook(client, gm, cid, hook_receiver.url)
    to_phase(client, gm, cid, "orders")
    assert deliver(engine, app.state.settings) == 1
    (said,) = hook_receiver.json()
    english = "Round 1: Preparation → Orders."
    if locale == "en":
        assert said["text"] == english
    else:
        assert said["text"] != english and "1" in said["text"], said["text"]
        assert translations(locale).gettext(TEXTS["phase_changed"]) != TEXTS["phase_changed"]
    if locale == "pl":
        assert said["text"] == "Runda 1: Przygotowanie → Rozkazy.", said["text"]
