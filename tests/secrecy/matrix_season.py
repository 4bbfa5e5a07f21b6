"""The season's routes (issue 19): deadlines and the daily digest's opt-in. A deadline is
public news (the chronicle says it); why an auto-advance waits is the GM's (the API's
`waiting` is null for everybody else: tests/api/test_season_deadline_api.py)."""
from __future__ import annotations

# Defined before matrix.py is imported: it imports this module at its end, and may find it
# half-loaded when this module is the one imported first (tests/web/test_prg.py).
ENTRIES: dict = {}
PRG: set = {"/campaigns/{cid}/deadline", "/campaigns/{cid}/deadline/clear", "/account/digest"}

from tests.secrecy import matrix  # noqa: E402
from tests.secrecy.matrix import API, C, GM, MEMBERS, USERS, Action, Read  # noqa: E402

ENTRIES.update({
    ("GET", API + C + "/deadline"): Read("api", MEMBERS),
    ("PUT", API + C + "/deadline"): Action(GM, {"ends_at": "2030-01-01T18:00:00Z", "auto_advance": True}),
    ("DELETE", API + C + "/deadline"): Action(GM),
    ("POST", C + "/deadline"): Action(GM, {"ends_at": "2030-01-01T18:00", "auto_advance": "on"}),
    ("POST", C + "/deadline/clear"): Action(GM),
    ("POST", "/account/digest"): Action(USERS, {"email": "mx@example.org", "enabled": "on"}, why="the user's own setting"),
})
matrix.MATRIX.update(ENTRIES)
