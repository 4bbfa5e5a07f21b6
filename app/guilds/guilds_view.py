"""What the Guilds page shows and asks (R8.1-R8.6): the viewer's guild, the others, what waits
for the viewer and the founder, and the confirm steps' texts."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.campaigns import service as campaigns
from app.campaigns.rules import DEFAULT_GUILD
from app.core.errors import N_
from app.guilds import service

# The confirm steps: (question, detail, button), each filled with the campaign's words and
# the amounts. The page's buttons carry the same texts for the dialog.
CONFIRM_FOUND = (
    N_("Found the %(guild)s %(name)s?"),
    N_("You pay %(n)s gold, the cost of level 1; it is not returned."),
    N_("Found for %(n)s gold"),
)
CONFIRM_ASK = (
    N_("Ask to join the %(guild)s %(name)s?"),
    N_(
        "The request costs %(n)s gold, which is not returned, whatever the answer. Once accepted, you pay the entry fee of %(fee)s gold."
    ),
    N_("Ask to join for %(n)s gold"),
)
CONFIRM_JOIN = (
    N_("Join the %(guild)s %(name)s?"),
    N_("You pay the entry fee of %(n)s gold; it is not returned."),
    N_("Join for %(n)s gold"),
)
CONFIRM_UPGRADE = (
    N_("Raise the %(guild)s %(name)s to level %(level)s?"),
    N_("You pay %(n)s gold (level %(level)s × %(cost)s); the %(guild)s then allows %(level)s allies besides the founder."),
    N_("Upgrade to level %(level)s for %(n)s gold"),
)
CONFIRM_LEAVE = (
    N_("Leave the %(guild)s %(name)s?"),
    N_("Nothing paid is returned; to come back you must be invited or ask again."),
    N_("Leave"),
)
CONFIRM_DISSOLVE = (
    N_("Dissolve the %(guild)s %(name)s?"),
    N_("Every member leaves, waiting requests and invitations lapse and nothing paid is returned. This cannot be undone."),
    N_("Dissolve"),
)


@dataclass
class Page:
    """What the Guilds page shows to this viewer."""

    mine: service.GuildView | None
    others: list[service.GuildView]
    names: dict[int, str]
    me: int | None
    gold: int | None
    founder: bool = False
    to_decide: list = field(default_factory=list)  # requests to my guild (founder)
    invited: list = field(default_factory=list)  # invitations my guild sent, waiting (founder)
    invitable: list = field(default_factory=list)  # players the founder may invite
    invitations: list = field(default_factory=list)  # (invitation, guild view) waiting for me
    asked: set = field(default_factory=set)  # guilds I asked to join, waiting


def settings_of(campaign) -> dict:
    """The campaign's guild settings (fees, level cost), the defaults filled in."""
    return {**DEFAULT_GUILD, **(campaign.guild or {})}


def guilds_view(session, viewer) -> Page:
    """What the Guilds page shows to this viewer; refuses with module_disabled when the module
    is off (R9.6)."""
    views = service.guilds(session, viewer)
    players = campaigns.players(session, viewer.campaign.id, viewer)
    me = viewer.player.id if viewer.player else None
    mine = next((v for v in views if me is not None and me in v.member_ids), None)
    page = Page(
        mine=mine,
        others=[v for v in views if v is not mine],
        names={p.player_id: p.nickname for p in players},
        me=me,
        gold=next((p.gold for p in players if p.player_id == me), None),
    )
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
