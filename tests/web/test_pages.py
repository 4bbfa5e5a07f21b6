"""Pages: accounts, CSRF, the wizard, the dashboard's controls, Polish pages (R1.1, R1.4,
R1.5, R2.1-R2.3, R9.1, R11.3, R11.5)."""

from sqlmodel import Session, select

from app.campaigns.models import Campaign
from app.maps.models import Place
from tests.builders.accounts import token_headers, user
from tests.builders.campaigns import running_campaign
from tests.builders.pages import csrf, login, post, register, shown


def test_register_login_logout_and_account(client):
    register(client, "anna")
    home = client.get("/")
    assert "Your campaigns" in home.text and "anna" in home.text
    r = post(client, "/logout")
    assert r.status_code == 303
    assert "Create an account" in client.get("/").text
    login(client, "anna")
    assert client.get("/account").status_code == 200


def test_r11_5_wrong_login_is_shown_in_place(client):
    register(client, "anna")
    post(client, "/logout")
    r = post(client, "/login", {"nickname": "anna", "password": "nope nope"}, token_from="/login")
    assert r.status_code == 401 and "Wrong nickname or password." in r.text and 'value="anna"' in r.text


def test_r11_5_register_errors_in_place_and_nothing_created(client):
    r = post(client, "/register", {"nickname": "x", "password": "short"}, token_from="/register")
    assert r.status_code == 422 and "3 to 32" in r.text and 'aria-invalid="true"' in r.text
    assert client.post("/api/v1/auth/tokens", json={"nickname": "x", "password": "short"}).status_code == 401


def test_csrf_is_required_for_form_posts(client):
    register(client, "anna")
    r = shown(client, client.post("/campaigns/new", data={"name": "No token"}, follow_redirects=False))
    assert r.status_code == 403 and "expired" in r.text
    r = shown(client, client.post("/campaigns/new", data={"name": "Bad", "csrf_token": "0" * 64}, follow_redirects=False))
    assert r.status_code == 403
    # A file posted where the token goes is refused like a wrong token (it once answered 500).
    r = shown(
        client,
        client.post("/campaigns/new", data={"name": "File"}, files={"csrf_token": ("t.txt", b"x")}, follow_redirects=False),
    )
    assert r.status_code == 403 and "expired" in r.text
    token = csrf(client, "/")
    r = shown(
        client,
        client.post(
            "/campaigns/new",
            data={"name": "Evil", "csrf_token": token},
            headers={"Origin": "https://evil.example"},
            follow_redirects=False,
        ),
    )
    assert r.status_code == 403
    r = shown(
        client,
        client.post(
            "/campaigns/new",
            data={"name": "Evil", "csrf_token": token},
            headers={"Sec-Fetch-Site": "cross-site"},
            follow_redirects=False,
        ),
    )
    assert r.status_code == 403
    assert "Evil" not in client.get("/").text and "No token" not in client.get("/").text


def test_pages_need_login(client):
    r = client.get("/campaigns/new", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")


def test_r1_1_wizard_through_every_step_saves_a_draft(client, engine):
    register(client, "gamemaster")
    r = post(client, "/campaigns/new", {"name": "Winter", "story": "**Snow** falls"}, token_from="/campaigns/new")
    assert r.status_code == 303
    cid = int(r.headers["location"].split("/")[2])
    assert r.headers["location"] == f"/campaigns/{cid}/setup/2"
    # The draft is saved: leaving and coming back resumes at step 2.
    assert f"/campaigns/{cid}/setup/2" in client.get(f"/campaigns/{cid}").text
    r = post(client, f"/campaigns/{cid}/setup/2", {"max_players": "4"})
    assert r.headers["location"] == f"/campaigns/{cid}/setup/3"
    r = post(
        client,
        f"/campaigns/{cid}/places",
        {"name": "Ravensgate", "income": "10", "hideout_slot": "on", "x": "20", "y": "30", "next": f"/campaigns/{cid}/setup/3"},
    )
    assert r.headers["location"] == f"/campaigns/{cid}/setup/3"
    assert "Ravensgate" in client.get(f"/campaigns/{cid}/setup/3").text
    r = post(client, f"/campaigns/{cid}/setup/3", {})
    assert r.headers["location"] == f"/campaigns/{cid}/setup/4"
    r = post(
        client,
        f"/campaigns/{cid}/setup/4",
        {"starting_gold": "300", "round_income": "40", "gold_per_point": "2", "sale_loss_percent": "30"},
    )
    assert r.headers["location"] == f"/campaigns/{cid}/setup/5"
    r = post(client, f"/campaigns/{cid}/setup/5", {"warband_points": "250", "underdog_points_per_die": "20"})
    r = post(
        client,
        f"/campaigns/{cid}/setup/6",
        {
            "modules_form": "1",
            "module_guilds": "on",
            "module_letters": "on",
            "module_multi_band_battles": "on",
            "battle_size_limit": "4",
            "guild_term": "cartel",
            "guild_level_cost": "60",
            "alliance_fee": "12",
        },
    )
    assert r.headers["location"] == f"/campaigns/{cid}"
    with Session(engine) as s:
        c = s.get(Campaign, cid)
        assert (c.max_players, c.starting_gold, c.gold_per_point, c.sale_loss_percent, c.warband_points) == (4, 300, 2, 30, 250)
        assert c.modules["guilds"] and not c.modules["mission_alliances"] and c.modules["battle_size_limit"] == 4
        assert c.guild["term"] == "cartel" and c.guild["level_cost"] == 60 and c.alliance_fee == 12
        assert c.setup_complete
    rules = client.get(f"/campaigns/{cid}/rules").text
    assert "Cartels" in rules and "<strong>Snow</strong>" in client.get(f"/campaigns/{cid}").text


def test_r1_1_r11_5_wizard_errors_in_place_and_nothing_saved(client, engine):
    register(client, "gamemaster")
    r = post(client, "/campaigns/new", {"name": ""}, token_from="/campaigns/new")
    assert r.status_code == 422 and "field-error" in r.text
    r = post(client, "/campaigns/new", {"name": "Ok"}, token_from="/campaigns/new")
    cid = int(r.headers["location"].split("/")[2])
    r = post(client, f"/campaigns/{cid}/setup/4", {"starting_gold": "-5", "sale_loss_percent": "150", "gold_per_point": "many"})
    assert r.status_code == 422 and r.text.count('class="field-error"') == 3
    r = post(client, f"/campaigns/{cid}/places", {"name": "", "x": "500", "next": f"/campaigns/{cid}/setup/3"})
    assert r.status_code == 422 and "Step 3 of 6" in r.text
    with Session(engine) as s:
        assert s.get(Campaign, cid).starting_gold == 400
        assert s.exec(select(Place)).all() == []


def test_r1_1_cover_image_is_verified(client, engine):
    import io

    from PIL import Image

    register(client, "gamemaster")
    token = csrf(client, "/campaigns/new")
    bad = shown(
        client,
        client.post(
            "/campaigns/new",
            data={"name": "C", "csrf_token": token},
            files={"cover": ("cover.png", b"not an image", "image/png")},
            follow_redirects=False,
        ),
    )
    assert bad.status_code == 422 and "PNG, JPEG or WebP" in bad.text
    with Session(engine) as s:
        assert s.exec(select(Campaign)).all() == []
    buf = io.BytesIO()
    Image.new("RGB", (3000, 1500), "navy").save(buf, "JPEG", exif=Image.Exif())
    good = client.post(
        "/campaigns/new",
        data={"name": "C", "csrf_token": token},
        files={"cover": ("cover.jpg", buf.getvalue(), "image/jpeg")},
        follow_redirects=False,
    )
    assert good.status_code == 303
    with Session(engine) as s:
        name = s.exec(select(Campaign.cover_image)).one()
    img = client.get(f"/media/{name}")
    assert img.status_code == 200 and "immutable" in img.headers["cache-control"]
    assert max(Image.open(io.BytesIO(img.content)).size) == 2048
    assert client.get("/media/..%2Fsecret_key").status_code == 404


def test_r1_4_r1_5_r2_1_invite_accept_claim_start_and_phases_through_pages(client, make_client):
    gm_browser, anna_browser = client, make_client()
    register(gm_browser, "gamemaster")
    register(anna_browser, "anna")
    borys = user(gm_browser, "borys")
    r = post(gm_browser, "/campaigns/new", {"name": "Web"}, token_from="/campaigns/new")
    cid = int(r.headers["location"].split("/")[2])
    for i in range(3):
        post(gm_browser, f"/campaigns/{cid}/places", {"name": f"Place {i}", "hideout_slot": "on", "x": "10", "y": "10"})
    r = post(gm_browser, f"/campaigns/{cid}/invitations", {"nickname": "nobody"})
    assert r.status_code == 422 and "There is no user with the nickname nobody." in r.text
    for nick in ("anna", "borys"):
        r = post(gm_browser, f"/campaigns/{cid}/invitations", {"nickname": nick})
        assert r.status_code == 303 and f"{nick} is invited." in gm_browser.get(r.headers["location"]).text
    home = anna_browser.get("/").text
    assert "Invitations" in home and "Web" in home
    assert post(anna_browser, f"/campaigns/{cid}/invitation/accept").headers["location"] == f"/campaigns/{cid}"
    gm_browser.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=borys)
    r = post(gm_browser, f"/campaigns/{cid}/status", {"status": "running"})
    assert r.status_code == 409 and "cannot go from Setup to Running" in r.text
    # Opening hideout selection closes the roster: the page asks first (confirm=1 answers).
    assert "Open hideout selection?" in post(gm_browser, f"/campaigns/{cid}/status", {"status": "hideouts"}).text
    assert post(gm_browser, f"/campaigns/{cid}/status", {"status": "hideouts", "confirm": "1"}).status_code == 303
    page = anna_browser.get(f"/campaigns/{cid}").text
    assert "Choose your hideout" in page and page.count(">Claim<") == 3
    place_id = int(page.split('name="place_id" value="')[1].split('"')[0])
    assert post(anna_browser, f"/campaigns/{cid}/hideouts", {"place_id": str(place_id)}).status_code == 303
    again = post(anna_browser, f"/campaigns/{cid}/hideouts", {"place_id": str(place_id)})
    assert again.status_code == 409 and "You already hold a hideout." in again.text
    gm_browser.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": place_id + 1}, headers=borys)
    assert post(gm_browser, f"/campaigns/{cid}/status", {"status": "running", "confirm": "1"}).status_code == 303
    assert "Round 1" in gm_browser.get(f"/campaigns/{cid}").text
    assert post(anna_browser, f"/campaigns/{cid}/phase", {"phase": "orders"}).status_code == 403
    for phase in ("orders", "battles", "settlement", "twilight"):
        assert post(gm_browser, f"/campaigns/{cid}/phase", {"phase": phase, "confirm": "1"}).status_code == 303
    page = gm_browser.get(f"/campaigns/{cid}").text
    assert "End round 1" in page
    assert post(gm_browser, f"/campaigns/{cid}/end-round", {"round": "1", "confirm": "1"}).status_code == 303
    stale = post(gm_browser, f"/campaigns/{cid}/end-round", {"round": "1"})  # refused before any confirm step
    assert stale.status_code == 409 and "Round 1 cannot be ended" in stale.text
    chronicle = anna_browser.get(f"/campaigns/{cid}/chronicle").text
    assert "Round 1 ended" in chronicle


def test_r9_1_settings_page_is_locked_once_running(client):
    gm, cid, _players, _places = running_campaign(client)
    login(client, "gamemaster")
    page = client.get(f"/campaigns/{cid}/setup/6").text
    assert "fieldset disabled" in page.replace("\n", " ").replace("  ", " ") or "<fieldset disabled" in page
    # A forged post that changes modules is refused and changes nothing.
    r = post(client, f"/campaigns/{cid}/setup/6", {"modules_form": "1", "module_paths": "on"})
    assert r.status_code == 409 and "can no longer be changed once the campaign has started" in r.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["modules"]["paths"] is False


def test_r11_3_pages_in_polish(client):
    register(client, "anna")
    r = post(client, "/language", {"locale": "pl", "next": "/"})
    assert r.status_code == 303
    home = client.get("/").text
    assert 'lang="pl"' in home and "Your campaigns" not in home
    # The choice is stored on the account: a fresh login elsewhere keeps Polish.
    token_headers(client, "anna")
    assert client.get("/api/v1/me", headers=token_headers(client, "anna")).json()["locale"] == "pl"


def test_r11_3_anonymous_pages_follow_accept_language(client):
    page = client.get("/login", headers={"Accept-Language": "pl-PL,pl;q=0.9"}).text
    assert 'lang="pl"' in page and "Log in" not in page.split("<main")[1]


def test_r11_2_outsiders_get_404_on_campaign_pages(client, make_client):
    gm, cid, _players, _places = running_campaign(client)
    outsider = make_client()
    register(outsider, "outsider")
    for path in ("", "/players", "/places", "/rules", "/chronicle", "/setup/1"):
        assert outsider.get(f"/campaigns/{cid}{path}").status_code == 404, path
    player = make_client()
    login(player, "player0")
    assert player.get(f"/campaigns/{cid}/setup/1").status_code == 403


def test_r1_2_gm_edits_a_place_with_an_htmx_partial_or_a_full_page(client):
    gm, cid, _players, places = running_campaign(client)
    login(client, "gamemaster")
    pid = places[2]["id"]  # nobody's place
    full = client.get(f"/campaigns/{cid}/places/{pid}/edit?next=/campaigns/{cid}/places")
    assert full.status_code == 200 and "<html" in full.text and f"Edit {places[2]['name']}" in full.text
    partial = client.get(f"/campaigns/{cid}/places/{pid}/edit", headers={"HX-Request": "true"})
    assert partial.status_code == 200 and "<html" not in partial.text and 'name="income"' in partial.text
    r = post(
        client,
        f"/campaigns/{cid}/places/{pid}",
        {"name": "Renamed", "income": "12", "x": "5", "y": "6", "description": "*Cold*", "next": f"/campaigns/{cid}/places"},
    )
    assert r.status_code == 303
    place = next(p for p in client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json() if p["id"] == pid)
    assert (place["name"], place["income"], place["x"], place["description"]) == ("Renamed", 12, 5, "*Cold*")
    owned = places[0]["id"]
    r = post(client, f"/campaigns/{cid}/places/{owned}/delete", {"next": f"/campaigns/{cid}/places"})
    assert r.status_code == 409 and "belongs to a player" in r.text
    assert post(client, f"/campaigns/{cid}/places/{pid}/delete", {}).status_code == 303
    player = client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json()
    assert owned in {p["id"] for p in player} and pid not in {p["id"] for p in player}


def test_logout_revokes_the_session_on_the_server(client, make_client):
    register(client, "anna")
    stolen = client.cookies.get("hideout_session")
    post(client, "/logout")
    thief = make_client()
    thief.cookies.set("hideout_session", stolen)
    assert thief.get("/account", follow_redirects=False).status_code == 303


def test_password_change_logs_out_other_sessions(client, make_client):
    register(client, "anna")
    other = make_client()
    login(other, "anna")
    r = post(client, "/account/password", {"current": "wrong password", "new": "another password"}, token_from="/account")
    assert r.status_code == 422 and "current password is wrong" in r.text
    assert other.get("/account", follow_redirects=False).status_code == 200
    r = post(client, "/account/password", {"current": "correct horse battery", "new": "another password"}, token_from="/account")
    assert r.status_code == 303 and "other sessions were logged out" in client.get(r.headers["location"]).text
    assert other.get("/account", follow_redirects=False).status_code == 303
    assert client.get("/account").status_code == 200
    login(other, "anna", "another password")


def test_account_api_tokens_created_and_revoked_from_the_page(client):
    register(client, "anna")
    r = post(client, "/account/tokens", {"name": "club-bot"}, token_from="/account")
    assert r.status_code == 303
    page = client.get(r.headers["location"]).text
    token = page.split("<code")[1].split(">")[1].split("<")[0]
    headers = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/v1/me", headers=headers).status_code == 200
    assert token not in client.get("/account").text  # shown once only
    token_id = page.split("/account/tokens/")[1].split("/")[0]
    assert post(client, f"/account/tokens/{token_id}/revoke", {}, token_from="/account").status_code == 303
    assert client.get("/api/v1/me", headers=headers).status_code == 401
