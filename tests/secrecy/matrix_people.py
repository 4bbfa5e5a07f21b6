"""Secrecy matrix entries of the people who come and go (issue 36: R12.8 co-GMs, R12.11 away
rounds), merged by tests/secrecy/matrix.py; their page forms are in tests/web/test_prg.py's list."""

# Defined before the import, as matrix_pwa.py explains.
PRG: set = {
    "/campaigns/{cid}/game-masters",
    "/campaigns/{cid}/game-masters/{user_id}/remove",
    "/campaigns/{cid}/players/{pid}/away",
    "/campaigns/{cid}/players/{pid}/away/clear",
    "/campaigns/{cid}/players/{pid}/handover",
    "/campaigns/{cid}/audit/{entry_id}/undo",
}
ENTRIES: dict = {}

from tests.secrecy.matrix import API, GM, MATRIX, MEMBERS, OWNER_GM, Action, Read, V, _s  # noqa: E402

C = "/campaigns/{cid}"
OWN_SEAT = (("pid", "owner_player"),)
SOMEBODY = (("user_id", "=1"),)  # refused before anybody is looked up
AWAY = {"from_round": "2", "to_round": "3"}

ENTRIES.update(
    {
        ("GET", API + C + "/game-masters"): Read("api", GM),
        ("POST", API + C + "/game-masters"): Action(GM, {"nickname": "mx-outsider"}),
        ("DELETE", API + C + "/game-masters/{user_id}"): Action(GM, params=SOMEBODY),
        ("PUT", API + C + "/players/{pid}/away"): Action(
            OWNER_GM, {"from_round": 2, "to_round": 3}, params=OWN_SEAT, why="the player themselves, or a GM"
        ),
        ("DELETE", API + C + "/players/{pid}/away"): Action(OWNER_GM, params=OWN_SEAT, why="the player themselves, or a GM"),
        ("POST", API + C + "/players/{pid}/handover"): Action(GM, {"nickname": "mx-outsider"}, params=OWN_SEAT),
        ("POST", C + "/players/{pid}/handover"): Action(GM, {"nickname": "mx-outsider"}, params=OWN_SEAT),
        ("GET", C + "/players/{pid}"): Read(
            "page", MEMBERS, variants=(V(params=OWN_SEAT),), why="a seat's public face; its forms the player's and the GMs'"
        ),
        ("GET", API + C + "/audit"): Read(
            "api", GM, _s("ledger"), why="the GMs' trail: amounts and reasons of adjustments, no balance"
        ),
        ("POST", API + C + "/audit/{entry_id}/undo"): Action(GM, params=(("entry_id", "=1"),)),
        ("GET", C + "/audit"): Read("page", GM, _s("ledger"), why="the GMs' trail page"),
        ("POST", C + "/audit/{entry_id}/undo"): Action(GM, params=(("entry_id", "=1"),)),
        ("POST", C + "/game-masters"): Action(GM, {"nickname": "mx-outsider"}),
        ("POST", C + "/game-masters/{user_id}/remove"): Action(GM, params=SOMEBODY),
        ("POST", C + "/players/{pid}/away"): Action(OWNER_GM, AWAY, params=OWN_SEAT, why="the player themselves, or a GM"),
        ("POST", C + "/players/{pid}/away/clear"): Action(OWNER_GM, params=OWN_SEAT, why="the player themselves, or a GM"),
    }
)
MATRIX.update(ENTRIES)
