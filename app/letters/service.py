"""Sealed letters (R8.12, R9.4): sending, replying, the inbox and outbox, threads, read marks and
the unread count. Every read starts from `visibility.visible_letters`, so a letter is seen by
its sender and its recipient only — the GM too only when a party — and anybody else is told it
does not exist (404, the same answer as for a letter that never was). Letters never go to the
chronicle and never count in anything somebody else sees."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import bindparam, update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.campaigns.terms import require_module
from app.core.db import utcnow
from app.core.errors import DomainError
from app.core.page_head import HeadRead, kept_in_head
from app.core.pagination import Page, paginate
from app.core.rows import row_by_id
from app.letters import rules
from app.letters.models import Letter
from app.live import service as live
from app.versions.audience import declared
from app.visibility import (
    Viewer,
    is_letter_recipient,
    letter_party,
    readable_letters,
    require_writable,
    unread_letters_count,
    viewer_for,
    visible_box,
    visible_letters,
)

MODULE = "letters"
BOXES = ("in", "out")


@dataclass
class Thread:
    """A letter and the others of its thread that this viewer may see, oldest first; `opened`
    are the ones just marked read by opening the thread."""

    viewer: Viewer
    letter: Letter
    letters: list[Letter]
    opened: set[int] = field(default_factory=set)

    @property
    def latest(self) -> Letter:
        return self.letters[-1]


# --- reading --------------------------------------------------------------------------------


def _viewer(session: Session, actor: User, campaign_id: int) -> Viewer:
    viewer = viewer_for(session, actor, campaign_id)
    require_module(viewer.campaign, MODULE)
    return viewer


def _visible(session: Session, viewer: Viewer, letter_id: int, *, lock: bool = False) -> Letter:
    query, params = readable_letters(viewer, "one_locked" if lock else "one")
    letter = session.exec(query, params={**params, "letter_id": letter_id}).first()
    if letter is None:
        raise DomainError("not_found")
    return letter


def letters(
    session: Session, *, actor: User, campaign_id: int, box: str = "in", page: int = 1, per_page: int = 50
) -> tuple[Viewer, Page]:
    """The inbox (`box="in"`) or the outbox (`"out"`), newest first: two statements for the page."""
    return letters_for(session, viewer_for(session, actor, campaign_id), box=box, page=page, per_page=per_page)


def letters_for(session: Session, viewer: Viewer, *, box: str = "in", page: int = 1, per_page: int = 50) -> tuple[Viewer, Page]:
    """`letters` for a viewer already seated: a page's, read with its login (issue 37)."""
    require_module(viewer.campaign, MODULE)
    listed = visible_box(viewer, received=box != "out")
    if listed is None:  # no party to letters: none
        query = visible_letters(viewer, box="out" if box == "out" else "in").order_by(Letter.id.desc())
        return viewer, paginate(session, query, page=page, per_page=per_page)
    return viewer, paginate(session, listed[0], page=page, per_page=per_page, params=listed[1])


def letter(session: Session, *, actor: User, campaign_id: int, letter_id: int) -> tuple[Viewer, Letter]:
    """One letter; reading it here marks nothing (read marks are explicit, see `mark`)."""
    viewer = _viewer(session, actor, campaign_id)
    return viewer, _visible(session, viewer, letter_id)


def thread(session: Session, *, actor: User, campaign_id: int, letter_id: int, open_: bool = False) -> Thread:
    """The letter's thread as this viewer may see it. With `open_` (the thread page, as a mail
    client does) the letters in it addressed to the viewer and still unread are marked read."""
    viewer = _viewer(session, actor, campaign_id)
    asked = _visible(session, viewer, letter_id)
    root = asked.thread_id or asked.id
    query, params = readable_letters(viewer, "thread")
    rows = list(session.exec(query, params={**params, "root": root}).all())
    result = Thread(viewer=viewer, letter=asked, letters=rows)
    if open_:
        unread = [row.id for row in rows if row.read_at is None and is_letter_recipient(viewer, row)]
        parties = {p for row in rows if row.id in unread for p in (row.from_player_id, row.to_player_id)}
        if unread and _mark_read_on_the_side(session, viewer.campaign.id, unread, parties):
            result.opened = set(unread)
    return result


def _mark_read_on_the_side(session: Session, campaign_id: int, letter_ids: list[int], parties: set[int]) -> bool:
    """A write a read request makes (opening a thread marks its letters read): in a savepoint,
    so that on a busy SQLite (another writer committed first) it is skipped — the letters stay
    unread until the next opening — instead of failing the page."""
    try:
        with session.begin_nested():
            # The campaign in the WHERE also tells the page versions which campaign changed.
            session.exec(
                update(Letter)
                .where(Letter.campaign_id == campaign_id, Letter.id.in_(letter_ids), Letter.read_at.is_(None))
                .values(read_at=utcnow())
                # Who sees the read marks (app/versions/audience.py): the letters' two parties.
                .execution_options(synchronize_session="evaluate", **declared(campaign_id, parties, gms=None in parties))
            )
        return True
    except OperationalError:
        return False


def unread_count(session: Session, viewer: Viewer) -> int:
    """Letters waiting unread for this viewer (the tab's badge, the dashboard): one statement,
    run once per request (kept on the viewer); 0 with the module off or for a non-member."""
    read = head_read(viewer)
    return kept_in_head(session, viewer, read) if read else 0


def head_read(viewer: Viewer) -> HeadRead | None:
    """What `unread_count` asks, read with the rest of the page head (app/core/page_head.py)."""
    if not (viewer.campaign.modules or {}).get(MODULE) or not letter_party(viewer)[0]:
        return None
    return HeadRead("_letters_unread", *unread_letters_count(viewer))


def forget_unread(viewer: Viewer) -> None:
    viewer.__dict__.pop("_letters_unread", None)


# Built once (issue 37: built on each visit of the letter form).
_RECIPIENTS = (
    select(Player.id, User.nickname)
    .join(User, User.id == Player.user_id)
    .where(Player.campaign_id == bindparam("campaign_id"))
    .order_by(User.nickname_key)
)


def recipients(session: Session, viewer: Viewer) -> list[tuple[int, str]]:
    """The players this viewer may write to, by nickname (the GM is offered apart): one statement."""
    me = letter_party(viewer)[1]
    rows = session.exec(_RECIPIENTS, params={"campaign_id": viewer.campaign.id}).all()
    return [(pid, nickname) for pid, nickname in rows if pid != me]


# --- writing -------------------------------------------------------------------------------


def _writer(session: Session, actor: User, campaign_id: int) -> tuple[Viewer, rules.Party]:
    viewer = _viewer(session, actor, campaign_id)
    require_writable(viewer)
    member, me = letter_party(viewer)
    if not member:
        raise DomainError("not_found")
    return viewer, me


def _player_of(session: Session, campaign: Campaign, player_id: int) -> Player:
    """A participant of this campaign; a player of another one is simply not found."""
    player = row_by_id(session, Player, player_id)
    if player is None or player.campaign_id != campaign.id:
        raise DomainError("not_found")
    return player


def _check_text(subject: str, body: str) -> None:
    """The schemas' limits, kept here too for callers without them."""
    if not subject.strip() or not body.strip():
        raise DomainError("field_required")
    if len(subject) > rules.SUBJECT_MAX:
        raise DomainError("field_too_long", max=rules.SUBJECT_MAX)
    if len(body) > rules.BODY_MAX:
        raise DomainError("field_too_long", max=rules.BODY_MAX)


def _post(
    session: Session, viewer: Viewer, actor: User, me: int | None, to: int | None, subject: str, body: str, **thread: int
) -> Letter:
    """A letter written this round, told to the live stream (whose event names no party)."""
    letter = Letter(
        campaign_id=viewer.campaign.id,
        from_player_id=me,
        to_player_id=to,
        subject=subject,
        body=body,
        round=viewer.campaign.round,
        **thread,
    )
    session.add(letter)
    session.flush()
    live.publish(session, letter.campaign_id, "letter", subject_id=letter.id, actor_user_id=actor.id)
    return letter


def send(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    to_player_id: int | None = None,
    to_gm: bool = False,
    subject: str,
    body: str,
) -> Letter:
    """R8.12: a player writes to another player or to the GM; the GM to a player."""
    viewer, me = _writer(session, actor, campaign_id)
    to = rules.recipient(to_player_id=to_player_id, to_gm=to_gm)
    if to is not None:
        _player_of(session, viewer.campaign, to)
    rules.check_not_self(me, to)
    subject = subject.strip()
    _check_text(subject, body)
    letter = _post(session, viewer, actor, me, to, subject, body)
    letter.thread_id = letter.id  # a new letter opens its own thread
    session.flush()
    return letter


def reply(session: Session, *, actor: User, campaign_id: int, letter_id: int, body: str, subject: str | None = None) -> Letter:
    """An answer to a letter the viewer can read: to its other party, in the same thread, under
    "Re: <subject>" unless another subject is given."""
    viewer, me = _writer(session, actor, campaign_id)
    original = _visible(session, viewer, letter_id)
    to = rules.other_party(me, original.from_player_id, original.to_player_id)
    rules.check_not_self(me, to)
    subject = (subject or "").strip() or rules.reply_subject(original.subject)
    _check_text(subject, body)
    return _post(
        session, viewer, actor, me, to, subject, body, reply_to_id=original.id, thread_id=original.thread_id or original.id
    )


def mark(session: Session, *, actor: User, campaign_id: int, letter_id: int, read: bool) -> Letter:
    """Only the recipient marks a letter read or unread (also in a finished campaign: it
    changes nothing of the game). The sender is told so; anybody else that it does not exist."""
    viewer = _viewer(session, actor, campaign_id)
    letter = _visible(session, viewer, letter_id, lock=True)
    if not is_letter_recipient(viewer, letter):
        raise DomainError("letter_recipient_only")
    if read:
        letter.read_at = letter.read_at or utcnow()  # the first reading stays
    else:
        letter.read_at = None
    session.add(letter)
    session.flush()
    forget_unread(viewer)
    return letter
