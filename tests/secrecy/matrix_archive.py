"""The season's end (issue 35): standings and the season book (members), the club screen's
links (the GM) and the member's calendar link. The screen and the calendar open without a
login, by their token: the walk asks them with a forged one, which nobody gets (404); what a
real link shows is checked against the planted worlds by test_season_end_secrecy.py."""

from __future__ import annotations

# Defined before matrix.py is imported: it imports this module at its end, and may find it
# half-loaded when this module is the one imported first (tests/web/test_prg.py).
ENTRIES: dict = {}
PRG: set = {
    "/campaigns/{cid}/screen-links",
    "/campaigns/{cid}/screen-links/{lid}/revoke",
    "/campaigns/{cid}/calendar-link",
}

from tests.secrecy import matrix  # noqa: E402
from tests.secrecy.matrix import ANYONE, API, GM, MEMBERS, Action, C, Read, V  # noqa: E402

FORGED = (V(params=(("token", "=forged-token"),)),)
NOT_FOUND = frozenset({404})

ENTRIES.update(
    {
        ("GET", API + C + "/standings"): Read("api", MEMBERS, why="R12.4: counts from public things only"),
        ("POST", API + C + "/screen-links"): Action(GM),
        ("DELETE", API + C + "/screen-links/{lid}"): Action(GM, params=(("lid", "=1"),), why="the GM revokes a screen"),
        ("POST", API + C + "/calendar-link"): Action(MEMBERS, why="the member's own feed"),
        ("GET", C + "/standings"): Read("page", MEMBERS),
        ("GET", C + "/season-book"): Read("page", MEMBERS),
        ("POST", C + "/screen-links"): Action(GM),
        ("POST", C + "/screen-links/{lid}/revoke"): Action(GM, {"confirm": "1"}, params=(("lid", "=1"),)),
        ("POST", C + "/calendar-link"): Action(MEMBERS, why="the member's own feed"),
        # Anybody may ask; a forged token is not found (404) whoever asks, logged in or not.
        ("GET", "/screen/{token}"): Read("page", ANYONE, variants=FORGED, tolerate=NOT_FOUND, why="R12.5: the token is the key"),
        ("GET", "/calendar/{token}.ics"): Read(
            "page", ANYONE, variants=FORGED, tolerate=NOT_FOUND, why="R12.7: the token is the key"
        ),
    }
)
# matrix.py merges ENTRIES when it is imported first; when this module is, it was still empty then.
matrix.MATRIX.update(ENTRIES)
