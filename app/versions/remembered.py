"""Reads a viewer's campaign pages share, remembered while nothing that viewer may see has
changed (issue 37).

The dashboard, the battles list and the players' list read the same rows visit after visit:
the roster and its places, the round's battles and who fights them, the arrivals, the names.
Read anew, they were a third of a GM's dashboard. Here such a read is kept under the viewer's
audience counters (app/versions/audience.py): the sum of the counters of every seat the viewer
sees by (every member's, their player's, the game masters' for a GM, their own as a user, and
the changes placed nowhere), which any committed change they may see moves and nothing else
moves. A counter only goes up, so with the viewer's seats fixed (they are in the key) the sum
moves exactly when one of them does. The sum is read with the page's head
(app/core/page_head.py), in the login's statement on a repeat visit.

So a read is answered from memory exactly when the viewer could not see a difference, and
whether it is depends only on what the viewer may see, never on what others did in secret
(R11.2): the timing of a page tells nobody of another's secret act. A read every member makes
alike (the roster without balances, the chronicle, the battles, the names) is kept once for
all of them, under every member's counter alone (with the changes placed nowhere): only a
change every member sees moves it, and whether it was kept tells a member at most that
another member opened a page since. The memory is the process's own and bounded: a slot per
read and reader, which a read under other counters replaces (so a secret act never adds one,
and never decides which one a full memory drops), forgotten after `TTL` seconds however still
it stands. A value is kept only where the counters came in the login's statement, with the
campaign's row the read may use; a request that has written anything reads anew (its own
changes are not counted before it commits). The suite (`Settings.revalidation_check`) reads
anew each time and fails where the remembered value differs: a change that moved no counter,
or a page that changed what it was handed.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy import and_, bindparam, func, or_, select
from sqlmodel import Session

from app.core.db import WRITING
from app.core.page_head import HeadRead, came_with_login, kept_in_head
from app.versions.audience import EVERYONE, GAME_MASTERS, KEY, user_seat
from app.versions.models import AudienceVersion, CampaignVersion
from app.versions.service import EVERYWHERE, map_version

T = TypeVar("T")
SIZE = 512
TTL = 300.0
MISSING = object()
_SEATS = ("everyone", "game_masters", "mine", "own_user")
_SUM = select(func.coalesce(func.sum(AudienceVersion.version), 0)).where(
    or_(
        and_(AudienceVersion.campaign_id == bindparam("campaign_id"), AudienceVersion.seat.in_([bindparam(s) for s in _SEATS])),
        and_(AudienceVersion.campaign_id == EVERYWHERE, AudienceVersion.seat == EVERYONE),
    )
)

# The counter of changes to a campaign's map (row -c, app/versions/service.py MAP_TABLES) and
# that of changes placed nowhere, summed as above: the key of the map's kept drawing.
_MAP_SUM = select(func.coalesce(func.sum(CampaignVersion.version), 0)).where(
    CampaignVersion.campaign_id.in_((bindparam("map_row"), EVERYWHERE))
)


class Stale(AssertionError):
    """The suite's check: a remembered read differs from the same read made anew."""


class _Memory:
    """A slot per read and reader (the read's name and arguments, the campaign, the viewer
    unless the read is public), holding the value and the counters it was read under: a value
    read under other counters replaces it, so what others did never adds a slot, and so never
    decides which slot is dropped when the memory is full (R11.2). Used by the routes' worker
    threads at once: each change is made under its lock."""

    def __init__(self) -> None:
        self.slots: OrderedDict[Hashable, tuple[float, int, Any]] = OrderedDict()
        self.check = False
        self._lock = threading.Lock()

    def forget(self) -> None:
        with self._lock:
            self.slots.clear()

    def found(self, slot: Hashable, counters: int) -> Any:
        with self._lock:
            found = self.slots.get(slot)
            if found is None or found[1] != counters or (not self.check and time.monotonic() - found[0] > TTL):
                return MISSING
            self.slots.move_to_end(slot)  # the least recently asked go first
            return found[2]

    def keep(self, slot: Hashable, counters: int, value: Any) -> None:
        with self._lock:
            self.slots[slot] = (time.monotonic(), counters, value)
            self.slots.move_to_end(slot)
            while len(self.slots) > SIZE:
                self.slots.popitem(last=False)


memory = _Memory()


def head_read(viewer: Any) -> HeadRead | None:
    """The sum of the viewer's counters, read with the page's head (a member's pages only)."""
    if not viewer.is_member:
        return None
    seats = {
        "everyone": EVERYONE,
        # A seat the viewer does not hold is named as every member's: IN counts each row once.
        "game_masters": GAME_MASTERS if viewer.is_gm else EVERYONE,
        "mine": viewer.player.id if viewer.player is not None else EVERYONE,
        "own_user": user_seat(viewer.user.id),
    }
    return HeadRead("_audience_sum", _SUM, {"campaign_id": viewer.campaign_id, **seats})


def public_head_read(viewer: Any) -> HeadRead | None:
    """The sum of every member's counter and that of the changes placed nowhere: what moves
    with any change every member may see, and with nothing else."""
    if not viewer.is_member:
        return None
    return HeadRead("_public_sum", _SUM, {"campaign_id": viewer.campaign_id, **dict.fromkeys(_SEATS, EVERYONE)})


def remembered(
    session: Session, viewer: Any, name: str, args: Hashable, read: Callable[[], T], *, public: bool = False, keep: bool = True
) -> T:
    """`read()`, or what it gave last time for this viewer and `args` while the viewer's
    counters stand where they stood. `public`: a read every member makes alike (what `args`
    name aside), kept once for them all under every member's counter. The value is shared by
    the requests that are answered it: its caller hands out a copy of any list it may change.
    `keep=False`: read each time, for a read any member could ask of without end (an earlier
    round, a later page): remembered, those would fill the memory."""
    if not keep:
        return read()
    head = public_head_read(viewer) if public else head_read(viewer)
    if head is None or session.info.get(WRITING) or KEY in session.info or session.new or session.dirty or session.deleted:
        return read()
    # An id a deleted campaign left is not its rows: its creation time tells them apart.
    slot: tuple = (name, args, viewer.campaign_id, viewer.campaign.created_at)
    if not public:
        player = viewer.player
        slot += (viewer.user.id, player.id if player is not None else None, viewer.is_gm)
    counters = kept_in_head(session, viewer, head)
    found = memory.found(slot, counters)
    if found is not MISSING:
        if memory.check and read() != found:
            raise Stale(f"{name}{args!r} read anew differs from the one remembered under the same counters")
        return found
    value = read()
    # Kept only where the counters came in the statement that read the campaign's row the read
    # may use (its round, its phase): read later, on PostgreSQL's READ COMMITTED, they may be
    # newer than that row.
    if came_with_login(viewer):
        memory.keep(slot, counters, value)
    return value


def map_head_read(viewer: Any) -> HeadRead | None:
    """The map's counters, read with the page's head (a member's pages only)."""
    return HeadRead("_map_version", _MAP_SUM, {"map_row": -viewer.campaign_id}) if viewer.is_member else None


def map_version_seen(session: Session, viewer: Any) -> int:
    """What the map's drawing is keyed by: moves with every change the map shows, and with
    nothing else (R11.2); with the page's head where it came with it, a statement less."""
    read = map_head_read(viewer)
    return kept_in_head(session, viewer, read) if read is not None else sum(map_version(session, viewer.campaign_id))
