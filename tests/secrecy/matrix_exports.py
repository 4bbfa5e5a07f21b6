"""Export and import (issue 19). The GM's document holds what the GM may see (R11.2, the
"export" surface): the GM's ledger notes and the players' gold, the orders, settlements and
ransoms — never a transfer, a letter, a mission alliance before Battles or a warband only
its owner knows; the planted markers of those kinds must not appear in it. With them, the
GM's copy of a campaign and the ready maps that fill a draft's map (R12.13)."""

from __future__ import annotations

# Defined before matrix.py is imported: it imports this module at its end, and may find it
# half-loaded when this module is the one imported first.
ENTRIES: dict = {}
PRG: set = {"/campaigns/new/import", "/campaigns/{cid}/copy", "/campaigns/{cid}/map-template"}

from tests.secrecy.matrix import API, GM, USERS, Action, C, Other, Read, _s  # noqa: E402

_SHOWS = _s("ledger", "gold", "order", "settlement", "ransom")
_DOCUMENT = {"format": "hideout-campaign", "version": 1, "campaign": {"name": "Matrix import"}}

ENTRIES.update(
    {
        ("GET", API + C + "/export"): Read("export", GM, _SHOWS, why="the GM's document (docs/export.md)"),
        ("GET", C + "/export"): Read("export", GM, _SHOWS, why="the same document as a download from the Rules tab"),
        ("POST", API + "/campaigns/import"): Action(USERS, _DOCUMENT, why="any user may import a campaign and runs it"),
        ("POST", API + C + "/copy"): Action(GM, {"name": "Matrix copy"}, why="the GM copies a campaign they run (R12.13)"),
        ("POST", C + "/copy"): Action(GM, {"confirm": "1"}, why="the GM copies a campaign they run (R12.13)"),
        ("POST", API + C + "/map-template"): Action(GM, {"template": "region"}, why="the GM fills an empty draft's map"),
        ("POST", C + "/map-template"): Action(GM, {"template": "region"}, why="the GM fills an empty draft's map"),
        ("GET", "/campaigns/new/import"): Read("page", USERS),
        ("POST", "/campaigns/new/import"): Action(USERS, files=True, why="any user may import a campaign and runs it"),
        **{
            (method, API + "/campaigns/import"): Other("answers 405 (Allow: POST): `import` is not a campaign id")
            for method in ("GET", "PUT", "PATCH", "DELETE")
        },
    }
)
