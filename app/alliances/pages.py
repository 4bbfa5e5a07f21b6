"""Mission-alliance pages (R8.7-R8.9, R9.3): the alliances page (mine this round, invitations
waiting, the form that makes one, and — from Battles on — the revealed ones), its four
actions (post/redirect/get, paid and one-way steps confirmed first), a dashboard panel, and a
context hook that lets the map's event sheet and the warband pages show the player's own
alliances without the lower domains importing this one.

Secrecy is not decided here: everything shown comes from `service.alliances` / `service.waiting`,
which start from `visibility.visible_alliances` (members and invitees only until Battles).
"""

from __future__ import annotations

from functools import cached_property, partial

from fastapi import APIRouter, Request
from sqlalchemy.orm import object_session

from app.alliances import service
from app.alliances.schemas import AllianceIn
from app.campaigns import service as campaigns
from app.campaigns import terms
from app.campaigns.deps import CampaignContext, CampaignPage
from app.core.errors import N_, message_for
from app.core.forms import safe_next, typed, validate
from app.core.page_actions import Ask, page_action
from app.core.templating import render, request_gettext
from app.core.types import PathId, QueryId
from app.events import service as events
from app.events.models import Event
from app.guilds import service as guilds
from app.maps import service as maps
from app.visibility import Viewer, orders_public

router = APIRouter()

LABELS = {"event_id": N_("Event"), "invite_player_ids": N_("Players to invite")}
# Refusals of the service that belong to one field of the form.
FIELD_OF = {
    "alliance_invite_none": "invite_player_ids",
    "alliance_invite_self": "invite_player_ids",
    "alliance_guild_member": "invite_player_ids",
    "alliance_event_inactive": "event_id",
    "alliance_already_at_event": "event_id",
}

# One-way and paid steps ask first (a dialog with JavaScript, a confirm page without); the
# page's buttons carry the same texts (templates/alliances/_actions.html).
CONFIRM_CREATE = (
    N_("Make a %(alliance)s for %(event)s?"),
    N_("You pay %(n)s gold now and it is not returned; each player who accepts pays %(n)s gold too."),
    N_("Make it and pay %(n)s gold"),
)
CONFIRM_ACCEPT = (
    N_("Join the %(alliance)s for %(event)s?"),
    N_("You pay %(n)s gold; it is not returned."),
    N_("Accept and pay %(n)s gold"),
)
CONFIRM_DECLINE = (
    N_("Decline the invitation to the %(alliance)s for %(event)s?"),
    N_("You cannot accept it later."),
    N_("Decline"),
)
CONFIRM_WITHDRAW = (N_("Withdraw from the %(alliance)s for %(event)s?"), N_("The fee you paid is lost."), N_("Withdraw"))
CONFIRM_WITHDRAW_INITIATOR = (
    N_("Withdraw from the %(alliance)s for %(event)s?"),
    N_("The fee you paid is lost, and as its initiator you end the %(alliance)s for everybody."),
    N_("Withdraw and end it"),
)


def _open(campaign) -> bool:
    """Alliances are made and answered now (R8.7)."""
    return campaign.status == "running" and campaign.phase in service.OPEN_PHASES and bool(campaign.modules.get(service.MODULE))


def _guild_of(session, campaign) -> dict[int, int]:
    return guilds.guild_ids_of_players(session, campaign.id) if campaign.modules.get(guilds.MODULE) else {}


def _status(view: service.AllianceView, player_id: int | None) -> str | None:
    member = view.members.get(player_id) if player_id is not None else None
    return member.status if member else None


def _words(request: Request, campaign) -> dict[str, str]:
    """The campaign's mission-alliance words in the reader's language, for a flash message."""
    words = terms.campaign_words(campaign, request_gettext(request))
    return {k: v for k, v in words.items() if k.lower().startswith("alliance")}


# --- the alliances page ----------------------------------------------------------------------


def _page(
    page: CampaignContext,
    status_code=200,
    *,
    chosen_event: int | None = None,
    form: dict | None = None,
    errors: dict | None = None,
    error: str | None = None,
):
    session, cid, viewer = page.session, page.cid, page.viewer
    campaign = viewer.campaign
    views = service.alliances(session, viewer)  # 409 module_disabled with the module off
    me = viewer.player.id if viewer.player else None
    names = campaigns.nicknames(session, cid)
    current = [v for v in views if v.alliance.round == campaign.round]
    waiting = [v for v in current if v.alliance.status == "active" and _status(v, me) == "invited"] if _open(campaign) else []
    mine = [v for v in current if _status(v, me) == "member"]
    shown = {v.alliance.id for v in waiting + mine}
    # What everybody may see from Battles on (R8.8): the live alliances of public rounds.
    revealed = [
        v
        for v in views
        if v.alliance.id not in shown
        and orders_public(campaign, v.alliance.round)
        and v.alliance.status != "ended"
        and len(v.member_ids) >= 2
    ]
    make = None
    if me is not None and _open(campaign):
        guild_of = _guild_of(session, campaign)
        taken = {v.alliance.event_id for v in mine if v.alliance.status == "active"}
        make = {
            "in_guild": me in guild_of,
            "events": events.active_events(session, campaign),
            "taken": taken,
            "players": [(pid, nick, pid in guild_of) for pid, nick in names.items() if pid != me],
            "chosen_event": chosen_event,
        }
    if errors and not (make and not make["in_guild"] and make["events"]):
        # The form is not shown (a guild member, no event): its problems go above the page.
        error, errors = " ".join(filter(None, [error, *errors.values()])), {}
    return render(
        page.request,
        "alliances/alliances.html",
        status_code=status_code,
        viewer=viewer,
        campaign=campaign,
        me=me,
        names=names,
        waiting=waiting,
        mine=mine,
        revealed=revealed,
        make=make,
        labels=maps.labels(session, cid),
        form=form or {},
        errors=errors or {},
        error=error,
        open=_open(campaign),
        tab="alliances",
    )


@router.get("/campaigns/{cid}/alliances")
def alliances_page(page: CampaignPage, event: int | None = QueryId()):
    return _page(page, chosen_event=event)


def _ask(page: CampaignContext, texts: tuple[str, str, str], params: dict, *, cancel: str) -> Ask:
    words = terms.campaign_words(page.viewer.campaign, page.gettext)
    danger = texts is CONFIRM_WITHDRAW_INITIATOR
    return page.ask(texts, cancel=cancel, tab="alliances", danger=danger, **{**words, **params})


def _event_title(session, event_id: int) -> str:
    event = session.get(Event, event_id)
    return event.title if event else ""


# Refusals of the service that belong to one field of the form, named by its label.
REFUSED_FIELDS = {code: (field, LABELS[field]) for code, field in FIELD_OF.items()}


@router.post("/campaigns/{cid}/alliances")
def create(page: CampaignPage):
    posted = typed(page.form, "event_id", lists=("invite",))
    data = {"event_id": posted.get("event_id") or None, "invite_player_ids": posted.get("invite", [])}
    shown = {"event_id": posted.get("event_id", ""), "invite": posted.get("invite", [])}
    body, errors = validate(page.request, AllianceIn, data, LABELS)
    if not data["invite_player_ids"]:
        errors["invite_player_ids"] = message_for("alliance_invite_none", {}, page.gettext)
    if errors:
        return _page(page, status_code=422, form=shown, errors=errors)
    cid = page.cid

    def ask(alliance):
        fee = page.viewer.campaign.alliance_fee
        if not fee:
            return None
        params = {"event": _event_title(page.session, alliance.event_id), "n": fee}
        return _ask(page, CONFIRM_CREATE, params, cancel=f"/campaigns/{cid}/alliances?event={alliance.event_id}")

    def done(alliance):
        campaign = page.viewer.campaign
        names = campaigns.nicknames(page.session, cid)
        invited = ", ".join(names.get(p, "?") for p in sorted(set(body.invite_player_ids)))
        return page.redirect(
            f"/campaigns/{cid}/alliances#alliance-{alliance.id}",
            N_("%(Alliance)s for %(event)s made: %(names)s invited; you paid %(n)s gold."),
            event=_event_title(page.session, alliance.event_id),
            names=invited,
            n=campaign.alliance_fee,
            **_words(page.request, campaign),
        )

    return page_action(
        page,
        lambda: service.create(
            page.session, actor=page.user, campaign_id=cid, event_id=body.event_id, invite_player_ids=body.invite_player_ids
        ),
        again=partial(_page, page, form=shown),
        fields=REFUSED_FIELDS,
        ask=ask,
        done=done,
    )


def _answer(page: CampaignContext, action, ask_for, said, *, anchor: bool = False):
    """One of the alliance's buttons (accept, decline, withdraw): a refusal shows on the
    alliances page and changes nothing; `ask_for(alliance, campaign)` gives the confirm step's
    texts (or None: no question); `said(alliance)` the flash message. Back to the page the
    button was on (`next`: the map's event sheet, a warband page)."""
    page_url = f"/campaigns/{page.cid}/alliances"
    posted = page.form.get("next")
    target = safe_next(posted if isinstance(posted, str) else None, page_url)

    def params(alliance) -> dict:
        return {"event": _event_title(page.session, alliance.event_id), "n": page.viewer.campaign.alliance_fee}

    def ask(alliance):
        texts = ask_for(alliance, page.viewer.campaign)
        return None if texts is None else _ask(page, texts, params(alliance), cancel=target)

    def done(alliance):
        url = target + f"#alliance-{alliance.id}" if anchor and target == page_url else target
        return page.redirect(url, said(alliance), **params(alliance), **_words(page.request, page.viewer.campaign))

    return page_action(page, action, again=partial(_page, page), ask=ask, done=done)


@router.post("/campaigns/{cid}/alliances/{aid}/accept")
def accept(aid: PathId, page: CampaignPage):
    return _answer(
        page,
        lambda: service.accept(page.session, actor=page.user, campaign_id=page.cid, alliance_id=aid),
        lambda alliance, campaign: CONFIRM_ACCEPT if campaign.alliance_fee else None,
        lambda alliance: N_("You joined the %(alliance)s for %(event)s and paid %(n)s gold."),
        anchor=True,
    )


@router.post("/campaigns/{cid}/alliances/{aid}/decline")
def decline(aid: PathId, page: CampaignPage):
    return _answer(
        page,
        lambda: service.decline(page.session, actor=page.user, campaign_id=page.cid, alliance_id=aid),
        lambda alliance, campaign: CONFIRM_DECLINE,
        lambda alliance: N_("You declined the invitation to the %(alliance)s for %(event)s."),
    )


@router.post("/campaigns/{cid}/alliances/{aid}/withdraw")
def withdraw(aid: PathId, page: CampaignPage):
    return _answer(
        page,
        lambda: service.withdraw(page.session, actor=page.user, campaign_id=page.cid, alliance_id=aid),
        lambda alliance, campaign: CONFIRM_WITHDRAW_INITIATOR if alliance.status == "ended" else CONFIRM_WITHDRAW,
        lambda alliance: (
            N_("You withdrew: the %(alliance)s for %(event)s is over for everybody.")
            if alliance.status == "ended"
            else N_("You withdrew from the %(alliance)s for %(event)s.")
        ),
    )


# --- on other pages: the dashboard, the map's event sheet, the warband pages ----------------------


def dashboard_panel(session, viewer: Viewer):
    """Invitations waiting for this player, with one-tap answers, and the way to the page."""
    if viewer.player is None or not _open(viewer.campaign):
        return None
    waiting = service.waiting(session, viewer)
    return "alliances/_dashboard.html", {
        "waiting": waiting,
        "names": campaigns.nicknames(session, viewer.campaign.id) if waiting else {},
    }


class Pacts:
    """A player's own mission alliances of this round, for the map's event sheet and the
    warband pages (`pacts` in their templates). Loaded on first use, so a page that shows
    none of it runs no statement; only what `service.alliances` lets this viewer see."""

    def __init__(self, session, viewer: Viewer):
        self._session, self._viewer = session, viewer
        self.me = viewer.player.id

    @property
    def open(self) -> bool:
        return _open(self._viewer.campaign)

    @cached_property
    def _own(self) -> list[service.AllianceView]:
        views = service.alliances(self._session, self._viewer, current_only=True)
        return [v for v in views if v.alliance.status == "active" and _status(v, self.me) in ("member", "invited")]

    @cached_property
    def names(self) -> dict[int, str]:
        return campaigns.nicknames(self._session, self._viewer.campaign.id) if self._own else {}

    @cached_property
    def in_guild(self) -> bool:
        return self.me in _guild_of(self._session, self._viewer.campaign)

    @property
    def mine(self) -> list[service.AllianceView]:
        return [v for v in self._own if _status(v, self.me) == "member"]

    @property
    def waiting(self) -> list[service.AllianceView]:
        return [v for v in self._own if _status(v, self.me) == "invited"] if self.open else []

    def at_event(self, event_id: int) -> list[service.AllianceView]:
        return [v for v in self._own if v.alliance.event_id == event_id]

    def status(self, view: service.AllianceView) -> str | None:
        return _status(view, self.me)

    @property
    def can_make(self) -> bool:
        return self.open and not self.in_guild

    def can_ally(self, event_id: int) -> bool:
        """The sheet's "Ally with…": not for an event the player is already allied at."""
        return self.can_make and not any(v.alliance.event_id == event_id for v in self.mine)


def pacts_hook(context: dict) -> dict:
    viewer = context.get("viewer")
    if not isinstance(viewer, Viewer) or viewer.player is None or viewer.campaign.status != "running":
        return {"pacts": None}
    if not viewer.campaign.modules.get(service.MODULE):
        return {"pacts": None}
    session = object_session(viewer.campaign)
    return {"pacts": Pacts(session, viewer) if session is not None else None}
