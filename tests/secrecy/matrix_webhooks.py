"""Webhooks (issue 19): the GM's plumbing. The list shows hook addresses and statuses, never
a secret of the campaign; what the hooks are sent is checked by test_webhook_secrecy.py."""

from __future__ import annotations

# Defined before matrix.py is imported: it imports this module at its end, and may find it
# half-loaded when this module is the one imported first.
ENTRIES: dict = {}
PRG: set = {"/campaigns/{cid}/webhooks", "/campaigns/{cid}/webhooks/{hid}/delete"}

from tests.secrecy import matrix  # noqa: E402
from tests.secrecy.matrix import API, GM, Action, C, Read  # noqa: E402

_HOOK = {"url": "https://discord.com/api/webhooks/1/matrix", "secret": "matrix-secret", "kinds": ["phase"]}

ENTRIES.update(
    {
        ("GET", API + C + "/webhooks"): Read("api", GM),
        ("POST", API + C + "/webhooks"): Action(GM, _HOOK),
        ("DELETE", API + C + "/webhooks/{hid}"): Action(GM, params=(("hid", "=1"),), why="the GM removes a hook"),
        ("POST", C + "/webhooks"): Action(GM, {"url": _HOOK["url"], "secret": _HOOK["secret"], "kinds": "phase"}),
        ("POST", C + "/webhooks/{hid}/delete"): Action(
            GM, {"confirm": "1"}, params=(("hid", "=1"),), why="the GM removes a hook"
        ),
    }
)
# matrix.py merges ENTRIES when it is imported first; when this module is, it was still empty then.
matrix.MATRIX.update(ENTRIES)
