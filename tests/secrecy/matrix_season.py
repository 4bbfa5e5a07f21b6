"""The season's routes (issue 19): deadlines and the daily digest's opt-in. A deadline is
public news (the chronicle says it); why an auto-advance waits is the GM's (the API's
`waiting` is null for everybody else: tests/api/test_season_deadline_api.py)."""

from __future__ import annotations

# Defined before matrix.py is imported: it imports this module at its end, and may find it
# half-loaded when this module is the one imported first (tests/web/test_prg.py).
ENTRIES: dict = {}
PRG: set = {
    "/campaigns/{cid}/deadline",
    "/campaigns/{cid}/deadline/clear",
    "/account/digest",
    "/account/digest/resend",
    "/digest/confirm",
    "/digest/unsubscribe",
}

from tests.secrecy import matrix  # noqa: E402
from tests.secrecy.matrix import ANYONE, API, GM, MEMBERS, USERS, Action, C, Read  # noqa: E402

ENTRIES.update(
    {
        ("GET", API + C + "/deadline"): Read("api", MEMBERS),
        ("PUT", API + C + "/deadline"): Action(GM, {"ends_at": "2030-01-01T18:00:00Z", "auto_advance": True}),
        ("DELETE", API + C + "/deadline"): Action(GM),
        ("POST", C + "/deadline"): Action(GM, {"ends_at": "2030-01-01T18:00", "auto_advance": "on"}),
        ("POST", C + "/deadline/clear"): Action(GM),
        ("POST", "/account/digest"): Action(USERS, {"email": "mx@example.org", "enabled": "on"}, why="the user's own setting"),
        ("GET", API + "/me/digest"): Read("api", USERS, why="the user's own address"),
        ("PUT", API + "/me/digest"): Action(USERS, {"email": "mx@example.org", "enabled": True}, why="the user's own setting"),
        ("POST", API + "/me/digest/resend"): Action(USERS, why="the user's own address (issue 28: double opt-in)"),
        ("POST", "/account/digest/resend"): Action(USERS, why="the user's own address (issue 28: double opt-in)"),
        # The links in the digest's mails (issue 28): the token in the link is the proof, not a login.
        ("GET", "/digest/confirm"): Read("page", ANYONE, why="a button carrying the link's token; it shows nothing stored"),
        ("POST", "/digest/confirm"): Action(ANYONE, {"token": "1.not-a-token"}, why="the mailed token is the proof"),
        ("GET", "/digest/done"): Read("page", ANYONE, why="says what the button did (a flash message)"),
        ("GET", "/digest/unsubscribe"): Read("page", ANYONE, why="a button carrying the link's token; it shows nothing stored"),
        ("POST", "/digest/unsubscribe"): Action(ANYONE, why="RFC 8058 one-click: the signed token is the proof"),
    }
)
matrix.MATRIX.update(ENTRIES)
