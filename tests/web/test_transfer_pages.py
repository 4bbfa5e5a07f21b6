"""Gold transfer pages (SPEC R8.11, R9.5, R11.2, R11.3, R11.5): a player's form (recipient
preselected from the Players tab), refusals in the user's language, the confirm step without
JavaScript that changes nothing, then Post/Redirect/Get with a flash; and no page shows a
transfer to anybody but its two parties."""

from __future__ import annotations

import html
import re

from sqlmodel import Session, func, select

from app.gold.models import Transfer
from tests.api.test_transfers_api import AMOUNT, MARKER, ledger_adds_up, send, snapshot
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join, running_trio
from tests.builders.pages import browser, flash_of, post, prg

HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def number_in(page: str, n: int) -> bool:
    """`n` as a whole number (not a part of a longer number or a token, nor of a date or a
    time of day: a ledger written at 12:37 says nothing of 37 gold)."""
    page = re.sub(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}(:\d{2})?", " ", page)
    return re.search(rf"(?<![0-9A-Za-z]){n}(?![0-9A-Za-z])", page) is not None


def form_url(cid: int, to: int | None = None) -> str:
    return f"/campaigns/{cid}/transfers/new" + (f"?to={to}" if to else "")


def transfers_in_db(engine) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Transfer)).one()


# --- the form, the confirm step, PRG -------------------------------------------------------------


def test_r8_11_r9_5_form_preselects_the_recipient_and_shows_the_players_gold(client, make_client):
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    a = browser(make_client, "anna")
    r = a.get(form_url(cid, borys["player_id"]))
    assert r.status_code == 200
    page = r.text
    assert re.search(rf'<option value="{borys["player_id"]}" selected>borys</option>', page), page
    assert re.search(rf'<option value="{cecylia["player_id"]}"\s*>cecylia</option>', page)
    assert f'value="{anna["player_id"]}"' not in page  # not to oneself
    assert "400 gold" in page and 'action="/campaigns/%d/transfers"' % cid in page
    assert "Only you and the recipient see a transfer" in page
    # Without ?to= nobody is chosen; an unknown ?to= chooses nobody either.
    for url in (form_url(cid), form_url(cid, 999_999)):
        page = a.get(url).text
        assert " selected>" not in page and "borys" in page
    assert a.get(f"/campaigns/{cid}/transfers/new?to=abc").status_code == 422


def test_r8_11_r11_5_confirm_step_changes_nothing_then_confirm_sends_once_with_a_flash(client, make_client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client)
    a = browser(make_client, "anna")
    body = {"to_player_id": str(borys["player_id"]), "amount": str(AMOUNT), "note": MARKER}
    before = snapshot(engine)
    r = post(a, f"/campaigns/{cid}/transfers", body, token_from=form_url(cid))
    assert r.status_code == 200, r.text
    assert f"Send {AMOUNT} gold to borys?" in html.unescape(r.text)
    fields = {k: v for k, v in HIDDEN.findall(r.text) if k not in ("csrf_token", "next")}
    assert {k: v for k, v in fields.items() if k != "once"} == {**body, "confirm": "1"}, fields  # "once": the form's one-time key
    assert snapshot(engine) == before  # the confirm step changed nothing
    # The confirm page's button posts the same form with confirm=1: sent, 303 to the ledger,
    # the flash names the amount and the recipient once.
    target = prg(a, f"/campaigns/{cid}/transfers", fields, says=f"You sent {AMOUNT} gold to borys.", token_from=form_url(cid))
    assert target == f"/campaigns/{cid}/ledger"
    assert transfers_in_db(engine) == 1
    after = snapshot(engine)
    assert after["gold"][anna["player_id"]] == 400 - AMOUNT and after["gold"][borys["player_id"]] == 400 + AMOUNT
    # Reloading the ledger (what a refresh after the redirect does) sends nothing again.
    for _ in range(2):
        page = a.get(target).text
        assert MARKER in page and "363 gold" in page
    assert snapshot(engine) == after
    ledger_adds_up(engine)
    # Both parties see it on their pages: the sender on the form's list, the recipient in the ledger.
    assert MARKER in a.get(form_url(cid)).text
    b = browser(make_client, "borys")
    page = b.get(f"/campaigns/{cid}/ledger").text
    assert MARKER in page and "From anna" in page and "437 gold" in page
    assert MARKER in b.get(form_url(cid)).text and "437 gold" in b.get(form_url(cid)).text


def test_r8_11_r11_3_flash_and_confirm_step_in_polish(client, make_client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client)
    a = browser(make_client, "anna")
    assert post(a, "/language", {"locale": "pl"}).status_code == 303
    body = {"to_player_id": str(borys["player_id"]), "amount": "12", "note": ""}
    r = post(a, f"/campaigns/{cid}/transfers", body, token_from=form_url(cid))
    assert r.status_code == 200 and "Wysłać 12 zł do: borys?" in html.unescape(r.text) and "Send gold" not in r.text
    prg(a, f"/campaigns/{cid}/transfers", {**body, "confirm": "1"}, says="Wysłano 12 zł do: borys.", token_from=form_url(cid))
    assert transfers_in_db(engine) == 1


def test_r8_11_r11_3_refusals_show_on_the_form_in_the_users_language_and_change_nothing(client, make_client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client)
    other_cid = create_campaign(client, gm, name="Elsewhere")["id"]
    stranger = join(client, gm, other_cid, "stranger")
    # The same player in three browsers: English, one that asks for Polish (Accept-Language),
    # one with the language cookie. (Choosing the language on /language while logged in
    # would set it for the account, hence for every browser: see the flash test.)
    english, polish_header = browser(make_client, "anna"), browser(make_client, "anna")
    polish_cookie = browser(make_client, "anna", hideout_lang="pl")
    pl = {"Accept-Language": "pl-PL,pl;q=0.9"}
    cases = [  # (form, status, English, Polish)
        ({"amount": "500"}, 409, "Not enough gold: 500 needed, you have 400.", "Za mało złota: potrzeba 500, masz 400."),
        (
            {"to_player_id": str(anna["player_id"])},
            422,
            "You cannot send gold to yourself.",
            "Nie możesz wysłać złota samemu sobie.",
        ),
        ({"amount": "0"}, 422, "Amount", "Kwota"),
        ({"amount": "-5"}, 422, "Amount", "Kwota"),
        ({"amount": "ten"}, 422, "Amount", "Kwota"),
        ({"to_player_id": ""}, 422, "Recipient", "Odbiorca"),
    ]
    before = snapshot(engine)
    for change, status, en, pl_text in cases:
        for confirm in ({}, {"confirm": "1"}):
            body = {"to_player_id": str(borys["player_id"]), "amount": "10", "note": MARKER, **change, **confirm}
            r = post(english, f"/campaigns/{cid}/transfers", body, token_from=form_url(cid))
            assert r.status_code == status and en in html.unescape(r.text), (change, r.status_code)
            assert 'role="alert"' in r.text or 'class="field-error"' in r.text
            assert f'value="{MARKER}"' in r.text  # what was typed stays
            for b, headers in ((polish_header, pl), (polish_cookie, {})):
                r = post(b, f"/campaigns/{cid}/transfers", body, token_from=form_url(cid), headers=headers)
                assert r.status_code == status and pl_text in html.unescape(r.text), (change, r.status_code)
                assert en not in html.unescape(r.text) and 'lang="pl"' in r.text
            assert snapshot(engine) == before, change
    # Recipients that are not players of this campaign: not found, nothing changes.
    for to in (stranger["player_id"], 999_999):
        r = post(
            english,
            f"/campaigns/{cid}/transfers",
            {"to_player_id": str(to), "amount": "10", "confirm": "1"},
            token_from=form_url(cid),
        )
        assert r.status_code == 404 and "stranger" not in r.text
    assert snapshot(engine) == before


def test_r8_11_r9_5_only_a_player_uses_the_pages(client, make_client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client)
    user(client, "outsider")
    master, outsider, anonymous = browser(make_client, "gamemaster"), browser(make_client, "outsider"), make_client()
    body = {"to_player_id": str(borys["player_id"]), "amount": "10", "confirm": "1"}
    before = snapshot(engine)
    assert master.get(form_url(cid)).status_code == 403
    assert post(master, f"/campaigns/{cid}/transfers", body).status_code == 403
    assert outsider.get(form_url(cid)).status_code == 404
    assert post(outsider, f"/campaigns/{cid}/transfers", body).status_code == 404
    r = anonymous.get(form_url(cid), follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    r = post(anonymous, f"/campaigns/{cid}/transfers", body, token_from="/login")
    assert r.status_code in (303, 401, 403) and transfers_in_db(engine) == 0
    assert snapshot(engine) == before


def test_r9_5_module_off_refuses_the_pages_and_hides_the_link(client, make_client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client, modules={"gold_transfers": False})
    a = browser(make_client, "anna")
    r = a.get(form_url(cid, borys["player_id"]))
    assert r.status_code == 409 and "Gold transfers" in html.unescape(r.text)
    before = snapshot(engine)
    r = post(a, f"/campaigns/{cid}/transfers", {"to_player_id": str(borys["player_id"]), "amount": "10", "confirm": "1"})
    assert r.status_code == 409
    assert snapshot(engine) == before
    for path in ("/players", "", "/ledger", "/company"):
        assert "/transfers" not in a.get(f"/campaigns/{cid}{path}").text, path


def test_r9_5_players_tab_links_each_other_player_to_the_form(client, make_client):
    """Send gold in two taps from a player's row on the Players tab (issue 14)."""
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    page = browser(make_client, "anna").get(f"/campaigns/{cid}/players").text
    for p in (borys, cecylia):
        assert f"/campaigns/{cid}/transfers/new?to={p['player_id']}" in page
    assert f"/campaigns/{cid}/transfers/new?to={anna['player_id']}" not in page
    assert "/transfers/new" not in browser(make_client, "gamemaster").get(f"/campaigns/{cid}/players").text


def test_r9_5_form_says_gold_moves_only_while_the_campaign_runs(client, make_client, engine):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    _anna, borys = join(client, gm, cid, "anna"), join(client, gm, cid, "borys")
    a = browser(make_client, "anna")
    page = a.get(form_url(cid, borys["player_id"])).text
    assert "Gold is sent while the campaign is running." in page and "<select" not in page
    before = snapshot(engine)
    r = post(a, f"/campaigns/{cid}/transfers", {"to_player_id": str(borys["player_id"]), "amount": "10", "confirm": "1"})
    assert r.status_code == 409 and 'role="alert"' in r.text
    assert snapshot(engine) == before


# --- R8.11, R11.2: nobody else sees it on any page ------------------------------------------------


def test_r8_11_r11_2_no_page_shows_a_transfer_to_the_gm_another_player_or_an_outsider(client, make_client):
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    user(client, "outsider")
    assert send(client, cid, anna, borys["player_id"], AMOUNT, MARKER).status_code == 201
    master, third = browser(make_client, "gamemaster"), browser(make_client, "cecylia")
    outsider, anonymous = browser(make_client, "outsider"), make_client()
    real = (400 - AMOUNT, 400 + AMOUNT)
    ledgers = [f"/campaigns/{cid}/ledger?player_id={p['player_id']}" for p in (anna, borys)]
    companies = [f"/campaigns/{cid}/company?player_id={p['player_id']}" for p in (anna, borys)]
    common = [f"/campaigns/{cid}", f"/campaigns/{cid}/players", f"/campaigns/{cid}/chronicle", f"/campaigns/{cid}/rules", "/"]
    # The GM: no balance at all while transfers are on (R11.2), no note, no amount.
    for path in ledgers + companies + common + [f"/campaigns/{cid}/companies"]:
        r = master.get(path)
        assert r.status_code == 200, path
        assert MARKER not in r.text and "From anna" not in r.text and "To borys" not in r.text, path
        assert not any(number_in(r.text, n) for n in real), path
        assert not number_in(r.text, AMOUNT), path
    for path in ledgers + companies + [f"/campaigns/{cid}/companies"]:
        page = master.get(path).text
        assert "400 gold" not in page and "The balance is private" in page, path
    # The other player: the parties' ledgers and companies do not exist; the shared pages say nothing.
    for path in ledgers + companies:
        r = third.get(path)
        assert r.status_code == 404 and MARKER not in r.text, path
    assert third.get(f"/campaigns/{cid}/companies").status_code == 403
    for path in common + [form_url(cid), f"/campaigns/{cid}/ledger"]:
        r = third.get(path)
        assert r.status_code == 200 and MARKER not in r.text, path
        assert not any(number_in(r.text, n) for n in real), path
    # An outsider: the campaign does not exist; anonymous: log in first.
    for path in ledgers + companies + common[:-1] + [form_url(cid)]:
        r = outsider.get(path)
        assert r.status_code == 404 and MARKER not in r.text, path
        r = anonymous.get(path, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/login") and MARKER not in r.text, path
    # The parties do see it.
    a, b = browser(make_client, "anna"), browser(make_client, "borys")
    assert MARKER in a.get(f"/campaigns/{cid}/ledger").text and "363 gold" in a.get(f"/campaigns/{cid}/company").text
    assert MARKER in b.get(f"/campaigns/{cid}/ledger").text and "437 gold" in b.get(f"/campaigns/{cid}/company").text
    # Neither party's dashboard or chronicle tells of it (R8.11: not the chronicle).
    for party in (a, b):
        for path in (f"/campaigns/{cid}", f"/campaigns/{cid}/chronicle"):
            assert MARKER not in party.get(path).text, path


def test_r8_11_r11_2_the_gms_ledger_page_shows_no_transfer_and_no_balance(client, make_client):
    """R11.2: with gold transfers on, the GM's ledger page lists the other entries without any
    balance, and the GM's form adjusts without being told one."""
    gm, cid, (anna, borys, _c) = running_trio(client)
    assert send(client, cid, anna, borys["player_id"], AMOUNT, MARKER).status_code == 201
    r = client.post(
        f"/api/v1/campaigns/{cid}/ledger/adjustments",
        json={"player_id": borys["player_id"], "amount": 10, "reason": "prize"},
        headers=gm,
    )
    assert r.status_code == 201
    master = browser(make_client, "gamemaster")
    page = master.get(f"/campaigns/{cid}/ledger?player_id={borys['player_id']}").text
    amounts = [int(n) for n in re.findall(r'<strong class="(?:plus|minus)">([+-]\d+)</strong>', page)]
    assert amounts == [10, 400] and "→" not in page, amounts  # newest first; no balance after
    assert "The balance is private" in page and MARKER not in page
    assert not number_in(page, 447) and not number_in(page, 410)
    r = post(
        master,
        f"/campaigns/{cid}/ledger/adjustments",
        {"player_id": str(borys["player_id"]), "amount": "-448", "reason": "fine"},
        token_from=f"/campaigns/{cid}/ledger?player_id={borys['player_id']}",
    )
    assert r.status_code == 409 and "does not have enough gold" in r.text and not number_in(r.text, 447)
    target = prg(
        master,
        f"/campaigns/{cid}/ledger/adjustments",
        {"player_id": str(borys["player_id"]), "amount": "-10", "reason": "fine"},
        says="Gold adjusted for borys: -10.",
        token_from=f"/campaigns/{cid}/ledger?player_id={borys['player_id']}",
    )
    page = master.get(target).text
    assert "→" not in page and not number_in(page, 437) and not number_in(page, 400 - 10)
    assert flash_of(page) is None
