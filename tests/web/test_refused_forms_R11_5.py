"""Issue 29 item 6 (R11.5, R11.6): forms and pages.

A refused page form never leaves an error page at its POST address (a refresh would post it
again): it answers 303 to the form's page, whose next GET shows the same errors next to the
same fields with the values filled in (passwords never), once. A stale invitation's Accept
leads to the campaign; the builder's check panel is asked again after Back; the flash sits
in the page's flow; the wizard keeps the chosen cover image when another field is wrong.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from PIL import Image
from sqlmodel import Session, select

from app.campaigns.models import Campaign, Player
from app.idempotency.models import IdempotencyKey
from tests.builders.accounts import PASSWORD, user
from tests.builders.campaigns import create_campaign
from tests.builders.pages import csrf, login, post, register
from tests.web.test_warband_pages import world

ROOT = Path(__file__).resolve().parents[2]
ONCE = re.compile(r'name="once" value="([^"]+)"')


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (64, 32), "navy").save(buf, "PNG")
    return buf.getvalue()


def test_R11_5_R11_6_a_refused_form_redirects_to_its_page_with_errors_and_values(client, engine):
    """R11.5, R11.6: 303 to the form's page, never an error page at the POST address; the
    page shows the refusal once (its status, role="alert" or the field's error, the values)."""
    register(client, "gamemaster")
    body = {"csrf_token": csrf(client, "/campaigns/new"), "name": "  ", "story": "Snow over *Rookhold*"}
    r = client.post("/campaigns/new", data=body, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/campaigns/new" and r.text == ""
    assert "hideout_shown=" in r.headers["set-cookie"] and r.headers["cache-control"] == "no-store"
    page = client.get(r.headers["location"], follow_redirects=False)
    assert page.status_code == 422 and page.headers["cache-control"] == "no-store"
    assert 'aria-invalid="true"' in page.text and "Campaign name is required." in page.text
    assert "Snow over *Rookhold*" in page.text  # the value sent is filled in again
    again = client.get("/campaigns/new", follow_redirects=False)  # a refresh: the plain page
    assert again.status_code == 200 and "Campaign name is required." not in again.text
    with Session(engine) as s:  # refused: nothing created, the kept page was taken
        assert s.exec(select(Campaign)).all() == []
        assert [k for k in s.exec(select(IdempotencyKey.key)).all() if k.startswith("shown:")] == []


def test_R11_5_a_domain_refusal_goes_to_the_referring_page_and_only_for_its_own_session(client, make_client, engine):
    """R11.5: the Referer of this site names the form's page (another site's is ignored);
    the kept page is shown to the session that was refused, to nobody else."""
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    login(client, "gamemaster")
    token = csrf(client, f"/campaigns/{cid}/players")
    data = {"csrf_token": token, "nickname": "nobody-here"}
    r = client.post(
        f"/campaigns/{cid}/invitations",
        data=data,
        follow_redirects=False,
        headers={"Referer": f"http://testserver/campaigns/{cid}/players?tab=1"},
    )
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}/players?tab=1"
    kept = client.cookies.get("hideout_shown")
    other = make_client()
    login(other, "gamemaster")  # the same user, another session: not shown there
    other.cookies.set("hideout_shown", kept)
    assert other.get(r.headers["location"]).status_code == 200
    page = client.get(r.headers["location"], follow_redirects=False)
    assert page.status_code == 422 and 'id="e-nickname">Nickname: There is no user with the nickname nobody-here.' in page.text
    foreign = client.post(
        f"/campaigns/{cid}/invitations",
        data=data,
        follow_redirects=False,
        headers={"Referer": "https://evil.example/campaigns/1/players"},
    )
    # Without a Referer of this site: the posting address's nearest page.
    assert foreign.status_code == 303 and foreign.headers["location"] == f"/campaigns/{cid}"
    with Session(engine) as s:
        assert len(s.exec(select(Player).where(Player.campaign_id == cid)).all()) == 0


def test_R11_6_a_repeated_refused_tap_is_redirected_again(client):
    """R11.6: the same form tapped twice (its one-time key) shows the refusal both times."""
    register(client, "gamemaster")
    form = client.get("/campaigns/new").text
    body = {"csrf_token": csrf(client, "/campaigns/new"), "once": ONCE.search(form).group(1), "name": ""}
    for _ in range(2):
        r = client.post("/campaigns/new", data=body, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/campaigns/new"
        page = client.get("/campaigns/new", follow_redirects=False)
        assert page.status_code == 422 and "Campaign name is required." in page.text


def test_R11_5_htmx_and_the_api_keep_their_answers_in_place(client):
    """R11.5: an htmx request gets its partial or page at once (htmx swaps it); the API its 4xx body."""
    headers = user(client, "gamemaster")
    login(client, "gamemaster")
    body = {"csrf_token": csrf(client, "/campaigns/new"), "name": ""}
    r = client.post("/campaigns/new", data=body, headers={"HX-Request": "true"}, follow_redirects=False)
    assert (
        r.status_code == 422 and "Campaign name is required." in r.text and "hideout_shown" not in r.headers.get("set-cookie", "")
    )
    api = client.post("/api/v1/campaigns", json={"name": ""}, headers=headers, follow_redirects=False)
    assert api.status_code == 422 and api.json()["error"]["code"] == "validation_error"


def test_R11_5_a_refused_login_is_shown_on_the_login_page_without_the_password(client):
    """R11.5: a visitor without a session: the page rides in a signed cookie; a forged one is ignored."""
    register(client, "anna")
    client.cookies.clear()
    token = csrf(client, "/login")
    r = client.post(
        "/login?next=/account",
        data={"csrf_token": token, "nickname": "anna", "password": "wrong-secret-xyz"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/login?next=/account"
    kept = client.cookies.get("hideout_shown")
    assert kept.startswith(('"c.', "c."))
    page = client.get(r.headers["location"], follow_redirects=False)
    assert page.status_code == 401 and 'role="alert"' in page.text and 'value="anna"' in page.text
    assert "wrong-secret-xyz" not in page.text
    client.cookies.set("hideout_shown", kept.strip('"')[:-4] + "0000")  # tampered: not shown
    plain = client.get("/login?next=/account", follow_redirects=False)
    assert plain.status_code == 200 and 'role="alert"' not in plain.text
    ok = post(client, "/login", {"nickname": "anna", "password": PASSWORD}, token_from="/login")
    assert ok.status_code == 303


def test_R11_5_a_stale_invitation_accept_points_to_the_campaign(client, make_client, engine):
    """R11.5: an Accept from a page drawn before the invitation was accepted leads to the
    campaign, and changes nothing; someone never invited is still refused."""
    gm = user(client, "gamemaster")
    campaign = create_campaign(client, gm)
    cid = campaign["id"]
    anna = make_client()
    register(anna, "anna")
    assert client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "anna"}, headers=gm).status_code == 201
    assert post(anna, f"/campaigns/{cid}/invitation/accept").headers["location"] == f"/campaigns/{cid}"
    stale = post(anna, f"/campaigns/{cid}/invitation/accept")
    assert stale.status_code == 303 and stale.headers["location"] == f"/campaigns/{cid}"
    dashboard = anna.get(stale.headers["location"])
    assert dashboard.status_code == 200 and f"You are already in {campaign['name']}." in dashboard.text
    with Session(engine) as s:
        assert len(s.exec(select(Player).where(Player.campaign_id == cid)).all()) == 1
    bert = make_client()
    register(bert, "bert")
    refused = post(bert, f"/campaigns/{cid}/invitation/accept")
    assert refused.status_code == 404 and 'role="alert"' in refused.text


def test_R11_5_the_wizard_keeps_the_chosen_cover_when_another_field_is_wrong(client, engine, settings):
    """R11.5: the cover chosen with a wrong name is kept (shown, and sent again hidden); a
    kept name that is not one of ours is ignored."""
    register(client, "gamemaster")
    token = csrf(client, "/campaigns/new")
    r = client.post(
        "/campaigns/new",
        data={"csrf_token": token, "name": ""},
        files={"cover": ("cover.png", _png(), "image/png")},
        follow_redirects=False,
    )
    page = client.get(r.headers["location"], follow_redirects=False)
    assert page.status_code == 422 and "Campaign name is required." in page.text
    kept = re.search(r'name="cover_kept" value="([0-9a-f]{24}\.web\.png)"', page.text).group(1)
    assert f'src="/media/{kept}"' in page.text and (settings.var_dir / "media" / kept).is_file()
    with Session(engine) as s:
        assert s.exec(select(Campaign)).all() == []
    done = client.post("/campaigns/new", data={"csrf_token": token, "name": "Winter", "cover_kept": kept}, follow_redirects=False)
    assert done.status_code == 303 and "/setup/2" in done.headers["location"]
    forged = client.post(
        "/campaigns/new", data={"csrf_token": token, "name": "Other", "cover_kept": "../secret_key"}, follow_redirects=False
    )
    assert forged.status_code == 303
    with Session(engine) as s:
        covers = {c.name: c.cover_image for c in s.exec(select(Campaign)).all()}
    assert covers == {"Winter": kept, "Other": None}


def test_R11_5_after_back_the_builder_check_is_asked_again(client, make_client):
    """R11.5: the builder's check wrapper asks again when shown with fields the browser put
    back (app.js, pageshow); the check answers for exactly the ticked models."""
    _gm, cid, players, _places, browser = world(client, make_client)
    models = players[0]["models"]
    page = browser.get(f"/campaigns/{cid}/warbands/new").text
    wrapper = re.search(r'<div data-hx-post="/campaigns/\d+/warbands/check"[^>]*>', page).group(0)
    assert "data-recheck" in wrapper and 'data-hx-trigger="change' in wrapper
    script = (ROOT / "app" / "static" / "app.js").read_text()
    handler = script[script.index('querySelectorAll("[data-recheck]")') - 400 :]
    assert 'addEventListener("pageshow"' in handler and "defaultChecked" in script and 'htmx.trigger(part, "change")' in handler
    ticked = [str(m["id"]) for m in models[:2]]
    check = post(browser, f"/campaigns/{cid}/warbands/check", {"name": "X", "model_ids": ticked}, headers={"HX-Request": "true"})
    points = sum(m["points"] for m in models[:2])
    assert check.status_code == 200 and f"{points} / 200 pts" in check.text


def test_R11_5_the_flash_never_covers_a_field(client):
    """R11.5: the flash sits in the page's flow above the content (no fixed or sticky box over the form)."""
    css = (ROOT / "app" / "static" / "style.css").read_text()
    rule = re.search(r"\n\.flash \{([^}]*)\}", css).group(1)
    assert "position" not in rule
    assert "body:has(.flash)" not in css  # nothing makes room for a floating flash any more
    register(client, "gamemaster")
    r = post(client, "/campaigns/new", {"name": "Winter"}, token_from="/campaigns/new")
    page = client.get(r.headers["location"]).text
    main = page[page.index('<main id="main">') :]
    assert main.index('class="flash"') < main.index("<form")
