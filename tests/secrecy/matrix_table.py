"""At the table (issue 33): the one-tap confirm link (R12.2) and the photos of the table
(R12.3). Photos are the campaign's members' alone (an outsider is told nothing is there); the
link's page is opened without logging in, by a token that is the credential itself.
tests/api/test_confirm_links_R12_2.py and test_photos_R12_3.py check them with a link and a
photo made; the planted worlds have neither, so the routes are walked for their refusals."""

from __future__ import annotations

# Defined before matrix.py is imported: it imports this module at its end, and may find it
# half-loaded when this module is the one imported first.
ENTRIES: dict = {}
PRG: set = {
    "/confirm/{token}",
    "/campaigns/{cid}/battles/{bid}/confirm-link",
    "/campaigns/{cid}/battles/{bid}/photos",
    "/campaigns/{cid}/battles/{bid}/photos/{photo_id}/delete",
}

from tests.secrecy import matrix  # noqa: E402
from tests.secrecy.matrix import ANYONE, API, MEMBERS, PLAYERS, Action, C, Read  # noqa: E402

_NO_PHOTO = "no planted world has a photo: members are told it is not there (404) like everyone else"

ENTRIES.update(
    {
        ("GET", "/confirm/{token}"): Read(
            "page",
            ANYONE,
            tolerate=frozenset({404}),
            why="a forged token shows nothing, to anyone (404)",
        ),
        ("POST", "/confirm/{token}"): Action(
            ANYONE, {"action": "confirm", "player_id": "{other_player}"}, why="the token is the credential"
        ),
        ("GET", "/confirm-done"): Read("page", ANYONE, why="thanks the link's user; names nothing"),
        ("POST", C + "/battles/{bid}/confirm-link"): Action(PLAYERS, why="the side that entered the result"),
        ("POST", API + C + "/battles/{bid}/confirm-link"): Action(PLAYERS, why="the side that entered the result"),
        ("POST", C + "/battles/{bid}/photos"): Action(MEMBERS, files=True, why="the battle's players and the GM"),
        ("POST", API + C + "/battles/{bid}/photos"): Action(MEMBERS, files=True, why="the battle's players and the GM"),
        ("GET", API + C + "/battles/{bid}/photos"): Read("api", MEMBERS),
        ("GET", C + "/battles/{bid}/photos/{photo_id}"): Read("media", MEMBERS, tolerate=frozenset({404}), why=_NO_PHOTO),
        ("GET", API + C + "/battles/{bid}/photos/{photo_id}"): Read("media", MEMBERS, tolerate=frozenset({404}), why=_NO_PHOTO),
        ("DELETE", API + C + "/battles/{bid}/photos/{photo_id}"): Action(MEMBERS, why="its owner or the GM"),
        ("POST", C + "/battles/{bid}/photos/{photo_id}/delete"): Action(MEMBERS, {"confirm": "1"}, why="its owner or the GM"),
    }
)
# matrix.py merges ENTRIES when it is imported first; when this module is, it was still empty then.
matrix.MATRIX.update(ENTRIES)
