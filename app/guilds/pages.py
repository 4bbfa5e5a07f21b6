"""Guild pages (R8.1-R8.6, R9.2): the Guilds page reached from the Players tab (the list,
mine first with each member's share of the next income, requests and invitations waiting,
founding, asking, inviting, upgrading, leaving, dissolving), the guild column of the Players
tab, and the dashboard panel of what waits for a player. Every text names guilds with the
campaign's word (R8.2). Paid and one-way steps ask first (a dialog with JavaScript, a confirm
page without); every success redirects with a flash message; a refusal shows the page again
with the reason and changes nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

from fastapi import APIRouter, Request
from sqlalchemy.orm import object_session

from app.campaigns import pages as campaign_pages
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.service import nicknames
from app.campaigns.terms import campaign_words
from app.core.errors import N_, DomainError
from app.core.forms import blank_to_none, typed, unplaced, validate
from app.core.page_actions import Ask, page_action
from app.core.rows import row_by_id
from app.core.templating import render, request_gettext
from app.core.types import PathId
from app.guilds import rules, service
from app.guilds.guilds_view import (
    CONFIRM_ASK,
    CONFIRM_DISSOLVE,
    CONFIRM_FOUND,
    CONFIRM_JOIN,
    CONFIRM_LEAVE,
    CONFIRM_UPGRADE,
    guilds_view,
    settings_of,
)
from app.guilds.models import Guild
from app.guilds.schemas import GuildIn, GuildInvitationIn

router = APIRouter()
LABELS = {"name": N_("Name"), "player_id": N_("Player")}
# Refusals of founding that belong to the name field.
NAME_REFUSALS = ("guild_name_taken",)


def _words(request: Request, campaign) -> Mapping[str, str]:
    """The campaign's words, translated, for a flash message (stored as text in the cookie)."""
    return campaign_words(campaign, request_gettext(request))


def _page(page: CampaignContext, status_code: int = 200, **extra):
    viewer = page.viewer
    campaign = viewer.campaign
    shown = guilds_view(page.session, viewer)  # refuses with module_disabled when the module is off (R9.6)
    settings = settings_of(campaign)
    return render(
        page.request,
        "guilds/guilds.html",
        status_code=status_code,
        viewer=viewer,
        campaign=campaign,
        page=shown,
        settings=settings,
        rules=rules,
        found_cost=rules.upgrade_cost(1, settings["level_cost"]),
        can_act=campaign.status == "running" and viewer.player is not None,
        tab="guilds",
        guilds_tab=None,
        **extra,
    )


@router.get("/campaigns/{cid}/guilds")
def guilds_page(page: CampaignPage):
    return _page(page)


def _ask(page: CampaignContext, texts: tuple[str, str, str], danger: bool = False, **params) -> Ask:
    """A guild action's confirm step, in the campaign's words."""
    words = _words(page.request, page.viewer.campaign)
    return page.ask(texts, cancel=f"/campaigns/{page.cid}/guilds", tab="guilds", danger=danger, **words, **params)


def _back(page: CampaignContext, anchor: str, message: str, **params):
    return page.redirect(f"/campaigns/{page.cid}/guilds{anchor}", message, **params)


def _guild_name(session, cid: int, gid: int) -> str:
    guild = row_by_id(session, Guild, gid)
    return guild.name if guild is not None and guild.campaign_id == cid else ""


@router.post("/campaigns/{cid}/guilds")
def found(page: CampaignPage):
    """R8.1: a player founds a guild for the cost of level 1 and names it."""
    data = typed(page.form, "name")
    body, errors = validate(page.request, GuildIn, data, LABELS)
    if errors:
        return _page(page, status_code=422, errors=errors, form=data)
    campaign = page.viewer.campaign
    cost = rules.upgrade_cost(1, settings_of(campaign)["level_cost"])
    words = _words(page.request, campaign)
    return page_action(
        page,
        lambda: service.found(page.session, actor=page.user, campaign_id=page.cid, name=body.name),
        again=partial(_page, page, form=data),
        fields=dict.fromkeys(NAME_REFUSALS, ("name", LABELS["name"])),
        ask=lambda guild: _ask(page, CONFIRM_FOUND, name=guild.name, n=cost),
        done=lambda guild: _back(
            page, f"#guild-{guild.id}", N_("You founded the %(guild)s %(name)s for %(n)s gold."), name=guild.name, n=cost, **words
        ),
    )


@router.post("/campaigns/{cid}/guilds/{gid}/requests")
def ask(gid: PathId, page: CampaignPage):
    """R8.3: a request to join, paid; the fee is not returned whatever the answer."""
    campaign = page.viewer.campaign
    settings, words, name = settings_of(campaign), _words(page.request, campaign), _guild_name(page.session, page.cid, gid)
    fee, entry = settings["request_fee"], settings["entry_fee"]
    return page_action(
        page,
        lambda: service.ask(page.session, actor=page.user, campaign_id=page.cid, guild_id=gid),
        again=partial(_page, page),
        ask=lambda _req: _ask(page, CONFIRM_ASK, name=name, n=fee, fee=entry),
        done=lambda req: _back(
            page,
            f"#guild-{gid}",
            N_("Request to join the %(guild)s %(name)s sent; %(n)s gold paid."),
            name=name,
            n=req.fee,
            **words,
        ),
    )


@router.post("/campaigns/{cid}/guilds/{gid}/requests/{rid}/{decision}")
def decide_request(gid: PathId, rid: PathId, decision: str, page: CampaignPage):
    """The founder accepts (the newcomer pays the entry fee) or rejects a request, in one tap."""
    campaign = page.viewer.campaign
    words, name, names = (
        _words(page.request, campaign),
        _guild_name(page.session, page.cid, gid),
        nicknames(page.session, page.cid),
    )

    def action():
        if decision not in ("accept", "reject"):
            raise DomainError("not_found")
        return service.decide_request(
            page.session, actor=page.user, campaign_id=page.cid, guild_id=gid, request_id=rid, accept=decision == "accept"
        )

    def done(req):
        nickname = names.get(req.player_id, "")
        if decision == "accept":
            return _back(
                page, f"#guild-{gid}", N_("%(player)s joined the %(guild)s %(name)s."), player=nickname, name=name, **words
            )
        return _back(page, f"#guild-{gid}", N_("You rejected the request of %(nickname)s."), nickname=nickname)

    return page_action(page, action, again=partial(_page, page), done=done)


@router.post("/campaigns/{cid}/guilds/{gid}/invitations")
def invite(gid: PathId, page: CampaignPage):
    """R8.3: the founder invites a player, free (from the Guilds page or the Players tab)."""
    from_players = page.form.get("from") == "players"
    again = partial(campaign_pages.players_page, page) if from_players else partial(_page, page)
    body, errors = validate(page.request, GuildInvitationIn, blank_to_none(typed(page.form, "player_id")), LABELS)
    if errors:
        return again(status_code=422, error=unplaced(errors))
    cid = page.cid
    campaign = page.viewer.campaign
    words, name, names = _words(page.request, campaign), _guild_name(page.session, cid, gid), nicknames(page.session, cid)

    def done(_invitation):
        target = f"/campaigns/{cid}/players" if from_players else f"/campaigns/{cid}/guilds#guild-{gid}"
        return page.redirect(
            target,
            N_("%(nickname)s is invited to the %(guild)s %(name)s."),
            nickname=names.get(body.player_id, ""),
            name=name,
            **words,
        )

    return page_action(
        page,
        lambda: service.invite(page.session, actor=page.user, campaign_id=cid, guild_id=gid, player_id=body.player_id),
        again=again,
        done=done,
    )


@router.post("/campaigns/{cid}/guilds/{gid}/invitations/{iid}/{decision}")
def answer_invitation(gid: PathId, iid: PathId, decision: str, page: CampaignPage):
    """The invited player accepts (pays the entry fee: asks first) or declines."""
    campaign = page.viewer.campaign
    entry, words, name = (
        settings_of(campaign)["entry_fee"],
        _words(page.request, campaign),
        _guild_name(page.session, page.cid, gid),
    )

    def action():
        if decision not in ("accept", "decline"):
            raise DomainError("not_found")
        return service.answer_invitation(
            page.session, actor=page.user, campaign_id=page.cid, guild_id=gid, invitation_id=iid, accept=decision == "accept"
        )

    def done(_invitation):
        if decision == "accept":
            return _back(
                page,
                f"#guild-{gid}",
                N_("You joined the %(guild)s %(name)s; entry fee %(n)s gold paid."),
                name=name,
                n=entry,
                **words,
            )
        return _back(page, "", N_("You declined the invitation of the %(guild)s %(name)s."), name=name, **words)

    return page_action(
        page,
        action,
        again=partial(_page, page),
        ask=lambda _invitation: _ask(page, CONFIRM_JOIN, name=name, n=entry) if decision == "accept" else None,
        done=done,
    )


@router.post("/campaigns/{cid}/guilds/{gid}/upgrade")
def upgrade(gid: PathId, page: CampaignPage):
    """R8.4: the founder pays N × the level cost for level N."""
    campaign = page.viewer.campaign
    words, cost = _words(page.request, campaign), settings_of(campaign)["level_cost"]

    def ask_(guild):
        return _ask(page, CONFIRM_UPGRADE, name=guild.name, level=guild.level, cost=cost, n=rules.upgrade_cost(guild.level, cost))

    def done(guild):
        return _back(
            page,
            f"#guild-{gid}",
            N_("The %(guild)s %(name)s rose to level %(level)s."),
            name=guild.name,
            level=guild.level,
            **words,
        )

    return page_action(
        page,
        lambda: service.upgrade(page.session, actor=page.user, campaign_id=page.cid, guild_id=gid),
        again=partial(_page, page),
        ask=ask_,
        done=done,
    )


@router.post("/campaigns/{cid}/guilds/{gid}/leave")
def leave(gid: PathId, page: CampaignPage):
    """R8.6: a member leaves (never during a shared battle not yet resolved)."""
    words, name = _words(page.request, page.viewer.campaign), _guild_name(page.session, page.cid, gid)
    return page_action(
        page,
        lambda: service.leave(page.session, actor=page.user, campaign_id=page.cid, guild_id=gid),
        again=partial(_page, page),
        ask=lambda _guild: _ask(page, CONFIRM_LEAVE, name=name),
        done=lambda _guild: _back(page, "", N_("You left the %(guild)s %(name)s."), name=name, **words),
    )


@router.post("/campaigns/{cid}/guilds/{gid}/dissolve")
def dissolve(gid: PathId, page: CampaignPage):
    """The founder dissolves the guild: members leave, waiting offers lapse."""
    words, name = _words(page.request, page.viewer.campaign), _guild_name(page.session, page.cid, gid)
    return page_action(
        page,
        lambda: service.dissolve(page.session, actor=page.user, campaign_id=page.cid, guild_id=gid),
        again=partial(_page, page),
        ask=lambda _guild: _ask(page, CONFIRM_DISSOLVE, danger=True, name=name),
        done=lambda _guild: _back(page, "", N_("You dissolved the %(guild)s %(name)s."), name=name, **words),
    )


# --- the Players tab and the dashboard -------------------------------------------------------


@dataclass
class PlayersTab:
    """The guild column of the Players tab: each guild's name, the viewer's founded guild when
    it has room (for one-tap invitations), who is already asked, and what waits for the viewer."""

    names: dict[int, str]
    invite_to: Guild | None = None
    pending: dict = field(default_factory=dict)  # player id -> "invitation" or "request", waiting
    waiting: int = 0


def players_tab(context: dict) -> dict:
    """Template hook: the Players tab (campaigns/pages.py renders it, with no call of ours) gets
    the campaign's guilds through the guild service's read (`service.guilds`: three statements,
    whatever the size), with the module on only. The session is the one the page's campaign
    row was loaded in."""
    campaign, viewer, players = context.get("campaign"), context.get("viewer"), context.get("players")
    if (
        context.get("tab") != "players"
        or "guilds_tab" in context
        or players is None
        or viewer is None
        or campaign is None
        or not (campaign.modules or {}).get(service.MODULE)
    ):
        return {}
    session = object_session(campaign)
    if session is None:
        return {}
    views = service.guilds(session, viewer)
    me = viewer.player.id if viewer.player else None
    tab = PlayersTab(names={v.guild.id: v.guild.name for v in views})
    for v in views:
        tab.waiting += sum(1 for r in v.requests if r.kind == "invitation" and r.player_id == me)
        if v.guild.founder_player_id == me:
            tab.waiting += sum(1 for r in v.requests if r.kind == "request")
            tab.pending = {r.player_id: r.kind for r in v.requests}
            if v.has_room and campaign.status == "running":
                tab.invite_to = v.guild
    return {"guilds_tab": tab}


def dashboard_panel(session, viewer):
    """What waits for a player: requests to their guild to decide, invitations to answer."""
    waiting = service.waiting(session, viewer)
    if not len(waiting):
        return None
    return "guilds/_dashboard.html", {
        "waiting": waiting,
        "names": nicknames(session, viewer.campaign.id) if waiting.requests else {},
        "entry_fee": settings_of(viewer.campaign)["entry_fee"],
    }
