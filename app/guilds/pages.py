"""Guild pages (R8.1-R8.6, R9.2): the Guilds page reached from the Players tab (the list,
mine first with each member's share of the next income, requests and invitations waiting,
founding, asking, inviting, upgrading, leaving, dissolving), the guild column of the Players
tab, and the dashboard panel of what waits for a player. Every text names guilds with the
campaign's word (R8.2). Paid and one-way steps ask first (a dialog with JavaScript, a confirm
page without); every success redirects with a flash message; a refusal shows the page again
with the reason and changes nothing."""
from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import APIRouter, Request
from sqlalchemy.orm import object_session

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import pages as campaign_pages, service as campaigns
from app.campaigns.rules import DEFAULT_GUILD
from app.campaigns.service import campaign_of
from app.campaigns.terms import campaign_words
from app.core import flash
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, confirm_page, confirmed, field_refusal, refusal, typed, unplaced, validate
from app.core.templating import add_context_hook, render, request_gettext
from app.core.types import PathId
from app.guilds import rules, service
from app.guilds.models import Guild
from app.guilds.schemas import GuildIn, GuildInvitationIn
from app.campaigns.service import nicknames

router = APIRouter()
LABELS = {"name": N_("Name"), "player_id": N_("Player")}
# Refusals of founding that belong to the name field.
NAME_REFUSALS = ("guild_name_taken",)

# The confirm steps: (question, detail, button), each filled with the campaign's words and
# the amounts. The page's buttons carry the same texts for the dialog.
CONFIRM_FOUND = (N_("Found the %(guild)s %(name)s?"), N_("You pay %(n)s gold, the cost of level 1; it is not returned."),
                 N_("Found for %(n)s gold"))
CONFIRM_ASK = (N_("Ask to join the %(guild)s %(name)s?"),
               N_("The request costs %(n)s gold, which is not returned, whatever the answer. Once accepted, you pay the entry fee of %(fee)s gold."),
               N_("Ask to join for %(n)s gold"))
CONFIRM_JOIN = (N_("Join the %(guild)s %(name)s?"), N_("You pay the entry fee of %(n)s gold; it is not returned."),
                N_("Join for %(n)s gold"))
CONFIRM_UPGRADE = (N_("Raise the %(guild)s %(name)s to level %(level)s?"),
                   N_("You pay %(n)s gold (level %(level)s × %(cost)s); the %(guild)s then allows %(level)s allies besides the founder."),
                   N_("Upgrade to level %(level)s for %(n)s gold"))
CONFIRM_LEAVE = (N_("Leave the %(guild)s %(name)s?"), N_("Nothing paid is returned; to come back you must be invited or ask again."),
                 N_("Leave"))
CONFIRM_DISSOLVE = (N_("Dissolve the %(guild)s %(name)s?"),
                    N_("Every member leaves, waiting requests and invitations lapse and nothing paid is returned. This cannot be undone."),
                    N_("Dissolve"))


@dataclass
class Page:
    """What the Guilds page shows to this viewer."""

    mine: service.GuildView | None
    others: list[service.GuildView]
    names: dict[int, str]
    me: int | None
    gold: int | None
    founder: bool = False
    to_decide: list = field(default_factory=list)        # requests to my guild (founder)
    invited: list = field(default_factory=list)          # invitations my guild sent, waiting (founder)
    invitable: list = field(default_factory=list)        # players the founder may invite
    invitations: list = field(default_factory=list)      # (invitation, guild view) waiting for me
    asked: set = field(default_factory=set)              # guilds I asked to join, waiting


def _settings(campaign) -> dict:
    return {**DEFAULT_GUILD, **(campaign.guild or {})}


def _words(request: Request, campaign) -> dict[str, str]:
    """The campaign's words, translated, for a flash message (stored as text in the cookie)."""
    return campaign_words(campaign, request_gettext(request))


def _view(session, viewer) -> Page:
    views = service.guilds(session, viewer)
    players = campaigns.players(session, viewer.campaign.id, viewer)
    me = viewer.player.id if viewer.player else None
    mine = next((v for v in views if me is not None and me in v.member_ids), None)
    page = Page(mine=mine, others=[v for v in views if v is not mine], names={p.player_id: p.nickname for p in players}, me=me,
                gold=next((p.gold for p in players if p.player_id == me), None))
    for v in views:
        for r in v.requests:
            if r.kind == "invitation" and r.player_id == me:
                page.invitations.append((r, v))
            elif r.kind == "request" and r.player_id == me:
                page.asked.add(v.guild.id)
    if mine is not None and mine.guild.founder_player_id == me:
        page.founder = True
        page.to_decide = [r for r in mine.requests if r.kind == "request"]
        page.invited = [r for r in mine.requests if r.kind == "invitation"]
        waiting_ids = {r.player_id for r in mine.requests}
        page.invitable = [p for p in players if p.guild_id is None and p.player_id != me and p.player_id not in waiting_ids]
    return page


def _page(request, session, user, cid, status_code: int = 200, **extra):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    campaign = viewer.campaign
    page = _view(session, viewer)  # refuses with module_disabled when the module is off (R9.6)
    settings = _settings(campaign)
    return render(request, "guilds/guilds.html", status_code=status_code, viewer=viewer, campaign=campaign, page=page,
                  settings=settings, rules=rules, found_cost=rules.upgrade_cost(1, settings["level_cost"]),
                  can_act=campaign.status == "running" and viewer.player is not None, tab="guilds", guilds_tab=None, **extra)


@router.get("/campaigns/{cid}/guilds")
def guilds_page(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    return _page(request, session, user, cid)


def _confirm(request, session, user, cid, form, texts: tuple[str, str, str], danger: bool = False):
    """The confirm step without JavaScript (core/forms.confirm_page rolls the rehearsal back)."""
    question, detail, button = texts
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return confirm_page(request, session, form, question=question, detail=detail, button=button, action=str(request.url.path),
                        cancel=f"/campaigns/{cid}/guilds", danger=danger, viewer=viewer, campaign=viewer.campaign, tab="guilds")


def _act(request, session, user, cid, form, action, done, ask=None, back=None, danger=False):
    """Run a guild action. `ask(result)` gives (question, detail, button) of a confirm step:
    without confirm=1 the action is only rehearsed, rolled back, and the confirm page asks.
    `done(result)` redirects with a flash message. A refusal shows `back` (the Guilds page)
    with the reason, after rolling back."""
    back = back or _page
    try:
        result = action()
    except DomainError as exc:
        return back(request, session, user, cid, status_code=exc.status, error=refusal(request, session, exc))
    if ask is not None and not confirmed(form):
        return _confirm(request, session, user, cid, form, ask(result), danger)
    return done(result)


def _texts_of(request, texts, **params):
    gettext = request_gettext(request)
    return tuple(gettext(t) % params for t in texts)


def _asker(request, campaign, texts, **params):
    """The confirm step's texts for a guild action, in the campaign's words."""
    return lambda _result: _texts_of(request, texts, **_words(request, campaign), **params)


def _campaign(session, user, cid):
    return campaign_of(session, actor=user, campaign_id=cid).campaign


def _back(request, cid: int, anchor: str, message: str, **params):
    return flash.redirect(request, f"/campaigns/{cid}/guilds{anchor}", message, **params)


def _guild_name(session, cid: int, gid: int) -> str:
    guild = session.get(Guild, gid)
    return guild.name if guild is not None and guild.campaign_id == cid else ""


@router.post("/campaigns/{cid}/guilds")
def found(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """R8.1: a player founds a guild for the cost of level 1 and names it."""
    data = typed(form, "name")
    body, errors = validate(request, GuildIn, data, LABELS)
    if errors:
        return _page(request, session, user, cid, status_code=422, errors=errors, form=data)
    campaign = _campaign(session, user, cid)
    cost = rules.upgrade_cost(1, _settings(campaign)["level_cost"])
    words = _words(request, campaign)
    try:
        guild = service.found(session, actor=user, campaign_id=cid, name=body.name)
    except DomainError as exc:
        if exc.code in NAME_REFUSALS:
            errors = {"name": field_refusal(request, session, exc, LABELS["name"])}
            return _page(request, session, user, cid, status_code=exc.status, errors=errors, form=data)
        return _page(request, session, user, cid, status_code=exc.status, error=refusal(request, session, exc), form=data)
    if not confirmed(form):
        return _confirm(request, session, user, cid, form, _texts_of(request, CONFIRM_FOUND, **words, name=guild.name, n=cost))
    return _back(request, cid, f"#guild-{guild.id}", N_("You founded the %(guild)s %(name)s for %(n)s gold."),
                 name=guild.name, n=cost, **words)


@router.post("/campaigns/{cid}/guilds/{gid}/requests")
def ask(cid: PathId, gid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """R8.3: a request to join, paid; the fee is not returned whatever the answer."""
    campaign = _campaign(session, user, cid)
    settings, words, name = _settings(campaign), _words(request, campaign), _guild_name(session, cid, gid)
    fee, entry = settings["request_fee"], settings["entry_fee"]
    return _act(request, session, user, cid, form, lambda: service.ask(session, actor=user, campaign_id=cid, guild_id=gid),
                lambda req: _back(request, cid, f"#guild-{gid}", N_("Request to join the %(guild)s %(name)s sent; %(n)s gold paid."),
                                  name=name, n=req.fee, **words),
                _asker(request, campaign, CONFIRM_ASK, name=name, n=fee, fee=entry))


@router.post("/campaigns/{cid}/guilds/{gid}/requests/{rid}/{decision}")
def decide_request(cid: PathId, gid: PathId, rid: PathId, decision: str, request: Request, user: PageLogin, session: SessionDep,
                   form: Form):
    """The founder accepts (the newcomer pays the entry fee) or rejects a request, in one tap."""
    campaign = _campaign(session, user, cid)
    words, name, names = _words(request, campaign), _guild_name(session, cid, gid), nicknames(session, cid)

    def action():
        if decision not in ("accept", "reject"):
            raise DomainError("not_found")
        return service.decide_request(session, actor=user, campaign_id=cid, guild_id=gid, request_id=rid, accept=decision == "accept")

    def done(req):
        nickname = names.get(req.player_id, "")
        if decision == "accept":
            return _back(request, cid, f"#guild-{gid}", N_("%(player)s joined the %(guild)s %(name)s."), player=nickname, name=name, **words)
        return _back(request, cid, f"#guild-{gid}", N_("You rejected the request of %(nickname)s."), nickname=nickname)

    return _act(request, session, user, cid, form, action, done)


def _players_back(request, session, user, cid, status_code: int = 200, **extra):
    return campaign_pages._players_page(request, session, user, cid, status_code=status_code, **extra)


@router.post("/campaigns/{cid}/guilds/{gid}/invitations")
def invite(cid: PathId, gid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """R8.3: the founder invites a player, free (from the Guilds page or the Players tab)."""
    from_players = form.get("from") == "players"
    back = _players_back if from_players else _page
    body, errors = validate(request, GuildInvitationIn, blank_to_none(typed(form, "player_id")), LABELS)
    if errors:
        return back(request, session, user, cid, status_code=422, error=unplaced(errors))
    campaign = _campaign(session, user, cid)
    words, name, names = _words(request, campaign), _guild_name(session, cid, gid), nicknames(session, cid)

    def done(_invitation):
        target = f"/campaigns/{cid}/players" if from_players else f"/campaigns/{cid}/guilds#guild-{gid}"
        return flash.redirect(request, target, N_("%(nickname)s is invited to the %(guild)s %(name)s."),
                              nickname=names.get(body.player_id, ""), name=name, **words)

    return _act(request, session, user, cid, form,
                lambda: service.invite(session, actor=user, campaign_id=cid, guild_id=gid, player_id=body.player_id), done, back=back)


@router.post("/campaigns/{cid}/guilds/{gid}/invitations/{iid}/{decision}")
def answer_invitation(cid: PathId, gid: PathId, iid: PathId, decision: str, request: Request, user: PageLogin, session: SessionDep,
                      form: Form):
    """The invited player accepts (pays the entry fee: asks first) or declines."""
    campaign = _campaign(session, user, cid)
    entry, words, name = _settings(campaign)["entry_fee"], _words(request, campaign), _guild_name(session, cid, gid)

    def action():
        if decision not in ("accept", "decline"):
            raise DomainError("not_found")
        return service.answer_invitation(session, actor=user, campaign_id=cid, guild_id=gid, invitation_id=iid,
                                         accept=decision == "accept")

    def done(_invitation):
        if decision == "accept":
            return _back(request, cid, f"#guild-{gid}", N_("You joined the %(guild)s %(name)s; entry fee %(n)s gold paid."),
                         name=name, n=entry, **words)
        return _back(request, cid, "", N_("You declined the invitation of the %(guild)s %(name)s."), name=name, **words)

    ask_ = _asker(request, campaign, CONFIRM_JOIN, name=name, n=entry) if decision == "accept" else None
    return _act(request, session, user, cid, form, action, done, ask_)


@router.post("/campaigns/{cid}/guilds/{gid}/upgrade")
def upgrade(cid: PathId, gid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """R8.4: the founder pays N × the level cost for level N."""
    campaign = _campaign(session, user, cid)
    words, cost = _words(request, campaign), _settings(campaign)["level_cost"]

    def ask_(guild):
        return _texts_of(request, CONFIRM_UPGRADE, **words, name=guild.name, level=guild.level, cost=cost,
                         n=rules.upgrade_cost(guild.level, cost))

    def done(guild):
        return _back(request, cid, f"#guild-{gid}", N_("The %(guild)s %(name)s rose to level %(level)s."), name=guild.name,
                     level=guild.level, **words)

    return _act(request, session, user, cid, form, lambda: service.upgrade(session, actor=user, campaign_id=cid, guild_id=gid), done, ask_)


@router.post("/campaigns/{cid}/guilds/{gid}/leave")
def leave(cid: PathId, gid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """R8.6: a member leaves (never during a shared battle not yet resolved)."""
    campaign = _campaign(session, user, cid)
    words, name = _words(request, campaign), _guild_name(session, cid, gid)
    return _act(request, session, user, cid, form, lambda: service.leave(session, actor=user, campaign_id=cid, guild_id=gid),
                lambda _g: _back(request, cid, "", N_("You left the %(guild)s %(name)s."), name=name, **words),
                _asker(request, campaign, CONFIRM_LEAVE, name=name))


@router.post("/campaigns/{cid}/guilds/{gid}/dissolve")
def dissolve(cid: PathId, gid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """The founder dissolves the guild: members leave, waiting offers lapse."""
    campaign = _campaign(session, user, cid)
    words, name = _words(request, campaign), _guild_name(session, cid, gid)
    return _act(request, session, user, cid, form, lambda: service.dissolve(session, actor=user, campaign_id=cid, guild_id=gid),
                lambda _g: _back(request, cid, "", N_("You dissolved the %(guild)s %(name)s."), name=name, **words),
                _asker(request, campaign, CONFIRM_DISSOLVE, name=name), danger=True)


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
    if context.get("tab") != "players" or "guilds_tab" in context or players is None or viewer is None or campaign is None \
            or not (campaign.modules or {}).get(service.MODULE):
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


add_context_hook(players_tab)


def dashboard_panel(session, viewer):
    """What waits for a player: requests to their guild to decide, invitations to answer."""
    waiting = service.waiting(session, viewer)
    if not len(waiting):
        return None
    return "guilds/_dashboard.html", {"waiting": waiting, "names": nicknames(session, viewer.campaign.id) if waiting.requests else {},
                                      "entry_fee": _settings(viewer.campaign)["entry_fee"]}


campaign_pages.add_dashboard_panel(dashboard_panel)
