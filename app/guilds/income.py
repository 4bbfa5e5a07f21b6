"""The guilds' income at End round (R8.5, R7.6)."""

from __future__ import annotations

from collections import defaultdict

from sqlmodel import Session, select

from app.campaigns.models import Campaign
from app.core.errors import N_
from app.gold import service as gold
from app.guilds import rules
from app.guilds.membership import MODULE
from app.guilds.models import Guild, GuildMember


def pay_income(session: Session, campaign: Campaign) -> None:
    """End round (R8.5, R7.6): each guild's N × level income, shared equally by its members,
    each share rounded up; one ledger entry per member."""
    if not campaign.modules.get(MODULE):
        return
    members: dict[int, list[int]] = defaultdict(list)
    for guild_id, player_id in session.exec(
        select(GuildMember.guild_id, GuildMember.player_id)
        .where(GuildMember.campaign_id == campaign.id)
        .order_by(GuildMember.player_id)
    ).all():
        members[guild_id].append(player_id)
    settings = campaign.guild
    for guild in session.exec(
        select(Guild).where(Guild.campaign_id == campaign.id, Guild.status == "active").order_by(Guild.id)
    ).all():
        share = rules.income_share(guild.level, settings["level_income"], len(members[guild.id]))
        if share <= 0:
            continue
        for player_id in members[guild.id]:
            gold.credit(
                session,
                campaign=campaign,
                player_id=player_id,
                amount=share,
                kind="guild_income",
                note=N_("%(name)s, level %(level)s"),
                params={"name": guild.name, "level": guild.level},
            )
