"""R12.4, R12.5, R12.7 against the planted worlds (tests/secrecy/world.py, SPEC R11.2):

- the club screen is an outsider's view: it shows no planted secret of any kind — never an
  order, an alliance before Battles, a transfer, a letter, a settlement or a ransom — and a
  revoked or forged token is not found;
- the standings, the season book and the calendar show each member nothing the oracle keeps
  from them;
- finishing a campaign reveals nothing never revealed: after each world is finished, the other
  player still cannot see the owner's transfer, letter or secret order anywhere they look."""

from __future__ import annotations

from tests.secrecy.world import ORACLE

# Figures (gold, ransom amounts) are matched as whole numbers, which a table of counts may
# show by chance; the standings show a designed figure (gold spent on the company) instead.
TEXT_KINDS = ("order", "warband", "alliance", "transfer", "letter", "settlement", "ledger")
LOOKS = (
    "",
    "/chronicle",
    "/players",
    "/map",
    "/battles",
    "/orders",
    "/letters",
    "/transfers",
    "/ledger",
    "/alliances",
    "/standings",
)
PAGES = ("/standings", "/season-book", "/chronicle", "/orders", "/map", "/letters", "/battles")


def _leaks(body: str, markers, role: str) -> list[str]:
    return [m.text for m in markers if m.kind in TEXT_KINDS and role not in ORACLE[m.kind](m) and m.found_in(body)]


def _screen(client, cast, world):
    r = client.post(f"/api/v1/campaigns/{world.cid}/screen-links", headers=cast.api["gm"])
    assert r.status_code == 201, r.text
    return r.json()


def test_r12_5_the_club_screen_shows_no_secret_of_any_planted_world(cast, make_client):
    tv = make_client()
    for world in cast.worlds.values():
        link = _screen(cast.pages["anonymous"], cast, world)
        path = "/" + link["url"].split("/", 3)[3]
        r = tv.get(path)
        assert r.status_code == 200, r.text
        leaks = [m.text for m in world.markers if m.kind in TEXT_KINDS and m.found_in(r.text)]
        assert not leaks, (world.name, leaks)
        # Forged and revoked: not found, and the page says nothing of the campaign.
        forged = tv.get(path[:-3] + ("aaa" if not path.endswith("aaa") else "bbb"))
        assert forged.status_code == 404 and world.name not in forged.text
        r = cast.pages["anonymous"].delete(f"/api/v1/campaigns/{world.cid}/screen-links/{link['id']}", headers=cast.api["gm"])
        assert r.status_code == 204
        assert tv.get(path).status_code == 404


def test_r12_4_r12_7_standings_book_and_calendar_show_members_nothing_kept_from_them(cast):
    for world in cast.worlds.values():
        for role in ("owner", "other", "gm"):
            browser = cast.pages[role]
            for path in ("/standings", "/season-book"):
                r = browser.get(f"/campaigns/{world.cid}{path}")
                assert r.status_code == 200, (world.name, role, path, r.text[:300])
                assert not _leaks(r.text, world.markers, role), (world.name, role, path)
            r = browser.post(f"/api/v1/campaigns/{world.cid}/calendar-link", headers=cast.api[role])
            assert r.status_code == 201, r.text
            feed = browser.get("/" + r.json()["url"].split("/", 3)[3])
            assert feed.status_code == 200 and not _leaks(feed.text, world.markers, role)


def test_r12_4_finishing_reveals_no_secret_never_revealed(cast):
    for world in cast.worlds.values():
        r = cast.pages["gm"].post(f"/api/v1/campaigns/{world.cid}/status", json={"status": "finished"}, headers=cast.api["gm"])
        if r.status_code != 200:  # a campaign still in setup cannot be finished (R1.6)
            continue
        for role in ("other", "gm"):
            for path in LOOKS:
                r = cast.pages[role].get(f"/api/v1/campaigns/{world.cid}{path}", headers=cast.api[role])
                assert not _leaks(r.text, world.markers, role), (world.name, role, path)
            for path in PAGES:
                r = cast.pages[role].get(f"/campaigns/{world.cid}{path}")
                assert not _leaks(r.text, world.markers, role), (world.name, role, path)
