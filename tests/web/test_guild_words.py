"""R8.2, R11.3 (issue 13): "Test this by rendering the main pages with each word and finding no
other word left." For each of the six guild words, in English and in Polish, a running
campaign with a guild, a request and an invitation waiting, and a round of guild income
behind it: the main pages of a player and of the GM name guilds only with the campaign's word,
and mission alliances only as mission alliances — or as pacts when the word is "alliance".

tests/web/test_campaign_words.py checks the forms of each word and a few pages by name; this
file renders every main page and looks for any other word in what a reader sees."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from babel.support import NullTranslations

from app.campaigns.terms import GUILD_TERMS, words
from app.core.i18n import translations
from tests.builders.campaigns import campaign_with_players, start_campaign
from tests.builders.pages import login, post
from tests.builders.rounds import to_phase

pytestmark = pytest.mark.markup

GUILD_FORMS = ("guild", "guild_of", "guilds", "guilds_of")
ALLIANCE_FORMS = ("alliance", "alliance_of", "alliances", "alliances_of")
# Attributes whose text a reader sees (the confirm dialog reads data-confirm*).
SHOWN_ATTRIBUTES = ("data-confirm", "data-confirm-detail", "data-confirm-ok", "aria-label", "title", "placeholder", "alt")
# The wizard's choice of word names all six on purpose: its label and its list are left out.
TERM_CHOOSER = re.compile(r'<label for="f-guild_term">.*?</label>|<select id="f-guild_term".*?</select>', re.S)


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "template"):
            self._skip += 1
        self.parts.extend(value for name, value in attrs if name in SHOWN_ATTRIBUTES and value)

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _Text()
    parser.feed(TERM_CHOOSER.sub(" ", page))
    return re.sub(r"\s+", " ", " ".join(parser.parts)).strip()


def _catalogs():
    return (NullTranslations(), translations("pl"))


def vocabulary(term: str) -> tuple[set[str], set[str]]:
    """(words that must not appear, phrases that may): every form, in English and Polish, of the
    five other guild words and of the mission-alliance word not in use; the mission-alliance
    word in use may contain another guild word ("mission alliance", "sojusz na misję")."""
    forbidden, allowed, own = set(), set(), set()
    for catalog in _catalogs():
        mine = words(term, catalog)
        own |= {mine[f].lower() for f in GUILD_FORMS}
        allowed |= {mine[f].lower() for f in ALLIANCE_FORMS}
        for other in GUILD_TERMS:
            if other != term:
                forbidden |= {words(other, catalog)[f].lower() for f in GUILD_FORMS}
        # "alliance" turns mission alliances into pacts; any other word keeps them.
        unused = words("guild" if term == "alliance" else "alliance", catalog)
        forbidden |= {unused[f].lower() for f in ALLIANCE_FORMS}
    return forbidden - own - allowed, allowed


def leftovers(text: str, term: str) -> set[str]:
    """The other words found in `text`, matched as whole words."""
    forbidden, allowed = vocabulary(term)
    text = text.lower()
    for phrase in sorted(allowed, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(phrase)}(?!\w)", " ", text)
    return {w for w in forbidden if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text)}


def test_r8_2_the_matcher_finds_whole_words_only_and_lets_mission_alliances_be():
    assert leftovers("Groups of orcs; a mission alliance", "cartel") == {"groups"}
    assert leftovers("Grouped orcs regroup. Mission alliances: 2", "cartel") == set()
    assert leftovers("Sojusze na misję · Sojusznicy", "guild") == set()
    assert leftovers("Sojusz Żelaznej Ręki", "guild") == {"sojusz"}
    assert leftovers("Pacts · the alliance", "alliance") == set()
    assert leftovers("Mission alliances", "alliance") == {"mission alliances"}
    assert leftovers("Gildia Żelaznej Ręki", "cartel") == {"gildia"}


def _world(client, make_client, term: str, locale: str):
    """A running campaign whose guilds are called `term`, everyone reading `locale`: player0
    founded a guild, invited player1 (waiting), player2 asked to join (waiting); a round has
    ended, so guild income is in the ledger. Returns the campaign and the browsers."""
    gm, cid, players, places = campaign_with_players(client, 3, 4, gm_locale=locale, guild={"term": term})
    for p in players:
        assert client.patch("/api/v1/me", json={"locale": locale}, headers=p["headers"]).status_code == 200
    start_campaign(client, gm, cid, players, places)
    browsers = {}
    for nickname in ("player0", "player1", "player2", "gamemaster"):
        browsers[nickname] = make_client()
        login(browsers[nickname], nickname)
    founder = browsers["player0"]
    assert post(founder, f"/campaigns/{cid}/guilds", {"name": "Iron Hand", "confirm": "1"}).status_code == 303
    gid = client.get(f"/api/v1/campaigns/{cid}/guilds", headers=players[0]["headers"]).json()[0]["id"]
    # A member, so the round's income is shared; then the waiting invitation and request.
    assert (
        post(founder, f"/campaigns/{cid}/guilds/{gid}/invitations", {"player_id": str(players[1]["player_id"])}).status_code
        == 303
    )
    iid = client.get(f"/api/v1/campaigns/{cid}/guilds", headers=players[1]["headers"]).json()[0]["requests"][0]["id"]
    assert (
        post(browsers["player1"], f"/campaigns/{cid}/guilds/{gid}/invitations/{iid}/accept", {"confirm": "1"}).status_code == 303
    )
    to_phase(client, gm, cid, "twilight")
    r = client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 1}, headers=gm)
    assert r.status_code == 200, r.text
    assert post(founder, f"/campaigns/{cid}/guilds/{gid}/upgrade", {"confirm": "1"}).status_code == 303
    assert post(browsers["player2"], f"/campaigns/{cid}/guilds/{gid}/requests", {"confirm": "1"}).status_code == 303
    return cid, browsers


PLAYER_PAGES = ("", "/players", "/guilds", "/rules", "/chronicle", "/ledger")
GM_PAGES = ("", "/players", "/guilds", "/rules", "/chronicle", "/setup/6")


@pytest.mark.parametrize("locale", ["en", "pl"])
@pytest.mark.parametrize("term", GUILD_TERMS)
def test_r8_2_r11_3_the_main_pages_say_only_the_campaigns_word(client, make_client, term, locale):
    cid, browsers = _world(client, make_client, term, locale)
    own = words(term, translations(locale))
    seen = {}
    for who, paths in (("player0", PLAYER_PAGES), ("player2", ("", "/guilds", "/ledger")), ("gamemaster", GM_PAGES)):
        for path in paths:
            r = browsers[who].get(f"/campaigns/{cid}{path}")
            assert r.status_code == 200, (who, path, r.status_code)
            text = visible_text(r.text)
            seen[(who, path)] = text
            assert leftovers(text, term) == set(), (who, path, leftovers(text, term))
    # The pages do name guilds, with this campaign's word: the founder's request to decide
    # on the dashboard, the guild in the chronicle, the fees and the income in the ledger.
    assert own["Guilds"] in seen[("player0", "/guilds")]
    assert "Iron Hand" in seen[("player0", "")] and "player2" in seen[("player0", "")]
    assert own["Guilds"] in seen[("gamemaster", "/setup/6")]
    for who, path in (("player0", "/chronicle"), ("player0", "/rules"), ("player0", "/ledger")):
        assert re.search(
            rf"(?<!\w)({'|'.join(re.escape(own[f]) for f in (*GUILD_FORMS, 'Guild', 'Guilds'))})(?!\w)", seen[(who, path)]
        ), (who, path)
